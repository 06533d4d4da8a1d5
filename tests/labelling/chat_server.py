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
`models` set: an unknown model gets a 404.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

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


def completion(model: str, text: str) -> dict[str, Any]:
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
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


class ChatServer:
    """The fake server; use as a context manager (`with ChatServer() as server: server.url`)."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        expected_key: str | None = None,
        models: set[str] | None = None,
    ) -> None:
        self.latency = latency
        self.expected_key = expected_key
        self.models = models
        self.queue: deque[Action] = deque()
        self.always: dict[str, Action] = {}
        self.requests: list[Recorded] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        """The base URL a client is given (ends in /v1)."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next_action(self, prompt: str) -> Action | None:
        with self._lock:
            for marker, action in self.always.items():
                if marker in prompt:
                    return action
            return self.queue.popleft() if self.queue else None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

            counted = False  # this request is in `in_flight`

            def _done(self) -> None:
                """Out of `in_flight`: before the reply goes out, since the client may send
                its next request the moment the reply arrives."""
                if self.counted:
                    self.counted = False
                    with server._lock:
                        server.in_flight -= 1

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None):
                self._done()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def _error(self, status: int, message: str, headers: dict[str, str] | None = None):
                body = {"error": {"message": message, "type": "fake", "code": status}}
                self._send(status, json.dumps(body).encode(), headers)

            def do_POST(self) -> None:
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                self.counted = True
                try:
                    self._answer()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)
                finally:
                    self._done()

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                record = Recorded(self.path, body, self.headers.get("Authorization"))
                with server._lock:
                    server.requests.append(record)
                if self.path != "/v1/chat/completions":
                    return self._error(404, f"no route {self.path}")
                if server.expected_key is not None and (
                    record.authorization != f"Bearer {server.expected_key}"
                ):
                    return self._error(401, "Incorrect API key provided.")
                if server.models is not None and body.get("model") not in server.models:
                    return self._error(404, f"The model '{body.get('model')}' does not exist")
                if server.latency:
                    time.sleep(server.latency)
                action = server._next_action(record.prompt)
                if action is not None and action.kind == "status":
                    return self._error(action.status, "scripted error", action.headers)
                if action is not None and action.kind == "invalid_json":
                    return self._send(200, b'{"id": "chatcmpl-fake", "choices": [')
                if action is not None and action.kind == "slow":
                    time.sleep(action.seconds)
                text = reply_text(record.prompt)
                if action is not None and action.kind == "no_score":
                    text = "I would rather not say how relevant this passage is."
                self._send(200, json.dumps(completion(body["model"], text)).encode())

        return Handler
