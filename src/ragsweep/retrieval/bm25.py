"""BM25 first stage on bm25s, with a tokenizer that keeps identifiers matchable.

bm25s' default tokenizer (`\\b\\w\\w+\\b`) splits `HM-PW-2025/01` into `hm pw 2025 01`, drops the
clause number `5.3` entirely (both parts are one character) and turns `£1,500` into `500`.
Identifier questions quote exactly such strings, so `Tokenizer` keeps a code whole *and* emits its
parts (see its docstring). bm25s builds the index (its per-term, per-text BM25 weights); scoring
is done here, so filtering, candidates and tie order follow `ragsweep.retrieval.base`: each query
adds up the postings of its own terms (the sums of the sparse product query x weights, bit for
bit), and only the texts it touched are ranked.
"""

from __future__ import annotations

import re
from array import array
from collections import defaultdict
from collections.abc import Iterator, Sequence
from functools import lru_cache
from importlib.metadata import version
from typing import Any, NamedTuple

import bm25s
import numpy as np
import scipy.sparse as sp
import Stemmer
from bm25s.tokenization import _infer_stopwords

from ragsweep.data.gc_pause import cyclic_gc_paused
from ragsweep.errors import UserError
from ragsweep.retrieval.base import (
    PAD_SCORE,
    Allowed,
    AllowedMasks,
    Ranked,
    check_allowed,
    check_depth,
    check_texts,
    query_blocks,
    top_k_candidates,
)

#: bm25s scoring variants accepted by `BM25Retriever(method=...)`.
METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
#: Stop-word list names accepted by `Tokenizer(stopwords=...)` (bm25s' lists).
STOPWORD_LISTS = (
    "en", "english", "en_plus", "english_plus", "de", "german", "nl", "dutch", "fr", "french",
    "es", "spanish", "pt", "portuguese", "it", "italian", "ru", "russian", "sv", "swedish",
    "no", "norwegian", "zh", "chinese", "tr", "turkish", "ko", "korean", "da", "danish",
)  # fmt: skip
#: (query, text) sums BM25 accumulates per block: 1 MB of float64, so the block stays in cache.
ACCUMULATE_ELEMENTS = 1 << 17
#: Bumped whenever `Tokenizer` would emit different tokens for the same text.
TOKENIZER_VERSION = 1

# A word, or a compound of words joined by - / . without spaces ("HM-PW-2025/01", "5.3", "e.g").
_WORD = re.compile(r"\w+(?:[-/.]\w+)*")
_PART = re.compile(r"\w+")
# A thousands separator: "1,500" -> "1500" so a question writing 1500 matches a wording's 1,500.
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_DIGIT = re.compile(r"\d")
#: `Tokenizer` forgets the words it has seen beyond this many (a memory bound, not a result).
WORD_CACHE_LIMIT = 1 << 20


class Word(NamedTuple):
    """What `Tokenizer` makes of one whitespace-separated word: its tokens, the run (within the
    word) each token comes from, and the number of runs in the word."""

    tokens: tuple[str, ...]
    runs_of: tuple[int, ...]
    n_runs: int


