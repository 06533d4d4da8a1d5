"""Load and validate a ragsweep dataset folder (docs/schema.md, schema version 1).

`load_dataset` reads every file, checks it against the schema and the cross-file rules (labels
anchored to clauses that exist, versions that exist, one label per pair, ...) and returns a frozen
`Dataset`. The first problem found raises `ragsweep.errors.DatasetError`, whose one-line message
names the file, the line (JSON Lines files) and the field, and says how to fix it; bad data never
produces a traceback. `check_dataset` adds the statistics that `ragsweep data check` prints.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import os
from collections import OrderedDict
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ragsweep.data.corpus import load_corpus
from ragsweep.data.gc_pause import cyclic_gc_paused
from ragsweep.data.hashing import labels_hash, snapshot_hash, snapshot_hash_of
from ragsweep.data.judge import judge_view
from ragsweep.data.labels import judged_note, load_labels
from ragsweep.data.manifest import check_manifest, check_root_files
from ragsweep.data.meta import load_meta
from ragsweep.data.querylog import check_query_log
from ragsweep.data.questions import load_questions
from ragsweep.data.reader import DataFile
from ragsweep.data.relevance import load_relevance
from ragsweep.data.reviews import load_agreement, load_pool, load_reviews
from ragsweep.data.schema import (
    GRADES,
    LABELS_FILE,
    META_FILE,
    QUESTIONS_FILE,
    REAL_SUBSETS,
    SUBSETS,
    Dataset,
)
from ragsweep.errors import DatasetError


def sample_path() -> Path:
    """Folder of the built-in sample shipped inside the package (`ragsweep/data/sample`)."""
    return Path(str(resources.files("ragsweep") / "data" / "sample"))


def load_dataset(
    path: str | Path | None = None, *, pool: bool = False, remember: bool = True
) -> Dataset:
    """Read and fully validate a dataset folder (None: the built-in sample).

    `review/pool.jsonl`, a record of what a judging pool showed that no run reads, is read and
    checked only with `pool=True` (`ragsweep data check` does): on the sample it is as large as
    the labels. A dataset loaded is remembered for the next load of the same bytes (`_LOADED`)
    unless `remember=False`: a process that loads it once frees it with its last reference.
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
    files = _read_folder(root)
    key = None if files is None else (str(root.resolve()), files.digest(), pool)
    if key is not None and key in _LOADED:
        _LOADED.move_to_end(key)
        return copy_dataset(_LOADED[key])
    with cyclic_gc_paused():  # millions of small objects it keeps
        ds = _load(root, pool, files)
    if key is not None and remember:
        _LOADED[key] = copy_dataset(ds)
        while len(_LOADED) > _LOADED_MAX:
            _LOADED.popitem(last=False)
    return ds


#: datasets already validated in this process, by (folder, digest of every file's path and
#: bytes): a sweep worker, a report and a test load the same folder many times, and parsing a
#: large labelled set costs far more than reading and hashing its bytes. Any change to any file
#: changes the digest, so a changed folder is always validated again.
_LOADED: OrderedDict[tuple[str, str, bool], Dataset] = OrderedDict()
_LOADED_MAX = 4


@dataclasses.dataclass(frozen=True)
class _Files:
    """Every file below a dataset folder, read once: bytes and sha256 by POSIX path relative to
    the folder. The loaders parse these bytes, so a load reads each file once, and the snapshot
    hash comes from the hashes of the very bytes parsed."""

    data: Mapping[str, bytes]
    sha256: Mapping[str, bytes]  # digests, 32 bytes each

    def digest(self) -> str:
        """sha256 over every file's relative path and sha256, in path order."""
        parts = []
        for rel in sorted(self.sha256):
            name = rel.encode("utf-8")
            parts += (len(name).to_bytes(8, "big"), name, self.sha256[rel])
        return hashlib.sha256(b"".join(parts)).hexdigest()

    def under(self, folder: str) -> dict[str, str]:
        """sha256 (hex) of the files below `folder`, by path relative to it."""
        prefix = folder + "/"
        cut = len(prefix)
        return {rel[cut:]: h.hex() for rel, h in self.sha256.items() if rel.startswith(prefix)}

    def top(self, folder: str) -> dict[str, bytes]:
        """Bytes of the files directly in `folder`, by name."""
        prefix = folder + "/"
        cut = len(prefix)
        return {
            rel[cut:]: data
            for rel, data in self.data.items()
            if rel.startswith(prefix) and "/" not in rel[cut:]
        }


