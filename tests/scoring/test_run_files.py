"""`ragsweep.scoring.run_files` called as a library (a notebook): the numbers `ragsweep score`
prints, the notes handed to the caller, nothing printed; and the relevance level it takes
through `ragsweep compare --rel-level`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragsweep.cli import main as cli_main
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


# --- ragsweep compare --rel-level ------------------------------------------------------------
# every query judges a at 2 and b at 1; the baseline ranks b first, the candidate a first
REL_QRELS = "".join(f"q{i} 0 a 2\nq{i} 0 b 1\n" for i in range(6))


def rel_level_files(tmp_path: Path) -> list[str]:
    (tmp_path / "qrels.txt").write_text(REL_QRELS)
    for name, first, second in (("base", "b", "a"), ("cand", "a", "b")):
        lines = [f"q{i} Q0 {first} 1 2 t\nq{i} Q0 {second} 2 1 t\n" for i in range(6)]
        (tmp_path / f"{name}.txt").write_text("".join(lines))
    return ["--qrels", str(tmp_path / "qrels.txt"), "--runs"] + [
        str(tmp_path / f"{n}.txt") for n in ("base", "cand")
    ]


@pytest.mark.parametrize(("level", "delta"), [("1", 0.0), ("2", 1 / 2)])
def test_compare_scores_at_the_relevance_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], level: str, delta: float
) -> None:
    argv = ["compare", *rel_level_files(tmp_path), "--metric", "RR", "--rel-level", level]
    argv += ["--unjudged", "assume_not_relevant", "--format", "json"]
    assert cli_main(argv) == 0
    (row,) = [r for r in json.loads(capsys.readouterr().out)["rows"] if r["run"] == "cand"]
    # at level 2 only a is relevant: the baseline's RR is 1/2, the candidate's 1
    assert row["delta"] == pytest.approx(delta, abs=1e-12)
    assert row["value"] == pytest.approx(1.0, abs=1e-12)


def test_compare_refuses_a_relevance_level_below_1_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["compare", *rel_level_files(tmp_path), "--rel-level", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ragsweep compare: error: ")
    assert "must be an integer >= 1, got 0" in err and err.count("\n") == 1


def test_the_bounds_assume_an_unjudged_document_relevant_at_the_relevance_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every query judges a at 2 and b at 1; the baseline ranks a first, the candidate an
    unjudged x first and a second. At level 2 the candidate's RR is 1/2 (worse), unless x is
    relevant at grade 2: the optimistic side must assume grade 2, not 1, or it would read x as
    not relevant at this level and call the drop certain."""
    (tmp_path / "qrels.txt").write_text(REL_QRELS)
    for name, ranked in (("base", ("a", "b")), ("cand", ("x", "a"))):
        lines = [f"q{i} Q0 {d} {r} {3 - r} t\n" for i in range(6) for r, d in enumerate(ranked, 1)]
        (tmp_path / f"{name}.txt").write_text("".join(lines))
    argv = ["compare", "--qrels", str(tmp_path / "qrels.txt"), "--runs"]
    argv += [str(tmp_path / "base.txt"), str(tmp_path / "cand.txt"), "--metric", "RR"]
    assert cli_main([*argv, "--rel-level", "2", "--format", "json"]) == 0
    (row,) = [r for r in json.loads(capsys.readouterr().out)["rows"] if r["run"] == "cand"]
    assert row["delta"] == pytest.approx(-1 / 2, abs=1e-12)
    assert row["verdict"] == "needs judging"  # worse as scored, equal if x is relevant at 2
    assert cli_main([*argv, "--rel-level", "2"]) == 0
    out = capsys.readouterr().out
    assert "relevant means grade >= 2 (--rel-level, trec_eval's -l)" in " ".join(out.split())
