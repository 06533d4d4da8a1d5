"""Build the six policy wordings (3 products x 2 versions) from the product specs.

Each clause's text is its `core` sentences (the facts) merged with generic filler sentences. All
random choices for a clause are made once, before the version is known, with a generator keyed by
(seed, product, clause key) — or by (seed, clause key) alone for `shared` clauses — so:

- the 2024 and 2025 texts of a clause differ only where the spec says they differ (amounts,
  version-specific sentences), and
- shared clauses read almost verbatim across the three products (only `{prod}`-style words change).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from ragsweep.data.samplegen.glosses import SUMMARY, gloss
from ragsweep.data.samplegen.home import HOME
from ragsweep.data.samplegen.motor import MOTOR
from ragsweep.data.samplegen.prose import FILLER, PRODUCT_FILLER, expand, sentence_case
from ragsweep.data.samplegen.spec import INSURER, VERSIONS, ClauseDef, Core, ProductDef
from ragsweep.data.samplegen.travel import TRAVEL

PRODUCTS: tuple[ProductDef, ...] = (HOME, MOTOR, TRAVEL)

#: generic filler sentences added to every clause on top of `ClauseDef.fill`, by part kind
EXTRA_FILL: dict[str, int] = {
    "cover": 5,
    "limits": 5,
    "exclusions": 5,
    "claims": 6,
    "conditions": 5,
    "other": 4,
    "definitions": 1,
}

_CODE_SENTENCES = (
    "<Claim decision letters|Our letters> refer to this exclusion as {code}.",
    "Exclusion reference: {code}.",
    "This exclusion is shown as {code} in <claim decisions|our claim decision letters>.",
)


@dataclass(frozen=True)
class ClauseRef:
    """Where one clause of a product sits: its section and the versions it exists in."""

    product: ProductDef
    clause: ClauseDef
    part: str
    kind: str
    section: str


@dataclass(frozen=True)
class Corpus:
    """The built wordings plus the lookups the question builder needs."""

    documents: dict[tuple[str, str], dict]  # (document, version) -> wording JSON object
    refs: dict[tuple[str, str], ClauseRef]  # (document, clause key) -> where it sits
    texts: dict[tuple[str, str, str], str]  # (document, section, version) -> heading + text


def exclusion_code(product: ProductDef, number: int) -> str:
    return f"EXC-{product.code}-{number:02d}"


def _sections(product: ProductDef) -> dict[str, ClauseRef]:
    """Number the clauses part by part (`5.3` = third clause of part 5); keys must be unique."""
    refs: dict[str, ClauseRef] = {}
    codes: set[int] = set()
    for part in product.parts:
        for i, clause in enumerate(part.clauses, start=1):
            if clause.key in refs:
                raise ValueError(f"{product.document}: duplicate clause key {clause.key}")
            if clause.code_no is not None:
                if clause.code_no in codes:
                    raise ValueError(
                        f"{product.document}: duplicate exclusion code {clause.code_no}"
                    )
                codes.add(clause.code_no)
            refs[clause.key] = ClauseRef(
                product, clause, part.number, part.kind, f"{part.number}.{i}"
            )
    return refs


def _plan(product: ProductDef, ref: ClauseRef, seed: int, used: Counter[str]) -> list[Core]:
    """Choose and resolve (version-independently) the sentences of one clause, in order."""
    clause = ref.clause
    scope = "shared" if clause.shared else product.document
    rng = random.Random(f"ragsweep-sample:{seed}:wording:{scope}:{clause.key}")
    pool = FILLER[ref.kind]
    n_fill = min(clause.fill + EXTRA_FILL[ref.kind], len(pool))
    if clause.shared:
        picks = rng.sample(pool, n_fill)
    else:  # least used in this document first, so boilerplate repeats as little as it can
        order = sorted(pool, key=lambda t: (used[t], rng.random()))
        picks = order[:n_fill]
        if ref.kind != "definitions":
            flavour = PRODUCT_FILLER[product.document]
            picks.append(min(flavour, key=lambda t: (used[t], rng.random())))
    used.update(picks)

    core: list[Core] = []
    for item in clause.core:
        if isinstance(item, str):
            core.append(expand(item, rng))
        else:
            core.append({v: expand(t, rng) for v, t in sorted(item.items())})
    if clause.code_no is not None:
        core.append(expand(rng.choice(_CODE_SENTENCES), rng))
    filler: list[Core] = [expand(t, rng) for t in picks]

    # Summary box, then the facts, boilerplate merged in after the first fact (order kept).
    summary = gloss(product.document, clause.key)
    merged: list[Core] = []
    if summary is not None:
        merged.append(expand(SUMMARY[ref.kind], rng).replace("{gloss}", summary))
    merged.extend(core[:1])
    rest_core, rest_fill = core[1:], filler
    while rest_core or rest_fill:
        take_core = rest_core and (not rest_fill or rng.random() < 0.5)
        merged.append(rest_core.pop(0) if take_core else rest_fill.pop(0))
    return merged


def _paragraphs(sentences: list[str], rng: random.Random) -> str:
    """Join sentences into 1-3 paragraphs separated by single newlines."""
    if len(sentences) <= 4:
        return " ".join(sentences)
    n_par = 2 if len(sentences) <= 8 else 3
    cuts = sorted(rng.sample(range(2, len(sentences) - 1), n_par - 1))
    bounds = [0, *cuts, len(sentences)]
    return "\n".join(" ".join(sentences[a:b]) for a, b in zip(bounds, bounds[1:], strict=False))


class _Values(dict):
    """`{v[name]}` lookup that names the missing placeholder in its error."""

    def __missing__(self, key: str) -> str:
        raise KeyError(f"no value {key!r}")


def _values(product: ProductDef, version: str, sections: dict[str, str]) -> _Values:
    index = VERSIONS.index(version)
    out = _Values()
    for name, value in sorted(product.values.items()):
        text = value[index] if isinstance(value, tuple) else value
        out[name] = text.format_map({"ref": sections})
    return out


def build_corpus(seed: int) -> Corpus:
    """Build every wording; deterministic in `seed` (which only moves filler choice and order)."""
    documents: dict[tuple[str, str], dict] = {}
    refs: dict[tuple[str, str], ClauseRef] = {}
    texts: dict[tuple[str, str, str], str] = {}
    for product in PRODUCTS:
        by_key = _sections(product)
        sections = {key: ref.section for key, ref in by_key.items()}
        refs.update({(product.document, key): ref for key, ref in by_key.items()})
        used: Counter[str] = Counter()
        plans = {key: _plan(product, ref, seed, used) for key, ref in by_key.items()}
        for version in VERSIONS:
            values = _values(product, version, sections)
            listed = [
                e
                for e in product.endorsements
                if version in by_key[e.clause].clause.versions
                and e.code in _endorsement_probe(plans[e.clause], version)
            ]
            ctx_base = {
                "prod": product.prod,
                "asset": product.asset,
                "insurer": INSURER,
                "form": product.forms[version],
                "start": product.starts[version],
                "prev_form": values["prev_form"],
                "v": values,
                "ref": sections,
                "endorsement_list": "; ".join(
                    f"{e.code} ({e.title}, clause {sections[e.clause]})" for e in listed
                ),
            }
            parts = []
            for part in product.parts:
                clauses = []
                for clause in part.clauses:
                    if version not in clause.versions:
                        continue
                    ref = by_key[clause.key]
                    ctx = dict(ctx_base, thing=clause.thing)
                    if clause.code_no is not None:
                        ctx["code"] = exclusion_code(product, clause.code_no)
                    sentences = []
                    for item in plans[clause.key]:
                        template = item if isinstance(item, str) else item.get(version)
                        if template is None:
                            continue
                        sentences.append(sentence_case(template.format_map(ctx)))
                    rng = random.Random(f"ragsweep-sample:{seed}:paragraphs:{clause.key}")
                    text = _paragraphs(sentences, rng)
                    clauses.append(
                        {"section": ref.section, "heading": clause.heading, "text": text}
                    )
                    texts[(product.document, ref.section, version)] = f"{clause.heading}\n{text}"
                parts.append(
                    {
                        "number": part.number,
                        "title": part.title,
                        "kind": part.kind,
                        "clauses": clauses,
                    }
                )
            documents[(product.document, version)] = {
                "document": product.document,
                "version": version,
                "product": product.document,
                "form_code": product.forms[version],
                "title": f"{product.title} ({version} edition)",
                "parts": parts,
            }
    _check_endorsements(documents, refs)
    return Corpus(documents, refs, texts)


def _endorsement_probe(plan: list[Core], version: str) -> str:
    """The raw (unformatted) text of a clause plan in one version, to see which codes it names."""
    return " ".join(item if isinstance(item, str) else item.get(version, "") for item in plan)


def _check_endorsements(
    documents: dict[tuple[str, str], dict], refs: dict[tuple[str, str], ClauseRef]
) -> None:
    """Every endorsement code must appear in its clause's text in at least one version."""
    for product in PRODUCTS:
        for e in product.endorsements:
            section = refs[(product.document, e.clause)].section
            found = False
            for version in VERSIONS:
                for part in documents[(product.document, version)]["parts"]:
                    for clause in part["clauses"]:
                        found |= clause["section"] == section and e.code in clause["text"]
            if not found:
                raise ValueError(f"{product.document}: {e.code} not printed in clause {e.clause}")
