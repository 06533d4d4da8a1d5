"""The endorsement booklet (`<p>-endorsements`): each endorsement in force, its code and title,
and its effect in the words of the wording section it changes. See docs/sample.md.
"""

from __future__ import annotations

from ragsweep.data.samplegen.derived_doc import DerivedDoc, endorsed, list_fact, plain, product_name
from ragsweep.data.samplegen.passages import ClauseText


def build_endorsements(
    doc: DerivedDoc, clauses: list[ClauseText], listed: list[tuple[str, str, str]]
) -> None:
    """The endorsement booklet of `doc`'s version from the `listed` endorsements in force."""
    p = doc.product
    by_section = {c.section: c for c in clauses}
    doc.part("About this booklet", "other")
    doc.add(
        "About this booklet",
        f"This booklet explains the endorsements used with the {product_name(p)} ({doc.version}"
        " edition). Each entry gives the endorsement's code and title and explains its effect"
        " in the words of the policy wording section it changes.",
    )
    if not listed:
        return
    doc.add(
        "Endorsements in this booklet",
        "\n".join(f"- {code}: {title}" for code, title, _ in listed),
        states=list_fact({c.key: c for c in clauses}, listed),
        points=frozenset(endorsed(listed, clauses)),
    )
    doc.part("Endorsements", "conditions")
    for code, title, section in listed:
        clause = by_section[section]
        effect = [f for f in clause.facts if code in f]
        text = (
            f"Endorsement {code} ({title}) changes section {section} of the policy wording,"
            f" {clause.heading}. " + " ".join(plain(f) for f in effect)
        )
        doc.add(f"{code} {title}", text, states=clause.facts_where(lambda f, c=code: c in f))
