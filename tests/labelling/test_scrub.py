"""ragsweep.labelling.scrub: personal data out, insurance content untouched."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

import ragsweep
from ragsweep.labelling.scrub import KINDS, Scrubbed, placeholder, scrub, scrub_all

SAMPLE = Path(ragsweep.__file__).parent / "data" / "sample"


def check(text: str, expected: str, **counts: int) -> None:
    """`text` scrubs to exactly `expected`, with exactly `counts` per kind."""
    result = scrub(text)
    assert result.text == expected
    assert result.counts == counts


# --- one kind at a time ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("reply to sophie91@example.com", "reply to <EMAIL>"),
        ("(email jack.jones@example.co.uk) thanks", "(email <EMAIL>) thanks"),
        ("Sarah.O-Brien+ins@mail.example.org.", "<EMAIL>."),
    ],
)
def test_email(text: str, expected: str) -> None:
    check(text, expected, EMAIL=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call me on +44 7700 900123", "call me on <PHONE>"),
        ("my number is 07700900123.", "my number is <PHONE>."),
        ("ring (020) 7946 0958 today", "ring <PHONE> today"),
        ("tel 0161 496 0886", "tel <PHONE>"),
        ("from abroad 0044 20 7946 0958", "from abroad <PHONE>"),
        ("+44 (0)20 7946 0958 please", "<PHONE> please"),
        ("US office +1 415-555-0132", "US office <PHONE>"),
        ("in Paris +33 1 23 45 67 89", "in Paris <PHONE>"),
        ("mobile 07911 123456", "mobile <PHONE>"),
    ],
)
def test_phone(text: str, expected: str) -> None:
    check(text, expected, PHONE=1)


def test_two_phones_in_one_text() -> None:
    check("tel 0113 496 0266 or 07700 900345", "tel <PHONE> or <PHONE>", PHONE=2)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("card 4111 1111 1111 1111 was charged", "card <CARD> was charged"),
        ("4111-1111-1111-1111", "<CARD>"),
        ("paid with 5555555555554444", "paid with <CARD>"),
        ("amex 3782 822463 10005", "amex <CARD>"),
    ],
)
def test_card(text: str, expected: str) -> None:
    check(text, expected, CARD=1)


def test_card_failing_luhn_is_not_a_card_nor_phones() -> None:
    check("card 4111 1111 1111 1112", "card 4111 1111 1111 1112")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my NI number is AB123456C", "my NI number is <NI_NUMBER>"),
        ("ni: ab 12 34 56 c", "ni: <NI_NUMBER>"),
        ("JG 10 37 29 A.", "<NI_NUMBER>."),
    ],
)
def test_ni_number(text: str, expected: str) -> None:
    check(text, expected, NI_NUMBER=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ref POL-77506353", "ref <POLICY_REF>"),
        ("my policy is pol-12345678", "my policy is <POLICY_REF>"),
        ("policy number 12345678 please", "policy number <POLICY_REF> please"),
        ("policy no. HM/1234567", "policy no. <POLICY_REF>"),
        ("my policy ref is: 99887766", "my policy ref is: <POLICY_REF>"),
        ("reference number 5551234", "reference number <POLICY_REF>"),
        ("ym policy is PLO-34514577", "ym policy is <POLICY_REF>"),
    ],
)
def test_policy_ref(text: str, expected: str) -> None:
    check(text, expected, POLICY_REF=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("about CLM-123456", "about <CLAIM_REF>"),
        ("claim ref 7654321", "claim ref <CLAIM_REF>"),
        ("my claim number is CL/2024/55512", "my claim number is <CLAIM_REF>"),
    ],
)
def test_claim_ref(text: str, expected: str) -> None:
    check(text, expected, CLAIM_REF=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("reg AB12 CDE", "reg <VEHICLE_REG>"),
        ("my car ab12cde was hit", "my car <VEHICLE_REG> was hit"),
        ("old plate A123 BCD", "old plate <VEHICLE_REG>"),
        ("an old ABC 123D", "an old <VEHICLE_REG>"),
    ],
)
def test_vehicle_reg(text: str, expected: str) -> None:
    check(text, expected, VEHICLE_REG=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("postcode SW1A 1AA", "postcode <POSTCODE>"),
        ("I live in m1 1ae", "I live in <POSTCODE>"),
        ("we're at EH1 6HU.", "we're at <POSTCODE>."),
        ("ls91bq", "<POSTCODE>"),
    ],
)
def test_postcode(text: str, expected: str) -> None:
    check(text, expected, POSTCODE=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("born 01/02/1980", "born <DOB>"),
        ("DOB: 1 Feb 1980, am I a young driver?", "DOB: <DOB>, am I a young driver?"),
        ("date of birth 1980-02-01", "date of birth <DOB>"),
        ("my d.o.b. is 1st of February 1980", "my d.o.b. is <DOB>"),
        ("son born on February 1, 2005", "son born on <DOB>"),
        ("dob 3-4-99", "dob <DOB>"),
        ("born in March 2004", "born in <DOB>"),
    ],
)
def test_dob(text: str, expected: str) -> None:
    check(text, expected, DOB=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live at 12 Acacia Avenue", "I live at <ADDRESS>"),
        ("flat 3, 221b Baker Street, London", "<ADDRESS>, London"),
        ("send it to 7 high st please", "send it to <ADDRESS> please"),
        ("it happened at 45 Mill Lane", "it happened at <ADDRESS>"),
        ("at 9 Orchard Close", "at <ADDRESS>"),
    ],
)
def test_address(text: str, expected: str) -> None:
    check(text, expected, ADDRESS=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My name is Edith Marlow, what is covered?", "My name is <NAME>, what is covered?"),
        ("my name is maeve quinlan are you going to pay", "my name is <NAME> are you going to pay"),
        (
            "Hi, I'm Ravi Tandon. Is a burst pipe covered?",
            "Hi, I'm <NAME>. Is a burst pipe covered?",
        ),
        ("this is Olive Penrose - does it pay?", "this is <NAME> - does it pay?"),
        ("Mrs Begum asked about her excess", "Mrs <NAME> asked about her excess"),
        ("Dr O'Brien signed the form", "Dr <NAME> signed the form"),
        ("can my husband John drive it?", "can my husband <NAME> drive it?"),
        ("my son, Jack, crashed", "my son, <NAME>, crashed"),
        ("Arthur Penn here. do i keep my car?", "<NAME> here. do i keep my car?"),
        ("can I claim, arthur Penn here.", "can I claim, <NAME> here."),
        ("is glass covered? regards, Sarah Jones", "is glass covered? regards, <NAME>"),
        (  # the model runs on past the dash; the question keeps its word
            "is there a limit on - my name is zara müller - medical expenses in the usa",
            "is there a limit on - my name is <NAME> - medical expenses in the usa",
        ),
    ],
)
def test_name(text: str, expected: str) -> None:
    check(text, expected, NAME=1)


# --- order and mixtures -----------------------------------------------------------------------


def test_email_leaves_no_name_and_card_leaves_no_phone() -> None:
    check(
        "Hi, I'm Sarah Jones. card 4111 1111 1111 1111, email sarah.jones@example.com",
        "Hi, I'm <NAME>. card <CARD>, email <EMAIL>",
        EMAIL=1,
        CARD=1,
        NAME=1,
    )


def test_everything_at_once() -> None:
    text = (
        "My name is Tom Smith, DOB 01/02/1980, NI AB123456C, policy number POL-12345678,"
        " claim CLM-654321, car AB12 CDE, 12 Acacia Avenue, SW1A 1AA, call 07700 900123"
    )
    expected = (
        "My name is <NAME>, DOB <DOB>, NI <NI_NUMBER>, policy number <POLICY_REF>,"
        " claim <CLAIM_REF>, car <VEHICLE_REG>, <ADDRESS>, <POSTCODE>, call <PHONE>"
    )
    check(
        text,
        expected,
        NAME=1,
        DOB=1,
        NI_NUMBER=1,
        POLICY_REF=1,
        CLAIM_REF=1,
        VEHICLE_REG=1,
        ADDRESS=1,
        POSTCODE=1,
        PHONE=1,
    )


def test_scrubbed_is_frozen_and_clean_text_has_no_counts() -> None:
    result = scrub("What does END-HM-14 change?")
    assert result == Scrubbed("What does END-HM-14 change?", {})
    with pytest.raises(AttributeError):
        result.text = "x"  # type: ignore[misc]


def test_scrub_all_keeps_order_and_sums_counts() -> None:
    texts, counts = scrub_all(["tel 07700 900123", "no data here", "a@example.com, b@example.com"])
    assert texts == ["tel <PHONE>", "no data here", "<EMAIL>, <EMAIL>"]
    assert counts == Counter({"EMAIL": 2, "PHONE": 1})


def test_placeholders_are_the_kinds() -> None:
    assert [placeholder(k) for k in KINDS[:3]] == ["<EMAIL>", "<URL>", "<IP_ADDRESS>"]
    assert len(set(KINDS)) == len(KINDS) == 20


# --- negatives: insurance content stays -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Is there a £350 excess?",
        "they paid 1,000 pounds, not $2000 or £1,250.50",
        "what does section 4.11 say?",
        "clause 5.3.1 and clause 2.7",
        "What does END-HM-14 change?",
        "Where do I find EXC-MT-08?",
        "The schedule says TR-PW-2025/01",
        "I took it out in 2024, renewed in 2025",
        "I travel on 3 March and come back on 03/04/2025",
        "the trip runs 2025-06-01 to 2025-06-14",
        "cover lasts 31 days, 12 months or 90 days per trip",
        "is the no claims discount 25% or 60%?",
        "I'm in hospital abroad, I'm not sure what to do",
        "this is Covered under section 3?",
        "my 2 sons drive the car",
        "we spent 5 days in the park",
        "a 3 year old car",
        "I was born in 1990, am I a young driver?",
        "my name is spelt wrong on the schedule",
        "up to 5000 for 2 people",
        "call 999 or 112 in an emergency",
        "V5C logbook and MOT",
        "I'm British, am I covered in Spain?",
        "this is Spain, not France",
        "It's Monday and I'm Diabetic",
        "I crashed on the M25 at 30 mph",
        "flight BA2490 was 14% late",
        "a 3 Bedroom house",
    ],
)
def test_insurance_content_is_left_alone(text: str) -> None:
    check(text, text)


# --- property: nothing personal survives -----------------------------------------------------

FIRST = ("Sarah", "James", "Aisha", "Priya", "Mohammed", "Niamh", "Kwame", "Zara")
LAST = ("Jones", "Patel", "Khan", "O'Brien", "Begum", "Campbell", "Okafor", "Nguyen")
QUESTIONS = (
    "is a burst pipe covered?",
    "how much is the excess for section 4.11",
    "What does END-HM-14 change? I paid £350",
    "can I cancel within 14 days",
)


def _mixed(rng: random.Random) -> tuple[str, list[str]]:
    """A question with 1-4 personal items around it, and the items themselves."""
    first, last = rng.choice(FIRST), rng.choice(LAST)
    items = {
        "name": (f"{first} {last}", rng.choice(("Hi, I'm {}. ", "My name is {}, ", "{} here. "))),
        "email": (f"{first.lower()}{rng.randint(1, 99)}@example.co.uk", " email {}"),
        "phone": (
            rng.choice(("07700 900{:03d}", "+44 7700 900{:03d}", "020 7946 0{:03d}")).format(
                rng.randint(0, 999)
            ),
            " call me on {}",
        ),
        "policy": (f"POL-{rng.randint(10_000_000, 99_999_999)}", " ref {}"),
        "claim": (f"CLM-{rng.randint(100_000, 999_999)}", " claim {}"),
        "postcode": (
            f"{rng.choice(('SW', 'M', 'LS', 'EH'))}{rng.randint(1, 20)} {rng.randint(0, 9)}"
            f"{rng.choice('ABDEFG')}{rng.choice('HJLNPQ')}",
            " postcode {}",
        ),
        "card": ("4111 1111 1111 1111", " card {}"),
        "ni": (f"AB{rng.randint(100_000, 999_999)}C", " NI {}"),
    }
    chosen = rng.sample(sorted(items), rng.randint(1, 4))
    text = rng.choice(QUESTIONS)
    for kind in chosen:
        value, frame = items[kind]
        text = frame.format(value) + text if kind == "name" else text + frame.format(value)
    return text, [items[k][0] for k in chosen]


def test_no_personal_item_survives() -> None:
    rng = random.Random(20250101)
    for _ in range(300):
        text, values = _mixed(rng)
        result = scrub(text)
        for value in values:
            assert value not in result.text, (text, result.text)
            for part in value.split():
                if len(part) >= 4 and not part.isdigit():
                    assert part not in result.text, (text, result.text)
        assert sum(result.counts.values()) == len(values), (text, result.text)


# --- the real question texts ------------------------------------------------------------------


def test_sample_questions_are_unchanged() -> None:
    path = SAMPLE / "questions.jsonl"
    if not path.exists():
        pytest.skip(f"the sample labelled set is not there ({path}); nothing to check")
    texts = [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines()]
    scrubbed, counts = scrub_all(texts)
    assert len(texts) == 400
    assert [(a, b) for a, b in zip(texts, scrubbed, strict=True) if a != b] == []
    assert counts == Counter()


# --- shapes the sample's production-like query log showed missing --------------------------


@pytest.mark.parametrize(
    ("text", "expected", "counts"),
    [
        ("Hi, I'm Zoë O’Neill. is it covered", "Hi, I'm <NAME>. is it covered", {"NAME": 1}),
        ("it's Siobhán WÓJCIK, I can't log in", "it's <NAME>, I can't log in", {"NAME": 1}),
        ("this is fatima khan, is it covered?", "this is <NAME>, is it covered?", {"NAME": 1}),
        ("is it covered? cheers hannah", "is it covered? cheers <NAME>", {"NAME": 1}),
        ("is it covered - zoë o'neill", "is it covered - <NAME>", {"NAME": 1}),
        ("Raj here - is it covered", "<NAME> here - is it covered", {"NAME": 1}),
        (
            "is it covered? Jack MacLeod 07700 900123",
            "is it covered? <NAME> <PHONE>",
            {"NAME": 1, "PHONE": 1},
        ),
        ("where is my claim 6529507", "where is my claim <CLAIM_REF>", {"CLAIM_REF": 1}),
        ("whoever is handling HMC/108246", "whoever is handling <CLAIM_REF>", {"CLAIM_REF": 1}),
        (
            "is policy 46744286 still active",
            "is policy <POLICY_REF> still active",
            {"POLICY_REF": 1},
        ),
        (
            "my direct debit date for 65240186",
            "my direct debit date for <POLICY_REF>",
            {"POLICY_REF": 1},
        ),
        ("can u confirm it for HM/8327550", "can u confirm it for <POLICY_REF>", {"POLICY_REF": 1}),
        (
            "my date of birth is wrong, it should be 06.07.1979",
            "my date of birth is wrong, it should be <DOB>",
            {"DOB": 1},
        ),
        ("my car, t400 wxe, was stolen", "my car, <VEHICLE_REG>, was stolen", {"VEHICLE_REG": 1}),
        ("we're at 16 heather drive now", "we're at <ADDRESS> now", {"ADDRESS": 1}),
    ],
)
def test_log_shapes(text: str, expected: str, counts: dict[str, int]) -> None:
    check(text, expected, **counts)


@pytest.mark.parametrize(
    "text",
    [
        "in Paris 07700 900123",
        "this is ridiculous? no",
        "I'm in hospital abroad",
        "it cost £1500000 in total",
        "the car is 1500 pounds",
        "Hi, quick question, is it covered",
    ],
)
def test_log_shapes_leave_content(text: str) -> None:
    out = scrub(text).text
    assert "<NAME>" not in out and "<POLICY_REF>" not in out, out


# --- kinds Presidio and the new recognisers catch (issue 27) -------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "counts"),
    [
        (
            "my claim CLM-2025-004417 was refused",
            "my claim <CLAIM_REF> was refused",
            {"CLAIM_REF": 1},
        ),
        ("my claim 2025/88123 is late", "my claim <CLAIM_REF> is late", {"CLAIM_REF": 1}),
        ("NI QQ 12 34 56 C", "NI <NI_NUMBER>", {"NI_NUMBER": 1}),
        ("ni number tn123456a", "ni number <NI_NUMBER>", {"NI_NUMBER": 1}),
        (
            "sort code 12-34-56 account 12345678",
            "sort code <BANK_ACCOUNT> account <BANK_ACCOUNT>",
            {"BANK_ACCOUNT": 2},
        ),
        ("iban GB82 WEST 1234 5698 7654 32 pls", "iban <IBAN> pls", {"IBAN": 1}),
        ("nhs number 943 476 5919", "nhs number <NHS_NUMBER>", {"NHS_NUMBER": 1}),
        ("licence MORGA 753116 SM9IJ", "licence <DRIVING_LICENCE>", {"DRIVING_LICENCE": 1}),
        ("passport 123456789", "passport <PASSPORT>", {"PASSPORT": 1}),
        (
            "from 192.168.0.12 and 2001:db8::1",
            "from <IP_ADDRESS> and <IP_ADDRESS>",
            {"IP_ADDRESS": 2},
        ),
        ("VIN 1HGCM82633A004352", "VIN <VIN>", {"VIN": 1}),
        ("@sarahj_99 on twitter", "<SOCIAL_HANDLE> on twitter", {"SOCIAL_HANDLE": 1}),
        ("insta: sarah.j.99", "insta: <SOCIAL_HANDLE>", {"SOCIAL_HANDLE": 1}),
        ("mail sarah dot jones at example dot com", "mail <EMAIL>", {"EMAIL": 1}),
        ("call (415) 555-0132 or 415.555.0132", "call <PHONE> or <PHONE>", {"PHONE": 2}),
        ("can sarah jones drive my car", "can <NAME> drive my car", {"NAME": 1}),
        ("my wife priya patel has a claim", "my wife <NAME> has a claim", {"NAME": 1}),
        ("Priya Patel asked me to check", "<NAME> asked me to check", {"NAME": 1}),
    ],
)
def test_new_kinds(text: str, expected: str, counts: dict[str, int]) -> None:
    check(text, expected, **counts)


@pytest.mark.parametrize(
    "text",
    [
        "what does EX-H-07 cover",
        "what does END-M-12 change",
        "is the grace period 14 days",
        "do you cover a car jack stolen from the boot",
        "will my excess go up after a claim",
        "my car is a Ford Fiesta 1.2",
        "flight BA 2490 leaves 03/06/2025",
        "cover in New York and Spain",
        "the influence of joule heating at high mach numbers",
        "does the uk include jersey?",
    ],
)
def test_subjects_that_look_like_data_stay(text: str) -> None:
    check(text, text)


def test_a_datasets_own_rules_add_reference_shapes_and_keep_its_codes(tmp_path: Path) -> None:
    from ragsweep.labelling.scrub import Scrubber
    from ragsweep.labelling.scrub_rules import builtin_rules_text, load_rules

    default = Scrubber()
    assert default.scrub("renewal for HX998877").text == "renewal for HX998877"
    assert default.scrub("what is ABC-12345678").text == "what is <POLICY_REF>"
    rules = (
        builtin_rules_text()
        .replace("claim_ref:", "  - '\\bHX\\d{6}\\b'\nclaim_ref:")
        .replace("keep:", "keep:\n  - '\\bABC-\\d{8}\\b'")
    )
    (tmp_path / "scrub.yaml").write_text(rules, encoding="utf-8")
    assert len(load_rules(tmp_path / "scrub.yaml").policy_ref) == 5
    own = Scrubber.for_dataset(tmp_path)
    assert own.scrub("renewal for HX998877").text == "renewal for <POLICY_REF>"
    assert own.scrub("what is ABC-12345678").text == "what is ABC-12345678"
    assert Scrubber.for_dataset(tmp_path / "elsewhere").rules.source.endswith("scrub.yaml")
