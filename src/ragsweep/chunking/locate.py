"""Find a passage some other system retrieved in the snapshot's rendered documents.

Each passage is given a place (a character span of one document's rendered text), searched
exact, then normalised, then fuzzy (`rapidfuzz`, seeded by shared runs of normalised characters),
else left unlocated; once placed it is a `Chunk` like any other and the coverage rule
(`ragsweep.chunking.anchors`) maps it to clauses. The search and its tie-breaks: docs/passages.md.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

EXACT, NORMALISED, FUZZY, SPAN, UNLOCATED = "exact", "normalised", "fuzzy", "span", "unlocated"
#: how a passage was placed, closest first (`SPAN`: the run file gave the span)
HOW = (SPAN, EXACT, NORMALISED, FUZZY, UNLOCATED)
#: default threshold of the fuzzy stage (rapidfuzz's 0-100 similarity)
MIN_SIMILARITY = 90.0
#: the normalised documents' index: `_GRAM` characters starting at every `_STEP`-th position
_GRAM, _STEP = 16, 8
#: a passage is searched fuzzily around the places where it shares an unchanged run of this
#: many normalised characters with a document (so shorter passages only exactly): any such run
#: holds one of the index's runs
MIN_FUZZY_CHARS = _GRAM + _STEP - 1
#: the fuzzy stage groups the shared runs of a document whose implied starts of the passage lie
#: within `_DRIFT` characters of each other (insertions and deletions move them) into one
#: candidate place, and scores the `_CANDIDATES` places most runs support
_DRIFT, _CANDIDATES = 64, 4

_DROP = frozenset("-\u00ad\u2010\u2011\u2012\u2013\u2014\u2015\u2212")
_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'"}
_QUOTES.update({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"'})


#: character -> what it normalises to ("" when dropped), filled as characters are met
_FOLD: dict[int, str] = {}


def _fold(c: str) -> str:
    if c.isspace() or c in _DROP:
        return ""
    folded = unicodedata.normalize("NFKC", _QUOTES.get(c, c)).casefold()
    return "".join(n for n in folded if not (n.isspace() or n in _DROP))


def _table(text: str) -> dict[int, str]:
    """The fold table, holding every character of `text`."""
    for c in set(text):
        if ord(c) not in _FOLD:
            _FOLD[ord(c)] = _fold(c)
    return _FOLD


def normalise(text: str) -> str:
    """`text` normalised (see the module docstring), character by character."""
    if text.isascii():  # the common case, ten times faster: the same rule for ASCII
        return "".join(text.split()).replace("-", "").lower()
    return text.translate(_table(text))


def normalise_indexed(text: str) -> tuple[str, np.ndarray]:
    """`normalise(text)`, and for each of its characters the index in `text` it came from."""
    table = _table(text)
    lengths = np.fromiter((len(table[ord(c)]) for c in text), dtype=np.int64, count=len(text))
    return text.translate(table), np.repeat(np.arange(len(text), dtype=np.int64), lengths)


@dataclass(frozen=True)
class Location:
    """Where a passage was placed: `doc_id` and the span `[start, end)` of its rendered text
    (None when unlocated); `similarity` 100 for exact, normalised and span, the fuzzy score
    otherwise (for an unlocated passage: the best score found, or 0 when none was computed);
    `places`: how many places the deciding stage found (1 for a span)."""

    how: str
    doc_id: str | None
    start: int
    end: int
    similarity: float
    places: int

    @property
    def located(self) -> bool:
        return self.how != UNLOCATED


def preferred(documents: Sequence[Any], product: str | None, version: str | None) -> list[int]:
    """Indices of the documents of `product` and `version` (None matches any), the retrievers'
    filter rule: these are searched first."""
    return [
        i
        for i, d in enumerate(documents)
        if (product is None or d.product == product) and (version is None or d.version == version)
    ]


class Locator:
    """Places passages in `documents` (a snapshot's, in `doc_id` order); results are cached, so
    a passage many questions retrieved is searched once per product and version asked about."""

    def __init__(self, documents: Sequence[Any], min_similarity: float = MIN_SIMILARITY) -> None:
        if not 0 < min_similarity <= 100:
            raise ValueError(f"min_similarity must be in (0, 100], got {min_similarity}")
        self.documents = list(documents)
        self.index = {d.doc_id: i for i, d in enumerate(self.documents)}
        self.min_similarity = float(min_similarity)
        self._normalised: dict[int, tuple[str, np.ndarray]] = {}
        self._cache: dict[tuple[str, str | None, str | None, str | None], Location] = {}
        self._index: dict[str, list[tuple[int, int]]] | None = None
        self._orders: dict[tuple[str | None, str | None, str | None], list[int]] = {}

    def _norm(self, i: int) -> tuple[str, np.ndarray]:
        if i not in self._normalised:
            self._normalised[i] = normalise_indexed(self.documents[i].text)
        return self._normalised[i]

    def locate(
        self,
        text: str,
        *,
        product: str | None = None,
        version: str | None = None,
        document: str | None = None,
    ) -> Location:
        """Place `text` (see the module docstring): in `document` only when given, else in
        every document, those of `product` and `version` first (None: no preference)."""
        key = (text, product, version, document)
        if key not in self._cache:
            self._cache[key] = self._search(text, self._order(product, version, document))
        return self._cache[key]

    def _order(self, product: str | None, version: str | None, document: str | None) -> list[int]:
        """The documents to search, in the order of preference."""
        key = (product, version, document)
        if key not in self._orders:
            if document is not None:
                order = [self.index[document]]
            else:
                head = preferred(self.documents, product, version)
                ahead = set(head)
                order = [*head, *(i for i in range(len(self.documents)) if i not in ahead)]
            self._orders[key] = order
        return self._orders[key]

    def _search(self, text: str, order: list[int]) -> Location:
        """The search of the module docstring over the documents `order`, in that order.

        One pass finds every place the normalised text occurs (overlapping ones too); a place
        whose raw text is the passage's is exact. Every exact place is among them, as the
        normalisation maps character by character.
        """
        docs = self.documents
        needle = normalise(text)
        if not needle:  # nothing but white space and dashes: only the raw text can match
            for i in order:
                pos = docs[i].text.find(text)
                if pos >= 0:
                    return Location(EXACT, docs[i].doc_id, pos, pos + len(text), 100.0, 1)
            return Location(UNLOCATED, None, 0, 0, 0.0, 0)
        lead = next(n for n, c in enumerate(text) if _table(c)[ord(c)])
        trail = next(n for n, c in enumerate(reversed(text)) if _table(c)[ord(c)])
        places = [
            (i, int(where[pos]), int(where[pos + len(needle) - 1]) + 1)
            for i, pos in self._occurrences(needle, order)
            for where in (self._norm(i)[1],)
        ]
        for i, start, end in places:
            raw = docs[i].text
            if start >= lead and raw[start - lead : end + trail] == text:
                return Location(
                    EXACT, docs[i].doc_id, start - lead, end + trail, 100.0, len(places)
                )
        if places:
            i, start, end = places[0]
            return Location(NORMALISED, docs[i].doc_id, start, end, 100.0, len(places))
        if len(needle) < MIN_FUZZY_CHARS:
            return Location(UNLOCATED, None, 0, 0, 0.0, 0)
        return self._fuzzy(needle, order)

    def _occurrences(self, needle: str, order: list[int]) -> list[tuple[int, int]]:
        """Every (document, position) where `needle` occurs in a normalised document of
        `order` (overlapping occurrences too), in that order, positions ascending.

        A needle of at least `_GRAM + _STEP - 1` characters is looked up in the index: any
        occurrence covers an indexed position within its first `_STEP` characters, so reading
        the index at the needle's first `_STEP` offsets finds them all. Shorter ones are
        searched with `str.find`.
        """
        wanted = set(order)
        if len(needle) < _GRAM + _STEP - 1:
            found = []
            for i in order:
                hay = self._norm(i)[0]
                pos = hay.find(needle)
                while pos >= 0:
                    found.append((i, pos))
                    pos = hay.find(needle, pos + 1)
            return found
        grams = self._grams()
        hits: set[tuple[int, int]] = set()
        for offset in range(_STEP):
            for i, pos in grams.get(needle[offset : offset + _GRAM], ()):
                start = pos - offset
                if i in wanted and start >= 0 and self._norm(i)[0].startswith(needle, start):
                    hits.add((i, start))
        rank = {i: n for n, i in enumerate(order)}
        return sorted(hits, key=lambda h: (rank[h[0]], h[1]))

    def _grams(self) -> dict[str, list[tuple[int, int]]]:
        """The index of `_GRAM`-character runs at every `_STEP`-th position of every
        normalised document (built on first use)."""
        if self._index is None:
            index: dict[str, list[tuple[int, int]]] = {}
            for i in range(len(self.documents)):
                hay = self._norm(i)[0]
                for pos in range(0, len(hay) - _GRAM + 1, _STEP):
                    index.setdefault(hay[pos : pos + _GRAM], []).append((i, pos))
            self._index = index
        return self._index

    def _fuzzy(self, needle: str, order: list[int]) -> Location:
        """The fuzzy stage (see the module docstring): the passage's unchanged runs place it,
        the similarity decides. Ties go to the earlier document of `order`, then the earlier
        place."""
        from rapidfuzz import fuzz

        rank = {i: n for n, i in enumerate(order)}
        grams = self._grams()
        seeds: dict[int, list[tuple[int, int, int]]] = {}  # document -> (pos - offset, offset, pos)
        for offset in range(len(needle) - _GRAM + 1):
            for i, pos in grams.get(needle[offset : offset + _GRAM], ()):
                if i in rank:
                    seeds.setdefault(i, []).append((pos - offset, offset, pos))
        places: list[tuple[int, int, int, int]] = []  # -support, rank, start, end ... per place
        for i, found in seeds.items():
            found.sort()
            group = [found[0]]
            for seed in found[1:]:
                if seed[0] - group[-1][0] > _DRIFT:
                    places.append(self._place(i, rank[i], group, len(needle)))
                    group = []
                group.append(seed)
            places.append(self._place(i, rank[i], group, len(needle)))
        scored = []
        for _, r, start, end, i in sorted(places)[:_CANDIDATES]:
            scored.append((-fuzz.ratio(needle, self._norm(i)[0][start:end]), r, start, end, i))
        if not scored:
            return Location(UNLOCATED, None, 0, 0, 0.0, 0)
        best = min(scored)
        score, start, end, i = -best[0], best[2], best[3], best[4]
        if score < self.min_similarity:
            return Location(UNLOCATED, None, 0, 0, score, 0)
        where = self._norm(i)[1]
        doc_id = self.documents[i].doc_id
        ties = sum(s[0] == best[0] for s in scored)
        return Location(FUZZY, doc_id, int(where[start]), int(where[end - 1]) + 1, score, ties)

    def _place(
        self, i: int, r: int, group: list[tuple[int, int, int]], length: int
    ) -> tuple[int, int, int, int, int]:
        """A group of seeds as a candidate place: (-support, rank, start, end, document), the
        span running from the first seed back to the passage's start and from the last seed on
        to the passage's end (normalised positions, clipped to the document)."""
        first = min(group, key=lambda s: s[1])
        last = max(group, key=lambda s: s[1])
        start = max(first[2] - first[1], 0)
        end = min(last[2] + length - last[1], len(self._norm(i)[0]))
        return (-len(group), r, start, end, i)

    def span(self, doc: int, start: int, end: int) -> Location:
        """A span the run file gave (checked by the caller)."""
        return Location(SPAN, self.documents[doc].doc_id, start, end, 100.0, 1)
