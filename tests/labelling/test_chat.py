"""ChatLabeller against a real HTTP server on 127.0.0.1 (chat_server.py), no mocks of the client.

The injected `sleep` records the delays instead of waiting, so retries cost no time; the one
real wait is the client timeout (0.3 s) in the timeout test.
"""

from __future__ import annotations

import json
import logging
import random
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

import pytest
from chat_server import Action, ChatServer

from fake_openai import Sleeps
from ragsweep.errors import UserError
from ragsweep.labelling.chat import (
    PROMPT_HASH,
    PROMPT_VERSION,
    UMBRELA_TO_GRADE,
    ChatLabeller,
    Item,
    Label,
    build_messages,
    cache_key,
    parse_score,
)

KEY_ENV = "RAGSWEEP_TEST_CHAT_KEY"
#: a recognisable key: it must reach the server and nothing else
KEY = "sk-ragsweep-LEAKCHECK-7f3a9c1e5b2d4680"
MODEL = "fake-umbrela-7b"
AT = datetime(2025, 6, 1, 9, 30, tzinfo=UTC)


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as s:
        yield s


def make(
    server_url: str, sleeps: Sleeps | None = None, at: datetime = AT, **kwargs
) -> ChatLabeller:
    kwargs.setdefault("api_key_env", KEY_ENV)
    kwargs.setdefault("max_concurrency", 1)
    return ChatLabeller(
        server_url,
        MODEL,
        sleep=sleeps if sleeps is not None else Sleeps(),
        now=lambda: at,
        rng=random.Random(0),
        **kwargs,
    )


def item(
    qid: str, *markers: str, question: str = "Is water damage from a burst pipe covered?"
) -> Item:
    text = f"Clause {qid}: {' '.join(markers)} We cover sudden escape of water from pipes."
    return Item(qid, "home", f"5.{qid}", "2025", question, text)


