"""Plain-English glosses: the everyday words a product summary sheet uses for a clause.

The summary sheet (`derived`, `<p>-summary`) glosses each clause in one line ("how much we pay
for bikes and e-bikes"); these lines are where a policyholder's own words (bike, burst pipe,
write-off) meet the policy's terms (pedal cycle, escape of water, total loss). The wording
itself no longer prints them. A gloss names what a clause is about and states none of its facts
(no amounts or time limits: the summary line is a pointer). The glosses are in `glosses.yaml`,
keyed by clause key; `SHARED` applies to every product; `ClauseDef.gloss` overrides both. A
clause with neither gets no summary line.
"""

from __future__ import annotations

from ragsweep.data.samplegen import texts

#: glosses of the clauses every product prints, and of each product's own clauses
SHARED: dict[str, str] = texts.load("glosses.yaml", "shared", dict[str, str])
PRODUCT: dict[str, dict[str, str]] = texts.load(
    "glosses.yaml", "products", dict[str, dict[str, str]]
)


def gloss(document: str, key: str) -> str | None:
    """The gloss of clause `key` of product `document` (None: it has none)."""
    return PRODUCT.get(document, {}).get(key) or SHARED.get(key)
