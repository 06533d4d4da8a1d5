"""The near-duplicate key (ragsweep.labelling.dedup_key): placeholders go with the words that
introduce them, a noun the question is about stays, the marked key flags contact wording."""

from __future__ import annotations

import functools

import pytest

from ragsweep.labelling.dedup_key import near_key

#: the marked key `same_question` compares
key = functools.partial(near_key, mark=True)

# the forms an unseen log showed: a placeholder and the words that introduce it go
LEAD_INS = [
    "dob <DOB> is storm damage covered",
    "DOB: <DOB>, is storm damage covered",
    "D.O.B. <DOB>. Is storm damage covered?",
    "is storm damage covered, reg <VEHICLE_REG>",
    "pol no <POLICY_REF> - is storm damage covered",
    "policy number: <POLICY_REF>. is storm damage covered",
    "is storm damage covered signed <NAME>",
    "is storm damage covered. Kind regards Mr <NAME>",
    "my nhs number is <NHS_NUMBER>, is storm damage covered",
    "acc <BANK_ACCOUNT> is storm damage covered",
    "is storm damage covered my email is <EMAIL>",
    "is storm damage covered call me on <PHONE>",
    "<NAME> here - is storm damage covered",
    "Hi, I'm <NAME>. is storm damage covered",
    "is storm damage covered - car is <VEHICLE_REG>",
    "is storm damage covered I live in <POSTCODE> tel <PHONE> thank you!",
    "my name's <NAME>, is storm damage covered",
    "is storm damage covered (<CLAIM_REF>)",
]


@pytest.mark.parametrize("text", LEAD_INS)
def test_placeholders_go_with_the_words_that_introduce_them(text):
    assert near_key(text) == "is storm damage covered"


def test_a_noun_the_question_is_about_stays_before_a_placeholder():
    assert near_key("is my car <VEHICLE_REG> covered abroad") == "is my car covered abroad"
    assert near_key("does my policy <POLICY_REF> cover storms") == "does my policy cover storms"
    assert near_key("<NAME>") == "name"  # never empty: the step that would empty it is skipped


def test_the_marked_key_shows_placeholders_and_what_may_be_contact_wording():
    assert (
        key("my tiktok is <URL> is storm damage covered")
        == "~my ~tiktok ~is § ~is storm damage covered"
    )
    # a contact segment, a lead-in cut off by its full stop, and the question's own words
    assert key("is scuba - mob <PHONE> - diving covered. D.O.B. <DOB>") == (
        "is scuba ~mob § diving covered ~d ~o ~b §"
    )
    assert key("is my car <VEHICLE_REG> covered") == "~is ~my ~car § covered"  # one segment
    assert near_key("is my car <VEHICLE_REG> covered") == "is my car covered"