class Tokenizer:
    """Lower-cased tokens for BM25: stop words removed, plain words stemmed, codes kept whole.

    Rules, applied to each maximal run of word characters joined by `-`, `/` or `.`:
    - a run holding a digit (`HM-PW-2025/01`, `END-HM-07`, `5.3`) is emitted whole and unstemmed,
      followed by its parts (`hm`, `pw`, `2025`, `01`), so a question quoting the code matches it
      exactly and one quoting a part still matches;
    - other runs (`wear-and-tear`, `e.g`) are emitted as their parts only, as bm25s would;
    - a part is kept if it has 2+ characters or is a number (`5 days`), and dropped if it is a
      stop word; parts without digits are stemmed (PyStemmer), parts with digits never are.
    Thousands separators between digits are removed first (`£1,500` -> `1500`).

    How it is computed (the tokens are the rules' tokens, whatever the path): no run, separator
    or lower-casing context crosses whitespace, so a text's tokens are those of its
    whitespace-separated words in turn, and each distinct word is tokenized once and remembered
    (`Word`). `token_ids` tokenizes a whole corpus that way, stemming its new parts in one
    PyStemmer call.
    """

    def __init__(self, stemmer: str | None = "english", stopwords: str | None = "en") -> None:
        if stemmer is not None and stemmer not in Stemmer.algorithms():
            raise UserError(
                f"BM25 stemmer {stemmer!r} is unknown; use null or one of "
                f"{', '.join(sorted(Stemmer.algorithms()))}"
            )
        if stopwords is not None and stopwords not in STOPWORD_LISTS:
            raise UserError(
                f"BM25 stopwords {stopwords!r} is unknown; use null or one of "
                f"{', '.join(STOPWORD_LISTS)}"
            )
        self.stemmer = stemmer
        self.stopwords = stopwords
        self._stop = frozenset(_infer_stopwords(stopwords)) if stopwords else frozenset()
        self._stemmer = Stemmer.Stemmer(stemmer) if stemmer else None
        self._parts: dict[str, str | None] = {}  # part -> its token, None when dropped
        self._words: dict[str, Word] = {}  # whitespace-separated word -> what it gives

    def __reduce__(self) -> tuple[type[Tokenizer], tuple[str | None, str | None]]:
        # PyStemmer's stemmer does not pickle; rebuild it from the names (indexes get cached).
        return (Tokenizer, (self.stemmer, self.stopwords))

    def __call__(self, text: str) -> list[str]:
        """The tokens of `text`, in text order (a code's whole form precedes its parts)."""
        words = self._words
        out: list[str] = []
        for word in text.split():
            known = words.get(word) or self._learn([word])[0]
            out.extend(known.tokens)
        return out

    def with_positions(self, text: str) -> list[tuple[str, int]]:
        """(token, word position) pairs; a code's whole form and its parts share one position.

        Positions count the runs of `text` (stop words included), so they measure distance in
        the original wording, which is what proximity scoring needs.
        """
        words = self._words
        out: list[tuple[str, int]] = []
        pos = 0
        for word in text.split():
            known = words.get(word) or self._learn([word])[0]
            out.extend(
                (token, pos + run) for token, run in zip(known.tokens, known.runs_of, strict=True)
            )
            pos += known.n_runs
        return out

    def token_ids(self, texts: Sequence[str]) -> tuple[list[str], list[list[int]]]:
        """The sorted vocabulary of `texts` and each text's tokens as indices into it, in text
        order: `[vocabulary.index(t) for t in self(text)]` for every text, computed per distinct
        word rather than per occurrence."""
        index: defaultdict[str, int] = defaultdict()
        index.default_factory = index.__len__  # a new word gets the next id
        occurrences = array("q")  # the word id of every word of every text, in order
        words_per_text = np.empty(len(texts), dtype=np.int64)
        for i, text in enumerate(texts):
            words = text.split()
            words_per_text[i] = len(words)
            occurrences.extend(map(index.__getitem__, words))
        learned = self._learn(list(index))  # by word id
        vocabulary = sorted({t for word in learned for t in word.tokens})
        token_id = {t: i for i, t in enumerate(vocabulary)}
        n_tokens = np.fromiter((len(w.tokens) for w in learned), np.int64, len(learned))
        word_start = np.concatenate(([0], np.cumsum(n_tokens)))
        word_tokens = np.fromiter(
            (token_id[t] for w in learned for t in w.tokens), np.int64, int(word_start[-1])
        )
        # Each occurrence expands to its word's tokens: a ragged gather of word_tokens.
        occ = np.frombuffer(occurrences, dtype=np.int64) if occurrences else np.zeros(0, np.int64)
        occ_tokens = n_tokens[occ]
        flat = word_tokens[_ragged(word_start[occ], occ_tokens)].tolist()
        tokens_before = np.concatenate(([0], np.cumsum(occ_tokens)))  # per word occurrence
        last_word = np.cumsum(words_per_text)
        starts = tokens_before[last_word - words_per_text].tolist()
        ends = tokens_before[last_word].tolist()
        return vocabulary, [flat[a:b] for a, b in zip(starts, ends, strict=True)]

    def _learn(self, words: list[str]) -> list[Word]:
        """What each of `words` gives (remembered); new parts are stemmed in one call."""
        known = self._words
        if len(known) + len(words) > WORD_CACHE_LIMIT:
            known.clear()
            self._parts.clear()
        new = [w for w in dict.fromkeys(words) if w not in known]
        runs_of_word = [_WORD.findall(_THOUSANDS.sub("", w).lower()) for w in new]
        self._learn_parts({p for runs in runs_of_word for run in runs for p in _PART.findall(run)})
        parts = self._parts
        for word, runs in zip(new, runs_of_word, strict=True):
            tokens: list[str] = []
            runs_of: list[int] = []
            for r, run in enumerate(runs):
                pieces = _PART.findall(run)
                if len(pieces) > 1 and _DIGIT.search(run):
                    tokens.append(run)
                    runs_of.append(r)
                for piece in pieces:
                    token = parts[piece]
                    if token:
                        tokens.append(token)
                        runs_of.append(r)
            known[word] = Word(tuple(tokens), tuple(runs_of), len(runs))
        return [known[w] for w in words]

    def _learn_parts(self, pieces: set[str]) -> None:
        """Each new part's token (None: dropped); the parts to stem go to PyStemmer at once."""
        new = sorted(p for p in pieces if p not in self._parts)
        to_stem = []
        for part in new:
            if (len(part) < 2 and not part.isdigit()) or part in self._stop:
                self._parts[part] = None
            elif self._stemmer is None or _DIGIT.search(part):
                self._parts[part] = part
            else:
                to_stem.append(part)
        if to_stem:
            self._parts.update(zip(to_stem, self._stemmer.stemWords(to_stem), strict=True))

    def fingerprint(self) -> dict[str, Any]:
        return {
            "tokenizer": "ragsweep.codes",
            "tokenizer_version": TOKENIZER_VERSION,
            "stemmer": self.stemmer,
            "stopwords": self.stopwords,
            "PyStemmer": version("PyStemmer"),
        }


