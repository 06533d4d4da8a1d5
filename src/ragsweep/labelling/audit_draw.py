"""The audit of a model-judged set: a random share of each slice's questions whose labels a
model made, drawn for people to grade blind (docs/labelling.md, "A model judge at scale").

    sheet, drawn = audit_sheet(dataset, share=0.2, seed=0)

Every question of each slice is counted: a slice whose audited questions (people's labels, the
model's grades in review/prelabels.jsonl) fall short of `share` gets the rest drawn at random from
its model-labelled questions. The sheet holds every pair labels.jsonl judges for them, with no
grade shown (neither the model's nor the label's: people who see the model's grade tend to keep
it). Imported with `labels import --judge NAME`, people's grades replace the model's labels and
the model's move to review/prelabels.jsonl: the questions count as audited.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ragsweep.data.judge import audited_questions
from ragsweep.data.schema import SYNTHETIC, Dataset
from ragsweep.errors import UserError
from ragsweep.labelling.sheet_columns import SHEET_COLUMNS, sheet_row


def audit_sheet(ds: Dataset, share: float = 0.2, seed: int = 0) -> tuple[pd.DataFrame, dict]:
    """The blind audit sheet (`SHEET_COLUMNS`) and, per slice, the questions, the audited ones
    and the ones drawn now. Refuses a set with no model-made label, or a share outside (0, 1]."""
    if not (0 < share <= 1):
        raise UserError(f"audit: --share must be in (0, 1], got {share!r}; e.g. 0.2")
    if "model" not in ds.labels.columns or ds.labels["model"].isna().all():
        raise UserError(
            f"{ds.root}: no label was made by a model (labels.jsonl has no `model` field): "
            "nothing to audit; import a model's grades with `labels import SHEET --model`"
        )
    audited = audited_questions(ds)
    made = set(ds.labels.loc[ds.labels["model"].notna(), "qid"])
    rng = np.random.default_rng(seed)
    q = ds.questions[ds.questions["subset"] != SYNTHETIC]
    drawn: list[str] = []
    counts = {}
    for s in ds.slices:
        mine = q[q["slice"] == s]
        have = int(mine["qid"].isin(audited).sum())
        want = math.ceil(share * len(mine))
        pool = sorted(str(x) for x in mine["qid"] if x in made and x not in audited)
        k = min(max(want - have, 0), len(pool))
        chosen = sorted(rng.choice(pool, size=k, replace=False).tolist()) if k else []
        drawn += chosen
        counts[s] = {"questions": len(mine), "audited": have, "drawn": k}
    clauses = {c.clause_id: c for d in ds.documents for c in d.clauses}
    text = dict(zip(ds.questions["qid"], ds.questions["text"], strict=True))
    asked = ds.questions.set_index("qid")
    rows = []
    chosen_set = set(drawn)
    # blind in its order too: labels.jsonl keeps a question's labels highest grade first, so
    # the rows go by clause (document, section, version), which says nothing of a grade
    mine = ds.labels[ds.labels["qid"].isin(chosen_set)]
    mine = mine.assign(_at=mine["qid"].map({q: i for i, q in enumerate(drawn)}))
    for lab in mine.sort_values(["_at", "document", "section", "version"]).itertuples(index=False):
        clause = clauses[lab.clause_id]
        version = asked.at[lab.qid, "version"]
        # blind: neither the model's grade nor any other is shown
        rows.append(
            sheet_row(
                lab.qid,
                str(text[lab.qid]),
                str(asked.at[lab.qid, "slice"]),
                "" if version is None or pd.isna(version) else str(version),
                clause,
            )
        )
    return pd.DataFrame(rows, columns=list(SHEET_COLUMNS)), counts
