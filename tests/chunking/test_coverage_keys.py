"""`anchors.coverage` keys: the sorted distinct `chunk * n_clauses + clause` of every pair sharing
at least `min_overlap` of the shorter span, checked against a pair-by-pair definition."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_chunking import Clause, Doc, make_doc

from ragsweep.chunking.anchors import coverage, gain_arrays, label_matrix
from ragsweep.chunking.chunkers import Chunk, FixedTokenChunker, chunk_corpus


def reference_keys(documents, chunks, min_overlap: float = 0.5) -> list[int]:
    """`Coverage.keys` by the pair-by-pair rule (`reference_relation`)."""
    clause_ids = sorted(c.clause_id for d in documents for c in d.clauses)
    relation = reference_relation(documents, chunks, min_overlap)
    return sorted(
        {i * len(clause_ids) + clause_ids.index(c) for i, cs in relation.items() for c in cs}
    )


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


# --- the vectorised coverage against a pair-by-pair reference on random corpora ---------------


def reference_relation(documents, chunks, min_overlap: float) -> dict[int, list[str]]:
    """Chunk index -> the clause ids it covers, sorted: the module docstring's rule, pair by
    pair (shared characters >= min_overlap of the shorter span; an empty span covers nothing)."""
    out: dict[int, set[str]] = {i: set() for i in range(len(chunks))}
    for i, ch in enumerate(chunks):
        for d in documents:
            if d.doc_id != ch.doc_id:
                continue
            for c, (s, e) in zip(d.clauses, d.spans, strict=True):
                shared = min(ch.end, e) - max(ch.start, s)
                if shared >= min_overlap * max(min(ch.end - ch.start, e - s), 1):
                    out[i].add(c.clause_id)
    return {i: sorted(v) for i, v in out.items()}


def random_corpus(seed: int) -> tuple[list[Doc], list[Chunk]]:
    """Documents with tiled (touching), overlapping, nested, repeated and empty clause spans,
    some with no clause or no chunk; chunks of two window chunkers and of random spans (empty
    ones too, and some of a document not in the list), shuffled."""
    rng = np.random.default_rng(seed)
    docs: list[Doc] = []
    chunks: list[Chunk] = []
    for k in range(int(rng.integers(1, 8))):
        length = int(rng.integers(0, 60))
        spans: list[tuple[int, int]] = []
        at = 0
        while at < length and rng.random() < 0.7:  # a tiling: each clause touches the next
            end = min(length, at + int(rng.integers(1, 15)))
            spans.append((at, end))
            at = end
        for _ in range(int(rng.integers(0, 4))):  # anywhere: overlapping, repeated or empty
            s = int(rng.integers(0, length + 1))
            spans.append((s, int(rng.integers(s, length + 1))))
        if spans and rng.random() < 0.5:  # nested in an existing clause
            s, e = spans[int(rng.integers(len(spans)))]
            inner = int(rng.integers(s, e + 1))
            spans.append((inner, int(rng.integers(inner, e + 1))))
        order = rng.permutation(len(spans))  # clause order need not follow the text
        clauses = tuple(Clause(f"d{k}", "v", f"{j}.{int(rng.integers(10))}") for j in order)
        docs.append(Doc(f"d{k}", "v", None, "x" * length, tuple(spans[j] for j in order), clauses))
    for d in [*docs, Doc("ghost", "v", None, "x" * 20, ())]:
        if rng.random() < 0.2:
            continue  # a document without chunks
        length = len(d.text)
        for size, step in ((8, 6), (int(rng.integers(1, 20)), int(rng.integers(1, 20)))):
            for s in range(0, max(length, 1), step):
                chunks.append(make_chunk(d, s, min(length, s + size)))
        for _ in range(int(rng.integers(0, 5))):
            s = int(rng.integers(0, length + 1))
            chunks.append(make_chunk(d, s, int(rng.integers(s, length + 1))))
    order = rng.permutation(len(chunks))
    return docs, [chunks[i] for i in order]


def make_chunk(d: Doc, start: int, end: int) -> Chunk:
    return Chunk(f"{d.doc_id}#{start}-{end}", d.doc_id, d.document, d.version, None, start, end, "")


SHARES = (0.5, 0.01, 0.3, 2 / 3, 1.0)


@pytest.mark.parametrize("seed", range(40))
def test_coverage_of_every_chunk_matches_the_pair_by_pair_rule(seed: int) -> None:
    docs, chunks = random_corpus(seed)
    clause_ids = sorted(c.clause_id for d in docs for c in d.clauses)
    for share in SHARES:
        want = reference_relation(docs, chunks, share)
        cov = coverage(docs, chunks, share)
        assert cov.clause_ids == tuple(clause_ids) and cov.n_chunks == len(chunks)
        assert cov.keys.dtype == np.int64
        expected = sorted(i * len(clause_ids) + clause_ids.index(c) for i in want for c in want[i])
        assert cov.keys.tolist() == expected
        assert cov.clauses_of(np.arange(len(chunks))) == want
        assert [cov.chunk_clauses(i) for i in range(len(chunks))] == [want[i] for i in want]


@pytest.mark.parametrize("seed", range(40))
def test_coverage_of_some_chunks_matches_the_rule_for_them(seed: int) -> None:
    docs, chunks = random_corpus(seed)
    rng = np.random.default_rng(1000 + seed)
    for share in SHARES:
        want = reference_relation(docs, chunks, share)
        only = rng.integers(0, len(chunks), int(rng.integers(0, len(chunks) + 1)))  # repeats too
        cov = coverage(docs, chunks, share, only=only)
        mapped = sorted(set(only.tolist()))
        assert cov.mapped.tolist() == mapped and cov.n_chunks == len(chunks)
        held = {chunks[i].doc_id for i in mapped}
        assert cov.clause_ids == tuple(
            sorted(c.clause_id for d in docs if d.doc_id in held for c in d.clauses)
        )
        assert cov.clauses_of(np.array(mapped, dtype=np.int64)) == {i: want[i] for i in mapped}
        # covers answers per (chunk, clause) pair; a clause outside clause_ids is -1
        all_ids = sorted(c.clause_id for d in docs for c in d.clauses)
        pairs = [(i, c) for i in mapped for c in all_ids]
        index = {c: k for k, c in enumerate(cov.clause_ids)}
        got = cov.covers(
            np.array([i for i, _ in pairs], dtype=np.int64),
            np.array([index.get(c, -1) for _, c in pairs], dtype=np.int64),
        )
        assert got.tolist() == [c in want[i] for i, c in pairs]
        unmapped = sorted(set(range(len(chunks))) - set(mapped))
        if unmapped:
            with pytest.raises(ValueError, match=f"chunk {unmapped[0]} was not mapped"):
                cov.clauses_of(np.array(unmapped))


@pytest.mark.parametrize("seed", range(10))
def test_gain_arrays_are_the_same_from_the_ranked_chunks_coverage(seed: int) -> None:
    docs, chunks = random_corpus(seed)
    rng = np.random.default_rng(2000 + seed)
    all_ids = sorted(c.clause_id for d in docs for c in d.clauses)
    if not all_ids or not chunks:
        return
    qids = [f"q{i}" for i in range(6)]
    labels = pd.DataFrame(
        [(q, c, int(rng.integers(0, 3))) for q in qids for c in all_ids if rng.random() < 0.4],
        columns=["qid", "clause_id", "grade"],
    )
    ranked = rng.integers(-1, len(chunks), (len(qids), 5))
    full = coverage(docs, chunks)
    part = coverage(docs, chunks, only=ranked[ranked >= 0])
    a = gain_arrays(ranked, full, *label_matrix(qids, labels, full.clause_ids))
    b = gain_arrays(ranked, part, *label_matrix(qids, labels, part.clause_ids))
    for field in ("gains", "new_rel", "n_rel", "ideal", "unjudged"):
        assert getattr(a, field).tolist() == getattr(b, field).tolist(), field
    assert a.gains.any() or a.unjudged.any()


def test_only_checks_its_indices_and_gain_arrays_its_ranking() -> None:
    doc = make_doc([3, 3])
    chunks = FixedTokenChunker(size=2, overlap=0).chunk(doc)
    with pytest.raises(ValueError, match="outside"):
        coverage([doc], chunks, only=[len(chunks)])
    cov = coverage([doc], chunks, only=[0])
    assert cov.chunk_clauses(0) == ["home/1.1@2025"]
    clause, grade = label_matrix(["q"], pd.DataFrame(columns=["qid", "clause_id", "grade"]), [])
    with pytest.raises(ValueError, match="chunk 1 was not mapped"):
        gain_arrays(np.array([[0, 1]]), cov, clause, grade)
