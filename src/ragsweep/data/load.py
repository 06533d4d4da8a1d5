"""Load and validate a ragsweep dataset folder (docs/schema.md, schema version 1).

`load_dataset` reads every file, checks it against the schema and the cross-file rules (labels
anchored to clauses that exist, versions that exist, one label per pair, ...) and returns a frozen
`Dataset`. The first problem found raises `ragsweep.errors.DatasetError`, whose one-line message
names the file, the line (JSON Lines files) and the field, and says how to fix it; bad data never
produces a traceback. `check_dataset` adds the statistics that `ragsweep data check` prints.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path
from typing import Any

from ragsweep.data.corpus import load_corpus
from ragsweep.data.hashing import labels_hash, snapshot_hash
from ragsweep.data.labels import load_labels
from ragsweep.data.manifest import check_manifest, check_root_files
from ragsweep.data.meta import load_meta
from ragsweep.data.querylog import load_query_log
from ragsweep.data.questions import load_questions
from ragsweep.data.reader import DataFile
from ragsweep.data.relevance import load_relevance
from ragsweep.data.reviews import load_reviews
from ragsweep.data.schema import (
    GRADES,
    LABELS_FILE,
    META_FILE,
    QUESTIONS_FILE,
    SUBSETS,
    Dataset,
)
from ragsweep.errors import DatasetError


def sample_path() -> Path:
    """Folder of the built-in sample shipped inside the package (`ragsweep/data/sample`)."""
    return Path(str(resources.files("ragsweep") / "data" / "sample"))


def load_dataset(path: str | Path | None = None) -> Dataset:
    """Read and fully validate a dataset folder (None: the built-in sample).

    Raises `DatasetError` naming the file, line and field of the first problem found.
    """
    if path is None:
        root = sample_path()
        if not (root / META_FILE).is_file():
            raise DatasetError(
                root,
                "the built-in sample is missing from this installation; reinstall ragsweep, or "
                "write one with `ragsweep data sample --out DIR` and pass DIR",
            )
    else:
        root = Path(path)
    return _load(root)


def _load(root: Path) -> Dataset:
    """Check the files in this order, which decides the problem reported first: dataset.json,
    corpus/, the presence of questions and labels, their contents, relevance.md, the query log,
    review/, the top-level names, and last the manifest (so it never masks a content error)."""
    if not root.exists():
        raise DatasetError(
            root,
            "no such folder; give the path of a dataset folder (the one holding dataset.json)",
        )
    if not root.is_dir():
        raise DatasetError(
            root,
            "is a file, not a folder; give the dataset folder (the one holding dataset.json)",
        )
    meta = load_meta(root)
    slices = tuple(meta["slices"])
    documents = load_corpus(root)
    questions_raw = DataFile(root, QUESTIONS_FILE).read("the questions of the labelled set")
    labels_raw = DataFile(root, LABELS_FILE).read("the graded labels")
    questions = load_questions(root, questions_raw, slices, documents)
    labels, judged = load_labels(root, labels_raw, questions, documents)
    rule = load_relevance(root)
    query_log = load_query_log(root)
    reviews = load_reviews(root, judged, documents)
    check_root_files(root)
    check_manifest(root)
    return Dataset(
        root=root,
        meta=meta,
        slices=slices,
        documents=documents,
        questions=questions,
        labels=labels,
        snapshot_hash=snapshot_hash(root / "corpus"),
        labels_hash=labels_hash(questions_raw, labels_raw, None if rule is None else rule[0]),
        query_log=query_log,
        reviews=reviews,
        relevance=None if rule is None else rule[1],
    )


def check_dataset(path: str | Path | None = None) -> dict[str, Any]:
    """Validate a dataset folder (None: the built-in sample) and return its statistics.

    Keys, in print order: name, path, schema_version, documents (distinct wording ids),
    document_versions (corpus files), clauses, words (`len(s.split())` summed over clause
    headings and texts), versions, products, questions, questions_per_slice (every slice, in
    report order), questions_per_subset, multi_relevant_questions (2+ clauses with grade >= 1),
    labels_per_grade (keys "0", "1", "2"), log_entries (None without a query log),
    review_questions (distinct qids per review file present), relevance_rule (the first 12
    hex digits of relevance.md's sha256, None without the file), snapshot_hash, labels_hash.
    """
    return statistics(load_dataset(path))


def statistics(ds: Dataset) -> dict[str, Any]:
    """The statistics of a loaded dataset (see `check_dataset`); JSON-serialisable."""
    clauses = [c for d in ds.documents for c in d.clauses]
    q = ds.questions
    lab = ds.labels
    relevant = lab.loc[lab["grade"] >= 1, "qid"].value_counts()
    grade_counts = lab["grade"].value_counts()
    return {
        "name": ds.meta["name"],
        "path": str(ds.root),
        "schema_version": ds.meta["schema_version"],
        "documents": len({d.document for d in ds.documents}),
        "document_versions": len(ds.documents),
        "clauses": len(clauses),
        "words": sum(len(c.heading.split()) + len(c.text.split()) for c in clauses),
        "versions": sorted({d.version for d in ds.documents}),
        "products": sorted({d.product for d in ds.documents if d.product is not None}),
        "questions": len(q),
        "questions_per_slice": {s: int((q["slice"] == s).sum()) for s in ds.slices},
        "questions_per_subset": {s: int((q["subset"] == s).sum()) for s in SUBSETS},
        "multi_relevant_questions": int((relevant >= 2).sum()),
        "labels_per_grade": {str(g): int(grade_counts.get(g, 0)) for g in GRADES},
        "log_entries": None if ds.query_log is None else len(ds.query_log),
        "review_questions": {name: int(df["qid"].nunique()) for name, df in ds.reviews.items()},
        "relevance_rule": _rule_digest(ds),
        "snapshot_hash": ds.snapshot_hash,
        "labels_hash": ds.labels_hash,
    }


def _rule_digest(ds: Dataset) -> str | None:
    """The first 12 hex digits of relevance.md's sha256, None without it: enough to tell two
    versions of the rule apart in `ragsweep data check`. (Strict UTF-8 decodes and encodes back
    to the same bytes, so this is the file's own sha256.)"""
    if ds.relevance is None:
        return None
    return hashlib.sha256(ds.relevance.encode("utf-8")).hexdigest()[:12]
