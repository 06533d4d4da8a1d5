"""OpenAICompatibleEmbedder against a real HTTP server on 127.0.0.1 (embedding_server.py), no
mocks of the client: vectors, the per-text cache, retries, the concurrency limit, errors, and
the key reaching the server and nothing else; then a two-value sweep through the CLI whose
second run sends no request, with every file of the working folder and the MLflow store
checked for the key."""

from __future__ import annotations

import pickle
import socket
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from embedding_server import EmbeddingServer, vector_of

from conftest import cli_in
from ragsweep.errors import UserError
from ragsweep.retrieval import DenseRetriever
from ragsweep.retrieval.remote import OpenAICompatibleEmbedder
from toy import SMALL_CHUNKS, TINY, TOY

KEY_ENV = "RAGSWEEP_TEST_EMBED_KEY"
#: a key no masking rule recognises (no known prefix, lower case, short): if it reached a file,
#: nothing would have hidden it, so finding it nowhere means it was never written
KEY = "leakcheck-embed-4711"
MODEL = "fake-embed-v1"
TEXTS = [
    "The most we will pay for jewellery or watches is 1,500 per item.",
    "For escape of water claims the excess is 500.",
    "We will not pay for theft if your home is unoccupied for 30 days.",
    "Call us within 30 days and send the claim form.",
    "Endorsement END-HM-07 amends form HM-PW-2025/01.",
]


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY


@pytest.fixture
def server(key: str) -> Iterator[EmbeddingServer]:
    with EmbeddingServer(expected_key=key) as s:
        yield s


def embedder(server: EmbeddingServer, cache: Path | None, **kwargs) -> OpenAICompatibleEmbedder:
    return OpenAICompatibleEmbedder(
        MODEL, base_url=server.url, api_key_env=KEY_ENV, cache_dir=cache, **kwargs
    )


def test_rows_are_the_servers_vectors_normalised_and_blank_texts_are_zero(server, tmp_path):
    emb = embedder(server, tmp_path, dimensions=16)
    out = emb.encode([TEXTS[0], "", TEXTS[1], "   ", TEXTS[0]])
    assert out.dtype == np.float32 and out.shape == (5, 16)
    np.testing.assert_allclose(out[0], unit(vector_of(TEXTS[0], 16)), rtol=0, atol=1e-6)
    np.testing.assert_allclose(out[2], unit(vector_of(TEXTS[1], 16)), rtol=0, atol=1e-6)
    assert out[0].tobytes() == out[4].tobytes()
    assert not out[1].any() and not out[3].any()  # blank: zero, no request
    (request,) = server.requests  # one batch: the two distinct non-blank texts, once each
    assert request.inputs == [TEXTS[0], TEXTS[1]]
    assert request.body["model"] == MODEL and request.body["dimensions"] == 16
    assert request.body["encoding_format"] == "float"
    assert request.authorization == f"Bearer {KEY}"
    assert emb.fingerprint() == {
        "embedder": "openai_compatible",
        "model": MODEL,
        "base_url": server.url,
        "dimensions": 16,
    }


def test_the_cache_pays_for_each_text_once_across_objects(server, tmp_path):
    first = embedder(server, tmp_path, batch_size=2).encode(TEXTS[:3])
    assert sorted(t for r in server.answered() for t in r.inputs) == sorted(TEXTS[:3])
    server.reset()
    # a new object (another process, another configuration): only the two new texts are sent
    again = embedder(server, tmp_path, batch_size=4).encode(TEXTS)
    assert [r.inputs for r in server.requests] == [TEXTS[3:]]
    assert again[:3].tobytes() == first.tobytes()
    server.reset()
    embedder(server, tmp_path).encode(list(reversed(TEXTS)))
    assert server.requests == []
    # another model, base URL or dimension count is another cache: sent again
    embedder(server, tmp_path, dimensions=8).encode(TEXTS[:1])
    assert len(server.requests) == 1
    # no cache: every call sends
    server.reset()
    uncached = embedder(server, None)
    uncached.encode(TEXTS[:1])
    uncached.encode(TEXTS[:1])
    assert len(server.requests) == 2


def test_429_and_5xx_are_retried_with_the_servers_delay(server, tmp_path):
    server.fail.extend([(429, {"retry-after-ms": "20"}), (503, {"retry-after-ms": "20"})])
    out = embedder(server, tmp_path, batch_size=10, max_concurrency=1).encode(TEXTS)
    assert [r.answered for r in server.requests] == [False, False, True]
    assert server.requests[0].inputs == server.requests[2].inputs == TEXTS
    np.testing.assert_allclose(out[4], unit(vector_of(TEXTS[4])), rtol=0, atol=1e-6)


def test_retries_end_in_one_line_naming_the_url_and_model(server, tmp_path):
    server.fail.extend([(500, {"retry-after-ms": "10"})] * 3)
    with pytest.raises(UserError) as err:
        embedder(server, tmp_path, max_retries=2).encode(TEXTS[:1])
    text = str(err.value)
    assert "\n" not in text and server.url in text and MODEL in text and "HTTP 500" in text
    assert len(server.requests) == 3  # the first try and two retries


def test_at_most_max_concurrency_requests_are_in_flight(key, tmp_path):
    with EmbeddingServer(latency=0.15, expected_key=key) as server:
        texts = [f"passage number {i} about claims" for i in range(12)]
        out = embedder(server, tmp_path, batch_size=2, max_concurrency=3).encode(texts)
        assert len(server.requests) == 6 and server.max_in_flight == 3
        expected = np.stack([unit(vector_of(t)) for t in texts])
        np.testing.assert_allclose(out, expected, rtol=0, atol=1e-6)