# -- parsing, mapping, small helpers -------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("Intent: ...\n##final score: 3", 3),
        ("##Final Score: 2", 2),
        ("reasoning\nFinal score: 1", 1),
        ("Final score is 0.", 0),
        ("**Final score:** 2", 2),
        ("I said final score: 1 at first, but ##final score: 3", 3),
        ("The passage partly answers it.\n2", 2),
        ("Score: 3.", 3),
        ("no score here", None),
        ("Final score: 7", None),
        ("it scores 2.5", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_score(reply: str | None, score: int | None) -> None:
    assert parse_score(reply) == score


def test_mapping_is_umbrela_3_2_to_ours_2_1_and_rest_0() -> None:
    assert dict(UMBRELA_TO_GRADE) == {3: 2, 2: 1, 1: 0, 0: 0}


def test_cache_key_depends_on_model_prompt_temperature_and_seed() -> None:
    m = build_messages(item("1"))
    base = cache_key("a", m, 0.0, 0)
    assert base == cache_key("a", m, 0, 0)  # 0 and 0.0 are one temperature
    assert len({base, cache_key("b", m, 0.0, 0), cache_key("a", m, 0.5, 0)}) == 3
    assert cache_key("a", build_messages(item("2")), 0.0, 0) != base
    assert cache_key("a", m, 0.0, 1) != base


def test_importing_does_not_import_openai() -> None:
    code = "import sys, ragsweep.labelling.chat; print('openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bad_settings_are_user_errors() -> None:
    with pytest.raises(UserError, match="not an http"):
        ChatLabeller("localhost:8000", MODEL)
    with pytest.raises(UserError, match="max_concurrency"):
        ChatLabeller("http://127.0.0.1:1/v1", MODEL, max_concurrency=0)


# -- over HTTP ------------------------------------------------------------------------------


def test_grades_mapped_and_provenance(server: ChatServer, key: str) -> None:
    items = [
        item("1", "EXACT"),
        item("2", "PARTIAL", "FMT_PLAIN"),
        item("3", "RELATED", "FMT_BARE"),
        item("4"),
    ]
    labels = make(server.url, max_concurrency=4).label(items)
    assert [lab.qid for lab in labels] == ["1", "2", "3", "4"]
    assert [lab.umbrela_score for lab in labels] == [3, 2, 1, 0]
    assert [lab.grade for lab in labels] == [2, 1, 0, 0]
    port = server.url.split(":")[2].split("/")[0]
    first = labels[0]
    assert first == Label(
        qid="1",
        document="home",
        section="5.1",
        version="2025",
        grade=2,
        error=None,
        labeller=f"{MODEL}@127.0.0.1:{port}",
        prompt_version=PROMPT_VERSION,
        prompt_hash=PROMPT_HASH,
        at="2025-06-01T09:30:00+00:00",
        umbrela_score=3,
        source="model",
    )
    assert first.clause_id == "home/5.1@2025"
    assert first.to_prelabel()["model"] == first.labeller
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.body["model"] == MODEL
    assert sent.body["temperature"] == 0.0 and sent.body["seed"] == 0
    assert all(r.authorization == f"Bearer {KEY}" for r in server.requests)


def test_429_is_retried_honouring_retry_after(server: ChatServer, key: str) -> None:
    server.queue.append(Action("status", 429, {"Retry-After": "2"}))
    server.queue.append(Action("status", 429, {"retry-after-ms": "250"}))
    sleeps = Sleeps()
    [label] = make(server.url, sleeps).label([item("1", "EXACT")])
    assert label.grade == 2 and label.error is None
    assert sleeps == [2.0, 0.25]
    assert len(server.requests) == 3


def test_5xx_backs_off_exponentially_with_jitter(server: ChatServer, key: str) -> None:
    server.queue.extend([Action("status", 500), Action("status", 502), Action("status", 500)])
    sleeps = Sleeps()
    [label] = make(server.url, sleeps, backoff_base=0.1).label([item("1", "PARTIAL")])
    assert label.grade == 1
    assert len(sleeps) == 3
    for attempt, delay in enumerate(sleeps):  # equal jitter: in [d/2, d], d = 0.1 * 2**attempt
        assert 0.05 * 2**attempt <= delay <= 0.1 * 2**attempt


def test_timeout_then_success(server: ChatServer, key: str) -> None:
    server.queue.append(Action("slow", seconds=1.5))
    sleeps = Sleeps()
    [label] = make(server.url, sleeps, timeout=0.3).label([item("1", "EXACT")])
    assert label.grade == 2
    assert len(server.requests) == 2 and len(sleeps) == 1


def test_malformed_then_success(server: ChatServer, key: str) -> None:
    server.queue.extend([Action("no_score"), Action("invalid_json")])
    sleeps = Sleeps()
    [label] = make(server.url, sleeps).label([item("1", "RELATED")])
    assert label.grade == 0 and label.umbrela_score == 1 and label.error is None
    assert len(server.requests) == 3
    assert sleeps == []  # a malformed reply is asked again at once


@pytest.mark.parametrize(("kind", "reason"), [("no_score", "no score"), ("invalid_json", "JSON")])
def test_always_malformed_fails_that_item_only(
    server: ChatServer, key: str, kind: str, reason: str
) -> None:
    server.always["BROKEN"] = Action(kind)
    items = [item("1", "EXACT"), item("2", "BROKEN"), item("3", "PARTIAL")]
    labels = make(server.url, max_retries=2, max_concurrency=2).label(items)
    assert [lab.grade for lab in labels] == [2, None, 1]
    broken = labels[1]
    assert broken.umbrela_score is None
    assert broken.error is not None and reason in broken.error and "3 attempts" in broken.error
    assert sum("BROKEN" in r.prompt for r in server.requests) == 3
    with pytest.raises(ValueError, match="no grade"):
        broken.to_prelabel()


def test_other_4xx_fails_the_item_without_retry(server: ChatServer, key: str) -> None:
    server.always["HUGE"] = Action("status", 400)
    labels = make(server.url).label([item("1", "HUGE"), item("2", "EXACT")])
    assert labels[0].grade is None and "HTTP 400" in (labels[0].error or "")
    assert labels[1].grade == 2
    assert sum("HUGE" in r.prompt for r in server.requests) == 1


def test_concurrency_never_exceeds_the_limit(key: str) -> None:
    with ChatServer(latency=0.05) as server:
        items = [item(str(i), "EXACT") for i in range(12)]
        labels = make(server.url, max_concurrency=3).label(items)
    assert all(lab.grade == 2 for lab in labels)
    assert len(server.requests) == 12
    assert server.max_in_flight == 3


def test_cache_second_run_makes_no_request(server: ChatServer, key: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    server.always["BROKEN"] = Action("no_score")
    items = [item("1", "EXACT"), item("2", "PARTIAL"), item("3", "BROKEN"), item("1", "EXACT")]
    first = make(server.url, cache_dir=cache, max_retries=0).label(items)
    assert [lab.grade for lab in first] == [2, 1, None, 2]
    assert len(server.requests) == 3  # the repeated item shares one request
    files = sorted(cache.iterdir())
    assert len(files) == 2  # only scored replies are cached; no temporary file is left
    entry = json.loads(files[0].read_text())
    assert entry["key"] == files[0].stem and entry["model"] == MODEL

    del server.always["BROKEN"]
    later = datetime(2030, 1, 1, tzinfo=UTC)
    again = make(server.url, cache_dir=cache, max_retries=0, at=later).label(items[:2])
    assert len(server.requests) == 3  # no request at all
    assert again == first[:2]  # identical, `at` included

    retried = make(server.url, cache_dir=cache, at=later).label([items[2]])
    assert retried[0].grade == 0 and len(server.requests) == 4  # the failed item is asked again


def test_401_is_a_one_line_user_error(key: str) -> None:
    with ChatServer(expected_key="the-right-key") as server:
        with pytest.raises(UserError) as err:
            make(server.url).label([item("1", "EXACT")])
        assert len(server.requests) == 1  # not retried
    message = str(err.value)
    assert "\n" not in message
    assert server.url in message and MODEL in message and KEY_ENV in message and "401" in message


def test_401_with_no_key_set_says_to_set_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with ChatServer(expected_key="the-right-key") as server:
        with pytest.raises(UserError, match=f"{KEY_ENV} is not set"):
            make(server.url).label([item("1")])
        assert server.requests[0].authorization == "Bearer not-needed"


def test_unknown_model_is_a_one_line_user_error(key: str) -> None:
    with ChatServer(models={"llama3"}) as server:
        with pytest.raises(UserError) as err:
            make(server.url).label([item("1", "EXACT")])
    message = str(err.value)
    assert "\n" not in message and "404" in message and MODEL in message and "/models" in message


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_refused_is_a_one_line_user_error(key: str) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    sleeps = Sleeps()
    with pytest.raises(UserError) as err:
        make(url, sleeps, max_concurrency=4).label([item(str(i)) for i in range(6)])
    message = str(err.value)
    assert "\n" not in message
    assert url in message and MODEL in message and "connection refused" in message
    assert "start the server" in message
    assert sleeps == []  # nothing listens: no point waiting


def test_key_never_leaks(
    key: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)  # the openai and httpx loggers too
    seen: list[str] = []
    with ChatServer() as server:
        server.queue.extend([Action("status", 429, {"Retry-After": "1"}), Action("invalid_json")])
        server.always["BROKEN"] = Action("no_score")
        server.always["HUGE"] = Action("status", 400)
        labeller = make(server.url, cache_dir=tmp_path, max_retries=2)
        labels = labeller.label([item("1", "EXACT"), item("2", "BROKEN"), item("3", "HUGE")])
        assert labels[0].grade == 2 and labels[1].error and labels[2].error
        seen += [
            repr(labeller),
            str(labeller),
            repr(labels),
            json.dumps([asdict(x) for x in labels]),
        ]
        seen += [p.read_text() for p in tmp_path.rglob("*")]
        sent = {r.authorization for r in server.requests}
    assert sent == {f"Bearer {KEY}"}  # the key was sent ...
    with ChatServer(expected_key="other") as server:
        with pytest.raises(UserError) as err:
            make(server.url).label([item("1")])
        seen.append(str(err.value))
    with ChatServer(models={"other"}) as server:
        with pytest.raises(UserError) as err:
            make(server.url).label([item("1")])
        seen.append(str(err.value))
    with pytest.raises(UserError) as err:
        make(f"http://127.0.0.1:{free_port()}/v1").label([item("1")])
    seen.append(str(err.value))
    out, errs = capfd.readouterr()
    seen += [out, errs, caplog.text]
    seen += [r.getMessage() for r in caplog.records]
    assert any("retrying" in r.getMessage() for r in caplog.records)  # logs were captured
    for text in seen:  # ... and is nowhere else
        assert KEY not in text
        assert "LEAKCHECK" not in text
