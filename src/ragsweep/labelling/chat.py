"""Model pre-labels of graded relevance from any OpenAI-compatible chat-completions endpoint.

`ChatLabeller(base_url, model).label(items)` asks the model how well each policy clause answers
each question (a UMBRELA-style 0-3 prompt, mapped onto ragsweep's grades) and returns one `Label`
per item, in order: pre-labels for a person to review, never labels in their own right. Requests
go through `ragsweep.endpoint` (client, key, retries); replies are cached per prompt.
docs/labelling.md ("The chat pre-labeller") explains the prompt, retries, errors and cache.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ragsweep.data.write import replace_file
from ragsweep.endpoint import Endpoint, Malformed, RetryPolicy, clip, refused, retryable
from ragsweep.errors import UserError
from ragsweep.labelling.rules_file import read_yaml
from ragsweep.secrets import mask_text

log = logging.getLogger(__name__)

T = TypeVar("T")


def _prompt() -> tuple[str, str, str]:
    """(version, system prompt, user template) of `judge_prompt.yaml`, checked."""
    source, doc = read_yaml(None, "judge_prompt.yaml", "the chat pre-labeller's prompt")
    fields = ("version", "system", "user")
    if not isinstance(doc, dict) or not all(isinstance(doc.get(k), str) for k in fields):
        raise UserError(f"{source}: needs the strings version, system and user; restore it")
    return doc["version"], doc["system"], doc["user"]


#: the prompt (text is data: `judge_prompt.yaml` beside this module); `USER_TEMPLATE` is filled
#: with {question} and {passage}
PROMPT_VERSION, SYSTEM_PROMPT, USER_TEMPLATE = _prompt()
#: sha256 of the system prompt and the template: which prompt a label came from
PROMPT_HASH = hashlib.sha256(f"{SYSTEM_PROMPT}\0{USER_TEMPLATE}".encode()).hexdigest()
#: UMBRELA's 0-3 score -> ragsweep's grade (2 answers fully, 1 supports or partly, 0 not relevant)
UMBRELA_TO_GRADE: Mapping[int, int] = {3: 2, 2: 1, 1: 0, 0: 0}

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


@dataclass(frozen=True)
class _Outcome:
    score: int | None
    at: str
    error: str | None = None
    reply: str | None = None  # the model's text, kept in the cache for audit
    #: (prompt, completion) tokens of the reply the score came from, as the endpoint's `usage`
    #: reported them (kept in the cache, so a re-run knows what a pair cost); None: unreported
    tokens: tuple[int, int] | None = None


@dataclass
class Usage:
    """What a client's requests spent, from the endpoint's `usage` fields: `replies` (each
    completion returned, a malformed one too: it cost tokens), `prompt_tokens`,
    `completion_tokens`, and `unreported` (replies that carried no usage)."""

    replies: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    unreported: int = 0


@dataclass(frozen=True)
class Price:
    """What an endpoint charges, in dollars per million tokens, prompt and completion."""

    prompt: float
    completion: float

    def __post_init__(self) -> None:
        for name, value in (("prompt", self.prompt), ("completion", self.completion)):
            if not (value >= 0 and value < float("inf")):
                raise UserError(
                    f"price: {name} must be dollars per million tokens, a number >= 0, got "
                    f"{value!r}; e.g. --price-in 0.15 --price-out 0.60"
                )

    def of(self, prompt_tokens: float, completion_tokens: float) -> float:
        return (prompt_tokens * self.prompt + completion_tokens * self.completion) / 1e6


def _tokens(response: Any) -> tuple[int, int] | None:
    """(prompt, completion) tokens of a completion's `usage`, None when it has none."""
    usage = getattr(response, "usage", None)
    prompt = getattr(usage, "prompt_tokens", None)
    completion = getattr(usage, "completion_tokens", None)
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return prompt, completion


