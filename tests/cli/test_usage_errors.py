"""Every verb's usage error is one line on stderr and exit code 2, naming where its help is,
never argparse's usage block above it (bad input, as every other)."""

from __future__ import annotations

import pytest

from ragsweep import cli


@pytest.mark.parametrize(
    "argv",
    [[verb, "--no-such-option"] for verb in sorted(cli.VERBS)]
    + [["data", "sample", "--seed", "-1"], ["labels", "audit-sheet", "--seed", "x"]],
)
def test_a_usage_error_is_one_line_exit_2(argv, capsys):
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert line.startswith(f"ragsweep {argv[0]}: error: ") and "--help`" in line
    assert "usage:" not in captured.err and captured.out == ""
