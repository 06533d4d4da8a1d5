"""review/: optional second opinions on labels.jsonl (`reviewer2.jsonl`, a second reviewer;
`prelabels.jsonl`, a model's pre-labels). A review file grades exactly the pairs labels.jsonl
judges for each question it reviews, so agreement can be counted pair by pair. `pool.jsonl`
records the candidates a judging pool showed (`ragsweep labels pool`), so the share of them
labels.jsonl judges can be checked. `agreement.json` records two judges' Cohen's kappa per
slice with its bootstrap interval (`ragsweep labels agreement --save`), which a sweep's report
quotes and every run scored on the dataset carries as its `ragsweep.kappa` tag."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ragsweep.data.labels import LABEL_FIELDS, check_anchors, label_frame
from ragsweep.data.reader import DataFile, Spec, entries, hint
from ragsweep.data.schema import (
    AGREEMENT_FILE,
    POOL_FILE,
    REVIEW_FILES,
    Document,
    clause_id,
)

#: fields a review file has beyond the label fields
_EXTRA: dict[str, Spec] = {"prelabels": {"model": ("str", False)}}


def load_reviews(
    root: Path, judged: dict[str, set[str]], documents: tuple[Document, ...]
) -> dict[str, pd.DataFrame]:
    """The review files present in `root`/review, checked against the corpus and against
    `judged` (clause ids per qid in labels.jsonl), by name in `REVIEW_FILES` order."""
    folder = DataFile(root, "review")
    if not folder.path.exists():
        return {}
    allowed = [*(f"{name}.jsonl" for name in REVIEW_FILES), POOL_FILE, AGREEMENT_FILE]
    if not folder.path.is_dir():
        folder.fail(f"is not a folder; review/ holds {', '.join(allowed)}")
    for p in entries(folder.path):
        if p.name not in allowed:
            DataFile(root, f"review/{p.name}").fail(
                f"unknown file in review/; {hint(p.name, allowed)}"
                f"review/ holds only {', '.join(allowed)}"
            )
    out: dict[str, pd.DataFrame] = {}
    for name in REVIEW_FILES:
        f = DataFile(root, f"review/{name}.jsonl")
        data = f.read_optional()
        if data is None:
            continue
        rows = f.jsonl(data)
        extra = _EXTRA.get(name, {})
        pairs = check_anchors(f, rows, documents, extra)
        _check_against_labels(f, pairs, judged)
        out[name] = label_frame(rows, pairs, [*LABEL_FIELDS, *extra])
    return out


def _check_against_labels(
    f: DataFile, pairs: list[tuple[str, str]], judged: dict[str, set[str]]
) -> None:
    """Every reviewed pair is judged in labels.jsonl, and every question reviewed has all its
    judged pairs graded (reported at the question's first row)."""
    seen: dict[str, int] = {}
    by_q: dict[str, set[str]] = {}
    for n, (qid, cid) in enumerate(pairs, start=1):
        if cid not in judged.get(qid, set()):
            f.fail(
                f"question {qid!r} and clause {cid} are not judged in labels.jsonl; review files "
                "grade only pairs labels.jsonl judges (add a label there, grade 0 if rejected, "
                "or drop this row)",
                n,
                "qid",
            )
        seen.setdefault(qid, n)
        by_q.setdefault(qid, set()).add(cid)
    for qid, n in seen.items():
        left = sorted(judged[qid] - by_q[qid])
        if left:
            f.fail(
                f"question {qid!r} is reviewed but not every pair labels.jsonl judges for it is "
                f"graded here (missing: {', '.join(left)}); grade them all",
                n,
                "qid",
            )


_POOL_SPEC: Spec = {
    "qid": ("str", False),
    "document": ("str", False),
    "section": ("str", False),
    "version": ("str", False),
    "systems": ("list", False),
}


def load_pool(root: Path, qids: set[str], documents: tuple[Document, ...]) -> pd.DataFrame | None:
    """review/pool.jsonl as (qid, clause_id, systems), one row per pooled pair; None when absent.
    Every qid is a question and every clause is in the corpus; a pair appears once."""
    f = DataFile(root, f"review/{POOL_FILE}")
    data = f.read_optional()
    if data is None:
        return None
    clauses = {c.clause_id for d in documents for c in d.clauses}
    rows, seen = [], set()
    for n, entry in enumerate(f.jsonl(data), start=1):
        f.fields(entry, _POOL_SPEC, n)
        if entry["qid"] not in qids:
            f.fail(f"question {entry['qid']!r} is not in questions.jsonl; drop the row", n, "qid")
        cid = clause_id(entry["document"], entry["section"], entry["version"])
        if cid not in clauses:
            f.fail(f"clause {cid} is not in the corpus snapshot; drop the row", n, "section")
        if (entry["qid"], cid) in seen:
            f.fail(f"question {entry['qid']!r} and clause {cid} are pooled twice", n, "qid")
        seen.add((entry["qid"], cid))
        systems = entry["systems"]
        if not systems or not all(isinstance(x, str) for x in systems):
            f.fail("must list the names of the systems that found the pair", n, "systems")
        rows.append({"qid": entry["qid"], "clause_id": cid, "systems": " ".join(systems)})
    return pd.DataFrame(rows, columns=["qid", "clause_id", "systems"])


_AGREEMENT_SPEC: Spec = {
    "judges": ("list", False),
    "files": ("list", False),
    "at": ("str", False),
    "labels_hash": ("str", False),
    "threshold": ("number", False),
    "interval": ("object", False),
    "slices": ("list", False),
}
_SLICE_SPEC: Spec = {
    "slice": ("str", False),
    "items": ("int", False),
    "questions": ("int", False),
    "kappa": ("number", True),
    "low": ("number", True),
    "high": ("number", True),
    "status": ("str", False),
}


def load_agreement(root: Path, slices: tuple[str, ...]) -> dict[str, Any] | None:
    """review/agreement.json as written by `ragsweep labels agreement --save`, checked (two
    judges, one row per slice of the dataset it measured plus "all", kappa and its interval
    numbers or null); None when absent."""
    f = DataFile(root, f"review/{AGREEMENT_FILE}")
    data = f.read_optional()
    if data is None:
        return None
    record = f.json_object(data)
    _typed(f, record, _AGREEMENT_SPEC, "")
    judges = record["judges"]
    if len(judges) != 2 or not all(isinstance(j, str) and j for j in judges):
        f.fail("must name the two judges compared; write it again with --save", None, "judges")
    names = []
    for i, row in enumerate(record["slices"]):
        if not isinstance(row, dict):
            f.fail("each entry must be an object; write it again with --save", None, "slices")
        _typed(f, row, _SLICE_SPEC, f"slices[{i}].")
        if row["slice"] not in (*slices, "all"):
            f.fail(
                f"slice {row['slice']!r} is not a slice of dataset.json; "
                f"{hint(row['slice'], list(slices))}measure agreement again with --save",
                None,
                f"slices[{i}].slice",
            )
        names.append(row["slice"])
    if "all" not in names:
        f.fail("has no overall row (slice 'all'); write it again with --save", None, "slices")
    return record


def _typed(f: DataFile, obj: Mapping[str, Any], spec: Spec, prefix: str) -> None:
    """Keys and JSON types of `obj` against `spec` ("number": an int or float, not a bool)."""
    for key in obj:
        if key not in spec:
            f.fail(
                f"unknown field; {hint(key, list(spec))}allowed: {', '.join(spec)}",
                None,
                prefix + key,
            )
    for key, (kind, nullable) in spec.items():
        if key not in obj:
            f.fail(
                "missing field; write the file again with `labels agreement --save`",
                None,
                prefix + key,
            )
        value = obj[key]
        if value is None and nullable:
            continue
        if kind == "number":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            ok = ok and math.isfinite(value)
        else:
            ok = type(value) is {"str": str, "int": int, "list": list, "object": dict}[kind]
        if not ok:
            f.fail(f"expected {kind}, got {f.describe(value)}", None, prefix + key)


def kappa_summary(record: Mapping[str, Any]) -> str:
    """The overall kappa of an agreement record in one line: `0.70 [0.58, 0.80] n=307 (ann vs
    bob)`, or `undefined n=...` when kappa is null."""
    row = next(r for r in record["slices"] if r["slice"] == "all")
    judges = " vs ".join(record["judges"])
    if row["kappa"] is None:
        return f"undefined n={row['items']} ({judges})"
    interval = "" if row["low"] is None else f" [{row['low']:.2f}, {row['high']:.2f}]"
    return f"{row['kappa']:.2f}{interval} n={row['items']} ({judges})"
