"""Agreement: kappa per slice against scikit-learn, degenerate cases, one-sided items."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from ragsweep.data import Dataset, load_dataset, sample_path
from ragsweep.errors import UserError
from ragsweep.labelling.agreement import agreement, render_agreement
from ragsweep.labelling.audit import audit

LABELS = [0, 1, 2]


def _sk(a: list[int], b: list[int], weights: str | None) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns (and returns nan) when undefined
        return float(cohen_kappa_score(a, b, labels=LABELS, weights=weights))


def _rows(qid_grades: list[tuple[str, str, int]]) -> pd.DataFrame:
    """Label rows from (qid, section, grade); document "home", version "2024"."""
    return pd.DataFrame(
        [
            {"qid": q, "document": "home", "section": s, "version": "2024", "grade": g}
            for q, s, g in qid_grades
        ]
    )


def _two_slices() -> tuple[pd.DataFrame, pd.DataFrame, dict[str, str]]:
    # slice x: q1, q2; slice y: q3. Grades chosen so the slices differ.
    a = _rows(
        [
            ("q1", "1.1", 2),
            ("q1", "1.2", 0),
            ("q1", "1.3", 1),
            ("q2", "2.1", 2),
            ("q2", "2.2", 0),
            ("q3", "3.1", 2),
            ("q3", "3.2", 1),
            ("q3", "3.3", 0),
            ("q3", "3.4", 0),
        ]
    )
    b = _rows(
        [
            ("q1", "1.1", 2),
            ("q1", "1.2", 1),
            ("q1", "1.3", 1),
            ("q2", "2.1", 2),
            ("q2", "2.2", 0),
            ("q3", "3.1", 1),
            ("q3", "3.2", 1),
            ("q3", "3.3", 0),
            ("q3", "3.4", 2),
        ]
    )
    return a, b, {"q3": "y", "q1": "x", "q2": "x"}


def test_agreement_per_slice_and_overall() -> None:
    a, b, slices = _two_slices()
    report = agreement(a, b, slices, order=["x", "y"])
    t = report.table.set_index("slice")
    assert list(t.index) == ["x", "y", "all"]
    x_a, x_b = [2, 0, 1, 2, 0], [2, 1, 1, 2, 0]
    y_a, y_b = [2, 1, 0, 0], [1, 1, 0, 2]
    for name, ga, gb in (("x", x_a, x_b), ("y", y_a, y_b), ("all", x_a + y_a, x_b + y_b)):
        assert t.loc[name, "n"] == len(ga)
        assert t.loc[name, "agree"] == pytest.approx(np.mean(np.equal(ga, gb)), abs=1e-12)
        assert abs(t.loc[name, "kappa"] - _sk(ga, gb, None)) <= 1e-12
        assert abs(t.loc[name, "kappa_quadratic"] - _sk(ga, gb, "quadratic")) <= 1e-12
    assert t["only_a"].tolist() == [0, 0, 0]
    # default order: first appearance in the mapping
    assert agreement(a, b, slices).table["slice"].tolist() == ["y", "x", "all"]


def test_flagging_and_undefined_status() -> None:
    a, b, slices = _two_slices()
    t = agreement(a, b, slices, threshold=0.6, order=["x", "y"]).table.set_index("slice")
    kx = t.loc["x", "kappa"]
    assert kx == pytest.approx(_sk([2, 0, 1, 2, 0], [2, 1, 1, 2, 0], None))
    assert t.loc["x", "flagged"] == bool(kx < 0.6)
    assert t.loc["y", "status"] == "below" and t.loc["y", "flagged"]
    at_kappa = agreement(a, b, slices, threshold=float(kx), order=["x", "y"]).table
    assert at_kappa.loc[0, "status"] == "ok"  # kappa equal to the threshold is not below
    # a slice where both gave grade 2 everywhere: kappa undefined, not flagged
    a2 = _rows([("q1", "1.1", 2), ("q1", "1.2", 2), ("q3", "3.1", 0), ("q3", "3.2", 2)])
    b2 = _rows([("q1", "1.1", 2), ("q1", "1.2", 2), ("q3", "3.1", 2), ("q3", "3.2", 2)])
    t2 = agreement(a2, b2, slices, order=["x", "y", "z"]).table.set_index("slice")
    assert math.isnan(t2.loc["x", "kappa"]) and t2.loc["x", "agree"] == 1.0
    assert t2.loc["x", "status"] == "undefined" and not t2.loc["x", "flagged"]
    assert t2.loc["z", "n"] == 0 and t2.loc["z", "status"] == "undefined"
    assert math.isnan(t2.loc["z", "agree"])


def test_one_sided_items_are_counted_not_scored() -> None:
    a, b, slices = _two_slices()
    a = pd.concat([a, _rows([("q1", "1.9", 2), ("q3", "3.9", 0)])], ignore_index=True)
    b = pd.concat([b, _rows([("q2", "2.9", 1)])], ignore_index=True)
    report = agreement(a, b, slices, order=["x", "y"], names=("r1", "r2"))
    t = report.table.set_index("slice")
    assert t.loc["x", ["n", "only_a", "only_b"]].tolist() == [5, 1, 1]
    assert t.loc["y", ["n", "only_a", "only_b"]].tolist() == [4, 1, 0]
    assert t.loc["all", ["n", "only_a", "only_b"]].tolist() == [9, 2, 1]
    assert (
        abs(
            t.loc["all", "kappa"]
            - _sk([2, 0, 1, 2, 0, 2, 1, 0, 0], [2, 1, 1, 2, 0, 1, 1, 0, 2], None)
        )
        <= 1e-12
    )
    got = report.one_sided[["slice", "qid", "section", "grade", "graded_by"]]
    assert got.values.tolist() == [
        ["x", "q1", "1.9", 2, "r1"],
        ["x", "q2", "2.9", 1, "r2"],
        ["y", "q3", "3.9", 0, "r1"],
    ]
    assert "3.9" in render_agreement(report)


def test_disagreements_grouped_by_slice() -> None:
    a, b, slices = _two_slices()
    report = agreement(a, b, slices, order=["y", "x"])
    d = report.disagreements
    assert d[["slice", "qid", "section", "grade_a", "grade_b"]].values.tolist() == [
        ["y", "q3", "3.1", 2, 1],
        ["y", "q3", "3.4", 0, 2],
        ["x", "q1", "1.2", 0, 1],
    ]
    assert report.disagreements_in("x")["section"].tolist() == ["1.2"]
    text = render_agreement(report, max_items=1)
    assert "q3  home/3.1@2024  a=2 b=1" in text and "... 1 more" in text


def test_agreement_input_errors() -> None:
    a, b, slices = _two_slices()
    with pytest.raises(UserError, match="'grade' is missing"):
        agreement(a.drop(columns="grade"), b, slices)
    bad = a.copy()
    bad.loc[0, "grade"] = 5
    with pytest.raises(UserError, match="field 'grade': 5"):
        agreement(bad, b, slices, names=("review/x.jsonl", "b"))
    dup = pd.concat([a, a.head(1)], ignore_index=True)
    with pytest.raises(UserError, match="two grades for question 'q1'"):
        agreement(dup, b, slices)
    with pytest.raises(UserError, match="question 'q3' has no slice"):
        agreement(a, b, {"q1": "x", "q2": "x"})
    with pytest.raises(UserError, match="slice 'y' is missing"):
        agreement(a, b, slices, order=["x"])


def test_inputs_not_mutated() -> None:
    a, b, slices = _two_slices()
    a0, b0 = a.copy(), b.copy()
    agreement(a, b, slices)
    audit(a, b, slices)
    pd.testing.assert_frame_equal(a, a0)
    pd.testing.assert_frame_equal(b, b0)


@pytest.fixture(scope="module")
def sample() -> Dataset:
    if not (sample_path() / "dataset.json").is_file():
        pytest.skip("the built-in sample (src/ragsweep/data/sample) is not in this checkout")
    return load_dataset()


def test_sample_reviewer2_vs_prelabels(sample: Dataset) -> None:
    slices = dict(zip(sample.questions["qid"], sample.questions["slice"], strict=True))
    r2, pre = sample.reviews["reviewer2"], sample.reviews["prelabels"]
    report = agreement(r2, pre, slices, order=sample.slices)
    merged = r2.merge(pre, on=["qid", "document", "section", "version"])
    t = report.table.set_index("slice")
    assert t.loc["all", "n"] == len(r2) == len(merged)
    assert t.loc["all", ["only_a", "only_b"]].tolist() == [0, 0]
    for w, col in ((None, "kappa"), ("quadratic", "kappa_quadratic")):
        expected = _sk(merged["grade_x"].tolist(), merged["grade_y"].tolist(), w)
        assert abs(t.loc["all", col] - expected) <= 1e-12
    assert t.loc[list(sample.slices), "n"].sum() == t.loc["all", "n"]
    assert len(report.disagreements) == int((merged["grade_x"] != merged["grade_y"]).sum())
