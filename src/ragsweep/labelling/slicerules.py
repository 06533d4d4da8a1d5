"""The rule classifier that puts a log text in a slice (`slices.yaml` beside this module, or a
team's copy: `load_classifier`, `write_rules`), and how often it agrees with labelled slices
(`classifier_accuracy`). docs/labelling.md, "Slice rules".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragsweep.conventions import ALL
from ragsweep.errors import UserError
from ragsweep.labelling.dedup_key import normalise
from ragsweep.labelling.rules_file import builtin_text, read_yaml

#: the slice of an entry no rule matched (or with an empty slice column)
UNKNOWN = "unknown"

#: the default rule classifier, a plain file beside this module
DEFAULT_RULES = "slices.yaml"


@dataclass(frozen=True)
class SliceRule:
    """One slice's rule: `keywords` are phrases matched as whole words on the normalised text;
    `patterns` are regexes searched case-insensitively in the (scrubbed) text itself."""

    slice: str
    keywords: tuple[str, ...]
    patterns: tuple[re.Pattern[str], ...]

    def matches(self, text: str, normalised: str) -> bool:
        padded = f" {normalised} "
        return any(f" {k} " in padded for k in self.keywords) or any(
            p.search(text) for p in self.patterns
        )


@dataclass(frozen=True)
class SliceClassifier:
    """Rules in precedence order: the first slice with a matching keyword or pattern wins, and a
    text no rule matches is `UNKNOWN`."""

    rules: tuple[SliceRule, ...]
    source: str

    @property
    def slices(self) -> tuple[str, ...]:
        return tuple(r.slice for r in self.rules)

    def classify(self, text: str) -> str:
        normalised = normalise(text)
        for rule in self.rules:
            if rule.matches(text, normalised):
                return rule.slice
        return UNKNOWN


def _str_list(value: Any, where: str, source: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise UserError(f"{source}: {where} must be a list of non-empty strings; fix the rules")
    return value


def load_classifier(path: str | Path | None = None) -> SliceClassifier:
    """The rule classifier in `path` (default: `slices.yaml` beside this module): a yaml with
    `slices:`, a list in precedence order of `{name, keywords, patterns}`."""
    source, doc = read_yaml(path, DEFAULT_RULES, "the slice rules")
    items = doc.get("slices") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise UserError(f"{source}: needs `slices:`, a list of {{name, keywords, patterns}}")
    rules, seen = [], set()
    for i, item in enumerate(items):
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name or name in (UNKNOWN, ALL) or name in seen:
            raise UserError(
                f"{source}: slices[{i}].name must be a new slice name other than "
                f"'{UNKNOWN}' and '{ALL}'; fix the rules"
            )
        seen.add(name)
        keywords = [
            normalise(k) for k in _str_list(item.get("keywords"), f"{name}.keywords", source)
        ]
        patterns = []
        for j, p in enumerate(_str_list(item.get("patterns"), f"{name}.patterns", source)):
            try:
                patterns.append(re.compile(p, re.IGNORECASE))
            except re.error as e:
                raise UserError(
                    f"{source}: {name}.patterns[{j}]: invalid regex ({e}); fix it"
                ) from None
        rules.append(SliceRule(name, tuple(keywords), tuple(patterns)))
    return SliceClassifier(tuple(rules), source)


def write_rules(path: str | Path) -> Path:
    """A copy of the built-in rules (`slices.yaml`) at `path`, to edit and pass as `--rules`;
    an existing file is never overwritten."""
    path = Path(path)
    if path.exists():
        raise UserError(f"{path}: already exists; give another file name, or remove it first")
    text = builtin_text(DEFAULT_RULES)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@dataclass(frozen=True)
class SliceAccuracy:
    """How many questions labelled with a slice the classifier put there (`correct`), put in
    `unknown`, or put in another slice."""

    n: int
    correct: int
    unknown: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else float("nan")


def classifier_accuracy(
    classifier: SliceClassifier, texts: Sequence[str], labels: Sequence[str]
) -> dict[str, SliceAccuracy]:
    """Per labelled slice (sorted by name) and `all`: the share of questions classified into
    their labelled slice (the slice's recall)."""
    if len(texts) != len(labels):
        raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
    got = [classifier.classify(t) for t in texts]
    out = {}
    for s in sorted(set(labels)):
        idx = [i for i, label in enumerate(labels) if label == s]
        out[s] = SliceAccuracy(
            len(idx), sum(got[i] == s for i in idx), sum(got[i] == UNKNOWN for i in idx)
        )
    out[ALL] = SliceAccuracy(
        len(labels), sum(g == lab for g, lab in zip(got, labels, strict=True)), got.count(UNKNOWN)
    )
    return out
