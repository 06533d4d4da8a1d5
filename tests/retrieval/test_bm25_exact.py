"""BM25's fast paths give the plain computation's results, exactly.

- Tokenizer: `__call__`, `with_positions` and `token_ids` (per distinct word, stems in one call)
  equal a plain per-text implementation of the documented rules, written out here, on the
  sample's chunks and questions and on strings made to break a word-by-word shortcut.
- Search: the per-query accumulation equals scipy's sparse product (what ragsweep computed
  before), scores bit for bit, for every bm25s method, with and without the filter.
"""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest
import scipy.sparse as sp
import Stemmer
from bm25s.tokenization import _infer_stopwords

from ragsweep.chunking.chunkers import FixedTokenChunker, chunk_corpus
from ragsweep.data import load_dataset
from ragsweep.retrieval import BM25Retriever, Tokenizer, top_k
from ragsweep.retrieval import bm25 as bm25_module
from ragsweep.retrieval.base import check_allowed, mask_disallowed

#: every character `str.split()` splits on
WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]

ADVERSARIAL = [
    "",
    "   \n\t ",
    "form HM-PW-2025/01 applies; see HM-PW-2025/01.",
    "END-HM-07/END-HM-08 and END-HM-07.",
    "see clause 5.3. and 5.3.1, also 5..3 and 5-3-",
    "£1,500 or £1,500,000 or 1,5000 or 12,345,6789 or ,500 or 1, 500 or 1,50",
    "1,500.25 and 2,000-3,000 and 4,000/5,000",
    "e.g. i.e. a.b.c U.K. -- - / . ./. a-b a_b __init__",
    "the and of THE And OF it is a an",
    "123 4 56789 0 00 007",
    "ΟΔΟΣ ΟΔΟΣ. ΣΑΣ-ΣΑΣ Σ ΑΣ' ΑΣ\u0301 aΣb",
    "İstanbul İ i̇ ß STRASSE Straße ﬁnance Ǆemal",
    "٣٤ ١,٥٠٠ １２３ ²³ ½ 5²",
    "日本語のテキスト 中文 한국어 عربي 123",
    "tab\tsep\vvert\fform\rcr\x1cfs\x1dgs\x1ers\x1fus\x85nel\xa0nbsp\u2028ls\u3000ideo",
    "Σ\u2028Σ ΑΣ\u00a0B ΑΣ\x1cB ΑΣ\u3000B",
    "zero\u200bwidth join\u200dme soft\u00adhyphen",
    "policies policy policed POLICIES running runs ran",
    "x" * 300 + " HM-" + "9" * 50,
]


def reference(
    text: str, stemmer: str | None = "english", stopwords: str | None = "en"
) -> list[tuple[str, int]]:
    """The Tokenizer docstring's rules, one text at a time: (token, run position) pairs."""
    stem = Stemmer.Stemmer(stemmer).stemWord if stemmer else None
    stop = set(_infer_stopwords(stopwords)) if stopwords else set()
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text).lower()
    out = []
    for pos, run in enumerate(re.findall(r"\w+(?:[-/.]\w+)*", text)):
        parts = re.findall(r"\w+", run)
        if len(parts) > 1 and re.search(r"\d", run):
            out.append((run, pos))
        for part in parts:
            if len(part) < 2 and not part.isdigit():
                continue
            if part in stop:
                continue
            token = part if stem is None or re.search(r"\d", part) else stem(part)
            if token:
                out.append((token, pos))
    return out


@pytest.fixture(scope="module")
def sample_texts() -> list[str]:
    """The sample's 128-word chunks and its questions."""
    ds = load_dataset()
    chunks = chunk_corpus(ds.documents, FixedTokenChunker(size=128, overlap=16))
    return [c.text for c in chunks] + list(ds.questions["text"])


def whitespace_strings() -> list[str]:
    """Every whitespace character between codes, thousands and final sigmas."""
    return [f"ΑΣ{w}B 1,{w}500 1{w},500 HM-{w}07 a{w}{w}b{w}" for w in WHITESPACE]


def check_same_tokens(tok: Tokenizer, texts: list[str], **settings: str | None) -> None:
    want = [reference(t, **settings) for t in texts]
    vocabulary, ids = tok.token_ids(texts)
    assert vocabulary == sorted({t for pairs in want for t, _ in pairs})
    assert len(ids) == len(texts)
    for text, pairs, row in zip(texts, want, ids, strict=True):
        assert [vocabulary[i] for i in row] == [t for t, _ in pairs], text
        assert tok(text) == [t for t, _ in pairs], text
        assert tok.with_positions(text) == pairs, text


@pytest.mark.parametrize(
    "settings",
    [{}, {"stemmer": None, "stopwords": None}, {"stemmer": "german", "stopwords": "de"}],
    ids=["english", "plain", "german"],
)
def test_tokens_equal_the_documented_rules_on_adversarial_strings(settings):
    texts = ADVERSARIAL + whitespace_strings()
    check_same_tokens(Tokenizer(**settings), texts, **settings)
    # each path alone, on a fresh tokenizer (nothing remembered from the others)
    fresh = Tokenizer(**settings)
    assert [fresh(t) for t in texts] == [[t for t, _ in reference(x, **settings)] for x in texts]


def test_tokens_equal_the_documented_rules_on_the_sample(sample_texts):
    check_same_tokens(Tokenizer(), sample_texts)


