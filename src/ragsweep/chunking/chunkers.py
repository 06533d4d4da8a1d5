"""Chunkers: cut each wording's rendered text into passages the retrievers index.

Every chunk keeps its document, version and character span in the document's rendered text, so
clause labels can be mapped onto any chunking afterwards (`ragsweep.chunking.anchors`). Tokens
here are whitespace-separated words (`\\S+`): simple, deterministic and needing no tokenizer
download; a 256-token chunk is therefore 256 words, which is roughly 330 model tokens of English
prose. Whitespace is what `str.isspace` (and so `re`'s `\\s`) says it is; tokens and windows are
found with array operations over a document's code points, never a Python step per token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ragsweep.data.gc_pause import cyclic_gc_paused
from ragsweep.errors import UserError

#: no code point above this one is whitespace (tests check every code point against `re`)
_LAST_SPACE = 0x3000
#: whether each code point up to _LAST_SPACE + 1 is whitespace; the last entry stands for all above
_IS_SPACE = np.array([chr(c).isspace() for c in range(_LAST_SPACE + 1)] + [False])


@dataclass(frozen=True, slots=True)
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

    def __reduce__(self) -> tuple[type[Chunk], tuple[Any, ...]]:
        """Pickled as a call with its fields: the stage cache writes 100,000 chunks in 0.21 s
        and reads them in 0.35 s this way, against 0.52 s and 0.54 s through the slots'
        state dictionaries (a pickle of the same size to within 0.5%)."""
        return (Chunk, tuple(getattr(self, name) for name in _CHUNK_FIELDS))


#: `Chunk`'s fields in the order its constructor takes them
_CHUNK_FIELDS = tuple(f.name for f in fields(Chunk))


@runtime_checkable
class Chunker(Protocol):
    """One protocol for every chunker: documents in, chunks out, plus what determines them."""

    def chunk(self, document: Any) -> list[Chunk]: ...

    def fingerprint(self) -> dict[str, Any]: ...


def _tokens(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) character offsets of the tokens of `text`: its `\\S+` runs."""
    code_points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    word = ~_IS_SPACE[np.minimum(code_points, _LAST_SPACE + 1)]
    edges = np.diff(word.view(np.int8), prepend=0, append=0)
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def _window_arrays(
    text: str, ranges: np.ndarray, size: int, overlap: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start and end characters of windows of `size` tokens cut in each [start, end) row of
    `ranges`, and the row each window belongs to.

    The tokens of a range are those of text[start:end]. Each window starts `size - overlap`
    tokens after the last; the last window ends at the range's last token, and a final window
    that would only repeat tokens already covered by the previous one is not emitted. A range
    without tokens has no window. Windows follow in range order, then position.
    """
    tok_start, tok_end = _tokens(text)
    lo, hi = ranges[:, 0], ranges[:, 1]
    first = np.searchsorted(tok_end, lo, side="right")  # first token ending after lo
    stop = np.searchsorted(tok_start, hi, side="left")  # tokens starting before hi
    n = np.where(hi > lo, np.maximum(stop - first, 0), 0)  # tokens of each range
    step = size - overlap
    n_windows = np.where(n > 0, 1 + np.maximum(0, -(-(n - size) // step)), 0)
    of = np.repeat(np.arange(len(ranges)), n_windows)  # the range of each window
    k = np.arange(of.size) - np.repeat(np.cumsum(n_windows) - n_windows, n_windows)
    a = first[of] + k * step  # first and last token of each window
    b = np.minimum(a + size, stop[of]) - 1
    # a token cut by the range's edge counts only its part inside the range
    starts = np.maximum(tok_start[a], lo[of])
    ends = np.minimum(tok_end[b], hi[of])
    return starts, ends, of


def _windows(text: str, ranges: np.ndarray, size: int, overlap: int) -> list[tuple[int, int]]:
    """`_window_arrays`' spans as (start, end) pairs."""
    starts, ends, _ = _window_arrays(text, ranges, size, overlap)
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


#: documents are chunked together in batches of about this many characters: the array work
#: costs about 0.2 ms a call, which dominated a corpus of many short wordings
_BATCH_CHARS = 1 << 20


def _chunk_batched(
    documents: Sequence[Any], ranges_of: Callable[[Any], np.ndarray], size: int, overlap: int
) -> list[Chunk]:
    """The windows of each document's `ranges_of(document)` rows, as `_windows` cuts them one
    document at a time, found for a batch of documents at once: their texts joined by a
    newline (whitespace, so no token crosses from one document into the next), each
    document's rows shifted by its offset in the joined text, the spans shifted back."""
    chunks: list[Chunk] = []
    start = 0
    while start < len(documents):
        stop, chars = start, 0
        while stop < len(documents) and (stop == start or chars < _BATCH_CHARS):
            chars += len(documents[stop].text) + 1
            stop += 1
        batch = documents[start:stop]
        lengths = np.array([len(d.text) + 1 for d in batch], dtype=np.int64)
        offsets = np.cumsum(lengths) - lengths
        rows = [ranges_of(d) for d in batch]
        counts = np.array([len(r) for r in rows], dtype=np.int64)
        ranges = np.concatenate([r + o for r, o in zip(rows, offsets, strict=True)])
        starts, ends, of = _window_arrays(
            "\n".join(d.text for d in batch), ranges.reshape(-1, 2), size, overlap
        )
        doc_of = np.repeat(np.arange(len(batch)), counts)[of]  # non-decreasing: rows in order
        starts, ends = starts - offsets[doc_of], ends - offsets[doc_of]
        bounds = np.searchsorted(doc_of, np.arange(len(batch) + 1))
        starts_l, ends_l = starts.tolist(), ends.tolist()
        for i, document in enumerate(batch):
            lo, hi = bounds[i], bounds[i + 1]
            chunks += _make(document, zip(starts_l[lo:hi], ends_l[lo:hi], strict=True))
        start = stop
    return chunks


def _whole(document: Any) -> np.ndarray:
    return np.array([[0, len(document.text)]], dtype=np.int64)


def _clauses(document: Any) -> np.ndarray:
    return np.array(document.spans, dtype=np.int64).reshape(-1, 2)


def _make(document: Any, spans: Iterable[tuple[int, int]]) -> list[Chunk]:
    doc_id, name, version, product = (
        document.doc_id,
        document.document,
        document.version,
        document.product,
    )
    text = document.text
    return [
        Chunk(f"{doc_id}#{i}", doc_id, name, version, product, s, e, text[s:e])
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
        return _make(document, _windows(document.text, _whole(document), self.size, self.overlap))

    def chunk_many(self, documents: Sequence[Any]) -> list[Chunk]:
        """`chunk` of each document in turn, computed in batches."""
        return _chunk_batched(documents, _whole, self.size, self.overlap)

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
        if self.size is None:
            return _make(document, document.spans)
        return _make(document, _windows(document.text, _clauses(document), self.size, self.overlap))

    def chunk_many(self, documents: Sequence[Any]) -> list[Chunk]:
        """`chunk` of each document in turn, computed in batches."""
        if self.size is None:
            return [c for d in documents for c in self.chunk(d)]
        return _chunk_batched(documents, _clauses, self.size, self.overlap)

    def fingerprint(self) -> dict[str, Any]:
        return {"kind": "section", "size": self.size, "overlap": self.overlap}


def chunk_corpus(documents: Sequence[Any], chunker: Chunker) -> list[Chunk]:
    """All chunks of all documents, in document order then position: a stable order. A
    chunker with a `chunk_many(documents)` (the built-in ones) does them all in one call.
    The cyclic garbage collector waits meanwhile (`cyclic_gc_paused`: 100,000 new chunks)."""
    with cyclic_gc_paused():
        if _batches_its_own_chunk(type(chunker)):
            return list(chunker.chunk_many(documents))  # type: ignore[attr-defined]
        return [c for d in documents for c in chunker.chunk(d)]


def _defined_in(cls: type, name: str) -> type | None:
    return next((k for k in cls.__mro__ if name in vars(k)), None)


def _batches_its_own_chunk(cls: type) -> bool:
    """Whether `cls.chunk_many` cuts what `cls.chunk` cuts: it is defined with `chunk` or
    below it. A subclass of a built-in chunker that overrides only `chunk` inherits a
    `chunk_many` that knows nothing of the override, so its `chunk` is called instead."""
    many, one = _defined_in(cls, "chunk_many"), _defined_in(cls, "chunk")
    return many is not None and one is not None and issubclass(many, one)
