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
import re
from collections import Counter
from dataclasses import dataclass

from ragsweep.data.samplegen import texts
from ragsweep.data.samplegen.derived import build_derived
from ragsweep.data.samplegen.glosses import gloss
from ragsweep.data.samplegen.passages import ClauseText, Fact, Passage, check_passages, make_passage
from ragsweep.data.samplegen.prose import FILLER, PRODUCT_FILLER, expand, sentence_case
from ragsweep.data.samplegen.spec import INSURER, VERSIONS, ClauseDef, Core, ProductDef

__all__ = [
    "PRODUCTS",
    "ClauseRef",
    "Corpus",
    "Fact",
    "Passage",
    "build_corpus",
    "exclusion_code",
    "present_facts",
]

#: the products, each from its `<document>.yaml`
PRODUCTS: tuple[ProductDef, ...] = tuple(texts.product(d) for d in ("home", "motor", "travel"))

#: how much filler a clause gets: `ClauseDef.fill` times one of these, drawn per clause, so
#: clause lengths vary widely (a bare two-sentence clause next to a long one)
FILL_SCALES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 1.25, 1.75)
#: neutral sentences before the first fact (drawn per clause, at most the filler it has)
LEADS: tuple[int, ...] = (0, 1, 1, 2, 2, 3, 3)
#: chance that a non-shared clause (not a definition) gets one product-flavour sentence
P_FLAVOUR = 0.3

#: the sentence that prints an exclusion's code in its clause (filler.yaml)
_CODE_SENTENCES: tuple[str, ...] = texts.load("filler.yaml", "exclusion_code", tuple[str, ...])
_REF = re.compile(r"\{ref\[([^\]]+)\]\}")
_VALUE = re.compile(r"\{v\[([^\]]+)\]\}")


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
    """The built documents (wordings and derived ones) plus the lookups the builders need."""

    documents: dict[tuple[str, str], dict]  # (document, version) -> document JSON object
    refs: dict[tuple[str, str], ClauseRef]  # (wording document, clause key) -> where it sits
    texts: dict[tuple[str, str, str], str]  # (document, section, version) -> heading + text
    #: every section of every document -> the facts it states (and clauses it answers /
    #: mentions)
    passages: dict[tuple[str, str, str], Passage]
    #: (product, clause key) -> the clause keys its text cites with `{ref[x]}` (any version;
    #: the endorsement list `{endorsement_list}` cites the endorsed clauses)
    cites: dict[tuple[str, str], frozenset[str]]
    #: (product, clause key, version) -> its core sentences as printed, by core index (only
    #: the clauses and sentences present in that version)
    facts: dict[tuple[str, str, str], dict[int, str]]


def present_facts(corpus: Corpus, product: str, key: str, version: str) -> frozenset[int]:
    """The core indices of clause `key` of `product` printed in `version` (empty: the clause
    is not in that version). A versioned core entry without that version is not there."""
    if (product, key) not in corpus.refs:
        raise KeyError(f"{product} has no clause {key!r}")
    return frozenset(corpus.facts.get((product, key, version), {}))


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


#: a planned sentence: its role ("core", "code" or "fill") and its (version-resolved) template
Planned = tuple[str, Core]


def _plan(product: ProductDef, ref: ClauseRef, seed: int, used: Counter[str]) -> list[Planned]:
    """Choose and resolve (version-independently) the sentences of one clause, in order.

    The facts (`core`) keep their order; neutral filler (0-3 sentences) may come before the
    first fact and is otherwise merged between the facts.
    """
    clause = ref.clause
    scope = "shared" if clause.shared else product.document
    rng = random.Random(f"ragsweep-sample:{seed}:wording:{scope}:{clause.key}")
    pool = FILLER[ref.kind]
    n_fill = min(round(clause.fill * rng.choice(FILL_SCALES)), len(pool))
    if clause.shared:
        picks = rng.sample(pool, n_fill)
    else:  # least used in this document first, so boilerplate repeats as little as it can
        order = sorted(pool, key=lambda t: (used[t], rng.random()))
        picks = order[:n_fill]
        if ref.kind != "definitions" and rng.random() < P_FLAVOUR:
            flavour = PRODUCT_FILLER[product.document]
            picks.append(min(flavour, key=lambda t: (used[t], rng.random())))
    used.update(picks)

    core: list[Planned] = []
    for item in clause.core:  # in `core` order, so the i-th "core" entry is core index i
        if isinstance(item, str):
            core.append(("core", expand(item, rng)))
        else:
            core.append(("core", {v: expand(t, rng) for v, t in sorted(item.items())}))
    if clause.code_no is not None:
        core.append(("code", expand(rng.choice(_CODE_SENTENCES), rng)))
    filler: list[Planned] = [("fill", expand(t, rng)) for t in picks]
    rng.shuffle(filler)
    # the sentences before the first fact are the longest ones, so facts move further in
    lead = min(rng.choice(LEADS), len(filler))
    longest = sorted(range(len(filler)), key=lambda i: (-len(str(filler[i][1])), i))[:lead]
    filler = [filler[i] for i in sorted(longest)] + [
        f for i, f in enumerate(filler) if i not in longest
    ]
    merged: list[Planned] = filler[:lead] + core[:1]
    rest_core, rest_fill = core[1:], filler[lead:]
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


