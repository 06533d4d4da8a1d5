"""A model-judged copy of a dataset, for trying and testing judge-corrected reports
(docs/statistics.md, "Model-judged labels"): a simulated judge with a known bias grades every
pair labels.jsonl judges; on a random share of each slice's questions (the audit) people's labels
stay and the judge's grades go to review/prelabels.jsonl, and on the others the labels become
the judge's (`model`).

The judge (`JUDGE`, P(judge's grade | people's grade)) over-calls grade 1 on `exclusions` (a
clause people graded 0 is called 1 three times in ten, against one in twenty elsewhere),
under-calls one grade-1 clause in seven and one grade-2 in ten everywhere. It grades 0 any
clause its question's product and version filter never retrieves (the relevance rule
`labels import` applies), and a question it left with no relevant clause keeps its grade-2
labels, as every question needs one.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ragsweep.data.load import load_dataset
from ragsweep.data.manifest import write_manifest
from ragsweep.data.samplegen.generate import jsonl_bytes
from ragsweep.data.schema import LABELS_FILE, admits
from ragsweep.data.write import swap_in_folder

JUDGE_MODEL = "simulated-judge-v1 (ragsweep sample; not a real model)"
#: P(judge's grade 0, 1, 2 | people's grade 0, 1, 2), by slice (None: every other slice)
JUDGE: dict[str | None, tuple[tuple[float, float, float], ...]] = {
    "exclusions": ((0.70, 0.30, 0.00), (0.15, 0.80, 0.05), (0.00, 0.10, 0.90)),
    None: ((0.95, 0.05, 0.00), (0.15, 0.80, 0.05), (0.00, 0.10, 0.90)),
}


def _rows(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def judged_copy(source: Path, out: Path, audit_share: float = 0.2, seed: int = 0) -> dict:
    """Write the dataset folder `source` to `out` (`source` itself allowed) with the judge's
    labels on all questions but an audited `audit_share` of each slice, swapped in whole once
    it loads (`data.write.swap_in_folder`); returns what it did (questions audited and judged
    per slice, labels the judge changed)."""
    ds = load_dataset(source)
    rng = np.random.default_rng(seed)
    questions = ds.questions
    audited: set[str] = set()
    for s in ds.slices:
        qids = sorted(questions.loc[questions["slice"] == s, "qid"])
        k = max(2, round(audit_share * len(qids))) if qids else 0
        audited |= {str(q) for q in rng.choice(qids, size=min(k, len(qids)), replace=False)}
    asked = {
        q: (sl, p, v)
        for q, sl, p, v in zip(
            questions["qid"],
            questions["slice"],
            questions["product"],
            questions["version"],
            strict=True,
        )
    }
    products = {(d.document, d.version): d.product for d in ds.documents}
    rows = _rows((ds.root / LABELS_FILE).read_text(encoding="utf-8"))
    draws = rng.random(len(rows))
    judge: list[int] = []
    for row, u in zip(rows, draws, strict=True):
        sl, product, version = asked[row["qid"]]
        probs = JUDGE.get(sl, JUDGE[None])[row["grade"]]
        grade = int(np.searchsorted(np.cumsum(probs), u, side="right"))
        doc_product = products[(row["document"], row["version"])]
        judge.append(min(grade, 2) if admits(product, version, doc_product, row["version"]) else 0)
    relevant = {r["qid"] for r, g in zip(rows, judge, strict=True) if g >= 1}
    for i, row in enumerate(rows):  # a question the judge left with nothing relevant
        if row["qid"] not in relevant and row["grade"] == 2:
            judge[i] = 2
    labels, prelabels, changed = [], [], 0
    for row, g in zip(rows, judge, strict=True):
        if row["qid"] in audited:
            labels.append(row)
            prelabels.append({**row, "grade": g, "model": JUDGE_MODEL})
        else:
            labels.append({**row, "grade": g, "model": JUDGE_MODEL})
            changed += g != row["grade"]
    files = {
        p.relative_to(ds.root).as_posix(): p.read_bytes()
        for p in sorted(ds.root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    files[LABELS_FILE] = jsonl_bytes(labels)
    files["review/prelabels.jsonl"] = jsonl_bytes(prelabels)

    def finish(staged: Path) -> None:  # the manifest of what is written, then it must load
        write_manifest(staged)
        load_dataset(staged)

    swap_in_folder(Path(out), files, finish)
    per_slice = {
        s: {
            "questions": int((questions["slice"] == s).sum()),
            "audited": sum(1 for q in audited if asked[q][0] == s),
        }
        for s in ds.slices
    }
    return {"model": JUDGE_MODEL, "slices": per_slice, "labels_changed": int(changed)}
