"""Near-duplicates (ragsweep.labelling.dedup): typos, reordered words and contact wording are one
question; questions on one template, codes and years stay apart; clusters join through a third
text."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest
from rapidfuzz import fuzz

from ragsweep.labelling.dedup import NEAR_THRESHOLD, near_duplicates, same_question
from ragsweep.labelling.dedup_key import near_key

# the hand-written hard pairs benchmarks/dedup.py measures (benchmarks/ is a folder of scripts)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from dedup import HARD_PAIRS  # noqa: E402

#: the key `same_question` and `near_duplicates` compare
key = functools.partial(near_key, mark=True)


def test_typos_and_reordered_words_are_near_duplicates_and_the_earliest_stays():
    keys = [
        key("How much is the excess for storm damage?"),
        key("how mcuh is the excess for strom damage"),  # two typos
        key("The excess for storm damage: how much is it?"),  # an extra word: another
        key("hi there, how much is the excess for storm damage? thx"),  # filler only
        key("how much is the excess for storm damage, call me on <PHONE>"),
    ]
    assert near_duplicates(keys) == [None, 0, None, 0, 0]
    reordered = [key("is my bike covered abroad"), key("abroad, is my bike covered")]
    assert near_duplicates(reordered) == [None, 0]


def test_questions_sharing_a_template_are_kept_apart():
    storm = "how much is the excess for storm damage"
    flood = "how much is the excess for flood damage"
    assert near_duplicates([key(storm), key(flood)]) == [None, None]
    # a long question passes the score cutoff; the word check still keeps them apart
    long_storm = "on my home policy how much is the excess for storm damage to the garden fence"
    long_flood = long_storm.replace("storm", "flood")
    assert fuzz.token_sort_ratio(long_storm, long_flood) >= NEAR_THRESHOLD
    assert not same_question(key(long_storm), key(long_flood))
    # ids and years differ by a digit: never a typo
    assert not same_question(
        key("What does exclusion EXC-TR-12 say?"),
        key("What does exclusion EXC-TR-14 say?"),
    )
    assert not same_question(key("bought in 2024"), key("bought in 2025"))
    # a question inside a longer one is a different question
    assert not same_question(key("is my bike covered"), key("is my bike covered abroad"))


def test_clusters_join_through_a_third_text_in_any_order():
    texts = [
        "hat is classed as a storm",
        "whta is classed as a storm",
        "what is classed as a storm",
    ]
    assert not same_question(key(texts[0]), key(texts[1]))  # two edits apart
    for order in ([0, 1, 2], [2, 1, 0], [1, 0, 2]):
        assert near_duplicates([key(texts[i]) for i in order]) == [None, 0, 0]


@pytest.mark.parametrize(("a", "b", "same"), HARD_PAIRS)
def test_merged_split_and_short_word_typos_are_one_question_and_subjects_stay_apart(a, b, same):
    assert same_question(key(a), key(b)) is same
    assert near_duplicates([key(a), key(b)]) == [None, 0 if same else None]
