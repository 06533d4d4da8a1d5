"""The one retry policy of OpenAI-compatible endpoints (ragsweep.endpoint): its pieces, then the
same failure sequences sent to both clients that use it (the chat pre-labeller and the remote
embedder) against their local test servers: each is retried identically (requests the server
saw, delays slept, final result). The injected sleep records delays and waits for none."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx
import numpy as np
import openai
import pytest

from fake_openai import FakeServer, Sleeps
from labelling.chat_server import Action, ChatServer
from ragsweep.endpoint import Malformed, RetryPolicy, retry_after_seconds, retryable
from ragsweep.errors import UserError
from ragsweep.labelling.chat import ChatLabeller, Item
from ragsweep.retrieval.remote import OpenAICompatibleEmbedder
from retrieval.embedding_server import EmbeddingServer, vector_of

KEY_ENV = "RAGSWEEP_TEST_ENDPOINT_KEY"
MODEL = "fake-model-1"
SEED = 7
#: the policy both clients are given here (the embedder's own defaults back off faster)
POLICY = {"backoff_base": 1.0, "backoff_max": 30.0, "retry_after_max": 60.0}


def test_retry_after_header_forms() -> None:
    now = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_seconds({"retry-after": "Sun, 01 Jun 2025 12:00:05 GMT"}, now) == 5.0
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_backoff_is_exponential_with_equal_jitter_and_capped() -> None:
    policy = RetryPolicy(max_retries=6, backoff_base=0.5, backoff_max=4.0)
    rng, same = random.Random(SEED), random.Random(SEED)
    for attempt, ceiling in enumerate([0.5, 1.0, 2.0, 4.0, 4.0, 4.0]):
        assert policy.backoff(attempt, rng) == ceiling / 2 + same.uniform(0, ceiling / 2)
    assert policy.attempts == 7


def status_error(code: int) -> openai.APIStatusError:
    request = httpx.Request("POST", "http://127.0.0.1:1/v1/embeddings")
    return openai.APIStatusError("x", response=httpx.Response(code, request=request), body=None)


def test_which_errors_are_retried() -> None:
    retried = [408, 409, 429, 500, 502, 503, 504]
    final = [400, 401, 403, 404, 413, 422]
    assert [retryable(status_error(code)) for code in retried] == [True] * len(retried)
    assert [retryable(status_error(code)) for code in final] == [False] * len(final)
    request = httpx.Request("POST", "http://127.0.0.1:1/v1")
    assert retryable(openai.APITimeoutError(request))
    assert retryable(openai.APIConnectionError(request=request))  # dropped: may pass
    refused = openai.APIConnectionError(request=request)
    refused.__cause__ = ConnectionRefusedError()
    assert not retryable(refused)  # nothing listens: asking again cannot help
    assert retryable(Malformed("no score"))
    assert not retryable(ValueError("a bug of ours"))


# -- both clients, one policy --------------------------------------------------------------


@dataclass
class Client:
    """One of the two clients against its own test server, reduced to what the policy decides:
    `fail` scripts the next answers (status, headers), `run` makes one request and says "ok"
    or why it failed, `requests` counts what the server received."""

    server: FakeServer
    fail: Callable[[list[tuple[int, dict[str, str]]]], None]
    run: Callable[[], str]

    @property
    def requests(self) -> int:
        return len(self.server.requests)  # type: ignore[attr-defined]


def chat_client(server: ChatServer, sleeps: Sleeps, max_retries: int) -> Client:
    labeller = ChatLabeller(
        server.url,
        MODEL,
        api_key_env=KEY_ENV,
        max_concurrency=1,
        max_retries=max_retries,
        sleep=sleeps,
        rng=random.Random(SEED),
        **POLICY,
    )
    clause = "EXACT We cover sudden escape of water from pipes."
    item = Item("q1", "home", "5.1", "2025", "Is a burst pipe covered?", clause)

    def run() -> str:
        [label] = labeller.label([item])
        return "ok" if label.grade == 2 else str(label.error)

    def fail(answers: list[tuple[int, dict[str, str]]]) -> None:
        server.queue.extend(Action("status", code, headers) for code, headers in answers)

    return Client(server, fail, run)


def embedder_client(server: EmbeddingServer, sleeps: Sleeps, max_retries: int) -> Client:
    embedder = OpenAICompatibleEmbedder(
        MODEL,
        base_url=server.url,
        api_key_env=KEY_ENV,
        max_retries=max_retries,
        cache_dir=None,
        sleep=sleeps,
        rng=random.Random(SEED),
        **POLICY,
    )
    text = "Is a burst pipe covered?"

    def run() -> str:
        try:
            [row] = embedder.encode([text])
        except UserError as err:
            return str(err)
        wanted = vector_of(text) / np.linalg.norm(vector_of(text))
        return "ok" if np.allclose(row, wanted, rtol=0, atol=1e-6) else "wrong vector"

    return Client(server, server.fail.extend, run)


SERVERS: dict[str, tuple[type[FakeServer], Callable[..., Client]]] = {
    "chat": (ChatServer, chat_client),
    "embedder": (EmbeddingServer, embedder_client),
}


@pytest.fixture(params=sorted(SERVERS))
def make_client(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[Sleeps, int], Client]]:
    monkeypatch.setenv(KEY_ENV, "leakcheck-endpoint-4711")
    server_type, client = SERVERS[request.param]
    with server_type() as server:
        yield lambda sleeps, max_retries: client(server, sleeps, max_retries)


def backoffs(*attempts: int) -> list[float]:
    """The waits the policy draws after these failed attempts, from a fresh rng of SEED."""
    rng, policy = random.Random(SEED), RetryPolicy(**POLICY)
    return [policy.backoff(attempt, rng) for attempt in attempts]


def test_429_with_retry_after_0_then_503_then_200(make_client) -> None:
    sleeps = Sleeps()
    client = make_client(sleeps, 4)
    client.fail([(429, {"Retry-After": "0"}), (503, {})])
    assert client.run() == "ok"
    assert client.requests == 3
    assert sleeps == backoffs(1)  # Retry-After 0: no wait; the 503 backs off (attempt 1)


def test_408_409_and_a_5xx_asking_for_a_delay_then_200(make_client) -> None:
    sleeps = Sleeps()
    client = make_client(sleeps, 3)
    client.fail([(408, {}), (409, {}), (500, {"retry-after-ms": "250"})])
    assert client.run() == "ok"
    assert client.requests == 4
    assert sleeps == [*backoffs(0, 1), 0.25]


def test_retries_run_out_after_max_retries(make_client) -> None:
    sleeps = Sleeps()
    client = make_client(sleeps, 2)
    client.fail([(503, {"Retry-After": "120"})] * 3)
    outcome = client.run()
    assert "HTTP 503: scripted" in outcome and "\n" not in outcome
    assert client.requests == 3
    assert sleeps == [60.0, 60.0]  # the server's delay, capped at retry_after_max


def test_a_request_the_server_will_never_accept_is_not_retried(make_client) -> None:
    sleeps = Sleeps()
    client = make_client(sleeps, 4)
    client.fail([(400, {})])
    assert "HTTP 400: scripted" in client.run()
    assert client.requests == 1 and sleeps == []
