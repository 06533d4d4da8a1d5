"""questions.jsonl: the labelled set's questions, each in a known slice and subset, filtered to
a product and version the corpus holds."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pandas as pd

from ragsweep.data.reader import DataFile, Spec, hint, known, table
from ragsweep.data.schema import QID_RE, QUESTIONS_FILE, SUBSETS, Document

_SPEC: Spec = {
    "qid": ("str", False),
    "text": ("str", False),
    "slice": ("str", False),
    "product": ("str", True),
    "version": ("str", True),
    "subset": ("str", False),
    "added": ("str", False),
}
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


def load_questions(
    root: Path, data: bytes, slices: tuple[str, ...], documents: tuple[Document, ...]
) -> pd.DataFrame:
    """The questions in `data` (the bytes of `root`/questions.jsonl), checked against the
    slices of dataset.json and the corpus; one row per line, in file order."""
    f = DataFile(root, QUESTIONS_FILE)
    rows = f.jsonl(data)
    if not rows:
        f.fail("holds no question; add one JSON object per line")
    products = sorted({d.product for d in documents if d.product is not None})
    versions_of: dict[str | None, list[str]] = {None: sorted({d.version for d in documents})}
    for p in products:
        versions_of[p] = sorted({d.version for d in documents if d.product == p})
    first: dict[str, int] = {}
    for n, q in enumerate(rows, start=1):
        f.fields(q, _SPEC, n)
        qid = q["qid"]
        f.pattern(qid, QID_RE, "question id (non-empty, no spaces)", n, "qid")
        if qid in first:
            f.fail(
                f"duplicate qid {qid!r} (first on line {first[qid]}); give each question its "
                "own id",
                n,
                "qid",
            )
        first[qid] = n
        f.nonblank(q["text"], n, "text")
        if q["slice"] not in slices:
            f.fail(
                f"unknown slice {q['slice']!r}; {hint(q['slice'], slices)}"
                f"known (dataset.json): {', '.join(slices)}",
                n,
                "slice",
            )
        product, version = q["product"], q["version"]
        if product is not None and product not in products:
            f.fail(
                f"no wording in corpus/ has product {product!r}; "
                f"{hint(product, products)}products: {known(products)}",
                n,
                "product",
            )
        if version is not None and version not in versions_of[product]:
            whose = "no wording" if product is None else f"no wording of product {product!r}"
            f.fail(
                f"{whose} has version {version!r} in corpus/; versions: "
                f"{known(versions_of[product])}",
                n,
                "version",
            )
        if q["subset"] not in SUBSETS:
            f.fail(
                f"{q['subset']!r} is not a subset; use 'core' (frozen), 'rolling' (refreshed) or "
                "'synthetic' (generated from the corpus)",
                n,
                "subset",
            )
        if not _is_date(q["added"]):
            f.fail(f"{q['added']!r} is not a date; write YYYY-MM-DD, e.g. 2025-03-31", n, "added")
    return table(rows, list(_SPEC))


def _is_date(text: str) -> bool:
    """Whether `text` is a calendar date written YYYY-MM-DD."""
    if not _DATE_RE.fullmatch(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True
