"""Chunkers: cut each wording's rendered text into passages the retrievers index.

Every chunk keeps its document, version and character span in the document's rendered text, so
clause labels can be mapped onto any chunking afterwards (`ragsweep.chunking.anchors`). Tokens
here are whitespace-separated words (`\\S+`): simple, deterministic and needing no tokenizer
download; a 256-token chunk is therefore 256 words, which is roughly 330 model tokens of English
prose.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ragsweep.errors import UserError

_TOKEN = re.compile(r"\S+")


@dataclass(frozen=True)
class Chunk:
    """A passage of one document version: `text == document.text[start:end]`."""

    chunk_id: str  # "<doc_id>#<n>", n counting from 0 within the document
    doc_id: str
    document: str
    version: str
    product: str | None
    start: int
    end: int
    text: str


@runtime_checkable
class Chunker(Protocol):
    """One protocol for every chunker: documents in, chunks out, plus what determines them."""

    def chunk(self, document: Any) -> list[Chunk]: ...

    def fingerprint(self) -> dict[str, Any]: ...


def _token_spans(text: str, start: int = 0, end: int | None = None) -> np.ndarray:
    """(n, 2) array of [start, end) character spans of the tokens of text[start:end]."""
    end = len(text) if end is None else end
    spans = [(m.start(), m.end()) for m in _TOKEN.finditer(text, start, end)]
    return np.asarray(spans, dtype=np.int64).reshape(-1, 2)


def _windows(spans: np.ndarray, size: int, overlap: int) -> list[tuple[int, int]]:
    """Character spans of windows of `size` tokens, each starting `size - overlap` after the last.

    The last window ends at the last token; a final window that would only repeat tokens already
    covered by the previous one is not emitted.
    """
    n = len(spans)
    if n == 0:
        return []
    step = size - overlap
    out = []
    first = 0
    while True:
        last = min(first + size, n) - 1
        out.append((int(spans[first, 0]), int(spans[last, 1])))
        if last == n - 1:
            return out
        first += step


def _make(document: Any, spans: Iterable[tuple[int, int]]) -> list[Chunk]:
    return [
        Chunk(
            chunk_id=f"{document.doc_id}#{i}",
            doc_id=document.doc_id,
            document=document.document,
            version=document.version,
            product=document.product,
            start=s,
            end=e,
            text=document.text[s:e],
        )
        for i, (s, e) in enumerate(spans)
    ]


def _check_size(size: int, overlap: int) -> None:
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise UserError(f"chunker.size must be a positive whole number of tokens, got {size!r}")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 0 <= overlap < size:
        raise UserError(
            f"chunker.overlap must be a whole number with 0 <= overlap < size ({size}), "
            f"got {overlap!r}"
        )


class FixedTokenChunker:
    """Fixed windows of `size` tokens overlapping by `overlap` tokens, ignoring clause boundaries.

    Windows run over the whole rendered document (title and part headings included), so a chunk
    can hold the end of one clause and the start of the next: the anchoring rule scores that.
    """

    def __init__(self, size: int = 256, overlap: int = 32) -> None:
        _check_size(size, overlap)
        self.size = size
        self.overlap = overlap

    def chunk(self, document: Any) -> list[Chunk]:
        return _make(document, _windows(_token_spans(document.text), self.size, self.overlap))

    def fingerprint(self) -> dict[str, Any]:
        return {"kind": "fixed", "size": self.size, "overlap": self.overlap}


class SectionChunker:
    """One chunk per clause; a clause longer than `size` tokens is cut into windows of `size`
    overlapping by `overlap`, never crossing into the next clause. Part headings and the title
    are not indexed (they carry no answer)."""

    def __init__(self, size: int | None = None, overlap: int = 0) -> None:
        if size is not None:
            _check_size(size, overlap)
        self.size = size
        self.overlap = overlap

    def chunk(self, document: Any) -> list[Chunk]:
        spans: list[tuple[int, int]] = []
        for start, end in document.spans:
            if self.size is None:
                spans.append((start, end))
            else:
                spans.extend(
                    _windows(_token_spans(document.text, start, end), self.size, self.overlap)
                )
        return _make(document, spans)

    def fingerprint(self) -> dict[str, Any]:
        return {"kind": "section", "size": self.size, "overlap": self.overlap}


def chunk_corpus(documents: Sequence[Any], chunker: Chunker) -> list[Chunk]:
    """All chunks of all documents, in document order then position: a stable order."""
    return [c for d in documents for c in chunker.chunk(d)]
