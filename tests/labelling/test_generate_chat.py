"""`labels generate` with a chat model on a local OpenAI-compatible server: the model's questions
anchored to their clauses and its grades on the pool, retried under the endpoint policy, and
every failure that outlives the retries one line naming the server and the model, with the
dataset byte-identical."""

from __future__ import annotations

import json
import random
import socket
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import Action
from generate_server import ASKS, GenerateServer, question_for
from label_folder import AT, copy_tiny, digest, jsonl

from conftest import cli_in
from fake_openai import Sleeps
from ragsweep.errors import UserError
from ragsweep.labelling.chat import ChatLabeller
from ragsweep.labelling.generate import Generated, generate
from ragsweep.labelling.generate_chat import ChatGenerator, parse_question

MODEL = "fake-writer-7b"
KEY_ENV = "RAGSWEEP_TEST_GEN_KEY"
FAST = {"overrides": ["cache.dir=null"], "systems": {"bm25": ["retriever=bm25"]}}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[GenerateServer]:
    monkeypatch.setenv(KEY_ENV, "sk-test-not-a-real-key-0123456789abcdef")
    with GenerateServer() as s:
        yield s


def run(
    url: str, folder: Path, sleeps: Sleeps | None = None, cache: Path | None = None, **settings
) -> Generated:
    kwargs = {
        "api_key_env": KEY_ENV,
        "sleep": sleeps if sleeps is not None else Sleeps(),
        "rng": random.Random(0),
        "cache_dir": cache,
        **settings,
    }
    chat = ChatGenerator(url, MODEL, **kwargs)
    judge = ChatLabeller(url, MODEL, **kwargs)
    return generate(folder, per_slice=2, seed=0, at=AT, chat=chat, judge=judge, apply=True, **FAST)


def anchor(q) -> tuple[str, str, str]:
    return q.source.document, q.source.section, q.source.version


@pytest.mark.parametrize(
    ("reply", "question"),
    [
        ('{"question": "Is my bike covered?"}', "Is my bike covered?"),
        ('Sure!\n{"question": "Is my\\n bike covered?"}', "Is my bike covered?"),
        ('{"q": "Is my bike covered?"}', None),
        ('{"question": ""}', None),
        (
            'Draft: {"question": "old?"} Final: {"question": "Is my bike covered?"}',
            "Is my bike covered?",
        ),
        ('Sure {"question": "Is my bike covered?"} (I avoided {jargon})', "Is my bike covered?"),
        ('{"question": "Is my bike covered?", "meta": {"n": 1}}', "Is my bike covered?"),
        ("Is my bike covered?", None),
        (None, None),
    ],
)
def test_parse_question(reply: str | None, question: str | None) -> None:
    assert parse_question(reply) == question


def test_the_models_questions_are_anchored_and_its_grades_kept(server, tmp_path):
    tiny = copy_tiny(tmp_path)
    done = run(server.url, tiny)
    assert done.applied and done.counts()["limits"] == 2
    for q in done.questions:
        assert q.text == question_for(f"{ASKS} {q.source.heading}")
    port = server.url.split(":")[2].split("/")[0]
    assert done.generator == f"chat {MODEL}@127.0.0.1:{port} (generate-questions-v1)"
    assert done.judge.startswith(f"{MODEL}@127.0.0.1:")
    sources = {
        (q.qid, q.source.document, q.source.section, q.source.version) for q in done.questions
    }
    for r in done.labels:  # the fake judge scores every passage 0 (no marker word)
        key = (r["qid"], r["document"], r["section"], r["version"])
        assert r["grade"] == (2 if key in sources else 0)
    made = {r["qid"] for r in jsonl(tiny / "questions.jsonl") if r["subset"] == "synthetic"}
    assert made == {q.qid for q in done.questions}


def test_a_500_then_a_reply_is_retried_and_changes_nothing(server, tmp_path):
    clean = run(server.url, copy_tiny(tmp_path / "a"))
    server.queue.append(Action("status", 500))
    sleeps = Sleeps()
    again = run(server.url, copy_tiny(tmp_path / "b"), sleeps)
    assert [q.text for q in again.questions] == [q.text for q in clean.questions]
    assert again.labels == clean.labels
    assert len(sleeps) == 1 and 0.5 <= sleeps[0] <= 1.0  # the policy's first backoff


def test_a_second_run_asks_the_model_nothing_it_answered_before(server, tmp_path):
    cache = tmp_path / "cache"
    first = run(server.url, copy_tiny(tmp_path / "a"), cache=cache)
    asked = sum(ASKS in r.prompt for r in server.requests)
    again = run(server.url, copy_tiny(tmp_path / "b"), cache=cache)
    assert sum(ASKS in r.prompt for r in server.requests) == asked
    assert [q.text for q in again.questions] == [q.text for q in first.questions]


