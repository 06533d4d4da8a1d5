"""The chat generator of `labels generate`: a chat model behind an OpenAI-compatible endpoint
writes one question per source clause, in the voice of its slice, from the prompt in the
generation file (`generate_spec`). Settings, retries, key handling, one-line errors and the reply
cache are `chat.ChatClient`'s; a failure that outlives the retries stops the run in one line,
since a set with some questions missing would be drawn unlike the seed says
(docs/labelling.md, "Questions from the corpus").
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from ragsweep.endpoint import Malformed, clip, retryable
from ragsweep.errors import UserError
from ragsweep.labelling.chat import ChatClient, cache_key
from ragsweep.labelling.generate_spec import GenerationSpec, load_spec
from ragsweep.labelling.scrub import Scrubbed, Scrubber

#: longest question kept from a reply, in characters (longer: malformed)
MAX_QUESTION = 300


@dataclass(frozen=True)
class Ask:
    """What the prompt says about one source clause."""

    slice: str
    voice: str
    product: str
    version: str
    heading: str
    text: str


def parse_question(reply: str | None) -> str | None:
    """The question in a reply holding a JSON object `{"question": "..."}` (alone, or the last
    such object in the text), on one line; None when there is none or it is empty or too
    long."""
    if not reply:
        return None
    decoder = json.JSONDecoder()
    found = None
    for start in (m.start() for m in re.finditer(r"\{", reply)):
        try:
            value, _ = decoder.raw_decode(reply, start)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("question"), str):
            found = value["question"]
    if found is None:
        return None
    text = " ".join(found.split())
    return text if 0 < len(text) <= MAX_QUESTION else None


class ChatGenerator(ChatClient):
    """Writes questions with a chat model; `spec` is the generation file (default: the
    built-in one) whose prompt it sends. Other settings are `ChatClient`'s."""

    what = "chat generator"
    task = "write questions"

    def __init__(
        self, base_url: str, model: str, *, spec: GenerationSpec | None = None, **kwargs: Any
    ) -> None:
        super().__init__(base_url, model, **kwargs)
        self.spec = spec or load_spec()

    @property
    def generator(self) -> str:
        """Who wrote a question: `chat <model>@<host> (<prompt version>)`."""
        return f"chat {self.labeller} ({self.spec.prompt_version})"

    def messages(self, ask: Ask) -> list[dict[str, str]]:
        user = self.spec.user.format(
            slice=ask.slice,
            voice=ask.voice,
            product=ask.product,
            version=ask.version,
            heading=ask.heading.strip(),
            text=ask.text.strip(),
        )
        return [{"role": "system", "content": self.spec.system}, {"role": "user", "content": user}]

    def questions(self, asks: Sequence[Ask], scrubber: Scrubber) -> list[Scrubbed]:
        """One question per ask, in order, each through `scrubber` as its reply arrives and
        before it is cached (a model may write personal data a wording never holds: only the
        scrubbed question is kept, never the reply); cached questions send no request and are
        scrubbed again. Any ask that fails once the retries are spent raises a one-line
        UserError; every reply that arrived before it is cached, so running again asks only
        what failed."""
        keyed = [
            (cache_key(self.model, self.messages(a), self.temperature, self.seed), a) for a in asks
        ]
        done: dict[str, Scrubbed] = {}
        todo: dict[str, list[dict[str, str]]] = {}
        for key, ask in keyed:
            entry = self._cache_entry(key)
            if entry is not None and isinstance(entry.get("question"), str):
                done[key] = _cached(entry, scrubber)
            elif key not in todo:
                todo[key] = self.messages(ask)
        if todo:
            abort = threading.Event()
            with ThreadPoolExecutor(
                self.max_concurrency, thread_name_prefix="ragsweep-gen"
            ) as pool:
                futures = {pool.submit(self._ask, m, abort): key for key, m in todo.items()}
                try:
                    for future in as_completed(futures):
                        key = futures[future]
                        done[key] = scrubber.scrub(future.result())
                        self._cache_write(
                            key,
                            {
                                "model": self.model,
                                "generator": self.generator,
                                "question": done[key].text,
                                "scrubbed": done[key].counts,
                                "at": self._stamp(),
                            },
                        )
                except BaseException:
                    abort.set()
                    for f in futures:
                        f.cancel()
                    raise
        return [done[key] for key, _ in keyed]

    def _ask(self, messages: list[dict[str, str]], abort: threading.Event) -> str:
        import openai

        def question(text: str | None) -> str:
            found = parse_question(text)
            if found is None:
                snippet = self.endpoint.scrub(clip(text, 80))
                raise Malformed(f'malformed reply: no {{"question": ...}} object in {snippet!r}')
            return found

        attempts = self.endpoint.policy.attempts
        try:
            found, _ = self.request(messages, question, abort)
        except (openai.APITimeoutError, openai.APIStatusError, Malformed) as exc:
            tries = f" (after {attempts} attempts)" if retryable(exc) else ""
            raise UserError(
                f"{self.shown_url}: {self.endpoint.reason(exc)}{tries} writing a question with "
                f"model {self.model!r}; check that the server is up and answers with this model "
                "(the prompt asks for a JSON object), then run the command again: replies so "
                "far are cached, and nothing was written"
            ) from None
        return found


def _cached(entry: Mapping[str, Any], scrubber: Scrubber) -> Scrubbed:
    """A cached question, scrubbed again (a cache an earlier version wrote may hold it raw),
    with what was replaced when it was first scrubbed."""
    again = scrubber.scrub(entry["question"])
    counts = entry.get("scrubbed")
    first = {str(k): int(v) for k, v in counts.items()} if isinstance(counts, dict) else {}
    for kind, n in again.counts.items():
        first[kind] = first.get(kind, 0) + n
    return Scrubbed(again.text, first)
