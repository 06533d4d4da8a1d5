"""Audit of model pre-labels against human labels: disagreement, over- and under-calls and the
confusion matrix, per slice and overall (docs/labelling.md, auditing model pre-labels)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragsweep.labelling.grader_pairs import ALL, pair_graders
from ragsweep.labelling.kappa import GRADES, confusion
from ragsweep.labelling.texttable import format_table, num_text


@dataclass(frozen=True, eq=False)
class AuditReport:
    """Model pre-labels (`names[0]`) against human labels (`names[1]`) on the items both graded.

    `table`: one row per slice then "all"; columns slice, n, disagree (items graded
    differently), rate (disagree / n, NaN when n = 0), over_call (model grade above the human's),
    under_call (below), only_model, only_human. `confusion`: 3x3 counts over all items, index
    the model's grade, columns the human's; `confusion_by_slice` the same per slice.
    """

    names: tuple[str, str]
    table: pd.DataFrame
    confusion: pd.DataFrame
    confusion_by_slice: Mapping[str, pd.DataFrame]


def audit(
    model: pd.DataFrame,
    human: pd.DataFrame,
    slices: Mapping[str, str],
    *,
    order: Sequence[str] | None = None,
    names: tuple[str, str] = ("model", "human"),
) -> AuditReport:
    """How model pre-labels differ from human labels on the items both graded, per slice and
    overall: disagreement rate, over-calls (model grade > human grade), under-calls and the
    confusion matrix (rows model grade, columns human grade). Items one side graded are
    counted (only_model, only_human), not scored."""
    both, one_sided, groups = pair_graders(model, human, slices, order, names)
    rows = []
    by_slice: dict[str, pd.DataFrame] = {}
    overall = pd.DataFrame()
    for group in [*groups, ALL]:
        part = both if group == ALL else both[both["slice"] == group]
        m = confusion(part["grade_a"].to_numpy(), part["grade_b"].to_numpy())
        n = int(m.sum())
        over = int(np.tril(m, -1).sum())  # row (model) grade above column (human) grade
        under = int(np.triu(m, 1).sum())
        sided = one_sided if group == ALL else one_sided[one_sided["slice"] == group]
        rows.append(
            {
                "slice": group,
                "n": n,
                "disagree": n - int(np.trace(m)),
                "rate": float((n - np.trace(m)) / n) if n else float("nan"),
                "over_call": over,
                "under_call": under,
                "only_model": int((sided["graded_by"] == names[0]).sum()),
                "only_human": int((sided["graded_by"] == names[1]).sum()),
            }
        )
        frame = pd.DataFrame(
            m,
            index=pd.Index(GRADES, name=f"{names[0]} grade"),
            columns=pd.Index(GRADES, name=f"{names[1]} grade"),
        )
        if group == ALL:
            overall = frame
        else:
            by_slice[group] = frame
    return AuditReport(
        names=names, table=pd.DataFrame(rows), confusion=overall, confusion_by_slice=by_slice
    )


def render_audit(report: AuditReport) -> str:
    """Plain-text audit: the per-slice table, then the overall confusion matrix."""
    m, h = report.names
    lines = [f"Audit: {m} vs {h} on the items both graded (over-call: {m} grade above {h}'s)", ""]
    headers = ["slice", "n", "disagree", "rate", "over", "under", f"only {m}", f"only {h}"]
    body = [
        [
            r.slice,
            str(r.n),
            str(r.disagree),
            num_text(r.rate),
            str(r.over_call),
            str(r.under_call),
            str(r.only_model),
            str(r.only_human),
        ]
        for r in report.table.itertuples(index=False)
    ]
    lines += format_table(headers, body)
    lines += ["", f"Confusion (rows: {m} grade, columns: {h} grade):"]
    grid = [[str(g), *(str(int(v)) for v in report.confusion.loc[g])] for g in GRADES]
    lines += format_table([f"{m}\\{h}", *(str(g) for g in GRADES)], grid)
    return "\n".join(lines)