def test_the_adversarial_strings_do_exercise_the_rules():
    """The strings hit what a word-by-word shortcut could get wrong: a final sigma before each
    kind of whitespace, a thousands separator next to one, codes ending in a full stop."""
    tokens = [t for text in ADVERSARIAL + whitespace_strings() for t, _ in reference(text)]
    assert {"hm-pw-2025/01", "end-hm-07", "5.3", "5.3.1", "1500", "1500000", "1500.25"} <= set(
        tokens
    )
    assert "ας" in tokens and "ασ" not in tokens  # final sigma, also before every whitespace
    assert "1500" not in {t for t, _ in reference("1,\u3000500")}
    assert len(WHITESPACE) > 20


def test_forgetting_words_beyond_the_cache_limit_changes_no_token(monkeypatch):
    monkeypatch.setattr(bm25_module, "WORD_CACHE_LIMIT", 7)
    tok = Tokenizer()
    check_same_tokens(tok, ADVERSARIAL)  # token_ids learns all its words at once
    assert tok("brand new words 5.3") == ["brand", "new", "word", "5.3", "5", "3"]
    assert 0 < len(tok._words) <= 7, "one word more than the limit forgets the others"
    check_same_tokens(tok, ADVERSARIAL[::-1])


def test_token_ids_of_no_texts_and_of_texts_without_tokens():
    tok = Tokenizer()
    assert tok.token_ids([]) == ([], [])
    assert tok.token_ids(["", "the of", "   "]) == ([], [[], [], []])


# --------------------------------------------------------------------------- search

METHODS = ["lucene", "robertson", "atire", "bm25l", "bm25+"]


def reference_scores(r: BM25Retriever, queries: list[str]) -> np.ndarray:
    """BM25 as ragsweep scored it before: scipy's sparse products over the whole index."""
    q = r.query_matrix(queries)
    w = r._weights
    present = sp.csr_matrix((np.ones_like(w.data), w.indices, w.indptr), shape=w.shape)
    scores = (q @ w).toarray()
    if r._absent is not None:
        scores += (q @ r._absent)[:, None]
    scores[~((q @ present).toarray() > 0)] = -np.inf
    return scores


def reference_search(r: BM25Retriever, queries: list[str], depth: int, allowed=None):
    scores = reference_scores(r, queries)
    mask_disallowed(scores, check_allowed(allowed, len(queries), r._n_texts))
    return top_k(scores, depth)


def same_bits(a, b) -> bool:
    return a.ids.tobytes() == b.ids.tobytes() and a.scores.tobytes() == b.scores.tobytes()


@pytest.fixture(scope="module")
def sample_chunks_and_questions() -> tuple[list[str], list[str]]:
    ds = load_dataset()
    chunks = chunk_corpus(ds.documents, FixedTokenChunker(size=128, overlap=16))
    extra = ["excess excess excess water", "", "zzzz", "the of", "5.3 5.3 HM-PW-2025/01 claim"]
    return [c.text for c in chunks], list(ds.questions["text"]) + extra


@pytest.mark.parametrize(
    "method,per_block",
    [("lucene", None), ("lucene", 1), *[(m, None) for m in METHODS[1:]]],
    ids=["lucene", "lucene-one-query-per-block", *METHODS[1:]],
)
def test_search_equals_the_sparse_product_bit_for_bit(
    method, per_block, sample_chunks_and_questions, monkeypatch
):
    """Blocks of ~130 queries at the sample's size; one query per block is what 100k texts get."""
    if per_block is not None:
        monkeypatch.setattr(bm25_module, "ACCUMULATE_ELEMENTS", per_block)
    texts, queries = sample_chunks_and_questions
    r = BM25Retriever(method=method, k1=1.2, b=0.6)
    r.index(texts)
    n = len(texts)
    assert same_bits(r.search(queries, 100), reference_search(r, queries, 100))
    assert same_bits(r.search(queries, n + 3), reference_search(r, queries, n + 3))
    rng = np.random.default_rng(1)
    filters = [np.sort(rng.choice(n, size=s, replace=False)) for s in (n // 2, 40, 0)]
    allowed = [filters[i % 4] if i % 4 < 3 else None for i in range(len(queries))]
    assert same_bits(r.search(queries, 10, allowed), reference_search(r, queries, 10, allowed))
    want = reference_scores(r, queries)
    assert want.tobytes() == r.scores(queries).tobytes()
    ids = np.where(rng.random((len(queries), 30)) < 0.1, -1, rng.integers(0, n, (len(queries), 30)))
    got = r.score_ids(queries, ids)
    assert got.tobytes() == np.where(ids == -1, -np.inf, np.take_along_axis(want, ids, 1)).tobytes()


def test_a_text_holding_a_term_of_weight_zero_is_still_a_candidate():
    """Robertson's idf is ln((N - df + 0.5) / (df + 0.5)) = 0 for a term in half the texts: the
    texts holding it score exactly 0 (scipy drops such sums from its product) and still rank,
    in index order, ahead of the texts that hold no query term (never returned)."""
    r = BM25Retriever(method="robertson")
    r.index(["aa bb", "cc dd", "aa ee", "ff gg"])
    got = r.search(["aa", "aa bb"], 4)
    assert got.ids.tolist()[0] == [0, 2, -1, -1]
    assert got.scores[0, :2].tolist() == [0.0, 0.0]
    assert got.ids.tolist()[1][:2] == [0, 2] and got.scores[1, 0] > 0.0
    assert same_bits(got, reference_search(r, ["aa", "aa bb"], 4))
