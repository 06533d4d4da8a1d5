"""What a judging run costs (`ragsweep.labelling.chat`: `Usage`, `LabelRun`, `cost_line`): tokens
from the endpoint's `usage` fields, per 1,000 pairs and spent now, in dollars at a price; a
resumed run knows the cost of what the cache answered and spends nothing on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import Action, ChatServer

from ragsweep.errors import UserError
from ragsweep.labelling.chat import ChatLabeller, Item, Price, cost_line

KEY_ENV = "RAGSWEEP_TEST_COST_KEY"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with ChatServer() as s:
        yield s


def _item(qid: str, marker: str = "") -> Item:
    return Item(qid, "home", "5.1", "2025", f"Is {marker} glass covered?", "Glass is covered.")


def _labeller(url: str, cache: Path | None = None) -> ChatLabeller:
    return ChatLabeller(url, "fake", api_key_env=KEY_ENV, cache_dir=cache, sleep=lambda s: None)


def _words(server: ChatServer) -> list[tuple[int, int]]:
    """What the fake server charged each request: (prompt words, at least 10; reply words)."""
    out = []
    for r in server.requests:
        reply = server.reply_for(r.prompt)
        out.append((max(len(r.prompt.split()), 10), len(reply.split())))
    return out


def test_tokens_come_from_the_usage_fields_per_1000_pairs_and_in_dollars(
    server: ChatServer, tmp_path: Path
) -> None:
    items = [_item("1", "EXACT"), _item("2", "PARTIAL"), _item("3"), _item("1", "EXACT")]
    chat = _labeller(server.url, tmp_path / "cache")
    labels = chat.label(items)
    assert all(lab.grade is not None for lab in labels)
    charged = _words(server)
    assert len(charged) == 3  # the repeated pair shares its prompt's request
    assert chat.usage.replies == 3
    assert chat.usage.prompt_tokens == sum(p for p, _ in charged)
    assert chat.usage.completion_tokens == sum(c for _, c in charged)
    run = chat.last_run
    assert (run.pairs, run.prompts, run.from_cache) == (4, 3, 0)
    # 3 prompts for 4 pairs: per 1,000 pairs, 750 prompts at the mean reply's tokens
    per_in = sum(p for p, _ in charged) / 3 * 0.75 * 1000
    per_out = sum(c for _, c in charged) / 3 * 0.75 * 1000
    line = cost_line(run, chat.usage, Price(0.15, 0.60))
    assert f"{per_in:,.0f} prompt + {per_out:,.0f} completion tokens per 1,000 pairs" in line
    dollars = (per_in * 0.15 + per_out * 0.60) / 1e6
    assert f"${dollars:.4f} per 1,000 pairs" in line

    # resumed from the cache: the same cost per 1,000 pairs, nothing spent now
    again = _labeller(server.url, tmp_path / "cache")
    again.label(items)
    assert len(server.requests) == 3 and again.usage.replies == 0
    resumed = cost_line(again.last_run, again.usage, Price(0.15, 0.60))
    assert "(3 answered by the cache, 0 asked)" in resumed
    assert f"{per_in:,.0f} prompt + {per_out:,.0f} completion tokens per 1,000 pairs" in resumed
    assert "$0.0000 spent now" in resumed


def test_a_malformed_reply_is_paid_for_too(server: ChatServer) -> None:
    server.queue.append(Action("no_score"))
    chat = _labeller(server.url)
    chat.label([_item("1", "RELATED")])
    assert chat.usage.replies == 2  # the reply without a score cost tokens as well
    assert chat.usage.prompt_tokens == sum(p for p, _ in _words(server))
    assert len(server.requests) == 2


def test_a_price_must_be_a_number_of_dollars() -> None:
    with pytest.raises(UserError, match="dollars per million tokens"):
        Price(-1.0, 0.5)
    with pytest.raises(UserError, match="--price-in 0.15"):
        Price(float("nan"), 0.5)


def test_a_run_stopped_half_way_resumes_asking_only_the_rest(
    server: ChatServer, tmp_path: Path
) -> None:
    items = [_item("1", "EXACT"), _item("2", "BOOM"), _item("3", "PARTIAL")]
    server.always["BOOM"] = Action("status", 401)
    chat = ChatLabeller(
        server.url, "fake", api_key_env=KEY_ENV, cache_dir=tmp_path / "c", max_concurrency=1
    )
    with pytest.raises(UserError):
        chat.label(items)  # the run stops at the second pair
    assert len(list((tmp_path / "c").iterdir())) == 1  # the first reply was kept
    del server.always["BOOM"]
    before = len(server.requests)
    again = _labeller(server.url, tmp_path / "c")
    labels = again.label(items)
    assert all(lab.grade is not None for lab in labels)
    assert len(server.requests) - before == 2 and again.last_run.from_cache == 1


def test_the_prompt_is_data_beside_the_module_and_its_hash_names_it() -> None:
    import hashlib
    from importlib import resources

    import yaml

    from ragsweep.labelling import chat

    doc = yaml.safe_load(
        resources.files("ragsweep.labelling").joinpath("judge_prompt.yaml").read_text("utf-8")
    )
    assert (chat.PROMPT_VERSION, chat.SYSTEM_PROMPT, chat.USER_TEMPLATE) == (
        doc["version"],
        doc["system"],
        doc["user"],
    )
    joined = f"{doc['system']}\0{doc['user']}".encode()
    assert chat.PROMPT_HASH == hashlib.sha256(joined).hexdigest()
    # the hash every cached reply is keyed on: an edit of the prompt's text changes it, and
    # every cache with it; this pins the text the UMBRELA replies so far were asked with
    assert chat.PROMPT_HASH == "3bc3214e2b030a56eb0978eda3eacd5a235c6988c9a40a5a8025222d5d5cfc21"
    assert "{question}" in doc["user"] and "{passage}" in doc["user"]
