"""The two hashes that pin what a number was measured on: the corpus snapshot and the labelled
set (docs/schema.md). Lowercase hex sha256."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path


def snapshot_hash(corpus_dir: str | Path) -> str:
    """sha256 of a corpus snapshot: over `<path>\\t<file sha256>\\n` for every file below
    `corpus_dir`, paths relative to it in POSIX form, sorted by path (code point order)."""
    corpus_dir = Path(corpus_dir)
    return snapshot_hash_of(
        {
            p.relative_to(corpus_dir).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in corpus_dir.rglob("*")
            if p.is_file()
        }
    )


def snapshot_hash_of(file_hashes: Mapping[str, str]) -> str:
    """`snapshot_hash` from every file's sha256 (lowercase hex), by POSIX path relative to the
    corpus folder: for a loader that has already read and hashed the files."""
    lines = "".join(f"{rel}\t{file_hashes[rel]}\n" for rel in sorted(file_hashes))
    return hashlib.sha256(lines.encode()).hexdigest()


def labels_hash(questions: bytes, labels: bytes, relevance: bytes | None = None) -> str:
    """sha256 of the labelled set: `questions.jsonl\\n` + its bytes + `labels.jsonl\\n` + its
    bytes, then `relevance.md\\n` + its bytes when the dataset has the relevance rule.

    Tightening the rule is a change of the labelled set, so it changes the hash; a dataset
    without relevance.md (None) keeps the hash of the two files alone, as before the rule was
    part of the schema. No valid labels.jsonl ends in a `relevance.md` line (it is not JSON),
    so the two forms cannot collide.
    """
    h = hashlib.sha256()
    h.update(b"questions.jsonl\n")
    h.update(questions)
    h.update(b"labels.jsonl\n")
    h.update(labels)
    if relevance is not None:
        h.update(b"relevance.md\n")
        h.update(relevance)
    return h.hexdigest()
