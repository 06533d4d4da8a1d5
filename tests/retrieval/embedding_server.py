"""A fake OpenAI-compatible embeddings server on 127.0.0.1: `POST /v1/embeddings`.

Vectors are deterministic and readable: each word of a text (lower-cased `\\w+`) adds +1 or -1
(from its md5) to one of `dimensions` coordinates (default 32, also from its md5), plus 0.25 on
every coordinate so no text is the zero vector; the row is then scaled by 3, so a client that
forgets to normalise is noticed. `vector_of(text, dim)` is the same formula for the tests.

Scripting: `fail` holds (status, headers) answers the next requests get instead of vectors, in
arrival order. Every request is recorded (JSON body, Authorization header) with whether it was
answered with vectors; `max_in_flight` is the most requests the server held at once (each
answer waits `latency` seconds, so concurrent clients overlap). `expected_key` set: a request
without `Bearer <key>` gets a 401.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

DEFAULT_DIM = 32


def vector_of(text: str, dim: int = DEFAULT_DIM) -> np.ndarray:
    """The server's (unnormalised) float64 vector of `text`."""
    v = np.full(dim, 0.25)
    for word in re.findall(r"\w+", text.lower()):
        digest = int(hashlib.md5(word.encode()).hexdigest(), 16)  # noqa: S324 (not security)
        v[digest % dim] += 1.0 if (digest >> 64) % 2 else -1.0
    return 3.0 * v


@dataclass(frozen=True)
class Recorded:
    body: dict[str, Any]
    authorization: str | None
    answered: bool  # with vectors (not a scripted or auth error)

    @property
    def inputs(self) -> list[str]:
        value = self.body.get("input")
        return [value] if isinstance(value, str) else list(value or [])


class EmbeddingServer:
    """Use as a context manager: `with EmbeddingServer() as server: server.url`."""

    def __init__(self, *, latency: float = 0.0, expected_key: str | None = None) -> None:
        self.latency = latency
        self.expected_key = expected_key
        self.fail: deque[tuple[int, dict[str, str]]] = deque()
        self.requests: list[Recorded] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def answered(self) -> list[Recorded]:
        return [r for r in self.requests if r.answered]

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.max_in_flight = 0

    def __enter__(self) -> EmbeddingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None):
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    self._answer()
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                auth = self.headers.get("Authorization")
                if server.latency:
                    time.sleep(server.latency)
                with server._lock:
                    scripted = server.fail.popleft() if server.fail else None
                refused = server.expected_key is not None and auth != (
                    f"Bearer {server.expected_key}"
                )
                ok = self.path == "/v1/embeddings" and scripted is None and not refused
                with server._lock:
                    server.requests.append(Recorded(body, auth, ok))
                if self.path != "/v1/embeddings":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                if refused:
                    return self._send(401, {"error": {"message": "Incorrect API key provided."}})
                if scripted is not None:
                    status, headers = scripted
                    return self._send(status, {"error": {"message": "scripted"}}, headers)
                dim = int(body.get("dimensions") or DEFAULT_DIM)
                inputs = Recorded(body, auth, ok).inputs
                data = [
                    {"object": "embedding", "index": i, "embedding": vector_of(t, dim).tolist()}
                    for i, t in enumerate(inputs)
                ]
                usage = {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}
                payload = {"object": "list", "data": data, "model": body["model"], "usage": usage}
                self._send(200, payload)

        return Handler
