"""Numbers written to a run's or a report's CSV files read back to the bit, whatever pandas'
default float parser (pandas 2's is one ulp off on values like -0.33333333333333337)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ragsweep.compare.build import build_report
from ragsweep.compare.files import write_report
from ragsweep.compare.report import read_cells
from ragsweep.compare.runs import load_run_folder

#: values the "high" float parser reads back one ulp off
AWKWARD = [-0.33333333333333337, 0.1 + 0.2, 2 / 3, 1 / 7, np.nextafter(0.5, 1.0)]


def test_per_question_scores_read_back_to_the_bit(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text("eval: {k_prompt: 5}\n")
    frame = pd.DataFrame(
        {"qid": [f"q{i}" for i in range(len(AWKWARD))], "slice": "all", "recall@5": AWKWARD}
    )
    frame.to_csv(results / "per_question.csv", index=False)
    read = load_run_folder(tmp_path, "a", "r1", {}).per_question
    assert read["recall@5"].tolist() == AWKWARD


def test_report_cells_read_back_to_the_bit(tmp_path):
    n = 12
    base = pd.DataFrame({"qid": [f"q{i:02d}" for i in range(n)], "slice": "all"})
    base["recall@5"] = [AWKWARD[i % len(AWKWARD)] for i in range(n)]
    cand = base.assign(**{"recall@5": [AWKWARD[(i + 2) % len(AWKWARD)] for i in range(n)]})
    report = build_report(base, {"b": cand}, decision="recall@5", slice_decision={})
    write_report(report, tmp_path)
    cells = read_cells(tmp_path / "report.csv")
    for col in ("value", "baseline", "delta", "ci_low", "ci_high", "sd", "half_width"):
        assert cells[col].tolist() == report.cells[col].tolist(), col
