"""Model pre-labels of graded relevance from any OpenAI-compatible chat-completions endpoint.

`ChatLabeller(base_url, model).label(items)` asks the model how well each policy clause answers
each question and returns one `Label` per item, in order. Pre-labels are for a person to review
(`review/prelabels.jsonl`), never labels in their own right.

Prompt and grades: the prompt follows UMBRELA (Upadhyay et al., 2024): a 0-3 scale, the model
asked to weigh the asker's intent and how trustworthy the passage's answer is, then to end with
`##final score: N`. The wording here is ours. Its scale maps onto ragsweep's grades as
`3 -> 2` (the clause answers fully), `2 -> 1` (supports or partly answers), `1, 0 -> 0`: a clause
that is only on the topic but does not answer (UMBRELA 1) gives a reader nothing to act on, which
is what our 0 means, and keeping UMBRELA's four calibrated levels in the prompt rather than
inventing a three-level one keeps the boundaries the paper validated against human assessors.
The raw 0-3 score is kept on the label (`umbrela_score`).

A reply with no score (`parse_score` reads `##final score: 3`, `Final score: 3` or a bare digit
at the end) is malformed: asked again at once, then reported as failed for that item
(`grade=None`, `error` says why), never silently graded 0.

Retries: 429, 5xx, timeouts, dropped connections and malformed replies are retried up to
`max_retries` times. The delay is exponential backoff with equal jitter,
`d = min(backoff_max, backoff_base * 2**attempt)` drawn uniformly from `[d/2, d]`, except that a
`Retry-After` (or `retry-after-ms`) header on a 429 or 503 is honoured as given (capped at
`retry_after_max`). The openai client's own retries are off (`max_retries=0`), so this behaviour
is ours and tested; its per-request `timeout` is used as is. Requests run on a thread pool of
`max_concurrency` workers.

Errors the user must fix (connection refused, unknown host, 401/403, unknown model 404, or a
server that stays unreachable) raise `UserError` with one line naming the base URL, the model and
the fix; the run stops. Other failures are per item.

Cache: one JSON file per request under `cache_dir`, named by the sha256 of (model, prompt text,
temperature, seed) and written atomically (temporary file, then `os.replace`). Only scored
replies are cached, with the time they were obtained, so a re-run with the same inputs sends no
request and returns identical labels, while failed items are asked again.

Secrets: the API key is read only from the environment variable named by `api_key_env`
(`"not-needed"` when unset, as local servers expect some key) and is handed to the client alone;
no attribute of the labeller holds it (the openai client does), and it is masked out of every
message, error, log line and cache file.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ragsweep.data.write import replace_file
from ragsweep.errors import UserError
from ragsweep.secrets import REDACTED, mask_text

log = logging.getLogger(__name__)

PROMPT_VERSION = "umbrela-insurance-v1"
SYSTEM_PROMPT = (
    "You are a careful relevance assessor. You judge whether a passage taken from an insurance "
    "policy wording answers a customer's question."
)
USER_TEMPLATE = """\
Rate how well the passage answers the question, using this scale:
3 = the passage is about exactly this question and states the answer to it outright.
2 = the passage holds an answer to the question, but only part of it, or the answer is \
unclear or buried among unrelated material.
1 = the passage is on a related topic but does not answer the question.
0 = the passage has nothing to do with the question.

Question: {question}

Passage: {passage}

Think it through before you score. First, work out what the person asking wants to know: \
the intent behind the words. Next, judge how well the passage meets that intent. Then judge \
how far its answer can be trusted and acted on: a clause that states the rule plainly beats \
one that only hints at it. Finally, end your reply with one line of this form, where N is \
0, 1, 2 or 3:
##final score: N"""
#: sha256 of the system prompt and the template: which prompt a label came from
PROMPT_HASH = hashlib.sha256(f"{SYSTEM_PROMPT}\0{USER_TEMPLATE}".encode()).hexdigest()
#: UMBRELA's 0-3 score -> ragsweep's grade (2 answers fully, 1 supports or partly, 0 not relevant)
UMBRELA_TO_GRADE: Mapping[int, int] = {3: 2, 2: 1, 1: 0, 0: 0}
#: the key handed to the client when the environment variable is unset (local servers)
PLACEHOLDER_KEY = "not-needed"