def test_a_refused_key_is_one_line_without_the_key(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "wrong-key-123")
    with pytest.raises(UserError) as err:
        embedder(server, tmp_path).encode(TEXTS[:1])
    text = str(err.value)
    assert "\n" not in text and "HTTP 401" in text and KEY_ENV in text
    assert "wrong-key-123" not in text


def test_the_key_variable_is_checked_when_the_config_is_built(server, tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(UserError, match=f"{KEY_ENV} is not set.*api_key_env=null"):
        embedder(server, tmp_path)
    with pytest.raises(UserError, match="not the key itself"):
        OpenAICompatibleEmbedder(MODEL, base_url=server.url, api_key_env="sk-abc123")
    with pytest.raises(UserError, match="not an http"):
        OpenAICompatibleEmbedder(MODEL, base_url="localhost:8000", api_key_env=None)
    for bad in ({"dimensions": 0}, {"batch_size": 0}, {"max_concurrency": 0}, {"timeout": 0}):
        with pytest.raises(UserError, match=next(iter(bad))):
            OpenAICompatibleEmbedder(MODEL, base_url=server.url, api_key_env=None, **bad)
    # a server without keys: a placeholder is sent
    server.expected_key = None
    OpenAICompatibleEmbedder(MODEL, base_url=server.url, api_key_env=None).encode(TEXTS[:1])
    assert server.requests[-1].authorization == "Bearer not-needed"


def test_an_unreachable_server_is_one_line(key, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nobody listens there
    emb = OpenAICompatibleEmbedder(
        MODEL, base_url=f"http://127.0.0.1:{port}/v1", api_key_env=KEY_ENV, max_retries=0
    )
    with pytest.raises(UserError, match=rf"127\.0\.0\.1:{port}/v1: cannot reach the server"):
        emb.encode(TEXTS[:1])


def test_a_pickled_index_holds_no_key_and_still_searches(server, tmp_path):
    retriever = DenseRetriever(embedder(server, tmp_path))
    retriever.index(TEXTS)
    assert retriever.embedder.endpoint._client is not None  # the client (with the key) was made
    data = pickle.dumps(retriever, 5)
    assert KEY.encode() not in data
    again = pickle.loads(data)
    ranked = again.search(["how much is the escape of water excess"], 2)
    assert ranked.ids[0, 0] == 1


# ----------------------------------------------------------------------------- a sweep


def toy_texts() -> set[str]:
    """The distinct texts a toy run embeds: its 16-word chunks (identical wordings of two
    versions are one text) and its questions."""
    from ragsweep.chunking import FixedTokenChunker, chunk_corpus
    from ragsweep.data import load_dataset

    ds = load_dataset(TINY)
    chunks = chunk_corpus(ds.documents, FixedTokenChunker(size=16, overlap=4))
    return {c.text for c in chunks} | set(ds.questions["text"])


def files_holding(folder: Path, needle: str) -> list[str]:
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and needle.encode() in p.read_bytes()
    )


@pytest.mark.slow
def test_a_sweep_pays_once_and_writes_the_key_nowhere(server, tmp_path):
    remote = [
        "embedder=openai_compatible",
        f"embedder.base_url={server.url}",
        f"embedder.model={MODEL}",
        f"embedder.api_key_env={KEY_ENV}",
        "embedder.batch_size=8",
        "embedder.max_concurrency=2",
        f"embedder.cache_dir={tmp_path / 'embeddings-cache'}",
    ]
    run = [*TOY, *SMALL_CHUNKS, *remote, "hydra.launcher.n_jobs=1", "confirm.enabled=false"]
    server.latency = 0.02
    server.fail.append((429, {"retry-after-ms": "10"}))
    first = tmp_path / "first"
    first.mkdir()
    # the model's own 32 dimensions (the configured null, the baseline) against 16
    done = cli_in(first, "-m", *run, "embedder.dimensions=null,16").ok()
    by_value = done.store.by_value("sweep:embedder.dimensions")
    assert sorted(by_value) == ["16", "null"]
    # each dimension count embedded every distinct passage and question exactly once
    answered = server.answered()
    assert not server.requests[0].answered  # the 429, retried
    for dim in (None, 16):
        sent = [t for r in answered if r.body.get("dimensions") == dim for t in r.inputs]
        assert len(sent) == len(set(sent))
        assert set(sent) == toy_texts()
    assert server.max_in_flight == 2
    assert {r.authorization for r in server.requests} == {f"Bearer {KEY}"}
    # each value is its own dense index; BM25 and its list are built once and shared
    for run_ in by_value.values():
        hits = set(run_.data.tags["ragsweep.cache_hits"].split(","))
        assert {"chunks", "first_stage_bm25_index"} <= hits
        assert run_.data.params["embedder.api_key_env"] == KEY_ENV

    # a second run sharing the embedder, with a fresh stage cache (nothing built there yet):
    # every vector comes from the embedding cache, not one request
    server.reset()
    fresh = tmp_path / "fresh-stage-cache"
    single = [a for a in run if not a.startswith("hydra.")]
    again = cli_in(first, *single, "embedder.dimensions=16", f"cache.dir={fresh}").ok()
    assert server.requests == []
    assert list(fresh.glob("*/dense_index/*.pkl"))  # built anew, from the cached vectors
    logged = again.store.only_run()
    assert logged.data.params["embedder.dimensions"] == "16"
    ours, theirs = done.store.measured(by_value["16"]), again.store.measured(logged)
    assert {k: v for k, v in theirs.items() if k.startswith("ndcg")} == {
        k: v for k, v in ours.items() if k.startswith("ndcg")
    }

    # the store, its artifacts, both caches, the sweep and Hydra folders: no key anywhere
    assert files_holding(tmp_path, KEY) == []
    assert KEY not in done.out + done.err + again.out + again.err