class ChatClient:
    """A chat model behind an OpenAI-compatible endpoint, as every chat user in ragsweep asks it:
    the settings checked, the endpoint's client, key and retry policy (`ragsweep.endpoint`),
    the errors a user must fix raised as one line, replies cached as JSON files under
    `cache_dir`. `ChatLabeller` grades with it; `labelling.generate_chat` writes questions.

    `base_url` ends in /v1 (`http://localhost:8000/v1` for vLLM, `http://localhost:11434/v1`
    for Ollama). `timeout` is per request, in seconds; the retry options are
    `ragsweep.endpoint.RetryPolicy`'s. `sleep`, `now` and `rng` are injectable for tests
    (defaults: `time.sleep`, UTC now, an unseeded `random.Random`). `what` names the user in
    errors (`chat labeller`).
    """

    #: who asks, in errors about the settings; what the model is asked to do, in "cannot
    #: connect ... to <task> with model ..."
    what = "chat labeller"
    task = "label"

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
                f"{self.what}: base_url {mask_text(base_url)!r} is not an http(s) URL; "
                "give the server's OpenAI-compatible root, e.g. http://localhost:8000/v1"
            )
        if not model:
            raise UserError(f"{self.what} {mask_text(base_url)}: model is empty; name one")
        if max_concurrency < 1 or max_retries < 0 or timeout <= 0:
            raise UserError(
                f"{self.what} {mask_text(base_url)}: max_concurrency must be >= 1, "
                f"max_retries >= 0 and timeout > 0 (got {max_concurrency}, {max_retries}, "
                f"{timeout})"
            )
        self.model = model
        self.max_concurrency = max_concurrency
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.temperature = temperature
        self.seed = seed
        self.endpoint = Endpoint(
            base_url,
            api_key_env=api_key_env,
            timeout=timeout,
            policy=RetryPolicy(max_retries, backoff_base, backoff_max, retry_after_max),
            sleep=sleep,
            rng=rng,
        )
        self._now = now or (lambda: datetime.now(UTC))
        #: what this client's requests spent so far (`Usage`), and the last reply's tokens on
        #: the thread that asked it
        self.usage = Usage()
        self._usage_lock = threading.Lock()
        self._last = threading.local()

    def _spent(self, response: Any) -> None:
        tokens = _tokens(response)
        self._last.tokens = tokens
        with self._usage_lock:
            self.usage.replies += 1
            if tokens is None:
                self.usage.unreported += 1
            else:
                self.usage.prompt_tokens += tokens[0]
                self.usage.completion_tokens += tokens[1]

    @property
    def base_url(self) -> str:
        return self.endpoint.base_url

    @property
    def api_key_env(self) -> str:
        return self.endpoint.api_key_env or ""

    @property
    def max_retries(self) -> int:
        return self.endpoint.policy.max_retries

    @property
    def timeout(self) -> float:
        return self.endpoint.timeout

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(base_url={self.shown_url!r}, model={self.model!r}, "
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
    def shown_url(self) -> str:
        return self.endpoint.shown_url

    def request(
        self,
        messages: list[dict[str, str]],
        parse: Callable[[str | None], T],
        abort: threading.Event | None = None,
    ) -> tuple[T, str]:
        """One chat completion under the endpoint's retry policy: `parse(reply text)` of it,
        and the text. `parse` raises `Malformed` for a reply it cannot use (asked again at
        once). What the user must fix raises a one-line UserError (a refused key, an unknown
        model, a server that cannot be reached); the rest is raised as it came once the
        retries are spent (`openai.APITimeoutError`, `openai.APIStatusError`, `Malformed`)."""
        import openai

        kwargs: dict[str, Any] = {"temperature": self.temperature}
        if self.seed is not None:
            kwargs["seed"] = self.seed

        def ask(client: Any) -> tuple[T, str]:
            try:
                response = client.chat.completions.create(
                    model=self.model, messages=messages, **kwargs
                )
            except ValueError as exc:  # the client could not decode the body
                raise Malformed(f"malformed reply: not JSON ({self.endpoint.scrub(exc)})") from None
            self._spent(response)
            text = response.choices[0].message.content if response.choices else None
            return parse(text), text or ""

        attempts = self.endpoint.policy.attempts
        try:
            return self.endpoint.call(ask, what=self.model, abort=abort)
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise self._auth_error(exc) from None
        except openai.NotFoundError as exc:
            raise UserError(
                f"{self.shown_url}: model {self.model!r} not found "
                f"(HTTP 404: {self.endpoint.detail(exc)}); check the model name against "
                f"GET {self.shown_url}/models and that the base URL ends in /v1"
            ) from None
        except openai.APITimeoutError:
            raise
        except openai.APIConnectionError as exc:
            why = refused(exc)
            if why:
                raise UserError(
                    f"{self.shown_url}: cannot connect ({why}) to {self.task} with model "
                    f"{self.model!r}; start the server or fix base_url"
                ) from None
            raise UserError(
                f"{self.shown_url}: {self.endpoint.reason(exc)} on {attempts} attempts with "
                f"model {self.model!r}; check that the server is up and reachable at base_url"
            ) from None

    def _auth_error(self, exc: Any) -> UserError:
        code = exc.status_code
        if self.endpoint.key() is None:
            fix = f"{self.api_key_env} is not set: export the server's API key in it"
        elif code == 401:
            fix = f"set {self.api_key_env} to a valid key for this server"
        else:
            fix = f"use a key in {self.api_key_env} that may use this model, or another model"
        return UserError(
            f"{self.shown_url}: the server refused the API key for model {self.model!r} "
            f"(HTTP {code}: {self.endpoint.detail(exc)}); {fix}"
        )

    def _stamp(self) -> str:
        return self._now().isoformat(timespec="seconds")

    def _cache_path(self, key: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / f"{key}.json"

    def _cache_entry(self, key: str) -> dict[str, Any] | None:
        """The cached entry of `key` (None: no cache, none there, or one for another key)."""
        path = self._cache_path(key)
        if path is None or not path.is_file():
            return None
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            return entry if isinstance(entry, dict) and entry.get("key") == key else None
        except (OSError, ValueError):
            log.warning("ignoring unreadable cache file %s", path)
            return None

    def _cache_write(self, key: str, entry: Mapping[str, Any]) -> None:
        path = self._cache_path(key)
        if path is not None:
            replace_file(path, json.dumps({"key": key, **entry}, sort_keys=True, indent=1) + "\n")


@dataclass(frozen=True)
class LabelRun:
    """What one `ChatLabeller.label` call did: `pairs` items, `prompts` distinct prompts (items
    with the same prompt share one), `from_cache` of them answered by the cache, and `tokens`
    the (prompt, completion) tokens of each graded prompt's reply (None where unreported)."""

    pairs: int
    prompts: int
    from_cache: int
    tokens: list[tuple[int, int] | None]


def cost_line(run: LabelRun, spent: Usage, price: Price | None = None) -> str:
    """What a judging run cost: tokens per 1,000 pairs (from every graded reply's usage,
    cached ones included, so a resumed run knows), what this run itself spent, and dollars at
    `price` when given."""
    known = [t for t in run.tokens if t is not None]
    head = (
        f"{run.pairs} pairs, {run.prompts} prompts ({run.from_cache} answered by the cache, "
        f"{run.prompts - run.from_cache} asked): "
    )
    if not known:
        return head + "the endpoint reported no token usage; cost unknown"
    per_prompt = (sum(t[0] for t in known) / len(known), sum(t[1] for t in known) / len(known))
    share = run.prompts / max(run.pairs, 1)  # a prompt shared by several pairs is paid once
    per_1000 = (per_prompt[0] * share * 1000, per_prompt[1] * share * 1000)
    text = (
        f"{per_1000[0]:,.0f} prompt + {per_1000[1]:,.0f} completion tokens per 1,000 pairs"
        f" (from {len(known)} replies' usage); this run spent {spent.prompt_tokens:,} + "
        f"{spent.completion_tokens:,} tokens on {spent.replies} replies"
    )
    if spent.unreported:
        text += f" ({spent.unreported} without usage)"
    if price is not None:
        text += (
            f"; at ${price.prompt:g} / ${price.completion:g} per million tokens: "
            f"${price.of(*per_1000):.4f} per 1,000 pairs, "
            f"${price.of(spent.prompt_tokens, spent.completion_tokens):.4f} spent now"
        )
    return head + text


class ChatLabeller(ChatClient):
    """Grades (question, clause) items with a chat model behind an OpenAI-compatible endpoint
    (the settings are `ChatClient`'s). After `label`, `last_run` says what it did and
    `usage` what it spent (`cost_line` puts them in words)."""

    last_run: LabelRun | None = None

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
        self.last_run = LabelRun(
            pairs=len(keyed),
            prompts=len(outcomes),
            from_cache=len(outcomes) - len(todo),
            tokens=[o.tokens for o in outcomes.values() if o.score is not None],
        )
        return [self._label(item, outcomes[key]) for key, item in keyed]

    # -- requests ---------------------------------------------------------------------------

    def _ask_all(self, todo: Mapping[str, list[dict[str, str]]]) -> dict[str, _Outcome]:
        abort = threading.Event()
        done: dict[str, _Outcome] = {}
        pool = ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="ragsweep-chat")
        try:
            futures = {
                pool.submit(self._ask, messages, abort): key for key, messages in todo.items()
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

    def _ask(self, messages: list[dict[str, str]], abort: threading.Event) -> _Outcome:
        """One prompt under the endpoint's retry policy; a reply without a score is malformed
        (asked again at once). What stays failed fails this item, or the run (UserError)."""
        import openai

        attempts = self.endpoint.policy.attempts
        try:
            score, text = self.request(messages, self._score, abort)
        except openai.APITimeoutError as exc:
            return self._failed(f"{self.endpoint.reason(exc)} (after {attempts} attempts)")
        except (openai.APIStatusError, Malformed) as exc:
            reason = self.endpoint.reason(exc)
            if not retryable(exc):  # a request the server will never accept
                return self._failed(reason)
            return self._failed(f"{reason} (after {attempts} attempts)")
        tokens = getattr(self._last, "tokens", None)
        return _Outcome(score, self._stamp(), reply=self.endpoint.scrub(text), tokens=tokens)

    def _score(self, text: str | None) -> int:
        score = parse_score(text)
        if score is None:
            snippet = self.endpoint.scrub(clip(text, _SNIPPET))
            raise Malformed(f"malformed reply: no score in {snippet!r}")
        return score

    def _failed(self, reason: str) -> _Outcome:
        log.warning("%s %s: item failed: %s", self.shown_url, self.model, reason)
        return _Outcome(None, self._stamp(), reason)

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

    def _cache_get(self, key: str) -> _Outcome | None:
        entry = self._cache_entry(key)
        if entry is None:
            return None
        try:
            score = entry["umbrela_score"]
            if score not in UMBRELA_TO_GRADE:
                return None
            tokens = entry.get("tokens")
            kept = (int(tokens[0]), int(tokens[1])) if isinstance(tokens, list) else None
            return _Outcome(int(score), str(entry["at"]), reply=entry.get("reply"), tokens=kept)
        except (KeyError, IndexError, TypeError, ValueError):
            log.warning("ignoring unreadable cache file %s", self._cache_path(key))
            return None

    def _cache_put(self, key: str, outcome: _Outcome) -> None:
        entry = {
            "model": self.model,
            "labeller": self.labeller,
            "temperature": self.temperature,
            "seed": self.seed,
            "prompt_version": PROMPT_VERSION,
            "prompt_hash": PROMPT_HASH,
            "umbrela_score": outcome.score,
            "reply": outcome.reply,
            "tokens": None if outcome.tokens is None else list(outcome.tokens),
            "at": outcome.at,
        }
        self._cache_write(key, entry)
