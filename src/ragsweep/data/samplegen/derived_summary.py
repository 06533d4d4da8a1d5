"""The product summary sheet (`<p>-summary`): IPID-style headings, each listing one-line glosses
of the clauses it covers, with their wording sections. See docs/sample.md.
"""

from __future__ import annotations

import random
import re

from ragsweep.data.samplegen.derived_doc import DerivedDoc, product_name
from ragsweep.data.samplegen.passages import ClauseText
from ragsweep.data.samplegen.prose import sentence_case

#: summary sheet headings and which clauses they gloss (by part kind, then by key/heading words)
_SUMMARY_PARTS: tuple[tuple[str, str], ...] = (
    ("What is insured?", "cover"),
    ("What is not insured?", "exclusions"),
    ("Are there any restrictions on cover?", "limits"),
    ("Where am I covered?", "where"),
    ("What are my obligations?", "obligations"),
    ("When and how do I pay?", "pay"),
    ("When does the cover start and end?", "period"),
    ("How do I cancel the contract?", "cancel"),
    ("Words with special meanings", "definitions"),
    ("About your policy", "other"),
)
_WHERE = re.compile(
    r"territorial limits|anywhere in the world|worldwide|United Kingdom|\bEurope\b|home area"
)
_PAY = re.compile(r"instalment|premium", re.I)
_CANCEL = re.compile(r"cancel|cooling", re.I)


def _summary_group(what: str, c: ClauseText) -> bool:
    if what == "where":
        return c.kind in {"cover", "definitions"} and any(_WHERE.search(f) for f in c.facts)
    if what == "pay":
        return bool(_PAY.search(c.key) or _PAY.search(c.heading))
    if what == "period":
        return c.key.endswith(".period")
    if what == "cancel":
        return bool(_CANCEL.search(c.key) or _CANCEL.search(c.heading))
    if what == "obligations":
        return c.kind in {"conditions", "claims"} and not (
            _summary_group("pay", c) or _summary_group("cancel", c)
        )
    if what == "other":
        return c.kind == "other" and not _summary_group("cancel", c)
    return c.kind == what


def build_summary(doc: DerivedDoc, clauses: list[ClauseText], seed: int) -> None:
    """The summary sheet: per IPID heading, the glosses of its clauses in groups of 2-5."""
    p = doc.product
    doc.part("About this document", "other")
    doc.add(
        "What is this type of insurance?",
        f"This document is a summary of the main features of the {product_name(p)} ({doc.version}"
        " edition). It does not list every term: the full terms are in the policy wording and"
        " your schedule.",
    )
    for title, what in _SUMMARY_PARTS:
        group = [c for c in clauses if c.gloss and _summary_group(what, c)]
        if not group:
            continue
        doc.part(
            title,
            "other"
            if what in {"where", "pay", "period", "cancel"}
            else {"obligations": "conditions"}.get(what, what),
        )
        rng = random.Random(f"ragsweep-sample:{seed}:summary:{p.document}:{what}")
        sizes = [rng.randint(2, 5) for _ in range(len(group))]
        i = 0
        for size in sizes:
            chunk = group[i : i + size]
            if not chunk:
                break
            i += size
            heading = _join_headings([c.heading for c in chunk])
            text = "\n".join(
                f"- {sentence_case(_bare(c.gloss))} (see section {c.section})." for c in chunk
            )
            doc.add(heading, text, points=frozenset(c.key for c in chunk))


def _bare(gloss: str | None) -> str:
    return (gloss or "").strip().rstrip(".")


def _join_headings(headings: list[str]) -> str:
    if len(headings) <= 3:
        return "; ".join(headings)
    return f"{headings[0]}; {headings[1]} and other items"
