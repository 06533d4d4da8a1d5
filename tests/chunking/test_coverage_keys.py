"""`anchors.coverage` keys: the sorted distinct `chunk * n_clauses + clause` of every pair sharing
at least `min_overlap` of the shorter span, checked against a pair-by-pair definition."""

from __future__ import annotations

import numpy as np
from test_chunking import make_doc

from ragsweep.chunking.anchors import coverage
from ragsweep.chunking.chunkers import FixedTokenChunker, chunk_corpus


def reference_keys(documents, chunks, min_overlap: float = 0.5) -> list[int]:
    clause_ids = sorted(c.clause_id for d in documents for c in d.clauses)
    keys = set()
    for i, ch in enumerate(chunks):
        for d in documents:
            if d.doc_id != ch.doc_id:
                continue
            for c, (s, e) in zip(d.clauses, d.spans, strict=True):
                shared = min(ch.end, e) - max(ch.start, s)
                if shared >= min_overlap * max(min(ch.end - ch.start, e - s), 1):
                    keys.add(i * len(clause_ids) + clause_ids.index(c.clause_id))
    return sorted(keys)


def test_keys_are_the_sorted_distinct_covering_pairs() -> None:
    docs = [make_doc([7, 3, 12, 1, 9]), make_doc([4, 4], version="2024")]
    chunks = chunk_corpus(docs, FixedTokenChunker(size=5, overlap=2))
    got = coverage(docs, chunks).keys
    assert got.dtype == np.int64
    assert got.tolist() == reference_keys(docs, chunks) and len(got) > len(docs)
    assert coverage(docs[::-1], chunks).keys.tolist() == got.tolist()  # whatever the order


def test_no_covering_pair_gives_no_key() -> None:
    doc = make_doc([3, 3])
    # the middle window (c0w2, c1w0) holds under half of itself in either clause
    middle = FixedTokenChunker(size=2, overlap=0).chunk(doc)[1]
    assert middle.text.split() == ["c0w2", "c1w0"]
    assert coverage([doc], [middle]).keys.tolist() == []
    assert coverage([doc], []).keys.tolist() == []