def _ragged(first: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The positions first[0] .. first[0] + length[0] - 1, then those of the next pair, ...:
    a ragged gather's index, int64."""
    total = int(length.sum())
    before = np.cumsum(length) - length  # where each run starts in the output
    return np.repeat(first - before, length) + np.arange(total, dtype=np.int64)


@lru_cache(maxsize=8)
def cached_tokenizer(stemmer: str | None, stopwords: str | None) -> Tokenizer:
    """A shared `Tokenizer` (they are stateless after construction)."""
    return Tokenizer(stemmer, stopwords)


class BM25Retriever:
    """Okapi BM25 over `Tokenizer` tokens; bm25s computes the per-term weights.

    `k1` (term-frequency saturation, >= 0) and `b` (length normalisation, 0..1) as in Lucene;
    `method` is bm25s' variant (`lucene` default; `bm25l`/`bm25+` add bm25s' delta=0.5 term for
    absent terms). A repeated query term counts once per occurrence, as in bm25s and Lucene.
    Candidates are the texts holding at least one query token: a query with no known token, or
    an empty one, returns only padding. Scores are float64 (index built in float64).
    """

    def __init__(
        self,
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
        stemmer: str | None = "english",
        stopwords: str | None = "en",
    ) -> None:
        if isinstance(k1, bool) or not isinstance(k1, int | float) or not 0 <= k1 < float("inf"):
            raise UserError(f"BM25 k1 must be a finite number >= 0, got {k1!r}")
        if isinstance(b, bool) or not isinstance(b, int | float) or not 0 <= b <= 1:
            raise UserError(f"BM25 b must be a number in [0, 1], got {b!r}")
        if method not in METHODS:
            raise UserError(f"BM25 method {method!r} is unknown; use one of {', '.join(METHODS)}")
        self.k1 = float(k1)
        self.b = float(b)
        self.method = method
        self.tokenizer = cached_tokenizer(stemmer, stopwords)
        self._vocab: dict[str, int] | None = None
        self._weights: sp.csr_matrix | None = None  # (vocab x texts) BM25 weight per occurrence
        self._absent: np.ndarray | None = None  # bm25l/bm25+ score of a term a text lacks
        self._n_texts = 0

    def index(self, texts: Sequence[str]) -> None:
        """Tokenize `texts` and build the BM25 index (replaces any previous index)."""
        texts = check_texts(texts, "texts")
        if not texts:
            raise UserError("BM25: nothing to index (no texts)")
        with cyclic_gc_paused():  # a list of token ids for every text, and no cycle
            vocabulary, ids = self.tokenizer.token_ids(texts)
        vocab = {tok: i for i, tok in enumerate(vocabulary)}
        self._n_texts = len(texts)
        self._vocab = vocab
        if not vocab:  # no text holds a single token: every query finds nothing
            self._weights = sp.csr_matrix((0, len(texts)), dtype=np.float64)
            self._absent = None
            return
        model = bm25s.BM25(
            k1=self.k1, b=self.b, method=self.method, dtype="float64", int_dtype="int64"
        )
        model.index((ids, vocab), create_empty_token=False, show_progress=False)
        s = model.scores  # CSC of (texts x vocab) == CSR of (vocab x texts)
        shape = (len(vocab), s["num_docs"])
        indices = np.asarray(s["indices"], dtype=np.int64)
        indptr = np.asarray(s["indptr"], dtype=np.int64)
        data = np.asarray(s["data"], dtype=np.float64)
        self._weights = sp.csr_matrix((data, indices, indptr), shape=shape)
        if not self._weights.has_canonical_format:  # `_candidates` adds each posting once
            raise RuntimeError("bm25s gave a text twice in one term's postings")
        absent = getattr(model, "nonoccurrence_array", None)
        self._absent = None if absent is None else np.asarray(absent, dtype=np.float64)

    def query_matrix(self, queries: Sequence[str]) -> sp.csr_matrix:
        """(queries x vocab) counts of each indexed token in each query (unknown tokens dropped)."""
        if self._vocab is None:
            raise RuntimeError("BM25Retriever.search called before index")
        rows: list[int] = []
        cols: list[int] = []
        for q, text in enumerate(queries):
            for tok in self.tokenizer(text):
                j = self._vocab.get(tok)
                if j is not None:
                    rows.append(q)
                    cols.append(j)
        data = np.ones(len(rows), dtype=np.float64)
        m = sp.csr_matrix((data, (rows, cols)), shape=(len(queries), len(self._vocab)))
        m.sum_duplicates()
        m.sort_indices()
        return m

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """Dense (queries x texts) BM25 scores, -inf for texts that hold no query token."""
        queries = check_texts(queries, "queries")
        out = np.full((len(queries), self._n_texts), PAD_SCORE)
        for q, (ids, scores) in enumerate(self._candidates(queries)):
            out[q, ids] = scores
        return out

    def score_ids(self, queries: Sequence[str], ids: np.ndarray) -> np.ndarray:
        """BM25 score of text `ids[q, j]` for query q, shaped like `ids`; -inf where the id is
        -1 (padding) or the text holds no query token."""
        queries = check_texts(queries, "queries")
        ids = np.asarray(ids, dtype=np.int64)
        if ids.ndim != 2 or len(ids) != len(queries):
            raise ValueError(f"ids must be (n_queries, m), got shape {ids.shape}")
        out = np.full(ids.shape, PAD_SCORE)
        for q, (found, scores) in enumerate(self._candidates(queries)):
            if len(found):
                at = np.minimum(np.searchsorted(found, ids[q]), len(found) - 1)
                hit = (ids[q] != -1) & (found[at] == ids[q])
                out[q, hit] = scores[at[hit]]
        return out

    def _candidates(self, queries: list[str]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Per query, the texts holding one of its tokens (ascending) and their BM25 scores.

        The sums of scipy's sparse product `query_matrix @ weights`, bit for bit: a block of
        queries' postings is gathered in query, then term-id order, and `np.bincount` adds each
        (query, text)'s count * weight terms in that order, starting from 0, as the product
        does (then the bm25l/bm25+ absent-term part). So a query's scores do not depend on the
        other queries, and only its own terms' postings are read: nothing is built per call.
        Blocks hold about ACCUMULATE_ELEMENTS (query, text) sums, so that they stay in cache
        (one query per block at 100k texts, ~130 at 1,000).
        """
        q = self.query_matrix(queries)
        w = self._weights
        n = self._n_texts
        absent = None if self._absent is None else q @ self._absent
        for block in query_blocks(len(queries), n, ACCUMULATE_ELEMENTS):
            b = q[block]
            first = w.indptr[b.indices].astype(np.int64)
            length = w.indptr[b.indices + 1] - first
            at = _ragged(first, length)  # the postings of every (query, term), in order
            query = np.repeat(np.repeat(np.arange(b.shape[0]), np.diff(b.indptr)), length)
            key = query * n + w.indices[at]
            add = np.repeat(b.data, length) * w.data[at]
            holds = np.zeros(b.shape[0] * n, dtype=bool)
            holds[key] = True
            found = np.flatnonzero(holds)  # (query, text) pairs, by query then text
            scores = np.bincount(key, weights=add, minlength=b.shape[0] * n)[found]
            scores = scores.astype(np.float64, copy=False)  # (bincount of nothing: integers)
            ends = np.searchsorted(found, np.arange(1, b.shape[0] + 1) * n).tolist()
            lo = 0
            for i, hi in enumerate(ends):
                row = scores[lo:hi]
                if absent is not None:
                    row = row + absent[block.start + i]
                yield found[lo:hi] - i * n, row
                lo = hi

    def search(self, queries: Sequence[str], depth: int, allowed: Allowed = None) -> Ranked:
        """Top `depth` texts per query, score descending, ties by text index ascending."""
        queries = check_texts(queries, "queries")
        depth = check_depth(depth)
        if self._vocab is None:
            raise RuntimeError("BM25Retriever.search called before index")
        allowed_list = check_allowed(allowed, len(queries), self._n_texts)
        masks = AllowedMasks(self._n_texts)
        rows = []
        for a, (ids, scores) in zip(allowed_list, self._candidates(queries), strict=True):
            if a is not None:
                inside = masks(a)[ids]
                ids, scores = ids[inside], scores[inside]
            rows.append((ids, scores))
        return top_k_candidates(rows, depth)

    def fingerprint(self) -> dict[str, Any]:
        return {
            "retriever": "bm25",
            "k1": self.k1,
            "b": self.b,
            "method": self.method,
            **self.tokenizer.fingerprint(),
            "bm25s": version("bm25s"),
        }
