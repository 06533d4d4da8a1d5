"""A fake OpenAI-compatible chat-completions server on 127.0.0.1, scriptable per request.

`POST /v1/chat/completions` answers with a `chat.completion` whose score is read from a marker
word in the prompt: `EXACT` -> 3, `PARTIAL` -> 2, `RELATED` -> 1, otherwise 0 (UMBRELA's scale).
The reply's format follows another marker: `FMT_PLAIN` ends with `Final score: N`, `FMT_BARE` with
a bare digit, otherwise `##final score: N`.

Scripting: `queue` holds actions the next requests take, in arrival order; `always` maps a
marker word to an action every request whose prompt holds it takes. Actions are `Action` values:
`status` (an error code, optional headers), `slow` (sleep, then a normal reply), `no_score`
(a reply with no score in it), `invalid_json` (a 200 whose body is not JSON).

Every request is recorded (path, JSON body, Authorization header) and the server counts requests
in flight (`max_in_flight`). `expected_key` set: a request without `Bearer <key>` gets a 401;
`models` set: an unknown model gets a 404. The HTTP plumbing is `fake_openai.FakeServer`'s.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from fake_openai import FakeServer, Reply, error_reply, json_reply

SCORES = {"EXACT": 3, "PARTIAL": 2, "RELATED": 1}


@dataclass(frozen=True)
class Action:
    """What the server does with one request instead of a normal reply."""

    kind: str  # "status", "slow", "no_score", "invalid_json"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it."""

    path: str
    body: dict[str, Any]
    authorization: str | None

    @property
    def prompt(self) -> str:
        return "\n".join(m["content"] for m in self.body["messages"])


def score_of(prompt: str) -> int:
    """The UMBRELA score (0-3) the server gives a prompt: from its passage's marker word."""
    passage = prompt.rsplit("Passage:", 1)[-1]
    return next((s for word, s in SCORES.items() if word in passage), 0)


def reply_text(prompt: str) -> str:
    score = score_of(prompt)
    reasoning = "The asker wants to know what the policy covers; the clause is weighed for that."
    if "FMT_PLAIN" in prompt:
        return f"{reasoning}\nFinal score: {score}"
    if "FMT_BARE" in prompt:
        return f"{reasoning}\n{score}"
    return f"{reasoning}\n##final score: {score}"


def completion(model: str, text: str, prompt: str = "") -> dict[str, Any]:
    """A chat completion; its `usage` counts words: the prompt's (at least 10) and the
    reply's, so a test can tell what each reply cost."""
    used = (max(len(prompt.split()), 10), len(text.split()))
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": used[0],
            "completion_tokens": used[1],
            "total_tokens": sum(used),
        },
    }


class ChatServer(FakeServer):
    """The fake server; use as a context manager (`with ChatServer() as server: server.url`)."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        expected_key: str | None = None,
        models: set[str] | None = None,
    ) -> None:
        super().__init__(latency=latency, expected_key=expected_key)
        self.models = models
        self.queue: deque[Action] = deque()
        self.always: dict[str, Action] = {}
        self.requests: list[Recorded] = []

    def _next_action(self, prompt: str) -> Action | None:
        with self._lock:
            for marker, action in self.always.items():
                if marker in prompt:
                    return action
            return self.queue.popleft() if self.queue else None

    def reply_for(self, prompt: str) -> str:
        """The text of a normal reply to `prompt` (a subclass may answer other prompts)."""
        return reply_text(prompt)

    def answer(self, path: str, body: dict[str, Any], authorization: str | None) -> Reply:
        record = Recorded(path, body, authorization)
        with self._lock:
            self.requests.append(record)
        if path != "/v1/chat/completions":
            return error_reply(404, f"no route {path}")
        if self.expected_key is not None and authorization != f"Bearer {self.expected_key}":
            return error_reply(401, "Incorrect API key provided.")
        if self.models is not None and body.get("model") not in self.models:
            return error_reply(404, f"The model '{body.get('model')}' does not exist")
        action = self._next_action(record.prompt)
        if action is not None and action.kind == "status":
            return error_reply(action.status, "scripted error", action.headers)
        if action is not None and action.kind == "invalid_json":
            return Reply(200, b'{"id": "chatcmpl-fake", "choices": [')
        if action is not None and action.kind == "slow":
            time.sleep(action.seconds)
        text = self.reply_for(record.prompt)
        if action is not None and action.kind == "no_score":
            text = "I would rather not say how relevant this passage is."
        return json_reply(completion(body["model"], text, record.prompt))
