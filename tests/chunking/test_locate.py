"""Placing another system's passages in rendered documents: exact, normalised, fuzzy, unlocated,
and which of several places wins (ragsweep.chunking.locate, docs/passages.md)."""

from __future__ import annotations

import pytest

from ragsweep.chunking.locate import (
    EXACT,
    FUZZY,
    MIN_FUZZY_CHARS,
    NORMALISED,
    UNLOCATED,
    Locator,
    normalise,
    normalise_indexed,
    preferred,
)
from ragsweep.data.schema import Clause, Document, render

EXCESS = (
    "We will not pay the first 250 pounds of any claim for escape of water from a fixed "
    "installation, which is the excess shown in your schedule for this section of cover."
)
WEAR = "Wear and tear, gradual deterioration, moth, vermin and anything that happens gradually."
LIMIT_2024 = "The most we will pay for any one item of jewellery or watches is 1,500 pounds."
LIMIT_2025 = "The most we will pay for any one item of jewellery or watches is 2,000 pounds."


def wording(document: str, version: str, clauses: list[tuple[str, str, str]]) -> Document:
    parts = [
        {
            "number": "1",
            "title": "Cover",
            "kind": "cover",
            "clauses": [{"section": s, "heading": h, "text": t} for s, h, t in clauses],
        }
    ]
    text, spans = render(f"{document} {version}", parts)
    return Document(
        document=document,
        version=version,
        product=document,
        form_code=None,
        title=f"{document} {version}",
        clauses=tuple(Clause(document, version, s, h, t, "1", "cover") for s, h, t in clauses),
        text=text,
        spans=tuple(spans),
    )


# home 2024 and 2025 share two clauses word for word; the jewellery limit changed
WINDSCREEN = "The excess for windscreen claims is 100 pounds."
HOME = [("1.1", "Excess", EXCESS), ("1.2", "Wear", WEAR)]
DOCS = [
    wording("home", "2024", [*HOME, ("1.3", "Jewellery", LIMIT_2024)]),
    wording("home", "2025", [*HOME, ("1.3", "Jewellery", LIMIT_2025)]),
    wording("motor", "2025", [("1.1", "Excess", WINDSCREEN)]),
]
H24, H25, M25 = 0, 1, 2


def test_normalisation_removes_layout_and_maps_back() -> None:
    text = "Cover-\n  age of “Heat”\tpumps — ﬁne"
    norm, where = normalise_indexed(text)
    assert norm == normalise(text) == 'coverageof"heat"pumpsfine'
    assert [text[i] for i in where[:8]] == list("Cover") + list("age")
    assert text[where[-4]] == "ﬁ" and text[where[-3]] == "ﬁ"  # one ligature, two characters


def test_exact_then_normalised_then_unlocated() -> None:
    loc = Locator(DOCS)
    d = DOCS[H25]
    hit = loc.locate(EXCESS, product="home", version="2025")
    assert (hit.how, hit.doc_id) == (EXACT, "home@2025")
    assert d.text[hit.start : hit.end] == EXCESS
    assert hit.places == 2  # the clause is unchanged in 2024

    reflowed = "We will not pay the first 250 pounds of any claim for es-\ncape of  water\tfrom a"
    got = loc.locate(reflowed, product="home", version="2025")
    assert got.how == NORMALISED and got.doc_id == "home@2025"
    assert d.text[got.start : got.end] == (
        "We will not pay the first 250 pounds of any claim for escape of water from a"
    )
    assert loc.locate("Nothing like this is in any wording at all.").how == UNLOCATED


def test_the_question_s_own_version_comes_first_then_document_order() -> None:
    loc = Locator(DOCS)
    assert loc.locate(WEAR, product="home", version="2025").doc_id == "home@2025"
    assert loc.locate(WEAR, product="home", version="2024").doc_id == "home@2024"
    assert loc.locate(WEAR).doc_id == "home@2024"  # no preference: document order
    assert preferred(DOCS, "home", "2025") == [H25]
    assert preferred(DOCS, "home", None) == [H24, H25]
    assert preferred(DOCS, None, None) == [H24, H25, M25]


def test_an_exact_match_elsewhere_beats_a_near_match_in_the_question_s_version() -> None:
    # a release still serving the 2024 limit to a 2025 question is placed in 2024, where it
    # is word for word, not in 2025 where it differs by one figure: it does not answer 2025
    loc = Locator(DOCS)
    got = loc.locate(LIMIT_2024, product="home", version="2025")
    assert (got.how, got.doc_id) == (EXACT, "home@2024")


def test_fuzzy_places_a_damaged_passage_and_the_threshold_decides() -> None:
    damaged = EXCESS.replace("pounds", "pouns").replace("installation", "instalation")
    loc = Locator(DOCS)
    got = loc.locate(damaged, product="home", version="2025")
    assert (got.how, got.doc_id) == (FUZZY, "home@2025")
    assert DOCS[H25].text[got.start : got.end] == EXCESS  # the whole clause text, no more
    # Indel similarity of the normalised texts: n - 2 characters against n, two deletions
    n = len(normalise(EXCESS))
    assert n == 135
    assert got.similarity == pytest.approx(100 * (1 - 2 / (n - 2 + n)))
    assert Locator(DOCS, min_similarity=99.5).locate(damaged).how == UNLOCATED
    assert Locator(DOCS, min_similarity=99.5).locate(damaged).similarity == got.similarity


def test_short_passages_are_placed_exactly_or_not_at_all() -> None:
    short = "windscreen clams"  # 15 normalised characters, one letter dropped
    assert len(normalise(short)) < MIN_FUZZY_CHARS
    assert Locator(DOCS).locate(short).how == UNLOCATED
    assert Locator(DOCS).locate("windscreen claims").doc_id == "motor@2025"


def test_within_one_document() -> None:
    loc = Locator(DOCS)
    assert loc.locate(WEAR, document="home@2025").doc_id == "home@2025"
    assert loc.locate(LIMIT_2024, document="home@2025").how == FUZZY  # one figure differs
    assert loc.locate(EXCESS, document="motor@2025").how == UNLOCATED
