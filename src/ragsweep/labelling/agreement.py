"""Agreement between two judges of the same (question, clause) items: Cohen's kappa per slice
with its interval, the disagreements, the stored record (review/agreement.json) and the report
notes drawn from it (docs/labelling.md, two judges).

A slice's status is "below" when unweighted kappa < the threshold, "undefined" when kappa is NaN
(then read the raw agreement), else "ok". A slice's interval is `kappa_interval` seeded with
(`SEED`, the slice's position).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ragsweep.data import Dataset
from ragsweep.errors import UserError
from ragsweep.labelling.grader_pairs import ALL, KEY, pair_graders
from ragsweep.labelling.kappa import (
    CONFIDENCE,
    RESAMPLES,
    SEED,
    confusion,
    kappa_from_confusion,
    kappa_interval,
)
from ragsweep.labelling.texttable import format_table, interval_text, num_text

#: unweighted kappa below this flags a slice (`report.agreement_threshold` in a sweep's report)
THRESHOLD = 0.6
#: the review file (review/<name>.jsonl) a report's agreement check compares with labels.jsonl
REVIEWER = "reviewer2"


@dataclass(frozen=True, eq=False)
class AgreementReport:
    """Agreement of grader `names[0]` (a) with `names[1]` (b), per slice and overall.

    `table`: one row per slice then "all"; columns slice, n (items both graded), questions
    (questions those items belong to), only_a, only_b (items one side graded), agree (raw
    agreement, share of items with equal grades), kappa, kappa_low, kappa_high (its bootstrap
    interval over questions), kappa_quadratic, status ("ok", "below" or "undefined"), flagged
    (status == "below").
    `disagreements`: slice, qid, document, section, version, grade_a, grade_b, one row per
    item graded differently. `one_sided`: slice, the key, grade, graded_by (a grader's name).
    """

    names: tuple[str, str]
    threshold: float
    table: pd.DataFrame
    disagreements: pd.DataFrame
    one_sided: pd.DataFrame

    def disagreements_in(self, slice_: str) -> pd.DataFrame:
        """The disagreements of one slice, in item order."""
        return self.disagreements[self.disagreements["slice"] == slice_].reset_index(drop=True)


def agreement(
    a: pd.DataFrame,
    b: pd.DataFrame,
    slices: Mapping[str, str],
    threshold: float = 0.6,
    *,
    order: Sequence[str] | None = None,
    names: tuple[str, str] = ("a", "b"),
) -> AgreementReport:
    """Cohen's kappa between graders `a` and `b` (columns qid, document, section, version,
    grade; other columns ignored) on the items both graded, per slice (`slices`: qid -> slice)
    and overall. `names` label the graders in messages and in `one_sided`."""
    _check_threshold(threshold)
    both, one_sided, groups = pair_graders(a, b, slices, order, names)
    rows = []
    for i, group in enumerate([*groups, ALL]):
        part = both if group == ALL else both[both["slice"] == group]
        ga, gb = part["grade_a"].to_numpy(), part["grade_b"].to_numpy()
        m = confusion(ga, gb)
        n = int(m.sum())
        kappa = kappa_from_confusion(m)
        low, high = (
            (float("nan"), float("nan"))
            if np.isnan(kappa)
            else kappa_interval(part["qid"].to_numpy(), ga, gb, seed=(SEED, i))
        )
        status = "undefined" if np.isnan(kappa) else ("below" if kappa < threshold else "ok")
        sided = one_sided if group == ALL else one_sided[one_sided["slice"] == group]
        rows.append(
            {
                "slice": group,
                "n": n,
                "questions": int(part["qid"].nunique()),
                "only_a": int((sided["graded_by"] == names[0]).sum()),
                "only_b": int((sided["graded_by"] == names[1]).sum()),
                "agree": float(np.trace(m) / n) if n else float("nan"),
                "kappa": kappa,
                "kappa_low": low,
                "kappa_high": high,
                "kappa_quadratic": kappa_from_confusion(m, "quadratic"),
                "status": status,
                "flagged": status == "below",
            }
        )
    differ = both[both["grade_a"] != both["grade_b"]].reset_index(drop=True)
    return AgreementReport(
        names=names,
        threshold=float(threshold),
        table=pd.DataFrame(rows),
        disagreements=differ[["slice", *KEY, "grade_a", "grade_b"]],
        one_sided=one_sided,
    )


def weak_slices(
    dataset: Dataset, threshold: float = THRESHOLD, *, slices: Sequence[str] | None = None
) -> list[str]:
    """Report notes, one per slice (in the dataset's slice order) where the second reviewer
    (review/reviewer2.jsonl) and labels.jsonl agree weakly: unweighted kappa below `threshold`
    on the items both graded. `slices` keeps only those a report covers (None: all). Empty
    when the dataset has no reviewer2 file; a slice whose kappa is undefined (no reviewed
    items, or one grade for all) is not flagged."""
    _check_threshold(threshold)
    review = dataset.reviews.get(REVIEWER)
    if review is None:
        return []
    questions = dataset.questions
    of = dict(zip(questions["qid"], questions["slice"], strict=True))
    order = list(dataset.slices)
    single = order == [ALL]  # an imported dataset's one slice is named like the overall row
    if single:
        of, order = {q: "_" for q in of}, ["_"]
    report = agreement(
        review, dataset.labels, of, threshold, order=order, names=(REVIEWER, "labels.jsonl")
    )
    table = report.table
    rows = table[(table["slice"] == ALL) == single]  # the one slice is then the overall row
    keep = None if slices is None else set(slices)
    return [
        f"judges agree weakly on {row.slice} ({REVIEWER} vs labels.jsonl: kappa {row.kappa:.3f} "
        f"< {threshold:g} on {row.n} reviewed items): differences on this slice measure the "
        "labels as much as the retriever; tighten relevance.md and re-judge"
        for row in rows.itertuples(index=False)
        if row.flagged and (keep is None or row.slice in keep)
    ]


def agreement_record(
    report: AgreementReport, *, files: Sequence[str], at: str, labels_hash: str
) -> dict[str, Any]:
    """The JSON record `labels agreement --save` stores as review/agreement.json: the two
    judges and their files, the date, the labelled-set hash it was measured beside, the
    threshold, how the interval was made, and per slice then "all" the items, questions,
    kappa, its interval (null when undefined) and status."""

    def num(x: float) -> float | None:
        return None if np.isnan(x) else round(float(x), 6)

    return {
        "judges": list(report.names),
        "files": list(files),
        "at": at,
        "labels_hash": labels_hash,
        "threshold": report.threshold,
        "interval": {
            "method": "percentile bootstrap over questions",
            "resamples": RESAMPLES,
            "seed": SEED,
            "confidence": CONFIDENCE,
        },
        "slices": [
            {
                "slice": r.slice,
                "items": int(r.n),
                "questions": int(r.questions),
                "kappa": num(r.kappa),
                "low": num(r.kappa_low),
                "high": num(r.kappa_high),
                "status": r.status,
            }
            for r in report.table.itertuples(index=False)
        ],
    }


def stored_notes(
    record: Mapping[str, Any], threshold: float, *, slices: Sequence[str] | None = None
) -> list[str]:
    """Report notes from a stored agreement record (review/agreement.json): first the overall
    kappa with its interval, then one note per slice (of `slices`, None: all) whose kappa is
    below `threshold`."""
    _check_threshold(threshold)
    rows = list(record["slices"])
    judges = " vs ".join(record["judges"])
    measured = f"{judges}, review/agreement.json of {record['at']}"

    def kappa(row: Mapping[str, Any]) -> str:
        low, high = row["low"], row["high"]
        band = "" if low is None else f" {interval_text(low, high)}"
        return f"kappa {row['kappa']:.3f}{band}"

    overall = next(r for r in rows if r["slice"] == ALL)
    notes = [
        f"judge agreement ({measured}): "
        + (
            "kappa undefined"
            if overall["kappa"] is None
            else f"{kappa(overall)} on {overall['items']} items of {overall['questions']} "
            f"questions ({CONFIDENCE:.0%} bootstrap interval over questions)"
        )
    ]
    keep = None if slices is None else set(slices)
    for row in rows:
        if row["slice"] == ALL or row["kappa"] is None or row["kappa"] >= threshold:
            continue
        if keep is not None and row["slice"] not in keep:
            continue
        notes.append(
            f"judges agree weakly on {row['slice']} ({judges}: {kappa(row)} < {threshold:g} on "
            f"{row['items']} items): differences on this slice measure the labels as much as "
            "the retriever; tighten relevance.md and re-judge"
        )
    return notes


def render_agreement(report: AgreementReport, max_items: int | None = 10) -> str:
    """Plain-text agreement table, then the disagreements by slice (at most `max_items` per
    slice; None: all) and the one-sided items, for the discussion that tightens the rule."""
    a, b = report.names
    lines = [
        f"Agreement: {a} vs {b} on the items both graded (kappa < {report.threshold:.2f} is "
        "flagged 'below'; 'undefined': kappa is NaN, both gave one same grade to every item; "
        f"interval: {CONFIDENCE:.0%} percentile bootstrap over questions, {RESAMPLES} resamples)",
        "",
    ]
    headers = [
        "slice",
        "n",
        "questions",
        f"only {a}",
        f"only {b}",
        "agree",
        "kappa",
        f"{CONFIDENCE:.0%} interval",
        "kappa_q",
        "status",
    ]
    body = [
        [
            r.slice,
            str(r.n),
            str(r.questions),
            str(r.only_a),
            str(r.only_b),
            num_text(r.agree),
            num_text(r.kappa),
            interval_text(r.kappa_low, r.kappa_high),
            num_text(r.kappa_quadratic),
            r.status,
        ]
        for r in report.table.itertuples(index=False)
    ]
    lines += format_table(headers, body)
    lines += ["", f"Disagreements ({len(report.disagreements)} items, {a} / {b}):"]
    for group in report.table["slice"]:
        if group == ALL:
            continue
        items = report.disagreements_in(group)
        if items.empty:
            continue
        lines.append(f"  {group} ({len(items)}):")
        shown = items if max_items is None else items.head(max_items)
        for r in shown.itertuples(index=False):
            cid = f"{r.document}/{r.section}@{r.version}"
            lines.append(f"    {r.qid}  {cid}  {a}={r.grade_a} {b}={r.grade_b}")
        if len(shown) < len(items):
            lines.append(f"    ... {len(items) - len(shown)} more")
    lines.append("")
    if report.one_sided.empty:
        lines.append("Items graded by one side only: none")
    else:
        lines.append(f"Items graded by one side only ({len(report.one_sided)}, not scored):")
        shown = report.one_sided if max_items is None else report.one_sided.head(max_items)
        for r in shown.itertuples(index=False):
            cid = f"{r.document}/{r.section}@{r.version}"
            lines.append(f"    {r.slice}  {r.qid}  {cid}  {r.graded_by}={r.grade}")
        if len(shown) < len(report.one_sided):
            lines.append(f"    ... {len(report.one_sided) - len(shown)} more")
    return "\n".join(lines)


def _check_threshold(threshold: object) -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise UserError(f"agreement threshold must be a number, got {threshold!r}")