_FINAL = re.compile(r"final[\s_-]*score\s*(?:is\s*)?[:=]?\s*[*\s]*\(?([0-3])(?![\d.]\d|\d)", re.I)
_TRAILING = re.compile(r"(?<![\d.])([0-3])(?![\d.]\d|\d)[\s.)*]*\Z")
_SNIPPET = 80


@dataclass(frozen=True)
class Item:
    """One (question, clause) pair to grade: the clause is `document/section@version`."""

    qid: str
    document: str
    section: str
    version: str
    question: str
    text: str  # the clause text

    @property
    def clause_id(self) -> str:
        """`document/section@version` (as `ragsweep.data.schema.clause_id` spells it)."""
        return f"{self.document}/{self.section}@{self.version}"


@dataclass(frozen=True)
class Label:
    """A model's grade for one item, or `grade=None` with the reason in `error`.

    Provenance: `source` is always "model"; `labeller` is `model@host[:port]` (no key, no path);
    `prompt_version`/`prompt_hash` name the prompt; `at` is when the reply was obtained (ISO 8601,
    kept in the cache, so a cached label is identical to the first one).
    """

    qid: str
    document: str
    section: str
    version: str
    grade: int | None
    error: str | None
    labeller: str
    prompt_version: str
    prompt_hash: str
    at: str
    umbrela_score: int | None = None
    source: str = "model"

    @property
    def clause_id(self) -> str:
        return f"{self.document}/{self.section}@{self.version}"

    def to_prelabel(self) -> dict[str, Any]:
        """The row for `review/prelabels.jsonl` (docs/schema.md); a failed label has none."""
        if self.grade is None:
            raise ValueError(f"{self.qid} {self.clause_id}: no grade ({self.error})")
        return {
            "qid": self.qid,
            "document": self.document,
            "section": self.section,
            "version": self.version,
            "grade": self.grade,
            "model": self.labeller,
        }


def build_messages(item: Item) -> list[dict[str, str]]:
    """The chat messages sent for one item."""
    user = USER_TEMPLATE.format(question=item.question.strip(), passage=item.text.strip())
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def parse_score(reply: str | None) -> int | None:
    """The UMBRELA score (0-3) in a reply: the last `final score` line, else a bare digit at the
    very end; None when there is none (the reply is malformed)."""
    if not reply:
        return None
    found = _FINAL.findall(reply)
    if found:
        return int(found[-1])
    m = _TRAILING.search(reply.strip())
    return int(m.group(1)) if m else None


