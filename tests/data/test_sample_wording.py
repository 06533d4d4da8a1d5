"""The sample's wording text and derived documents: coherent, facts spread, labels' source true."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from functools import cache

import pytest

from ragsweep.data.samplegen.passages import FACT_TOKEN, check_passages
from ragsweep.data.samplegen.prose import FILLER, PRODUCT_FILLER
from ragsweep.data.samplegen.spec import VERSIONS
from ragsweep.data.samplegen.wordings import PRODUCTS, Corpus, build_corpus, present_facts

#: what a filler sentence must never say: amounts and time limits, what is or is not covered,
#: what we pay, how excesses combine (the contradictions the old boilerplate carried)
FACT_PATTERNS = (
    r"£|\d",
    r"\b(?:days?|hours?|weeks?|months?|years?)\b",
    r"\b(?:is|are) (?:not )?covered\b|\bno cover\b|\bnot insured\b",
    r"\bwe (?:will|do)(?: not)? pay\b|\bwe pay\b",
    r"added together|highest single|only one excess|\bdeduct|\bis added to\b",
    r"\bonly\b",
)

#: rendered-text patterns that read wrong: leftover placeholders or alternations, doubled
#: words, space before punctuation, topic substitutions that do not fit the clause
BAD_TEXT = (
    r"[{}<>]",
    r"\b(\w+) \1\b",
    r" [,.;:?]",
    r"\.\.",
    r"\b(?:a|an) (?:a|an|the)\b",
    r"\bIf [^.]* is damaged\b",
    r"shown as 'in total'",
)


@cache
def corpus(seed: int = 0) -> Corpus:
    return build_corpus(seed)


def _filler_templates() -> list[str]:
    return [t for pool in FILLER.values() for t in pool] + [
        t for pool in PRODUCT_FILLER.values() for t in pool
    ]


#: harmless phrases removed before FACT_PATTERNS are applied (pointers, not facts)
POINTERS = r"\bsections? \d+|\bwhat is (?:not )?(?:covered|insured)\b|for ease of reference only"


@pytest.mark.parametrize("pattern", FACT_PATTERNS)
def test_filler_states_no_policy_fact(pattern: str) -> None:
    hits = [
        t
        for t in _filler_templates()
        if re.search(pattern, re.sub(POINTERS, "", t, flags=re.I), re.I)
    ]
    assert hits == []


def test_thing_only_after_about() -> None:
    """`{thing}` is a noun phrase of any shape: only 'about {thing}' reads right for all."""
    for t in _filler_templates():
        assert t.count("{thing}") == t.count("about {thing}"), t


def test_no_bad_patterns_in_any_text() -> None:
    c = corpus()
    problems = []
    for key, text in sorted(c.texts.items()):
        for pattern in BAD_TEXT:
            if re.search(pattern, text):
                problems.append((key, pattern, re.search(pattern, text).group(0)))
    assert problems == []


def test_printed_amounts_come_from_stated_facts() -> None:
    """Every amount or time limit a passage prints is in a core sentence it states (so filler
    has none), and answers/mentions follow from the states."""
    c = corpus()
    assert check_passages(c.documents, c.passages, c.facts) == []


def test_check_passages_catches_an_overclaim_and_an_underclaim() -> None:
    c = corpus()
    key = ("home-schedule", "3.5", "2025")  # lim.possessions: three facts, all with amounts
    p = c.passages[key]
    fewer = replace(p, states=frozenset(sorted(p.states)[:1]))
    bad = check_passages(c.documents, {**c.passages, key: fewer}, c.facts)
    assert any("prints" in b for b in bad) and any("follow from states" in b for b in bad)
    absent = replace(p, states=p.states | {("lim.possessions", 9)})
    bad = check_passages(c.documents, {**c.passages, key: absent}, c.facts)
    assert any("lim.possessions[9], not in that version" in b for b in bad)


def test_present_facts_follow_the_versions() -> None:
    """A versioned core entry is a fact only in the versions it has; indices are `core`'s."""
    c = corpus()
    checked = 0
    for p in PRODUCTS:
        for part in p.parts:
            for clause in part.clauses:
                for v in VERSIONS:
                    want = (
                        {
                            i
                            for i, item in enumerate(clause.core)
                            if isinstance(item, str) or v in item
                        }
                        if v in clause.versions
                        else set()
                    )
                    assert present_facts(c, p.document, clause.key, v) == want
                    checked += any(isinstance(item, dict) for item in clause.core)
    assert checked
    with pytest.raises(KeyError, match="no clause"):
        present_facts(c, "home", "lim.nowhere", "2025")


