"""The HTTP plumbing the fake OpenAI-compatible servers share (labelling/chat_server.py,
retrieval/embedding_server.py): a threaded server on 127.0.0.1, started and stopped as a context
manager, that counts requests in flight and answers each POST with what `answer` returns.
`Sleeps` is the sleep the tests inject into a client: it records each delay and waits for none.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass(frozen=True)
class Reply:
    """What the server sends back for one request."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


def json_reply(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, json.dumps(payload).encode(), headers or {})


def error_reply(status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
    """An error in OpenAI's shape: `{"error": {"message": ..., "type": ..., "code": ...}}`."""
    return json_reply(
        {"error": {"message": message, "type": "fake", "code": status}}, status, headers
    )


class Sleeps(list[float]):
    """The injected sleep: records each delay, waits for none."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


class FakeServer:
    """A server on a free port of 127.0.0.1: `with Server() as server: server.url` (ends in /v1).

    Each POST waits `latency` seconds, then gets `answer(path, body, authorization)`; while it
    does, it counts in `in_flight` (`max_in_flight` is the most at once). `expected_key` is
    for subclasses: the key a request must send as `Bearer <key>`.
    """

    def __init__(self, *, latency: float = 0.0, expected_key: str | None = None) -> None:
        self.latency = latency
        self.expected_key = expected_key
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    def answer(self, path: str, body: dict[str, Any], authorization: str | None) -> Reply:
        raise NotImplementedError

    @property
    def url(self) -> str:
        """The base URL a client is given (ends in /v1)."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            counted = False  # this request is in `in_flight`

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

            def _done(self) -> None:
                """Out of `in_flight`: before the reply goes out, since the client may send
                its next request the moment the reply arrives."""
                if self.counted:
                    self.counted = False
                    with server._lock:
                        server.in_flight -= 1

            def do_POST(self) -> None:
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                self.counted = True
                try:
                    length = int(self.headers.get("Content-Length", 0))
                    body = json.loads(self.rfile.read(length) or b"{}")
                    if server.latency:
                        time.sleep(server.latency)
                    reply = server.answer(self.path, body, self.headers.get("Authorization"))
                    self._done()
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(reply.body)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)
                finally:
                    self._done()

        return Handler