def _read_folder(root: Path) -> _Files | None:
    """Every file below `root` (links to folders are not followed), or None when the folder
    cannot be read: then it is loaded, and its error reported, the usual way."""
    data: dict[str, bytes] = {}
    sha256: dict[str, bytes] = {}

    def stop(err: OSError) -> None:
        raise err

    try:
        if not root.is_dir():
            return None
        for folder, _, names in os.walk(root, onerror=stop):
            rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
            prefix = "" if rel_folder == "." else rel_folder + "/"
            for name in names:
                with open(os.path.join(folder, name), "rb") as fh:
                    content = fh.read()
                data[prefix + name] = content
                sha256[prefix + name] = hashlib.sha256(content).digest()
    except OSError:
        return None
    return _Files(data, sha256)


def copy_dataset(ds: Dataset) -> Dataset:
    """`ds` with its own frames and metadata, so a caller that changes them changes nothing
    another caller sees (the documents are frozen): what a dataset kept for later loads
    (`_LOADED`, a sweep's shared dataset) hands out."""
    return dataclasses.replace(
        ds,
        meta=copy.deepcopy(ds.meta),
        questions=ds.questions.copy(),
        labels=ds.labels.copy(),
        reviews={name: frame.copy() for name, frame in ds.reviews.items()},
        pool=None if ds.pool is None else ds.pool.copy(),
    )


def _load(root: Path, with_pool: bool, files: _Files | None = None) -> Dataset:
    """Check the files in this order, which decides the problem reported first: dataset.json,
    corpus/, the presence of questions and labels, their contents, relevance.md, the query log,
    review/, the top-level names, and last the manifest (so it never masks a content error).
    The corpus, questions and labels are parsed from `files` when given (read here otherwise)."""
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
    documents = load_corpus(root, None if files is None else files.top("corpus"))
    questions_raw = _required(root, QUESTIONS_FILE, "the questions of the labelled set", files)
    labels_raw = _required(root, LABELS_FILE, "the graded labels", files)
    questions = load_questions(root, questions_raw, slices, documents)
    labels, judged = load_labels(root, labels_raw, questions, documents)
    rule = load_relevance(root)
    log_entries = check_query_log(root)
    reviews = load_reviews(root, judged, documents)
    pool = load_pool(root, set(questions["qid"]), documents) if with_pool else None
    agreement = load_agreement(root, slices)
    check_root_files(root)
    check_manifest(root)
    if files is None:
        snapshot = snapshot_hash(root / "corpus")
    else:
        snapshot = snapshot_hash_of(files.under("corpus"))
    return Dataset(
        root=root,
        meta=meta,
        slices=slices,
        documents=documents,
        questions=questions,
        labels=labels,
        snapshot_hash=snapshot,
        labels_hash=labels_hash(questions_raw, labels_raw, None if rule is None else rule[0]),
        log_entries=log_entries,
        reviews=reviews,
        pool=pool,
        relevance=None if rule is None else rule[1],
        agreement=agreement,
    )


def _required(root: Path, rel: str, what: str, files: _Files | None) -> bytes:
    """Bytes of a required top-level file: as already read, else read (or refused) here."""
    data = None if files is None else files.data.get(rel)
    return DataFile(root, rel).read(what) if data is None else data


def check_dataset(path: str | Path | None = None) -> dict[str, Any]:
    """Validate a dataset folder (None: the built-in sample) and return its statistics.

    Keys, in print order: name, path, schema_version, documents (distinct wording ids),
    document_versions (wordings: corpus files and .jsonl lines), clauses, words
    (`len(s.split())` summed over clause headings and texts), versions, products, questions,
    questions_per_slice (every slice, in report order), questions_per_subset,
    multi_relevant_questions (2+ clauses with grade >= 1), labels_per_grade (keys "0", "1",
    "2"), questions_with_grade_0 (questions with an explicit grade-0 label: judged passages
    that do not answer), unjudged_warning (`labels.judged_note`: None unless no label is a
    grade 0, as in TREC or BEIR qrels), grade2_per_question (questions by their number of
    grade-2 clauses),
    version_change_questions (questions with a grade-2 clause whose text differs
    in, or is missing from, another version of its document: the answer depends on the version),
    filtered_pool (clauses per product and version, what a product+version filter leaves: min,
    median, max; None without products), pool_judged (review/pool.jsonl's candidates and the share
    labels.jsonl judges; None without the file), log_entries (None without a query log),
    review_questions (distinct qids per review file present), relevance_rule (the first 12
    hex digits of relevance.md's sha256, None without the file), snapshot_hash, labels_hash.
    """
    return statistics(load_dataset(path, pool=True))