def test_states_by_document_type() -> None:
    """Wording clauses and FAQ topic answers state every fact, narrow FAQ answers one, summary
    lines none (they point), schedule sections every fact with an amount or time limit, an
    endorsement entry the sentences that name its code."""
    c = corpus()
    for (document, section, version), p in sorted(c.passages.items()):
        kind = document.removeprefix(p.product).lstrip("-") or "wording"
        text = c.texts[(document, section, version)]
        keys = {k for k, _ in p.states}
        if kind == "wording":
            (key,) = keys
            assert {i for _, i in p.states} == present_facts(c, p.product, key, version)
        elif kind == "summary":
            assert not p.states and not p.answers and not p.mentions
            assert not FACT_TOKEN.search(text)
        elif kind == "faq" and keys:
            (key,) = keys
            present = present_facts(c, p.product, key, version)
            assert len(p.states) == 1 or {i for _, i in p.states} == present
        elif kind == "schedule" and "\nWording section " in text:  # one clause's amounts
            (key,) = keys
            facts = c.facts[(p.product, key, version)]
            with_amounts = {i for i, f in facts.items() if FACT_TOKEN.search(f)}
            assert {i for _, i in p.states} == with_amounts
        elif kind == "endorsements" and p.points:  # the list of codes: the list sentence
            assert {k for k, _ in p.states} <= {"abt.endorsements"} and len(p.states) <= 1
        elif kind == "endorsements" and keys:  # one entry: the sentences naming its code
            (key,) = keys
            code = c.documents[(document, version)]["parts"][-1]["clauses"]
            code = next(x["heading"] for x in code if x["section"] == section).split()[0]
            facts = c.facts[(p.product, key, version)]
            assert {i for _, i in p.states} == {i for i, f in facts.items() if code in f} != set()
        for key, index in p.states:
            sentence = c.facts[(p.product, key, version)][index]
            if kind != "summary" and FACT_TOKEN.search(sentence):
                assert all(t in text for t in FACT_TOKEN.findall(sentence))


def test_every_section_has_a_passage_and_a_text() -> None:
    c = corpus()
    sections = {
        (doc["document"], clause["section"], doc["version"])
        for doc in c.documents.values()
        for part in doc["parts"]
        for clause in part["clauses"]
    }
    assert sections == set(c.passages) == set(c.texts)
    for (document, section, version), p in c.passages.items():
        assert c.documents[(document, version)]["product"] == p.product
        assert not p.answers & p.mentions and not (p.answers | p.mentions) & p.points
        if document == p.product:  # a wording clause answers itself
            key = next(k for (d, k), r in c.refs.items() if d == document and r.section == section)
            assert p.answers == {key} and not p.mentions and not p.points


def test_printed_amounts_lie_in_stated_facts() -> None:
    """An amount a derived section prints is printed by a fact it states (independent of
    `check_passages`)."""
    c = corpus()
    for (document, section, version), p in c.passages.items():
        text = c.texts[(document, section, version)]
        stated = " ".join(c.facts[(p.product, k, version)][i] for k, i in p.states)
        for token in FACT_TOKEN.findall(text):
            assert token in stated, (document, section, version, token)


def test_faq_answers_restate_the_whole_clause() -> None:
    c = corpus()
    for (document, section, version), p in c.passages.items():
        if not document.endswith("-faq") or not p.answers:
            continue
        (key,) = p.answers
        ref = c.refs[(p.product, key)]
        text = c.texts[(document, section, version)]
        assert f"See section {ref.section} of your policy wording." in text
        for amount in FACT_TOKEN.findall(c.texts[(p.product, ref.section, version)]):
            assert amount in text


@pytest.mark.parametrize("seed", [0, 1])
def test_filtered_pool_size(seed: int) -> None:
    sizes = Counter((p.product, v) for (_, _, v), p in corpus(seed).passages.items())
    assert set(sizes) == {(p.document, v) for p in PRODUCTS for v in VERSIONS}
    assert min(sizes.values()) >= 250, sizes


def test_derived_documents_per_product_version() -> None:
    c = corpus()
    for p in PRODUCTS:
        for v in VERSIONS:
            for suffix in ("schedule", "summary", "faq", "endorsements"):
                doc = c.documents[(f"{p.document}-{suffix}", v)]
                assert doc["product"] == p.document and doc["version"] == v
                assert doc["form_code"] != p.forms[v]


def test_schedule_follows_the_version_amounts() -> None:
    c = corpus()
    for p in PRODUCTS:
        texts = {
            v: " ".join(
                t for (d, _, vv), t in c.texts.items() if d == f"{p.document}-schedule" and vv == v
            )
            for v in VERSIONS
        }
        changed = [
            name
            for name, value in p.values.items()
            if isinstance(value, tuple) and value[0] != value[1] and value[1].startswith("£")
        ]
        assert changed
        shown = [n for n in changed if p.values[n][1] in texts["2025"]]
        assert len(shown) >= len(changed) // 2


def test_facts_are_not_always_first() -> None:
    """Share of limits clauses whose first amount sits past word 60 (old sample: 3 of 71)."""
    c = corpus()
    late = total = 0
    for p in PRODUCTS:
        for v in VERSIONS:
            for part in c.documents[(p.document, v)]["parts"]:
                if part["kind"] != "limits":
                    continue
                for clause in part["clauses"]:
                    m = re.search(r"£\d", clause["text"])
                    if m:
                        total += 1
                        late += len(clause["text"][: m.start()].split()) >= 60
    assert late / total >= 0.15, (late, total)


def test_clause_lengths_vary() -> None:
    c = corpus()
    lengths = sorted(
        len(clause["text"].split())
        for p in PRODUCTS
        for v in VERSIONS
        for part in c.documents[(p.document, v)]["parts"]
        for clause in part["clauses"]
    )
    assert lengths[0] <= 40 and lengths[-1] >= 250


def test_cites_follow_ref_placeholders() -> None:
    c = corpus()
    assert c.cites[("home", "lim.valuables")] >= {"cov.possessions"}
    assert all(key not in cited for (_, key), cited in c.cites.items())
    assert set(c.cites) == set(c.refs)


def test_deterministic() -> None:
    a, b = build_corpus(3), build_corpus(3)
    assert a.documents == b.documents and a.passages == b.passages and a.cites == b.cites
    assert list(a.texts) == list(b.texts)
    assert build_corpus(4).texts != a.texts
