"""`ragsweep data check` on the built-in sample, and on a broken copy of it for each error kind
the issue names: one line naming the file, the line and the field; exit code 2; no traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragsweep.cli import main
from ragsweep.data import sample_path


def test_the_sample_passes_with_its_statistics(capsys):
    assert main(["data", "check", "--format", "json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["questions"] == 400
    assert stats["questions_per_slice"] == {
        "limits": 80, "exclusions": 80, "procedures": 80, "definitions": 80, "identifiers": 80
    }  # fmt: skip
    assert stats["clauses"] >= 300 and stats["words"] >= 100_000
    assert stats["multi_relevant_questions"] >= 100
    assert stats["log_entries"] >= 5000
    assert stats["pool_judged"]["share"] == 1.0


def rewrite_line(path: Path, number: int, change) -> None:
    lines = path.read_text().splitlines()
    record = json.loads(lines[number - 1])
    change(record)
    lines[number - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def _set(key, value):
    return lambda r: r.__setitem__(key, value)


BREAKS = {
    # kind: (file, line, field, change, words the message must hold)
    "missing clause": ("labels.jsonl", 3, "section", _set("section", "9.99"), ["9.99"]),
    "duplicate qid": ("questions.jsonl", 7, "qid", _set("qid", "q0001"), ["q0001"]),
    "unknown slice": ("questions.jsonl", 5, "slice", _set("slice", "exclusion"), ["exclusion"]),
    "grade outside 0-2": ("labels.jsonl", 4, "grade", _set("grade", 3), ["3"]),
    "unknown version": ("questions.jsonl", 9, "version", _set("version", "2023"), ["2023"]),
    "pooled clause missing": (
        "review/pool.jsonl",
        2,
        "section",
        _set("section", "9.99"),
        ["9.99", "pool.jsonl"],
    ),
}


@pytest.mark.parametrize("kind", sorted(BREAKS))
def test_a_broken_copy_of_the_sample_is_refused_on_one_line(kind, tmp_path, capsys):
    name, line, field, change, words = BREAKS[kind]
    copy = tmp_path / "sample"
    shutil.copytree(sample_path(), copy)
    (copy / "MANIFEST.sha256").unlink()  # the manifest would (rightly) flag any edit first
    rewrite_line(copy / name, line, change)
    assert main(["data", "check", str(copy)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    assert f"{name}:{line}" in err, err
    assert f"'{field}'" in err, err
    for word in words:
        assert word in err
    assert captured.out == ""