def cache_key(
    model: str, messages: Sequence[Mapping[str, str]], temperature: float, seed: int | None
) -> str:
    """sha256 of what determines a reply: model, prompt text, temperature and seed."""
    payload = {
        "model": model,
        "prompt": [[m["role"], m["content"]] for m in messages],
        "temperature": float(temperature),
        "seed": seed,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


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


def _one_line(text: object, limit: int = 200) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _refused(exc: BaseException) -> str | None:
    """'connection refused' or 'host not found' when that is what lies under a connection error."""
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


class _Aborted(Exception):
    """Another request of the run raised a UserError; this one stops."""


@dataclass(frozen=True)
class _Outcome:
    score: int | None
    at: str
    error: str | None = None
    reply: str | None = None  # the model's text, kept in the cache for audit


class ChatLabeller:
    """Grades (question, clause) items with a chat model behind an OpenAI-compatible endpoint.

    `base_url` ends in /v1 (`http://localhost:8000/v1` for vLLM, `http://localhost:11434/v1`
    for Ollama). `timeout` is per request, in seconds. `sleep`, `now` and `rng` are injectable
    for tests (defaults: `time.sleep`, UTC now, an unseeded `random.Random`).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        max_concurrency: int = 4,
        max_retries: int = 4,
        timeout: float = 30.0,
        cache_dir: Path | None = None,
        temperature: float = 0.0,
        seed: int | None = 0,
        backoff_base: float = 1.0,
        backoff_max: float = 30.0,
        retry_after_max: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], datetime] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if not base_url or urlsplit(base_url).scheme not in ("http", "https"):
            raise UserError(
                f"chat labeller: base_url {mask_text(base_url)!r} is not an http(s) URL; "
                "give the server's OpenAI-compatible root, e.g. http://localhost:8000/v1"
            )
        if not model:
            raise UserError(f"chat labeller {mask_text(base_url)}: model is empty; name one")
        if max_concurrency < 1 or max_retries < 0 or timeout <= 0:
            raise UserError(
                f"chat labeller {mask_text(base_url)}: max_concurrency must be >= 1, "
                f"max_retries >= 0 and timeout > 0 (got {max_concurrency}, {max_retries}, "
                f"{timeout})"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self.max_concurrency = max_concurrency
        self.max_retries = max_retries
        self.timeout = timeout
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.temperature = temperature
        self.seed = seed
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self._sleep = sleep
        self._now = now or (lambda: datetime.now(UTC))
        self._rng = rng or random.Random()
        self._rng_lock = threading.Lock()
        self._client_lock = threading.Lock()
        self._client: Any = None

    def __repr__(self) -> str:
        return (
            f"ChatLabeller(base_url={self._shown_url!r}, model={self.model!r}, "
            f"api_key_env={self.api_key_env!r}, max_concurrency={self.max_concurrency}, "
            f"max_retries={self.max_retries}, timeout={self.timeout}, "
            f"cache_dir={self.cache_dir!r}, temperature={self.temperature}, seed={self.seed})"
        )

    @property
    def labeller(self) -> str:
        """`model@host[:port]`: who made a label (no key, no path, no URL password)."""
        parts = urlsplit(self.base_url)
        host = parts.hostname or ""
        return f"{self.model}@{host}" + (f":{parts.port}" if parts.port else "")

    @property
    def _shown_url(self) -> str:
        return mask_text(self.base_url)

    def label(self, items: Sequence[Item]) -> list[Label]:
        """One label per item, in order. Items with the same prompt share one request; cached
        replies send none. Raises UserError (one line) when the server cannot be used at all."""
        keyed = [(self._key(item), item) for item in items]
        outcomes: dict[str, _Outcome] = {}
        todo: dict[str, list[dict[str, str]]] = {}
        for key, item in keyed:
            if key in outcomes or key in todo:
                continue
            cached = self._cache_get(key)
            if cached is not None:
                outcomes[key] = cached
            else:
                todo[key] = build_messages(item)
        if todo:
            outcomes.update(self._ask_all(todo))
        return [self._label(item, outcomes[key]) for key, item in keyed]

    # -- requests ---------------------------------------------------------------------------

    def _ask_all(self, todo: Mapping[str, list[dict[str, str]]]) -> dict[str, _Outcome]:
        client = self._get_client()
        abort = threading.Event()
        done: dict[str, _Outcome] = {}
        pool = ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="ragsweep-chat")
        try:
            futures = {
                pool.submit(self._ask, client, messages, abort): key
                for key, messages in todo.items()
            }
            for future in as_completed(futures):
                key = futures[future]
                done[key] = future.result()
                if done[key].error is None:
                    self._cache_put(key, done[key])
        except BaseException:
            abort.set()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return done

    def _ask(self, client: Any, messages: list[dict[str, str]], abort: threading.Event) -> _Outcome:
        """One prompt, retried as the module docstring says."""
        import openai

        kwargs: dict[str, Any] = {"temperature": self.temperature}
        if self.seed is not None:
            kwargs["seed"] = self.seed
        reason = ""
        unreachable = False
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            if abort.is_set():
                raise _Aborted
            delay: float | None = None
            unreachable = False
            try:
                response = client.chat.completions.create(
                    model=self.model, messages=messages, **kwargs
                )
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise self._auth_error(exc) from None
            except openai.NotFoundError as exc:
                raise UserError(
                    f"{self._shown_url}: model {self.model!r} not found "
                    f"(HTTP 404: {self._detail(exc)}); check the model name against "
                    f"GET {self._shown_url}/models and that the base URL ends in /v1"
                ) from None
            except openai.APITimeoutError:
                reason = f"timed out after {self.timeout:g} s"
            except openai.APIConnectionError as exc:
                why = _refused(exc)
                if why:
                    raise UserError(
                        f"{self._shown_url}: cannot connect ({why}) to label with model "
                        f"{self.model!r}; start the server or fix base_url"
                    ) from None
                reason, unreachable = f"connection error ({self._scrub(exc)})", True
            except openai.APIStatusError as exc:
                code = exc.status_code
                reason = f"HTTP {code}: {self._detail(exc)}"
                if code != 429 and code < 500:
                    return self._failed(reason)  # a request the server will never accept
                if code in (429, 503):
                    delay = retry_after_seconds(exc.response.headers)
                    if delay is not None:
                        delay = min(delay, self.retry_after_max)
            except ValueError as exc:  # the client could not decode the body
                reason = f"malformed reply: not JSON ({self._scrub(exc)})"
                delay = 0.0
            else:
                text = response.choices[0].message.content if response.choices else None
                score = parse_score(text)
                if score is not None:
                    return _Outcome(score, self._stamp(), reply=self._scrub(text))
                reason = f"malformed reply: no score in {self._scrub(_one_line(text, _SNIPPET))!r}"
                delay = 0.0
            if attempt + 1 < attempts:
                wait = self._backoff(attempt) if delay is None else delay
                log.info(
                    "%s %s: %s; attempt %d of %d, retrying in %.2f s",
                    self._shown_url,
                    self.model,
                    reason,
                    attempt + 1,
                    attempts,
                    wait,
                )
                if wait > 0:
                    self._sleep(wait)
        if unreachable:
            raise UserError(
                f"{self._shown_url}: {reason} on {attempts} attempts with model {self.model!r}; "
                "check that the server is up and reachable at base_url"
            )
        return self._failed(f"{reason} (after {attempts} attempts)")

    def _failed(self, reason: str) -> _Outcome:
        log.warning("%s %s: item failed: %s", self._shown_url, self.model, reason)
        return _Outcome(None, self._stamp(), reason)

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self.backoff_max, self.backoff_base * 2**attempt)
        with self._rng_lock:
            return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    def _get_client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=self._api_key() or PLACEHOLDER_KEY,
                    max_retries=0,
                    timeout=self.timeout,
                )
            return self._client

    def _auth_error(self, exc: Any) -> UserError:
        code = exc.status_code
        if self._api_key() is None:
            fix = f"{self.api_key_env} is not set: export the server's API key in it"
        elif code == 401:
            fix = f"set {self.api_key_env} to a valid key for this server"
        else:
            fix = f"use a key in {self.api_key_env} that may use this model, or another model"
        return UserError(
            f"{self._shown_url}: the server refused the API key for model {self.model!r} "
            f"(HTTP {code}: {self._detail(exc)}); {fix}"
        )

    def _detail(self, exc: Any) -> str:
        """The server's own error message, on one line, masked."""
        body = getattr(exc, "body", None)
        message: object = None
        if isinstance(body, Mapping):
            inner = body.get("error", body)
            message = inner.get("message") if isinstance(inner, Mapping) else inner
        return self._scrub(_one_line(message or getattr(exc, "message", exc)))

    def _scrub(self, text: object) -> str:
        out, key = str(text), self._api_key()
        if key:
            out = out.replace(key, REDACTED)
        return mask_text(out)

    def _api_key(self) -> str | None:
        """The key, read from the environment each time it is needed (no attribute holds it)."""
        return os.environ.get(self.api_key_env) or None

    def _stamp(self) -> str:
        return self._now().isoformat(timespec="seconds")

    # -- labels and cache -------------------------------------------------------------------

    def _key(self, item: Item) -> str:
        return cache_key(self.model, build_messages(item), self.temperature, self.seed)

    def _label(self, item: Item, outcome: _Outcome) -> Label:
        return Label(
            qid=item.qid,
            document=item.document,
            section=item.section,
            version=item.version,
            grade=None if outcome.score is None else UMBRELA_TO_GRADE[outcome.score],
            error=outcome.error,
            labeller=self.labeller,
            prompt_version=PROMPT_VERSION,
            prompt_hash=PROMPT_HASH,
            at=outcome.at,
            umbrela_score=outcome.score,
        )

    def _cache_path(self, key: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / f"{key}.json"

    def _cache_get(self, key: str) -> _Outcome | None:
        path = self._cache_path(key)
        if path is None or not path.is_file():
            return None
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            score = entry["umbrela_score"]
            if entry["key"] != key or score not in UMBRELA_TO_GRADE:
                return None
            return _Outcome(int(score), str(entry["at"]), reply=entry.get("reply"))
        except (OSError, ValueError, KeyError, TypeError):
            log.warning("ignoring unreadable cache file %s", path)
            return None

    def _cache_put(self, key: str, outcome: _Outcome) -> None:
        path = self._cache_path(key)
        if path is None:
            return
        entry = {
            "key": key,
            "model": self.model,
            "labeller": self.labeller,
            "temperature": self.temperature,
            "seed": self.seed,
            "prompt_version": PROMPT_VERSION,
            "prompt_hash": PROMPT_HASH,
            "umbrela_score": outcome.score,
            "reply": outcome.reply,
            "at": outcome.at,
        }
        replace_file(path, json.dumps(entry, sort_keys=True, indent=1) + "\n")
