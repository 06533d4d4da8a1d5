"""`ragsweep.scoring.run_files` called as a library (a notebook): the numbers `ragsweep score`
prints, the notes handed to the caller, nothing printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragsweep.scoring.run_files import run_names, score_file

# q1 ranks [c7, c2, c4, c9, c1] against labels {c2: 2, c9: 1}; q2 is judged but not in the run
QRELS = "q1 0 c2 2\nq1 0 c9 1\nq2 0 x 1\n"
RUN = "".join(f"q1 Q0 {d} {i + 1} {5 - i} demo\n" for i, d in enumerate(["c7", "c2", "c4", "c9"]))


def test_score_file_returns_the_numbers_and_hands_the_notes_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    notes: list[str] = []
    got = score_file(tmp_path / "qrels.txt", tmp_path / "run.txt", "R@3, RR", note=notes.append)
    assert got.names == ("R@3", "RR")
    # q1: c2 (1 of 2 relevant) at rank 2; q2 has no line, so it scores 0 and counts
    assert got.per_query() == {"q1": {"R@3": 1 / 2, "RR": 1 / 2}, "q2": {"R@3": 0.0, "RR": 0.0}}
    assert got.aggregate() == {"R@3": 1 / 4, "RR": 1 / 4}
    assert got.missing == 1
    # unjudged@3: c7 and c4 of q1's top 3 are unjudged; q2's empty ranks are neither
    assert got.hole == ("unjudged@3", pytest.approx((2 / 3 + 0) / 2))
    assert notes == [
        "note: 1 of 2 qrels queries have no line in the run; each scores 0 and counts in the mean"
    ]
    assert capsys.readouterr() == ("", "")


def test_run_names_are_stems_unless_two_coincide() -> None:
    assert run_names(["a/base.txt", "b/cand.txt.gz"]) == ["base", "cand"]
    assert run_names(["a/run.txt", "b/run.txt", "c.txt"]) == ["a/run.txt", "b/run.txt", "c"]
