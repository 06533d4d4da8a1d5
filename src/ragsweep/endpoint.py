"""One OpenAI-compatible endpoint: the `openai` client made once, its key kept out of every
line, and the one retry policy every request to it runs under.

Both remote stages use it: the embedder (`retrieval.remote`) and the chat pre-labeller
(`labelling.chat`). docs/extending.md ("Retries and limits") states the policy; importing this
module does not import `openai`.
"""

from __future__ import annotations

import email.utils
import logging
import os
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from ragsweep.secrets import REDACTED, mask_text

log = logging.getLogger(__name__)

#: sent as the key when none is set: the client wants some key, local servers need none
PLACEHOLDER_KEY = "not-needed"
#: statuses asked again besides every 5xx: timeout, conflict, rate limit
RETRIED_STATUSES = frozenset({408, 409, 429})

T = TypeVar("T")


class Malformed(Exception):  # noqa: N818 (what the reply is)
    """Raised by a request for a reply it cannot use: asked again at once, without waiting."""


class Aborted(Exception):  # noqa: N818
    """The caller's `abort` event was set (another request failed for good): this one stops."""


@dataclass(frozen=True)
class RetryPolicy:
    """How a failed request is asked again: up to `max_retries` more times, waiting
    `d = min(backoff_max, backoff_base * 2**attempt)` seconds drawn uniformly from `[d/2, d]`
    (equal jitter), or what the server's `Retry-After`/`retry-after-ms` asks, capped at
    `retry_after_max`. Times in seconds."""

    max_retries: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    retry_after_max: float = 60.0

    @property
    def attempts(self) -> int:
        return self.max_retries + 1

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """The wait after failed attempt `attempt` (0 for the first), from `rng`."""
        ceiling = min(self.backoff_max, self.backoff_base * 2**attempt)
        return ceiling / 2 + rng.uniform(0, ceiling / 2)


def retry_after_seconds(
    headers: Mapping[str, str] | None, now: datetime | None = None
) -> float | None:
    """Seconds a `retry-after-ms` or `Retry-After` header (seconds or an HTTP date) asks for."""
    if not headers:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) / divisor)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def clip(text: object, limit: int = 200) -> str:
    """`text` on one line (runs of white space as one space), at most `limit` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def refused(exc: BaseException) -> str | None:
    """'connection refused' or 'host not found' when that lies under a connection error: nothing
    listens there, so asking again cannot help."""
    import socket

    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cur, socket.gaierror):
            return "host not found"
        cur = cur.__cause__ or cur.__context__
    return None


def retryable(exc: BaseException) -> bool:
    """Whether the policy asks again after `exc`: a malformed reply, a timeout, a dropped
    connection (not a refused one), 408, 409, 429 or 5xx."""
    if isinstance(exc, Malformed):
        return True
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return True
    if isinstance(exc, openai.APIConnectionError):
        return refused(exc) is None
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRIED_STATUSES or exc.status_code >= 500
    return False


class Endpoint:
    """An OpenAI-compatible server at `base_url` (ending in /v1), its key in the environment
    variable `api_key_env` (None: a server without keys), `timeout` seconds per request.

    No attribute holds the key: it is read from the environment when needed and handed to the
    client alone, and the client is not pickled. `sleep` and `rng` are injectable for tests.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key_env: str | None,
        timeout: float,
        policy: RetryPolicy,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.policy = policy
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._client: Any = None
        self._locks()

    def _locks(self) -> None:
        self._client_lock = threading.Lock()
        self._rng_lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_client"] = None  # it holds the key
        del state["_client_lock"], state["_rng_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._locks()

    @property
    def shown_url(self) -> str:
        """The base URL as it may be shown (a password in it masked)."""
        return mask_text(self.base_url)

    def key(self) -> str | None:
        """The key, read from the environment each time (None when unset or not wanted)."""
        return (os.environ.get(self.api_key_env) or None) if self.api_key_env else None

    def client(self) -> Any:
        """The `openai.OpenAI` client, made on first use; its own retries are off."""
        with self._client_lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=self.key() or PLACEHOLDER_KEY,
                    max_retries=0,
                    timeout=self.timeout,
                )
            return self._client

    def scrub(self, text: object) -> str:
        """`text` with the key and anything secret-shaped masked."""
        out, key = str(text), self.key()
        if key:
            out = out.replace(key, REDACTED)
        return mask_text(out)

    def detail(self, exc: BaseException) -> str:
        """The server's own error message (or the error's), on one line, masked."""
        body = getattr(exc, "body", None)
        message: object = None
        if isinstance(body, Mapping):
            inner = body.get("error", body)
            message = inner.get("message") if isinstance(inner, Mapping) else inner
        return self.scrub(clip(message or getattr(exc, "message", exc)))

    def reason(self, exc: BaseException) -> str:
        """What went wrong with one request, on one line, masked."""
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return f"timed out after {self.timeout:g} s"
        if isinstance(exc, openai.APIConnectionError):
            return f"connection error ({self.scrub(clip(exc))})"
        if isinstance(exc, openai.APIStatusError):
            return f"HTTP {exc.status_code}: {self.detail(exc)}"
        return self.scrub(clip(exc))

    def call(
        self, request: Callable[[Any], T], *, what: str, abort: threading.Event | None = None
    ) -> T:
        """`request(client)`, asked again under the policy while it fails in a way that may pass
        (`retryable`); then its last error is raised as it came. `what` names the request in
        the log line of each retry (the model)."""
        attempts = self.policy.attempts
        client = self.client()
        attempt = 0
        while True:
            if abort is not None and abort.is_set():
                raise Aborted
            try:
                return request(client)
            except Exception as exc:
                if attempt + 1 >= attempts or not retryable(exc):
                    raise
                wait = self._wait(exc, attempt)
                log.info(
                    "%s %s: %s; attempt %d of %d, retrying in %.2f s",
                    self.shown_url,
                    what,
                    self.reason(exc),
                    attempt + 1,
                    attempts,
                    wait,
                )
            if wait > 0:
                self._sleep(wait)
            attempt += 1

    def _wait(self, exc: Exception, attempt: int) -> float:
        if isinstance(exc, Malformed):
            return 0.0
        response = getattr(exc, "response", None)
        asked = retry_after_seconds(getattr(response, "headers", None))
        if asked is not None:
            return min(asked, self.policy.retry_after_max)
        with self._rng_lock:
            return self.policy.backoff(attempt, self._rng)
