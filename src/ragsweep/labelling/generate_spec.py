"""What `labels generate` reads from its data file (`generate.yaml` beside this module, or a
team's copy): which clauses suit each slice, the question templates the offline generator fills
from a clause's key terms, and the chat generator's prompt (docs/labelling.md, "Questions from
the corpus"). Loaded into `GenerationSpec`, every field checked in one line naming the file.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragsweep.data.schema import Clause, Document
from ragsweep.errors import UserError
from ragsweep.labelling.rules_file import read_yaml

#: the built-in generation file, beside this module
DEFAULT_SPEC = "generate.yaml"
#: the terms every clause fills besides the file's `terms` ({product} only when its wording
#: names one)
CLAUSE_TERMS = ("topic", "section", "version", "product")
#: the fields the chat prompt's user template may name
PROMPT_FIELDS = ("slice", "voice", "product", "version", "heading", "text")


@dataclass(frozen=True)
class SliceSpec:
    """One slice's generation rule: the part kinds and patterns a source clause must show, the
    voice of its questions and the templates filled from a clause's terms."""

    slice: str
    voice: str
    kinds: frozenset[str]
    patterns: tuple[re.Pattern[str], ...]
    templates: tuple[str, ...]

    def suits(self, clause: Clause) -> bool:
        """Whether `clause` can be the source of this slice's questions."""
        if self.kinds and clause.kind not in self.kinds:
            return False
        seen = f"{clause.heading}\n{clause.text}"
        return not self.patterns or any(p.search(seen) for p in self.patterns)


@dataclass(frozen=True)
class GenerationSpec:
    """The generation file: term regexes, headings never used, a rule per slice, the prompt."""

    source: str
    terms: Mapping[str, re.Pattern[str]]
    skip_headings: re.Pattern[str]
    slices: Mapping[str, SliceSpec]
    prompt_version: str
    system: str
    user: str

    def terms_of(self, document: Document, clause: Clause) -> dict[str, str]:
        """The key terms of a clause a template may name: `CLAUSE_TERMS` and the file's terms
        the clause holds (the first match in its heading, then its text)."""
        heading = clause.heading.strip()
        first = heading.partition(" ")[0]
        acronym = first.isupper() and len(first) > 1  # kept as written: "UK residents"
        out = {
            "topic": heading if acronym else heading[:1].lower() + heading[1:],
            "section": clause.section,
            "version": clause.version,
        }
        if document.product:
            out["product"] = document.product
        seen = f"{clause.heading}\n{clause.text}"
        for name, pattern in self.terms.items():
            m = pattern.search(seen)
            found = None if m is None else m.group(1) if pattern.groups else m.group(0)
            if found and found.strip():  # an optional group that matched nothing: no term
                out[name] = found.strip()
        return out

    def usable(self, rule: SliceSpec, terms: Mapping[str, str]) -> list[str]:
        """The templates of `rule` whose every field `terms` fills, in file order."""
        return [t for t in rule.templates if set(_fields(t)) <= set(terms)]

    def skipped(self, clause: Clause) -> bool:
        return bool(self.skip_headings.search(clause.heading.strip()))


def _fields(template: str) -> list[str]:
    return [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]


def load_spec(path: str | Path | None = None) -> GenerationSpec:
    """The generation file at `path` (default: `generate.yaml` beside this module)."""
    source, doc = read_yaml(path, DEFAULT_SPEC, "the templates file")
    if not isinstance(doc, dict):
        raise UserError(f"{source}: needs `terms:`, `skip_headings:`, `slices:` and `prompt:`")

    def fail(field: str, what: str) -> UserError:
        return UserError(f"{source}: field '{field}': {what}; fix the templates file")

    def regex(value: Any, field: str, flags: int = 0) -> re.Pattern[str]:
        if not isinstance(value, str) or not value:
            raise fail(field, "must be a non-empty regex")
        try:
            return re.compile(value, flags)
        except re.error as e:
            raise fail(field, f"invalid regex ({e})") from None

    def fields(template: str, field: str) -> list[str]:
        try:
            return _fields(template)
        except ValueError as e:
            raise fail(field, f"{e}; write {{{{ or }}}} for a brace the text keeps") from None

    def strings(value: Any, field: str) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise fail(field, "must be a list of non-empty strings")
        return value

    raw_terms = doc.get("terms") or {}
    if not isinstance(raw_terms, dict):
        raise fail("terms", "must map a term's name to its regex")
    terms = {str(k): regex(v, f"terms.{k}") for k, v in raw_terms.items()}
    clash = sorted(set(terms) & set(CLAUSE_TERMS))
    if clash:
        raise fail(
            f"terms.{clash[0]}", "is filled from the clause itself; give the term another name"
        )
    known = {*terms, *CLAUSE_TERMS}
    slices: dict[str, SliceSpec] = {}
    raw_slices = doc.get("slices")
    if not isinstance(raw_slices, dict) or not raw_slices:
        raise fail("slices", "must map each slice name to {voice, kinds, patterns, templates}")
    for name, item in raw_slices.items():
        where = f"slices.{name}"
        if not isinstance(item, dict):
            raise fail(where, "must hold voice, kinds, patterns and templates")
        voice = item.get("voice")
        if not isinstance(voice, str) or not voice.strip():
            raise fail(f"{where}.voice", "must say in a few words what people ask in the slice")
        templates = strings(item.get("templates"), f"{where}.templates")
        for i, t in enumerate(templates):
            unknown = sorted(set(fields(t, f"{where}.templates[{i}]")) - known)
            if unknown:
                raise fail(
                    f"{where}.templates[{i}]",
                    f"names {{{unknown[0]}}}, which is no term; use one of "
                    + ", ".join(f"{{{k}}}" for k in sorted(known)),
                )
        slices[str(name)] = SliceSpec(
            str(name),
            voice.strip(),
            frozenset(strings(item.get("kinds", []), f"{where}.kinds")),
            tuple(
                regex(p, f"{where}.patterns[{i}]", re.IGNORECASE)
                for i, p in enumerate(strings(item.get("patterns", []), f"{where}.patterns"))
            ),
            tuple(templates),
        )
    prompt = doc.get("prompt")
    if not isinstance(prompt, dict):
        raise fail("prompt", "must hold version, system and user")
    for key in ("version", "system", "user"):
        if not isinstance(prompt.get(key), str) or not prompt[key].strip():
            raise fail(f"prompt.{key}", "must be a non-empty string")
    unknown = sorted(set(fields(prompt["user"], "prompt.user")) - set(PROMPT_FIELDS))
    if unknown:
        raise fail("prompt.user", f"names {{{unknown[0]}}}; it may name {', '.join(PROMPT_FIELDS)}")
    return GenerationSpec(
        source=source,
        terms=terms,
        skip_headings=regex(doc.get("skip_headings"), "skip_headings", re.IGNORECASE),
        slices=slices,
        prompt_version=prompt["version"].strip(),
        system=prompt["system"].strip(),
        user=prompt["user"],
    )
