"""A fake OpenAI-compatible embeddings server on 127.0.0.1: `POST /v1/embeddings`.

Vectors are deterministic and readable: each word of a text (lower-cased `\\w+`) adds +1 or -1
(from its md5) to one of `dimensions` coordinates (default 32, also from its md5), plus 0.25 on
every coordinate so no text is the zero vector; the row is then scaled by 3, so a client that
forgets to normalise is noticed. `vector_of(text, dim)` is the same formula for the tests.

Scripting: `fail` holds (status, headers) answers the next requests get instead of vectors, in
arrival order. Every request is recorded (JSON body, Authorization header) with whether it was
answered with vectors; `max_in_flight` is the most requests the server held at once (each
answer waits `latency` seconds, so concurrent clients overlap). `expected_key` set: a request
without `Bearer <key>` gets a 401. The HTTP plumbing is `fake_openai.FakeServer`'s.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from fake_openai import FakeServer, Reply, error_reply, json_reply

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


class EmbeddingServer(FakeServer):
    """Use as a context manager: `with EmbeddingServer() as server: server.url`."""

    def __init__(self, *, latency: float = 0.0, expected_key: str | None = None) -> None:
        super().__init__(latency=latency, expected_key=expected_key)
        self.fail: deque[tuple[int, dict[str, str]]] = deque()
        self.requests: list[Recorded] = []

    def answered(self) -> list[Recorded]:
        return [r for r in self.requests if r.answered]

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.max_in_flight = 0

    def answer(self, path: str, body: dict[str, Any], authorization: str | None) -> Reply:
        with self._lock:
            scripted = self.fail.popleft() if self.fail else None
        refused = self.expected_key is not None and authorization != f"Bearer {self.expected_key}"
        ok = path == "/v1/embeddings" and scripted is None and not refused
        record = Recorded(body, authorization, ok)
        with self._lock:
            self.requests.append(record)
        if path != "/v1/embeddings":
            return error_reply(404, f"no route {path}")
        if refused:
            return error_reply(401, "Incorrect API key provided.")
        if scripted is not None:
            status, headers = scripted
            return error_reply(status, "scripted", headers)
        dim = int(body.get("dimensions") or DEFAULT_DIM)
        data = [
            {"object": "embedding", "index": i, "embedding": vector_of(t, dim).tolist()}
            for i, t in enumerate(record.inputs)
        ]
        usage = {"prompt_tokens": len(record.inputs), "total_tokens": len(record.inputs)}
        return json_reply({"object": "list", "data": data, "model": body["model"], "usage": usage})
