"""Synthetic questions (generated from the corpus) are a part of the set apart: `eval.subset=all`
scores the real ones only, `eval.subset=synthetic` only them, `labels freeze` refuses them, the
statistics count them and a report on them says so."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from conftest import cli_in
from ragsweep.compare.report import Report
from ragsweep.config import compose
from ragsweep.data import load_dataset, statistics
from ragsweep.scoring.eval_config import select_questions
from toy import TINY

MADE = ("q02", "q07")  # made synthetic in the copy


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    folder = Path(shutil.copytree(TINY, tmp_path / "tiny"))
    path = folder / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for r in rows:
        if r["qid"] in MADE:
            r["subset"] = "synthetic"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


def chosen(folder: Path, subset: str) -> list[str]:
    cfg = compose(
        ["data=folder", f"data.path={folder}", "data.split.heldout=0", f"eval.subset={subset}"]
    )
    questions, _ = select_questions(cfg, load_dataset(folder))
    return list(questions["qid"])


def test_all_means_the_real_questions_and_synthetic_is_scored_apart(mixed: Path) -> None:
    every = [json.loads(line)["qid"] for line in (mixed / "questions.jsonl").open()]
    assert chosen(mixed, "all") == [q for q in every if q not in MADE]
    assert chosen(mixed, "synthetic") == list(MADE)
    real = chosen(mixed, "core") + chosen(mixed, "rolling")
    assert sorted(real) == sorted(chosen(mixed, "all"))


def test_a_set_without_synthetic_questions_selects_and_counts_as_before() -> None:
    assert chosen(TINY, "all") == [
        json.loads(line)["qid"] for line in (TINY / "questions.jsonl").open()
    ]
    assert set(statistics(load_dataset(TINY))["questions_per_subset"]) == {"core", "rolling"}


def test_statistics_count_the_synthetic_questions(mixed: Path) -> None:
    per_subset = statistics(load_dataset(mixed))["questions_per_subset"]
    assert per_subset["synthetic"] == len(MADE)
    assert sum(per_subset.values()) == 10


def test_freeze_refuses_a_synthetic_question_in_one_line_and_writes_nothing(mixed: Path) -> None:
    before = {
        p: hashlib.sha256(p.read_bytes()).hexdigest() for p in mixed.rglob("*") if p.is_file()
    }
    ran = cli_in(mixed, "labels", "freeze", "q02", "--data", str(mixed))
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert "q02" in line and "synthetic" in line and "questions.jsonl" in line
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in mixed.rglob("*") if p.is_file()}
    assert after == before


def test_freeze_all_rolling_leaves_synthetic_questions_alone(mixed: Path) -> None:
    cli_in(mixed, "labels", "freeze", "--all-rolling", "--data", str(mixed)).ok()
    rows = [json.loads(line) for line in (mixed / "questions.jsonl").open()]
    assert {r["qid"] for r in rows if r["subset"] == "synthetic"} == set(MADE)
    assert {r["subset"] for r in rows if r["qid"] not in MADE} == {"core"}


def test_a_report_on_synthetic_questions_says_they_are_not_real() -> None:
    report = Report.__new__(Report)
    object.__setattr__(report, "parts_scored", ("synthetic",))
    object.__setattr__(report, "subset", "synthetic")
    note = report.part_note()
    assert note is not None
    assert note.startswith("Questions: synthetic only") and "eval.subset=synthetic" in note
