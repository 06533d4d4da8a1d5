"""SIGTERM and SIGHUP stop a command as Ctrl-C does (`ragsweep.errors.stop_signals`): raised as
`Stopped` in the main thread, once, with the signal's exit status. What they do to a sweep in
each phase is in tests/experiment/test_faults.py."""

from __future__ import annotations

import os
import signal
import sys
import time
import types

import pytest

from ragsweep import cli
from ragsweep.errors import Stopped, stop_name, stop_signals, stop_status


def test_a_stop_signal_is_raised_once_then_only_recorded_and_the_handlers_come_back():
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}
    with stop_signals() as received:
        with pytest.raises(Stopped) as stopped:
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(5)  # the handler raises in here
        os.kill(os.getpid(), signal.SIGTERM)  # during the cleanup: recorded, not raised
        time.sleep(0.05)
    assert stopped.value.signum == signal.SIGHUP
    assert received == [signal.SIGHUP, signal.SIGTERM]
    assert {sig: signal.getsignal(sig) for sig in before} == before


def test_the_exit_status_is_the_signals_as_a_shell_reports_it():
    assert [stop_status(Stopped(signal.SIGTERM)), stop_status(Stopped(signal.SIGHUP))] == [143, 129]
    assert stop_status(KeyboardInterrupt()) == 130
    assert [stop_name(Stopped(signal.SIGTERM)), stop_name(KeyboardInterrupt())] == [
        "SIGTERM",
        "Ctrl-C",
    ]


def test_a_verb_stopped_by_sigterm_says_so_in_one_line(monkeypatch, capsys):
    def main(argv: list[str]) -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
        return 0

    monkeypatch.setitem(sys.modules, "stopped_verb", types.SimpleNamespace(main=main))
    monkeypatch.setitem(cli.VERBS, "score", "stopped_verb")
    assert cli.run_verb("score", []) == 143
    assert capsys.readouterr().err == "ragsweep score: stopped (SIGTERM)\n"