def _resolve(item: Core, version: str) -> str | None:
    return item if isinstance(item, str) else item.get(version)


def _cites(product: ProductDef, plans: dict[str, list[Planned]]) -> dict[str, frozenset[str]]:
    """The clause keys each clause cites with `{ref[x]}` in any version (through values too)."""
    endorsed = {e.clause for e in product.endorsements}
    out = {}
    for key, plan in plans.items():
        raw = " ".join(
            t
            for role, item in plan
            if role == "core"
            for t in ([item] if isinstance(item, str) else [item[v] for v in sorted(item)])
        )
        for name in sorted(set(_VALUE.findall(raw))):
            value = product.values.get(name)
            if value is not None:
                raw += " " + " ".join([value] if isinstance(value, str) else value)
        cited = set(_REF.findall(raw))
        if "{endorsement_list}" in raw:
            cited |= endorsed
        out[key] = frozenset(cited - {key})
    return out


def _render(template: str, ctx: dict) -> str:
    return sentence_case(template.format_map(ctx))


def build_corpus(seed: int) -> Corpus:
    """Build every wording and its derived documents; deterministic in `seed`."""
    documents: dict[tuple[str, str], dict] = {}
    refs: dict[tuple[str, str], ClauseRef] = {}
    passages: dict[tuple[str, str, str], Passage] = {}
    cites: dict[tuple[str, str], frozenset[str]] = {}
    facts: dict[tuple[str, str, str], dict[int, str]] = {}
    for product in PRODUCTS:
        by_key = _sections(product)
        sections = {key: ref.section for key, ref in by_key.items()}
        refs.update({(product.document, key): ref for key, ref in by_key.items()})
        used: Counter[str] = Counter()
        plans = {key: _plan(product, ref, seed, used) for key, ref in by_key.items()}
        cites.update({(product.document, k): v for k, v in sorted(_cites(product, plans).items())})
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
            printed: list[ClauseText] = []
            for part in product.parts:
                clauses = []
                for clause in part.clauses:
                    if version not in clause.versions:
                        continue
                    ref = by_key[clause.key]
                    ctx = dict(ctx_base, thing=clause.thing)
                    if clause.code_no is not None:
                        ctx["code"] = exclusion_code(product, clause.code_no)
                    sentences, core, code_sentence, amounts = [], {}, None, []
                    index = -1  # core index of the latest "core" sentence of the plan
                    for role, item in plans[clause.key]:
                        index += role == "core"
                        template = _resolve(item, version)
                        if template is None:
                            continue
                        sentence = _render(template, ctx)
                        sentences.append(sentence)
                        if role == "core":
                            core[index] = sentence
                            amounts += [(index, n, values[n]) for n in _VALUE.findall(template)]
                        elif role == "code":
                            code_sentence = sentence
                    rng = random.Random(f"ragsweep-sample:{seed}:paragraphs:{clause.key}")
                    text = _paragraphs(sentences, rng)
                    clauses.append(
                        {"section": ref.section, "heading": clause.heading, "text": text}
                    )
                    brief = clause.gloss or gloss(product.document, clause.key)
                    printed.append(
                        ClauseText(
                            clause.key,
                            ref.section,
                            clause.heading,
                            ref.kind,
                            tuple(core.values()),
                            tuple(core),
                            code_sentence,
                            tuple(amounts),
                            _render(brief, ctx) if brief else None,
                            text,
                        )
                    )
                    facts[(product.document, clause.key, version)] = core
                    passages[(product.document, ref.section, version)] = make_passage(
                        product.document,
                        product.document,
                        ref.kind,
                        frozenset((clause.key, i) for i in core),
                        {clause.key: frozenset(core)},
                    )
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
            in_force = [(e.code, e.title, sections[e.clause]) for e in listed]
            for doc, doc_passages in build_derived(product, version, printed, in_force, seed):
                documents[(doc["document"], version)] = doc
                for section, passage in doc_passages.items():
                    passages[(doc["document"], section, version)] = passage
    _check_endorsements(documents, refs)
    problems = check_passages(documents, passages, facts)
    if problems:
        raise ValueError("sample passages print what their facts do not:\n" + "\n".join(problems))
    texts = {
        (
            doc["document"],
            clause["section"],
            doc["version"],
        ): f"{clause['heading']}\n{clause['text']}"
        for _, doc in sorted(documents.items())
        for part in doc["parts"]
        for clause in part["clauses"]
    }
    return Corpus(documents, refs, texts, passages, cites, facts)


def _endorsement_probe(plan: list[Planned], version: str) -> str:
    """The raw (unformatted) text of a clause plan in one version, to see which codes it names."""
    return " ".join(_resolve(item, version) or "" for _, item in plan)


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
