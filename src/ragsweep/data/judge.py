"""A labelled set partly made by a model judge: which questions carry the model's labels, which
people audited, and the judge's own grade of every pair it graded (docs/statistics.md,
"Model-judged labels").

A label row with a `model` field was made by that model; a question whose labels are all
people's and which `review/prelabels.jsonl` also grades is **audited**: there the judge's grades
(prelabels) and the people's (labels.jsonl) meet. The judge's grades of a question are its
prelabels rows when it has some, else its labels.jsonl rows. A judge-corrected estimate
(`ragsweep.compare.ppi`) needs every question graded by the judge and one judge throughout;
`judge_view` says why not when that fails, so a report can say what would make it possible.
Synthetic questions (`labels generate`) are left out: they are scored on their own and their
labels are made by construction, never audited.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ragsweep.data.schema import SYNTHETIC, Dataset


@dataclass(frozen=True, eq=False)
class JudgeView:
    """`model`: the judge; `grades` (qid, clause_id, grade): its grade of every pair it graded;
    `audited`: questions people graded too; `by_model`: questions whose labels it made."""

    model: str
    grades: pd.DataFrame
    audited: frozenset[str]
    by_model: frozenset[str]


def _preview(items: list[str], n: int = 3) -> str:
    return ", ".join(items[:n]) + (", ..." if len(items) > n else "")


def audited_questions(ds: Dataset) -> frozenset[str]:
    """The real questions people audited: review/prelabels.jsonl grades them and every label
    of theirs is people's (whether or not a correction is possible on the set)."""
    pre = ds.reviews.get("prelabels")
    if pre is None:
        return frozenset()
    real = set(ds.questions.loc[ds.questions["subset"] != SYNTHETIC, "qid"])
    made = set()
    if "model" in ds.labels.columns:
        made = set(ds.labels.loc[ds.labels["model"].notna(), "qid"])
    return frozenset(q for q in pre["qid"] if q in real and q not in made)


def judge_view(ds: Dataset) -> tuple[JudgeView | None, str | None]:
    """(the judge's view of `ds`, None) when some label is model-made and every question has the
    judge's grades; (None, why not and the fix) when some label is model-made but the view
    cannot be built; (None, None) when people made every label."""
    real = ds.questions.loc[ds.questions["subset"] != SYNTHETIC, "qid"]
    labels = ds.labels[ds.labels["qid"].isin(set(real))]  # synthetic ones are never corrected
    if "model" not in labels.columns or labels["model"].isna().all():
        return None, None
    made = labels["model"].notna().to_numpy()
    by_model = set(labels.loc[made, "qid"])
    mixed = sorted(by_model & set(labels.loc[~made, "qid"]))
    pre = ds.reviews.get("prelabels")
    pre_qids = set() if pre is None else set(pre["qid"])
    models = set(labels.loc[made, "model"])
    if pre is not None:
        models |= set(pre["model"])
    if len(models) > 1:
        return None, (
            f"the labels come from {len(models)} model judges ({_preview(sorted(models))}): a "
            "correction needs one judge's grades on every question; grade them all with one"
        )
    (model,) = models
    lacking = [q for q in mixed if q not in pre_qids]
    if lacking:
        return None, (
            f"question(s) {_preview(lacking)} mix people's and the model's labels and "
            "review/prelabels.jsonl does not hold the model's grades for them; add them there"
        )
    qids = list(real)
    unjudged = [q for q in qids if q not in by_model and q not in pre_qids]
    if unjudged:
        return None, (
            f"{len(unjudged)} question(s) people labelled ({_preview(unjudged)}) were not graded "
            f"by {model}: a correction needs the judge's grades on every question; add them to "
            "review/prelabels.jsonl"
        )
    columns = ["qid", "clause_id", "grade"]
    own = labels.loc[~labels["qid"].isin(pre_qids), columns]
    grades = own if pre is None else pd.concat([pre[columns], own], ignore_index=True)
    view = JudgeView(
        model, grades.reset_index(drop=True), audited_questions(ds), frozenset(by_model)
    )
    return view, None
