"""The documents a real corpus holds besides the wording, derived from the wording's own facts:
per product and version a policy schedule, a product summary sheet, an FAQ and an endorsement
booklet (one module each, `derived_*`), every section a `Passage` saying which facts it states.
Each is built from the clause's facts (its rendered `core` sentences in that version), never
from filler, so amounts and wording changes follow the clause between versions.
See docs/sample.md.
"""

from __future__ import annotations

from ragsweep.data.samplegen.derived_doc import DerivedDoc, form_code, product_name
from ragsweep.data.samplegen.derived_endorsements import build_endorsements
from ragsweep.data.samplegen.derived_faq import build_faq
from ragsweep.data.samplegen.derived_schedule import build_schedule
from ragsweep.data.samplegen.derived_summary import build_summary
from ragsweep.data.samplegen.passages import ClauseText, Passage
from ragsweep.data.samplegen.spec import ProductDef


def build_derived(
    product: ProductDef,
    version: str,
    clauses: list[ClauseText],
    listed: list[tuple[str, str, str]],
    seed: int,
) -> list[tuple[dict, dict[str, Passage]]]:
    """The four derived documents of one product version: (document JSON, section -> Passage).

    `clauses` are the version's wording clauses in order; `listed` the endorsements in force
    (code, title, wording section).
    """
    keys = {c.key for c in clauses}
    present = {c.key: frozenset(c.indices) for c in clauses}
    name = product_name(product)
    out = []
    for suffix, code, title, build in (
        (
            "schedule",
            "SC",
            f"{name} Schedule of Limits and Excesses",
            lambda d: build_schedule(d, clauses, listed, keys),
        ),
        (
            "summary",
            "PS",
            f"{name} Product Summary (Insurance Product Information Document)",
            lambda d: build_summary(d, clauses, seed),
        ),
        ("faq", "FQ", f"{name} Frequently Asked Questions", lambda d: build_faq(d, clauses, seed)),
        (
            "endorsements",
            "EN",
            f"{name} Endorsements Booklet",
            lambda d: build_endorsements(d, clauses, listed),
        ),
    ):
        doc = DerivedDoc(
            product,
            version,
            f"{product.document}-{suffix}",
            form_code(product, version, code),
            f"{title} ({version} edition)",
            present,
        )
        build(doc)
        kept = {c["section"] for part in doc.json()["parts"] for c in part["clauses"]}
        out.append((doc.json(), {s: p for s, p in doc.passages.items() if s in kept}))
    return out
