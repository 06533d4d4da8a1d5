"""A user's own sweep file that is wrong is refused in one line naming the file and the fix,
exit 2, before anything is written: no `factor:`, YAML that does not parse, no
`# @package _global_` header, `values: []`, a value listed twice (in the file or on the command
line). Before, the first three printed 51-110 lines of traceback and a duplicate was dropped
without a word."""

from __future__ import annotations

import pytest

from conftest import cli_in
from toy import TOY

HEAD = "# @package _global_\n"
GOOD = {"name": "mine", "factor": "fusion.k", "values": "[10, 60]", "baseline": "60"}


def sweep_file(head: str = HEAD, **keys: str) -> str:
    body = {**GOOD, **keys}
    return head + "sweep:\n" + "".join(f"  {k}: {v}\n" for k, v in body.items() if v is not None)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (sweep_file(factor=None), "sweep file mine (sweeps/mine.yaml) has no factor under `sweep"),
        (sweep_file(values="[10, 60"), "sweeps/mine.yaml:6: not valid YAML ("),
        (sweep_file(head=""), "sweep file mine (sweeps/mine.yaml) lacks its first line `# @pa"),
        (sweep_file(values="[]"), "sweep file mine (sweeps/mine.yaml): values must be a list"),
        (sweep_file(values="[10, 10, 60]"), "the values of fusion.k list 10 more than once"),
    ],
    ids=["no factor", "bad yaml", "no header", "no values", "twice"],
)
def test_a_bad_sweep_file_is_one_line_and_exit_2(tmp_path, text, says):
    (tmp_path / "sweeps").mkdir()
    (tmp_path / "sweeps" / "mine.yaml").write_text(text)
    ran = cli_in(tmp_path, "-m", "sweep=mine", *TOY)
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert says in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweeps"]  # no store, no sweep folder


def test_a_value_given_twice_on_the_command_line_is_refused(tmp_path):
    ran = cli_in(tmp_path, "-m", *TOY, "fusion.k=10,10,60")
    assert ran.code == 2
    assert ran.err.strip() == (
        "ragsweep: error: the values of fusion.k list 10 more than once; list each value once"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("verb", ["ui", "server"])
def test_a_port_out_of_range_is_refused_by_the_parser(verb, capsys):
    from ragsweep.cli import main

    assert main([verb, "--port", "99999"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "99999 is not a port: give one from 1 to 65535" in line
