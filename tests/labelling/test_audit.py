"""The audit of model pre-labels against human labels: over- and under-calls, the confusion."""

from __future__ import annotations

import pandas as pd
from label_folder import lab

from ragsweep.labelling.audit import audit, render_audit


def _rows(qid_grades: list[tuple[str, str, int]]) -> pd.DataFrame:
    """Label rows from (qid, section, grade); document "home", version "2024"."""
    return pd.DataFrame([lab(q, "home", s, "2024", g) for q, s, g in qid_grades])


def test_audit_hand_made() -> None:
    # model vs human per item; slice x: q1, slice y: q3
    pairs = [
        ("q1", "1.1", 0, 0),
        ("q1", "1.2", 1, 0),  # over
        ("q1", "1.3", 2, 0),  # over
        ("q1", "1.4", 2, 2),
        ("q3", "3.1", 0, 1),  # under
        ("q3", "3.2", 1, 2),  # under
        ("q3", "3.3", 2, 1),  # over
        ("q3", "3.4", 1, 1),
    ]
    model = _rows([(q, s, m) for q, s, m, _ in pairs])
    human = _rows([(q, s, h) for q, s, _, h in pairs] + [("q3", "3.9", 2)])
    report = audit(model, human, {"q1": "x", "q3": "y"})
    t = report.table.set_index("slice")
    assert t.loc["x", ["n", "disagree", "over_call", "under_call"]].tolist() == [4, 2, 2, 0]
    assert t.loc["y", ["n", "disagree", "over_call", "under_call"]].tolist() == [4, 3, 1, 2]
    assert t.loc["all", ["n", "disagree", "over_call", "under_call"]].tolist() == [8, 5, 3, 2]
    assert t.loc["all", "rate"] == 5 / 8
    assert t.loc["y", "only_human"] == 1 and t.loc["all", "only_model"] == 0
    # rows: model grade; columns: human grade
    assert report.confusion.values.tolist() == [[1, 1, 0], [1, 1, 1], [1, 1, 1]]
    assert report.confusion_by_slice["x"].values.tolist() == [[1, 0, 0], [1, 0, 0], [1, 0, 1]]
    assert report.confusion.loc[2, 0] == 1  # model 2, human 0 (q1 1.3)
    assert "0.625" in render_audit(report)