@pytest.mark.parametrize(
    ("action", "says"),
    [
        (Action("status", 500), "HTTP 500"),
        (Action("slow", seconds=1.0), "timed out"),
        (Action("invalid_json"), "not JSON"),
        (Action("no_score"), "malformed reply"),
    ],
)
def test_a_failure_that_outlives_the_retries_is_one_line_and_writes_nothing(
    server, tmp_path, action, says
):
    tiny = copy_tiny(tmp_path)
    before = digest(tiny)
    server.always[ASKS] = action
    with pytest.raises(UserError) as err:
        run(server.url, tiny, max_retries=2, timeout=0.3)
    message = str(err.value)
    assert "\n" not in message
    assert server.url in message and MODEL in message and says in message
    assert "nothing was written" in message
    assert digest(tiny) == before
    asked = Counter(r.prompt for r in server.requests if ASKS in r.prompt)
    # the prompt that failed was asked every time the policy allows (3), then the run stopped;
    # one asked beside it may have been cut short by the stop, never asked more
    assert asked and max(asked.values()) == 3


def test_a_judge_that_keeps_failing_stops_the_run_before_anything_is_written(server, tmp_path):
    tiny = copy_tiny(tmp_path)
    before = digest(tiny)
    server.always["Passage:"] = Action("status", 503)
    with pytest.raises(UserError) as err:
        run(server.url, tiny, max_retries=1)
    message = str(err.value)
    assert "\n" not in message and "could not be graded" in message and MODEL in message
    assert digest(tiny) == before


def test_connection_refused_from_the_cli_is_one_line_exit_2(tmp_path):
    tiny = copy_tiny(tmp_path)
    before = digest(tiny)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    ran = cli_in(
        tmp_path,
        "labels",
        "generate",
        "--data",
        str(tiny),
        "--apply",
        "--chat-url",
        url,
        "--chat-model",
        MODEL,
    )
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert url in line and MODEL in line and "connection refused" in line
    assert digest(tiny) == before


class _LeakyServer(GenerateServer):
    """A model that writes a phone number and an e-mail address into its questions."""

    def reply_for(self, prompt: str) -> str:
        if ASKS in prompt:
            about = question_for(prompt).rstrip("?")
            return json.dumps({"question": f"{about}? Call me on 07700 900123 or jo@example.com"})
        return super().reply_for(prompt)


def test_a_models_questions_are_scrubbed_before_anything_reads_them(monkeypatch, tmp_path):
    monkeypatch.setenv(KEY_ENV, "sk-test-not-a-real-key-0123456789abcdef")
    tiny = copy_tiny(tmp_path)
    with _LeakyServer() as server:
        done = run(server.url, tiny)
    assert done.questions and done.scrubbed
    written = (tiny / "questions.jsonl").read_text(encoding="utf-8")
    assert "07700 900123" not in written and "jo@example.com" not in written
    for q in done.questions:
        assert "07700" not in q.text and "@example.com" not in q.text and "<" in q.text


def test_a_models_questions_reach_the_cache_scrubbed_and_a_cached_run_says_so(
    monkeypatch, tmp_path
):
    monkeypatch.setenv(KEY_ENV, "sk-test-not-a-real-key-0123456789abcdef")
    cache = tmp_path / "cache"
    with _LeakyServer() as server:
        first = run(server.url, copy_tiny(tmp_path / "a"), cache=cache)
        again = run(server.url, copy_tiny(tmp_path / "b"), cache=cache)
        asked = [r for r in server.requests if ASKS in r.prompt]
    stored = [p.read_text(encoding="utf-8") for p in sorted(cache.glob("*.json"))]
    assert stored and all("07700" not in t and "@example.com" not in t for t in stored)
    entries = [json.loads(t) for t in stored if '"question"' in t]
    # one entry per question asked (duplicates among them dropped later), no reply kept
    assert len(entries) == len(asked) >= len(first.questions)
    assert all("reply" not in e for e in entries)
    # the second run asked nothing and reports what the first scrubbed, the same questions
    assert [q.text for q in again.questions] == [q.text for q in first.questions]
    assert again.scrubbed == first.scrubbed and sum(first.scrubbed.values()) >= 2 * len(entries)


def test_replies_that_arrived_before_a_failure_are_cached(server, tmp_path):
    cache = tmp_path / "cache"
    # one at a time, the requests arrive in the order the run submits them
    run(server.url, copy_tiny(tmp_path / "probe"), max_concurrency=1)
    first = next(r.prompt for r in server.requests if ASKS in r.prompt)
    server.requests.clear()
    # the first question of the first batch times out; the second, asked beside it, arrives
    server.always[first] = Action("slow", seconds=1.0)
    with pytest.raises(UserError, match="timed out"):
        run(server.url, copy_tiny(tmp_path / "a"), cache=cache, max_retries=1, timeout=0.3)
    cached = [json.loads(p.read_text(encoding="utf-8")) for p in cache.glob("*.json")]
    assert len(cached) == 1  # the reply beside it; the failing prompt was asked twice
    assert sum(r.prompt == first for r in server.requests) == 2
