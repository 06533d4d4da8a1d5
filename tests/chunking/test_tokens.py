"""Tokens and windows found with array operations give exactly the chunks of the regex
definition (`\\S+` runs via `re.finditer`, then a loop over windows), kept here as the reference:
on the sample and on adversarial texts, and whitespace is `re`'s over every code point."""

from __future__ import annotations

import re
from dataclasses import astuple, dataclass

import numpy as np
import pytest

from ragsweep.chunking import chunkers
from ragsweep.chunking.chunkers import FixedTokenChunker, SectionChunker, _tokens, chunk_corpus
from ragsweep.data import load_dataset

_TOKEN = re.compile(r"\S+")


def regex_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The reference tokens: [start, end) of each `\\S+` match in text[start:end]."""
    end = len(text) if end is None else end
    return [(m.start(), m.end()) for m in _TOKEN.finditer(text, start, end)]


def regex_windows(spans: list[tuple[int, int]], size: int, overlap: int) -> list[tuple[int, int]]:
    """The reference windows: as ragsweep cut them before tokens were found with arrays."""
    if not spans:
        return []
    out, first = [], 0
    while True:
        last = min(first + size, len(spans)) - 1
        out.append((spans[first][0], spans[last][1]))
        if last == len(spans) - 1:
            return out
        first += size - overlap


def reference_chunks(doc, kind: str, size: int | None, overlap: int) -> list[tuple]:
    if kind == "fixed":
        spans = regex_windows(regex_spans(doc.text), size, overlap)
    elif size is None:
        spans = list(doc.spans)
    else:
        spans = [
            w
            for s, e in doc.spans
            for w in regex_windows(regex_spans(doc.text, s, e), size, overlap)
        ]
    return [
        (
            f"{doc.doc_id}#{i}",
            doc.doc_id,
            doc.document,
            doc.version,
            doc.product,
            s,
            e,
            doc.text[s:e],
        )
        for i, (s, e) in enumerate(spans)
    ]


def chunker(kind: str, size: int | None, overlap: int):
    return FixedTokenChunker(size, overlap) if kind == "fixed" else SectionChunker(size, overlap)


@dataclass(frozen=True)
class Doc:
    """The parts of `ragsweep.data.schema.Document` chunkers use."""

    document: str
    version: str
    product: str | None
    text: str
    spans: tuple[tuple[int, int], ...]

    @property
    def doc_id(self) -> str:
        return f"{self.document}@{self.version}"


def test_whitespace_is_res_over_every_code_point() -> None:
    # every code point once, lone surrogates included: a code point misjudged would move,
    # split or merge a token
    text = "".join(map(chr, range(0x110000)))
    starts, ends = _tokens(text)
    assert list(zip(starts.tolist(), ends.tolist(), strict=True)) == regex_spans(text)
    # tokens begin just after each run of whitespace: \t-\r, \x1c-\x20, \x85, \xa0, \u1680,
    # \u2000-\u200a, \u2028-\u2029, \u202f, \u205f, \u3000
    after_space = [0, 0xE, 0x21, 0x86, 0xA1, 0x1681, 0x200B, 0x202A, 0x2030, 0x2060, 0x3001]
    assert starts.tolist() == after_space
    bmp = "".join(map(chr, range(0x10000)))
    assert [c.isspace() for c in bmp] == [not _TOKEN.fullmatch(c) for c in bmp]


@pytest.mark.parametrize(
    "space",
    [
        "\x1c",
        "\x1d",
        "\x1e",
        "\x1f",
        "\x85",
        "\xa0",
        "\u1680",
        "\u2000",
        "\u200a",
        "\u2028",
        "\u2029",
        "\u202f",
        "\u205f",
        "\u3000",
        "\t",
        "\x0b",
        "\x0c",
        "\r",
    ],
)
def test_unicode_spaces_separate_tokens(space: str) -> None:
    text = f"ab{space}cd"
    starts, ends = _tokens(text)
    assert (starts.tolist(), ends.tolist()) == ([0, 3], [2, 5])


def test_non_spaces_join_tokens() -> None:
    # zero-width space, BOM, Mongolian vowel separator, an astral character, a lone surrogate
    text = "a\u200bb\ufeffc\u180ed\U0001f600e\ud800f"
    starts, ends = _tokens(text)
    assert (starts.tolist(), ends.tolist()) == ([0], [len(text)])


ADVERSARIAL = [
    "",
    " ",
    "\n\n\t ",
    "one",
    "  leading and trailing  ",
    "a b c d e f g h i j k l m n o p",
    "tabs\tand\x0bvertical\x0cfeeds\rcarriage\x1cfile\x1dgroup\x1erecord\x1funit",
    "nbsp\xa0nel\x85ideographic\u3000ogham\u1680thin\u2009line\u2028para\u2029narrow\u202fmath\u205f",
    "emoji \U0001f600\U0001f3e0 astral \U00010348 combining e\u0301 zero\u200bwidth",
    "lone \ud800 surrogate \udfff pair",
    "x" * 50 + " " + "y " * 40,
]


def adversarial_docs() -> list[Doc]:
    docs = []
    for n, text in enumerate(ADVERSARIAL):
        cuts = sorted({0, len(text), len(text) // 3, len(text) // 2, max(len(text) - 2, 0)})
        # clause spans that start and end inside tokens, are empty, or cover everything
        pieces = list(zip(cuts[:-1], cuts[1:], strict=True))
        spans = [*pieces, (len(text) // 2, len(text) // 2), (0, len(text))]
        docs.append(Doc(f"doc{n}", "v1", None if n % 2 else "home", text, tuple(spans)))
    return docs


@pytest.mark.parametrize("kind", ["fixed", "section"])
@pytest.mark.parametrize(("size", "overlap"), [(1, 0), (2, 1), (3, 0), (4, 3), (5, 2), (50, 7)])
def test_adversarial_texts_chunk_as_the_regex_definition(
    kind: str, size: int, overlap: int
) -> None:
    docs = adversarial_docs()
    got = [astuple(c) for c in chunk_corpus(docs, chunker(kind, size, overlap))]
    assert got == [r for d in docs for r in reference_chunks(d, kind, size, overlap)]
    assert len(got) >= len(ADVERSARIAL) - 3  # all but the texts without a token


@pytest.fixture(scope="module")
def sample_documents():
    return load_dataset().documents


@pytest.mark.parametrize(
    ("kind", "size", "overlap"),
    [
        ("fixed", 128, 16),
        ("fixed", 7, 3),
        ("section", None, 0),
        ("section", 64, 8),
        ("section", 5, 0),
    ],
)
def test_the_samples_chunks_are_the_regex_definitions(
    sample_documents, kind: str, size: int | None, overlap: int
) -> None:
    got = [astuple(c) for c in chunk_corpus(sample_documents, chunker(kind, size, overlap))]
    want = [r for d in sample_documents for r in reference_chunks(d, kind, size, overlap)]
    assert got == want
    assert len(got) >= len(sample_documents)


def test_windows_of_a_long_clause_count_as_the_formula() -> None:
    # n tokens, windows of `size` stepping by size - overlap: 1 + ceil((n - size) / step)
    for n in (1, 9, 10, 11, 12, 37):
        text = " ".join(f"w{i}" for i in range(n))
        doc = Doc("d", "1", None, text, ((0, len(text)),))
        chunks = SectionChunker(10, 3).chunk(doc)
        assert len(chunks) == 1 + max(0, -(-(n - 10) // 7))
        assert chunks[-1].text.split()[-1] == f"w{n - 1}"
        assert np.all(np.diff([c.start for c in chunks]) > 0)


@pytest.mark.parametrize("kind", ["fixed", "section"])
@pytest.mark.parametrize(
    "batch_chars",
    [
        1,
        25,
        pytest.param(200, marks=pytest.mark.slow),
        pytest.param(1 << 20, marks=pytest.mark.slow),
    ],
)
def test_batched_chunking_is_chunking_one_document_at_a_time(
    monkeypatch, sample_documents, kind: str, batch_chars: int
) -> None:
    # batches of one document, of a few, and of all: spans shift back to each document exactly
    monkeypatch.setattr(chunkers, "_BATCH_CHARS", batch_chars)
    docs = [*adversarial_docs(), *sample_documents[:6], *adversarial_docs()[::-1]]
    for size, overlap in ((1, 0), (4, 3), (50, 7)):
        how = chunker(kind, size, overlap)
        one_by_one = [astuple(c) for d in docs for c in how.chunk(d)]
        assert [astuple(c) for c in how.chunk_many(docs)] == one_by_one
        assert [astuple(c) for c in chunk_corpus(docs, how)] == one_by_one
        assert len(one_by_one) > len(docs)


def test_a_subclass_that_overrides_chunk_is_chunked_by_its_own_chunk(sample_documents) -> None:
    # the inherited chunk_many knows nothing of the override: chunk_corpus must not use it
    class EveryOther(FixedTokenChunker):
        def chunk(self, document):
            return super().chunk(document)[::2]

    class Batched(EveryOther):
        def chunk_many(self, documents):
            return [c for d in documents for c in self.chunk(d)]

    docs = sample_documents[:5]
    for how in (EveryOther(16, 4), Batched(16, 4)):
        got = [astuple(c) for c in chunk_corpus(docs, how)]
        assert got == [astuple(c) for d in docs for c in how.chunk(d)]
        assert len(got) < len(chunk_corpus(docs, FixedTokenChunker(16, 4)))
