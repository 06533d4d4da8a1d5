"""The policy schedule (`<p>-schedule`): the limits and excesses of one wording version as
tables, with notes quoting the sentences whose amounts or time limits no row shows.
See docs/sample.md.
"""

from __future__ import annotations

import re

from ragsweep.data.samplegen import texts
from ragsweep.data.samplegen.derived_doc import DerivedDoc, endorsed, first_fact, list_fact
from ragsweep.data.samplegen.passages import FACT_TOKEN, ClauseText, Fact
from ragsweep.data.samplegen.spec import ProductDef

#: a `{v[name]}` value that prints as an amount (goes into a schedule table row)
_AMOUNT_VALUE = re.compile(r"^£\d{1,3}(?:,\d{3})*$")
#: schedule table row labels for `{v[name]}` values, by product (fallback: heading + name)
LABELS: dict[str, dict[str, str]] = texts.load(
    "derived.yaml", "schedule_labels", dict[str, dict[str, str]]
)


def build_schedule(
    doc: DerivedDoc, clauses: list[ClauseText], listed: list[tuple[str, str, str]], keys: set[str]
) -> None:
    """The schedule: documents, endorsements in force, excesses, then limits and other amounts."""
    p = doc.product
    doc.part("About your schedule", "other")
    doc.add(
        "About this schedule",
        f"This schedule is part of your {p.prod} and should be read together with your policy"
        f" wording. It sets out the limits and excesses that apply to the {doc.version} edition"
        " of the wording, with the number of the wording section that explains each one.",
    )
    by_key = {c.key: c for c in clauses}
    if "abt.documents" in keys:
        form = p.forms[doc.version]
        doc.add(
            "Your policy documents",
            f"Policy wording: form {form}.\nSchedule: form {doc.form_code}.",
            states=first_fact(by_key["abt.documents"], lambda f: form in f),
        )
    if listed:
        rows = "\n".join(f"| {code} | {title} | {section} |" for code, title, section in listed)
        doc.add(
            "Endorsements available with this wording",
            "| Endorsement | Title | Wording section |\n|---|---|---|\n" + rows,
            states=list_fact(by_key, listed),
            points=frozenset(endorsed(listed, clauses)),
        )
    with_amounts = [c for c in clauses if any(FACT_TOKEN.search(f) for f in c.facts)]
    excesses = [c for c in clauses if any("excess" in n for _, n, _ in c.amounts)]
    if excesses:
        doc.part("Your excesses at a glance", "limits")
        rows, stated = [], set()
        for c in excesses:
            shown = [(n, a) for n, a in _rows(c) if "excess" in n]
            rows += [f"| {_label(p, c, n)} | {a} | {c.section} |" for n, a in shown]
            stated |= {(c.key, i) for i, n, a in c.amounts if (n, a) in shown}
        doc.add(
            "Summary of excesses",
            "| Excess | Amount | Wording section |\n|---|---|---|\n" + "\n".join(rows),
            states=stated,
        )
    for title, kinds in (
        ("Limits and excesses", {"limits"}),
        (
            "Other amounts in your cover",
            {"cover", "claims", "exclusions", "conditions", "other", "definitions"},
        ),
    ):
        group = [c for c in with_amounts if c.kind in kinds and _has_money(c)]
        if not group:
            continue
        doc.part(title, "limits")
        for clause in group:
            text, states = _schedule_section(p, clause)
            doc.add(clause.heading, text, states=states)
    doc.part("Important information", "other")
    doc.add(
        "How to read the tables",
        "Each row gives the item, the most we will pay or the excess you pay, and the wording"
        " section that explains it. A dash means that the row sets no amount in that column."
        " Notes under a table repeat the wording where an amount needs its conditions.",
    )
    doc.add(
        "Checking your schedule",
        "Please check this schedule when you receive it and tell us if anything is wrong. Your"
        " own schedule also shows your name, your address and the sections you have chosen.",
    )


def _has_money(clause: ClauseText) -> bool:
    return any("£" in f for f in clause.facts)


def _rows(clause: ClauseText) -> list[tuple[str, str]]:
    """The clause's `{v[name]}` amounts, once each, in the order it prints them."""
    return list(dict.fromkeys((n, a) for _, n, a in clause.amounts if _AMOUNT_VALUE.match(a)))


def _label(product: ProductDef, clause: ClauseText, name: str) -> str:
    label = LABELS.get(product.document, {}).get(name)
    return label or f"{clause.heading} ({name.replace('_', ' ')})"


def _schedule_section(product: ProductDef, clause: ClauseText) -> tuple[str, frozenset[Fact]]:
    """A table of the clause's amounts plus notes quoting sentences with unlabelled amounts.

    It states every fact with an amount or time limit: a fact whose amounts are all rows of its
    own values by those rows, any other (a time limit, a literal amount) by quoting it in a note.
    """
    rows = []
    for name, amount in _rows(clause):
        cells = ("-", amount) if "excess" in name else (amount, "-")
        rows.append(f"| {_label(product, clause, name)} | {cells[0]} | {cells[1]} |")
    own: dict[int, set[str]] = {}  # core index -> the amounts its own values print as rows
    for i, _, amount in clause.amounts:
        if _AMOUNT_VALUE.match(amount):
            own.setdefault(i, set()).add(amount)
    quoted = frozenset(
        (clause.key, i)
        for i, f in zip(clause.indices, clause.facts, strict=True)
        if any(t not in own.get(i, set()) for t in FACT_TOKEN.findall(f))
    )
    notes = [
        f for i, f in zip(clause.indices, clause.facts, strict=True) if (clause.key, i) in quoted
    ]
    lines = [f"Wording section {clause.section}."]
    if rows:
        lines += ["| Item | Limit | Excess |", "|---|---|---|", *rows]
    if notes:
        lines.append("Notes: " + " ".join(notes))
    return "\n".join(lines), frozenset((clause.key, i) for i in own) | quoted
