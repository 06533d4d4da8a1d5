"""A Hydra job run in the calling process sets up the root logger for itself (INFO lines to the
job's stdout and log file); `ragsweep.cli.main` puts it back as it was once the job is done, so
what runs afterwards in the process does not print through the job's handlers."""

from __future__ import annotations

import logging

from ragsweep.cli import main
from toy import TOY


def test_a_single_run_leaves_the_root_logger_as_it_was(workdir):
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    assert main([*TOY, "tracking.enabled=false"]) == 0
    assert (list(root.handlers), root.level) == before
    assert list(workdir.glob("outputs/**/app.log")), "the job wrote its own log file"