def statistics(ds: Dataset) -> dict[str, Any]:
    """The statistics of a loaded dataset (see `check_dataset`); JSON-serialisable."""
    clauses = [c for d in ds.documents for c in d.clauses]
    q = ds.questions
    lab = ds.labels
    relevant = lab.loc[lab["grade"] >= 1, "qid"].value_counts()
    grade_counts = lab["grade"].value_counts()
    out = {
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
        # `synthetic` only when the set has some: a set of real questions reads as before
        "questions_per_subset": {
            s: int((q["subset"] == s).sum())
            for s in SUBSETS
            if s in REAL_SUBSETS or (q["subset"] == s).any()
        },
        "multi_relevant_questions": int((relevant >= 2).sum()),
        "labels_per_grade": {str(g): int(grade_counts.get(g, 0)) for g in GRADES},
        "questions_with_grade_0": int(lab.loc[lab["grade"] == 0, "qid"].nunique()),
        "unjudged_warning": judged_note(
            {str(g): int(grade_counts.get(g, 0)) for g in GRADES}, len(q)
        ),
        "grade2_per_question": _grade2_per_question(ds),
        "version_change_questions": _version_change_questions(ds),
        "filtered_pool": _filtered_pool(ds),
        "pool_judged": _pool_judged(ds),
        "log_entries": ds.log_entries,
        "review_questions": {name: int(df["qid"].nunique()) for name, df in ds.reviews.items()},
        "relevance_rule": _rule_digest(ds),
        "snapshot_hash": ds.snapshot_hash,
        "labels_hash": ds.labels_hash,
    }
    return out | _model_judged(ds)


def _model_judged(ds: Dataset) -> dict[str, Any]:
    """On a set a model judge partly labelled (`ragsweep.data.judge`): the judge, its questions
    and the audited ones, or why no comparison can be corrected; nothing on a people-made set."""
    view, why = judge_view(ds)
    if view is None and why is None:
        return {}
    if view is None:
        return {"model_judged": {"corrected": False, "why_not": why}}
    return {
        "model_judged": {
            "corrected": True,
            "judge": view.model,
            "questions_by_model": len(view.by_model),
            "questions_audited": len(view.audited),
        }
    }


def _grade2_per_question(ds: Dataset) -> dict[str, int]:
    """Questions by how many grade-2 clauses they have: "0", "1", "2", "3", "4+"."""
    twos = ds.labels.loc[ds.labels["grade"] == 2, "qid"].value_counts()
    counts = [int(twos.get(qid, 0)) for qid in ds.questions["qid"]]
    out = {str(n): sum(c == n for c in counts) for n in range(4)}
    out["4+"] = sum(c >= 4 for c in counts)
    return out


def _version_change_questions(ds: Dataset) -> dict[str, float] | None:
    """Questions whose answer depends on the wording version (see `check_dataset`); None when
    no document has two versions."""
    texts: dict[tuple[str, str], dict[str, str]] = {}
    versions: dict[str, set[str]] = {}
    for d in ds.documents:
        versions.setdefault(d.document, set()).add(d.version)
        for c in d.clauses:
            texts.setdefault((d.document, c.section), {})[d.version] = f"{c.heading}\n{c.text}"
    if all(len(v) < 2 for v in versions.values()):
        return None
    twos = ds.labels[ds.labels["grade"] == 2]
    changed = set()
    for qid, doc, sec, ver in zip(
        twos["qid"], twos["document"], twos["section"], twos["version"], strict=True
    ):
        by_version = texts[(doc, sec)]
        if any(by_version.get(other) != by_version[ver] for other in versions[doc] - {ver}):
            changed.add(qid)
    n = len(ds.questions)
    count = sum(qid in changed for qid in ds.questions["qid"])
    return {"count": count, "share": round(count / n, 4) if n else 0.0}


def _filtered_pool(ds: Dataset) -> dict[str, float] | None:
    """Clauses per (product, version): min, median and max over the pairs; None without
    products."""
    sizes: dict[tuple[str, str], int] = {}
    for d in ds.documents:
        if d.product is not None:
            key = (d.product, d.version)
            sizes[key] = sizes.get(key, 0) + len(d.clauses)
    if not sizes:
        return None
    values = sorted(sizes.values())
    return {"min": values[0], "median": float(np.median(values)), "max": values[-1]}


def _pool_judged(ds: Dataset) -> dict[str, float] | None:
    """review/pool.jsonl's pooled pairs and the share of them labels.jsonl judges."""
    if ds.pool is None:
        return None
    judged = set(zip(ds.labels["qid"], ds.labels["clause_id"], strict=True))
    pairs = list(zip(ds.pool["qid"], ds.pool["clause_id"], strict=True))
    n = sum(pair in judged for pair in pairs)
    return {
        "candidates": len(pairs),
        "judged": n,
        "share": round(n / len(pairs), 4) if pairs else 1.0,
    }


def _rule_digest(ds: Dataset) -> str | None:
    """The first 12 hex digits of relevance.md's sha256, None without it: enough to tell two
    versions of the rule apart in `ragsweep data check`. (Strict UTF-8 decodes and encodes back
    to the same bytes, so this is the file's own sha256.)"""
    if ds.relevance is None:
        return None
    return hashlib.sha256(ds.relevance.encode("utf-8")).hexdigest()[:12]
