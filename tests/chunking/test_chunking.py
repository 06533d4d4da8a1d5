"""Chunkers: spans, overlap, clause boundaries, bad sizes."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from ragsweep.chunking.chunkers import FixedTokenChunker, SectionChunker, chunk_corpus
from ragsweep.errors import UserError


@dataclass(frozen=True)
class Clause:
    document: str
    version: str
    section: str

    @property
    def clause_id(self) -> str:
        return f"{self.document}/{self.section}@{self.version}"


@dataclass(frozen=True)
class Doc:
    """The parts of `ragsweep.dataset.Document` chunkers use."""

    document: str
    version: str
    product: str | None
    text: str
    spans: tuple[tuple[int, int], ...]
    clauses: tuple[Clause, ...] = ()

    @property
    def doc_id(self) -> str:
        return f"{self.document}@{self.version}"


def make_doc(clause_words: list[int], version: str = "2025") -> Doc:
    """A document whose clause i holds clause_words[i] words `c<i>w<j>`, blank lines between."""
    text, spans, clauses = "", [], []
    for i, n in enumerate(clause_words):
        body = " ".join(f"c{i}w{j}" for j in range(n))
        spans.append((len(text), len(text) + len(body)))
        clauses.append(Clause("home", version, f"1.{i + 1}"))
        text += body + "\n\n"
    return Doc("home", version, "home", text, tuple(spans), tuple(clauses))


def test_fixed_windows_step_by_size_minus_overlap():
    doc = make_doc([10])
    chunks = FixedTokenChunker(size=4, overlap=1).chunk(doc)
    words = [c.text.split() for c in chunks]
    # windows start at tokens 0, 3, 6 and the last one reaches the final token 9
    assert [w[0] for w in words] == ["c0w0", "c0w3", "c0w6"]
    assert words[-1][-1] == "c0w9"
    assert all(len(w) == 4 for w in words)
    for c in chunks:
        assert doc.text[c.start : c.end] == c.text
        assert (c.document, c.version, c.product) == ("home", "2025", "home")
    assert [c.chunk_id for c in chunks] == ["home@2025#0", "home@2025#1", "home@2025#2"]


def test_fixed_windows_cross_clause_boundaries():
    doc = make_doc([3, 3])
    (chunk,) = FixedTokenChunker(size=10, overlap=0).chunk(doc)
    assert chunk.text.split() == ["c0w0", "c0w1", "c0w2", "c1w0", "c1w1", "c1w2"]


def test_section_chunker_never_crosses_a_clause():
    doc = make_doc([5, 2, 7])
    whole = SectionChunker().chunk(doc)
    assert [(c.start, c.end) for c in whole] == list(doc.spans)
    cut = SectionChunker(size=3, overlap=1).chunk(doc)
    for c in cut:
        assert any(s <= c.start and c.end <= e for s, e in doc.spans)
    assert sum(1 for c in cut if c.text.startswith("c2")) == 3  # 7 tokens: 0-2, 2-4, 4-6


def test_chunk_corpus_keeps_document_order():
    docs = [make_doc([2], "2024"), make_doc([2], "2025")]
    ids = [c.chunk_id for c in chunk_corpus(docs, SectionChunker())]
    assert ids == ["home@2024#0", "home@2025#0"]


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (-3, 0), (4, 4), (4, -1), (2.5, 0)])
def test_bad_sizes_are_user_errors(size, overlap):
    with pytest.raises(UserError, match="chunker"):
        FixedTokenChunker(size=size, overlap=overlap)
