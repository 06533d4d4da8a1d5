"""What policyholders ask: `Candidate`s (one `Ask` of a clause, or a code the wordings print,
for one product version) and how a candidate is rendered as a question (`render`).

The query log (`querylog.py`) is written from these; the labelled set is then drawn from the log
(`ragsweep.labelling.sample_build`), which labels each drawn question from its candidate.
Identifier candidates come from the codes the wordings print: exclusion codes (`EXC-MT-12`),
endorsement codes (`END-HM-07`, also listed in clause 1.3), form codes (`HM-PW-2025/01`, clause
1.1) and clause numbers.

Paraphrase strength is set by `P_FORMAL`: the chance that an `<lay|=formal>` group in a question
template uses the policy's own word (excess) rather than the customer's (deductible).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ragsweep.data.samplegen import texts
from ragsweep.data.samplegen.prose import expand
from ragsweep.data.samplegen.spec import VERSIONS, Ask, ProductDef
from ragsweep.data.samplegen.wordings import Corpus, exclusion_code

#: chance that a `<lay|=formal>` group uses the policy's word rather than the customer's
P_FORMAL = 0.3
#: a question may not share this many consecutive words with any clause
COPY_RUN = 8

# Identifier questions per product: how the ~27 are split between kinds of code.
_ID_SHARES = (("exclusion", 0.4), ("endorsement", 0.3), ("clause", 0.2), ("form", 0.1))
#: identifier question templates by kind of code (questions.yaml)
_ID_TEMPLATES: dict[str, tuple[str, ...]] = texts.load(
    "questions.yaml", "identifiers", dict[str, tuple[str, ...]]
)


@dataclass(frozen=True)
class Candidate:
    """A question that can be asked about one product version, before its wording is drawn."""

    product: ProductDef
    version: str
    slice: str
    target: str  # clause key answering fully
    supports: tuple[str, ...]
    templates: tuple[str, ...]
    values: dict[str, str]  # extra placeholders ({code}, {lay})
    names_product: bool = False  # the template already names the product
    also: tuple[str, ...] = ()  # other clauses answering fully (grade 2)
    hinge: str | None = None  # the version difference it turns on (`Ask.hinge`)
    facts: tuple[int, ...] = ()  # the target's core sentences it asks about (`Ask.facts`)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9£]+(?:[.'/-][a-z0-9]+)*", text.lower())


def copy_runs(corpus: Corpus, n: int = COPY_RUN) -> set[tuple[str, ...]]:
    """Every run of `n` consecutive words in any clause heading or text."""
    runs: set[tuple[str, ...]] = set()
    for text in corpus.texts.values():
        words = _words(text)
        runs.update(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    return runs


def shares_run(text: str, runs: set[tuple[str, ...]], n: int = COPY_RUN) -> bool:
    words = _words(text)
    return any(tuple(words[i : i + n]) in runs for i in range(len(words) - n + 1))


def ask_candidates(corpus: Corpus, product: ProductDef) -> list[Candidate]:
    out = []
    for part in product.parts:
        for clause in part.clauses:
            for ask in clause.asks:
                out.extend(_for_versions(product, clause.key, clause.versions, ask))
    return out


def _for_versions(
    product: ProductDef, key: str, versions: tuple[str, ...], ask: Ask
) -> list[Candidate]:
    allowed = [v for v in versions if ask.versions is None or v in ask.versions]
    return [
        Candidate(
            product,
            v,
            ask.slice,
            key,
            ask.supports,
            ask.templates,
            {},
            also=ask.also,
            hinge=ask.hinge,
            facts=ask.facts,
        )
        for v in allowed
    ]


def identifier_candidates(corpus: Corpus, product: ProductDef) -> dict[str, list[Candidate]]:
    by_kind: dict[str, list[Candidate]] = {kind: [] for kind, _ in _ID_SHARES}

    def add(version: str, kind: str, target: str, supports: tuple[str, ...], **values: str) -> None:
        by_kind[kind].append(
            Candidate(
                product,
                version,
                "identifiers",
                target,
                supports,
                _ID_TEMPLATES[kind],
                values,
                names_product=kind == "clause",
            )
        )

    for version in VERSIONS:
        add(version, "form", "abt.documents", (), code=product.forms[version])
        for part in product.parts:
            for clause in part.clauses:
                if version not in clause.versions:
                    continue
                if clause.code_no is not None:
                    code = exclusion_code(product, clause.code_no)
                    add(version, "exclusion", clause.key, (), code=code)
                if clause.lay is not None:
                    section = corpus.refs[(product.document, clause.key)].section
                    add(version, "clause", clause.key, (), code=section, lay=clause.lay)
        for e in product.endorsements:
            section = corpus.refs[(product.document, e.clause)].section
            if e.code in corpus.texts.get((product.document, section, version), ""):
                add(version, "endorsement", e.clause, ("abt.endorsements", *e.also), code=e.code)
    return by_kind


def render(cand: Candidate, rng: random.Random, p_formal: float) -> str:
    """One wording of `cand`: a template with its values and alternations resolved. No stock
    wrapper is added: a question names its product or year only where its template does."""
    my = rng.choice(cand.product.lay_names)
    template = rng.choice(cand.templates)
    values = version_values(cand.product, cand.version)
    other = version_values(cand.product, other_version(cand.version))
    text = template.format_map({"v": values, "other": other, "my": my, **cand.values})
    return expand(text, rng, p_formal)


def other_version(version: str) -> str:
    """The version a question quoting `{other[...]}` compares with (the sample has two)."""
    return VERSIONS[1 - VERSIONS.index(version)]


def version_values(product: ProductDef, version: str) -> dict[str, str]:
    index = VERSIONS.index(version)
    return {
        name: value[index] if isinstance(value, tuple) else value
        for name, value in product.values.items()
    }
