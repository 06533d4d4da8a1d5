"""A derived document under construction (parts, sections and their passages) and the helpers
the schedule, summary, FAQ and endorsement builders share. See docs/sample.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragsweep.data.samplegen.passages import ClauseText, Fact, Passage, make_passage
from ragsweep.data.samplegen.spec import ProductDef


@dataclass
class DerivedDoc:
    """A derived document under construction: parts, sections and their passages."""

    product: ProductDef
    version: str
    name: str
    form_code: str
    title: str
    present: dict[str, frozenset[int]]  # clause key -> its core indices in this version
    parts: list[dict] = field(default_factory=list)
    passages: dict[str, Passage] = field(default_factory=dict)

    def part(self, title: str, kind: str) -> None:
        number = str(len(self.parts) + 1)
        self.parts.append({"number": number, "title": title, "kind": kind, "clauses": []})

    def add(self, heading: str, text: str, states=frozenset(), points=frozenset()) -> None:
        part = self.parts[-1]
        section = f"{part['number']}.{len(part['clauses']) + 1}"
        part["clauses"].append({"section": section, "heading": heading, "text": text})
        self.passages[section] = make_passage(
            self.product.document,
            self.name,
            part["kind"],
            frozenset(states),
            self.present,
            frozenset(points),
        )

    def json(self) -> dict:
        parts = [p for p in self.parts if p["clauses"]]
        return {
            "document": self.name,
            "version": self.version,
            "product": self.product.document,
            "form_code": self.form_code,
            "title": self.title,
            "parts": parts,
        }


def form_code(product: ProductDef, version: str, code: str) -> str:
    """The form code of a derived document: the wording's, its `PW` replaced by `code`."""
    return product.forms[version].replace("-PW-", f"-{code}-")


def product_name(product: ProductDef) -> str:
    """The product's name without "Policy Wording"."""
    return product.title.replace(" Policy Wording", "")


def cite(section: str) -> str:
    """The sentence an FAQ answer ends with."""
    return f"See section {section} of your policy wording."


_PLAIN: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(a), b)
    for a, b in (
        (r"\bwe will not\b", "we won't"),
        (r"\bWe will not\b", "We won't"),
        (r"\bwe will\b", "we'll"),
        (r"\bWe will\b", "We'll"),
        (r"\byou must not\b", "you mustn't"),
        (r"\bYou must not\b", "You mustn't"),
        (r"\byou must\b", "you need to"),
        (r"\bYou must\b", "You need to"),
        (r"\bdoes not\b", "doesn't"),
        (r"\bdo not\b", "don't"),
        (r"\bis not\b", "isn't"),
        (r"\bare not\b", "aren't"),
        (r"\bcannot\b", "can't"),
        (r"\bin any one claim\b", "for each claim"),
        (r"\bshown in your schedule\b", "in your schedule"),
    )
)


def plain(sentence: str) -> str:
    """The same sentence in the looser register of an FAQ (contractions, fewer set phrases)."""
    for pattern, repl in _PLAIN:
        sentence = pattern.sub(repl, sentence)
    return sentence


def first_fact(clause: ClauseText, keep) -> frozenset[Fact]:
    """The first fact of `clause` whose sentence satisfies `keep` (none: empty)."""
    found = sorted(clause.facts_where(keep), key=lambda f: f[1])
    return frozenset(found[:1])


def list_fact(by_key: dict[str, ClauseText], listed: list[tuple[str, str, str]]) -> frozenset:
    """The `abt.endorsements` sentence a list of the endorsement codes restates (if printed)."""
    clause = by_key.get("abt.endorsements")
    if clause is None:
        return frozenset()
    return first_fact(clause, lambda f: all(code in f for code, _, _ in listed))


def endorsed(listed: list[tuple[str, str, str]], clauses: list[ClauseText]) -> list[str]:
    """The keys of the wording clauses the `listed` endorsements change."""
    by_section = {c.section: c.key for c in clauses}
    return sorted({by_section[s] for _, _, s in listed if s in by_section})
