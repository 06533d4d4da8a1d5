"""A labelled personal-data test log for the scrubber: UK insurance-assistant questions typed the
way people type, with personal data planted at the start, in the middle and at the end, every
item recorded as a span with its kind and format; plus hard negatives (questions whose subject
looks like data but is not personal: insurer codes, clause numbers, amounts, travel dates ...).

An independent test of `ragsweep.labelling.scrub` (written without reading its rules), used by
`tests/labelling/test_scrub_recall.py` and `benchmarks/scrub.py`. All personal data is fictional
and of test shapes: example.* e-mail domains, Ofcom's drama telephone ranges, US 555-01xx
numbers, issuers' test card numbers and Luhn-valid made-up ones, NHS numbers in the 999 test
range, IBANs and NHS numbers with their check digits computed (python-stdnum), invented names,
streets, plates and references.

    python benchmarks/pii_log.py --out DIR     # writes DIR/pii_log.jsonl

Each row: `id`, `set` ("pii" or "negative"), `ts`, `product`, `slice`, `question` (rows with
the same id ask the same question: re-sends, other personal data, typos, merged or split words;
a hard negative's id names its template and subject),
`variant`, `text`, `items` [{start, end, kind, format, position, value}] (personal data) and
`subjects` [{start, end, kind, value}] (what the question is about: must survive scrubbing).
`build(seed)` returns the rows.
"""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import json
import random
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from stdnum import iban as std_iban
from stdnum import luhn
from stdnum.gb import nhs as std_nhs

N_ENTRIES = 1500
N_NEGATIVES = 200
ITEMS_PER_FORMAT = 7
#: names are the hard kind (no fixed shape): more of them
ITEMS_PER_FORMAT_OF = {"NAME": 12}
PRODUCTS = ("home", "motor", "travel")
SLICES = ("limits", "exclusions", "procedures", "definitions", "identifiers")


# --- a row under construction ----------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """A planted piece of personal data (kind, format) or, with kind in lower case, a subject."""

    text: str
    kind: str
    format: str = ""


Part = str | Item


def _join(parts: list[Part], position: dict[int, str]) -> tuple[str, list[dict], list[dict]]:
    text, items, subjects = "", [], []
    for i, p in enumerate(parts):
        if isinstance(p, Item):
            span = {"start": len(text), "end": len(text) + len(p.text)}
            if p.kind.isupper():
                items.append(
                    {**span, "kind": p.kind, "format": p.format, "position": position[i]}
                    | {"value": p.text}
                )
            else:
                subjects.append({**span, "kind": p.kind, "value": p.text})
        text += p if isinstance(p, str) else p.text
    return text, items, subjects


# --- people and their data -------------------------------------------------------------------

FIRST = (
    "Sarah James Aisha Tom Priya Mark Olivia Daniel Chloe Mohammed Emma Liam Kwame Sophie Zara"
    " Owen Fatima Niamh Raj Callum Zoë José Siobhán Seán Renée Aoife Dafydd Łukasz Agnieszka"
    " Małgorzata Björn Oluwaseun Wei Darius Yusuf Eilidh Kerry-Ann Jean-Luc Amélie Nuño Ngozi"
    " Thanh Hiroshi Anya Catrin"
).split()
LAST = tuple(
    "Jones|Patel|Okafor|Nowak|Kowalska|O'Brien|O'Neill|McAllister|Dubois|Müller|Fernández"
    "|García-López|Nguyen|Khan|Davies|Ó Súilleabháin|Hughes-Whitaker|Mensah|Adeyemi|Sørensen"
    "|Rahman|Chaudhry|MacLeod|Ferreira|Brennan|van der Berg|Petrović|Lindqvist|Achterberg".split(
        "|"
    )
)
RELATIVES = ("husband", "wife", "son", "daughter", "partner", "mum", "dad", "brother", "sister")
DOMAINS = ("example.com", "example.org", "example.net", "example.co.uk")
STREETS = (
    "Acacia Avenue",
    "Mill Lane",
    "Church Road",
    "Harbour View",
    "Quay Street",
    "Rose Crescent",
    "Station Road",
    "Orchard Close",
    "Victoria Terrace",
    "Bryn Road",
    "Heol y Felin",
    "Kingfisher Way",
    "Old Forge Mews",
    "Larkspur Drive",
    "Chapel Row",
)
BUILDINGS = ("Harbour Court", "The Maltings", "Tŷ Gwyn")
POST_AREAS = tuple("SW NW E N SE M B LS G EH CF BS NG L S OX CB BN RG NE W EC BT SA".split())
POST_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"
REG_LETTERS = "ABCDEFGHJKLMNOPRSTUVWXYZ"
AGE_LETTERS = "ABCDEFGHJKLMNPRSTVWXY"  # the year letter of a prefix or suffix plate
VIN_CHARS = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
#: NI prefixes: first letter not D F I Q U V, second not D F I O Q U V, not BG GB KN NK NT TN ZZ;
#: the O-, N- and Z- starts below are valid though a hand-written rule may miss them; QQ is HMRC's
#: own example prefix (not issued)
NI_PREFIXES = ("AB", "CE", "HT", "JK", "OA", "OB", "NA", "NY", "PZ", "WL", "ZA", "EH", "TW", "QQ")


@dataclass(frozen=True)
class Person:
    first: str
    last: str


def _person(rng: random.Random) -> Person:
    return Person(rng.choice(FIRST), rng.choice(LAST))


def _ascii(s: str) -> str:
    """The name as a person types it into an e-mail address or handle."""
    s = s.replace("ø", "o").replace("ł", "l").replace("Ł", "L")
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def _local(p: Person, rng: random.Random) -> str:
    f = _ascii(p.first).lower().replace("-", "")
    la = _ascii(p.last).lower().replace("'", "").replace(" ", "")
    return rng.choice((f"{f}.{la}", f"{f[0]}{la}", f"{f}{rng.randint(1, 99)}", f"{f}_{la}"))


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def _letters(rng: random.Random, n: int, alphabet: str = string.ascii_uppercase) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _grouped(s: str, sizes: tuple[int, ...], sep: str = " ") -> str:
    out, i = [], 0
    for n in sizes:
        out.append(s[i : i + n])
        i += n
    if i < len(s):
        out.append(s[i:])
    return sep.join(x for x in out if x)


def _dob(rng: random.Random) -> dt.date:
    return dt.date(1940, 1, 1) + dt.timedelta(rng.randrange(365 * 65))


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _card(rng: random.Random, prefix: str, length: int) -> str:
    body = prefix + _digits(rng, length - len(prefix) - 1)
    return body + luhn.calc_check_digit(body)


TEST_CARDS = ("4111111111111111", "4242424242424242", "5555555555554444", "5105105105105100")


def _iban(rng: random.Random, country: str) -> str:
    bban = {
        "GB": lambda: rng.choice(("NWBK", "WEST", "BARC", "LOYD", "MIDL")) + _digits(rng, 14),
        "DE": lambda: _digits(rng, 18),
        "IE": lambda: rng.choice(("AIBK", "BOFI")) + _digits(rng, 14),
        "FR": lambda: _digits(rng, 23),
        "NL": lambda: rng.choice(("ABNA", "RABO", "INGB")) + _digits(rng, 10),
    }[country]()
    number = country + "00" + bban
    number = country + std_iban.calc_check_digits(number) + bban
    assert std_iban.is_valid(number)
    return number


def _nhs(rng: random.Random) -> str:
    while True:  # 999 xxx xxxx is the NHS test range; a check digit of 10 is never issued
        body = "999" + _digits(rng, 6)
        total = sum(int(d) * (10 - i) for i, d in enumerate(body))
        check = (11 - total % 11) % 11
        if check != 10:
            number = body + str(check)
            assert std_nhs.is_valid(number)
            return number


def _licence(p: Person, rng: random.Random) -> str:
    sur = re.sub(r"[^A-Z]", "", _ascii(p.last).upper())[:5].ljust(5, "9")
    d = _dob(rng)
    month = d.month + (50 if rng.random() < 0.5 else 0)
    first = re.sub(r"[^A-Z]", "", _ascii(p.first).upper())
    initials = (first[0] + rng.choice("9" + REG_LETTERS[:10]))[:2]
    return (
        f"{sur}{str(d.year)[2]}{month:02d}{d.day:02d}{str(d.year)[3]}{initials}9{_letters(rng, 2)}"
    )


def _vin(rng: random.Random) -> str:
    wmi = rng.choice(("WVW", "WF0", "SAJ", "VF1", "JMZ", "SB1", "TMB", "ZFA"))
    return wmi + "".join(rng.choice(VIN_CHARS) for _ in range(14))


def _postcode(rng: random.Random) -> str:
    return (
        f"{rng.choice(POST_AREAS)}{rng.randint(1, 19)} "
        f"{rng.randint(1, 9)}{_letters(rng, 2, POST_LETTERS)}"
    )


def _reg(rng: random.Random) -> str:
    return (
        f"{_letters(rng, 2, REG_LETTERS)}{rng.choice(('12', '15', '19', '21', '23', '66', '70'))}"
        f" {_letters(rng, 3, REG_LETTERS)}"
    )


# --- formats: each returns the parts for one item, cue words included ------------------------

Fmt = Callable[[random.Random, Person], list[Part]]


def _cue(rng: random.Random, cues: tuple[str, ...], item: Item) -> list[Part]:
    """`item` inside one of `cues` ("my email is {}"), as parts."""
    before, _, after = rng.choice(cues).partition("{}")
    return [x for x in (before, item, after) if x != ""]


CUES: dict[str, tuple[str, ...]] = {
    "EMAIL": ("my email is {}", "email me at {}", "{}", "reply to {}", "contact {}"),
    "URL": ("photos are at {}", "see {}", "i uploaded them to {}", "{} has the pics"),
    "IP_ADDRESS": ("my ip is {}", "ip address {}", "logged in from {}", "the site blocked {}"),
    "CARD": ("card number {}", "my card is {}", "paid with {}", "card {}"),
    "IBAN": ("iban {}", "my IBAN is {}", "pay it into {}", "IBAN: {}"),
    "NI_NUMBER": ("NI number {}", "ni no {}", "national insurance {}", "my NI is {}", "NINO {}"),
    "NHS_NUMBER": ("nhs number {}", "my NHS no is {}", "NHS no. {}", "nhs {}"),
    "PASSPORT": ("passport {}", "passport no {}", "passport number: {}", "my passport is {}"),
    "DRIVING_LICENCE": ("licence number {}", "my driving licence is {}", "licence no {}", "dl {}"),
    "VIN": ("vin {}", "VIN: {}", "chassis number {}", "the vin is {}"),
    "PHONE": ("call me on {}", "my number is {}", "{}", "ring {}", "tel {}", "mob {}"),
    "POSTCODE": ("postcode {}", "my postcode is {}", "I live in {}", "post code {}"),
    "VEHICLE_REG": ("reg {}", "my reg is {}", "car reg {}", "registration {}", "the {}"),
    "ADDRESS": ("I live at {}", "address {}", "my address is {}", "moved to {}"),
    "SOCIAL_HANDLE": ("{}",),
    "POLICY_REF": ("policy number {}", "policy no {}", "pol no {}", "my policy {}", "ref {}"),
    "CLAIM_REF": ("claim ref {}", "claim number {}", "my claim {}", "claim {}"),
}


def _cued(kind: str, fmt: str, value: Callable[[random.Random, Person], str]) -> Fmt:
    return lambda rng, p: _cue(rng, CUES[kind], Item(value(rng, p), kind, fmt))


def _names(rng: random.Random, p: Person, fmt: str) -> list[Part]:
    full = f"{p.first} {p.last}"
    name = lambda t: Item(t, "NAME", fmt)  # noqa: E731
    if fmt == "cue_capitalised":
        return _cue(
            rng, ("I'm {}", "my name is {}", "this is {}", "name: {}", "Hi it's {}"), name(full)
        )
    if fmt == "title":
        title = rng.choice(("Mrs", "Mr", "Ms", "Dr", "Miss"))
        return [f"{title} ", name(rng.choice((p.last, full)))]
    if fmt == "relative":
        return [f"my {rng.choice(RELATIVES)} ", name(rng.choice((p.first, full)))]
    if fmt == "lower_case":
        return _cue(rng, ("im {}", "my name is {}", "this is {}", "{} here"), name(full.lower()))
    if fmt == "no_cue":
        return _cue(
            rng,
            ("{} asked me to check", "can {} drive my car", "{} wants to know", "for {}"),
            name(rng.choice((full, full.lower()))),
        )
    if fmt == "sign_off":
        return _cue(
            rng,
            ("thanks {}", "cheers, {}", "regards {}", "- {}", "many thanks\n{}"),
            name(rng.choice((p.first, full))),
        )
    if fmt == "caps_surname":
        return _cue(
            rng,
            ("name {}", "{}", "policyholder {}"),
            name(rng.choice((f"{p.first} {p.last.upper()}", f"{p.last.upper()}, {p.first}"))),
        )
    raise ValueError(fmt)


def _email(rng: random.Random, p: Person, fmt: str) -> str:
    local, dom = _local(p, rng), rng.choice(DOMAINS)
    if fmt == "plain":
        return f"{local}@{dom}"
    if fmt == "mixed_case":
        return f"{local.title()}@{dom.capitalize()}"
    if fmt == "plus_tag":
        return f"{local}+insurance@{dom}"
    if fmt == "spelled_dot_at":
        return f"{local.replace('.', ' dot ')} at {dom.replace('.', ' dot ')}"
    if fmt == "bracket_at":
        return f"{local}[at]{dom}"
    if fmt == "paren_at_dot":
        return f"{local} (at) {dom.replace('.', ' (dot) ')}"
    raise ValueError(fmt)


def _phone(rng: random.Random, fmt: str) -> str:
    m, d = f"{rng.randint(0, 999):03d}", f"{rng.randint(0, 999):03d}"
    us = f"{rng.choice(('415', '212', '312', '646', '702'))}"
    us_line = f"01{rng.randint(0, 99):02d}"
    return {
        "uk_mobile_spaced": f"07700 900{m}",
        "uk_mobile_run": f"07700900{m}",
        "uk_mobile_3_3": f"07700 900 {m}",
        "plus44_mobile": f"+44 7700 900{m}",
        "0044_mobile": f"0044 7700 900 {m}",
        "london_parens": f"(020) 7946 0{d}",
        "london_spaced": f"020 7946 0{d}",
        "london_0207": f"0207 946 0{d}",
        "plus44_0_london": f"+44 (0)20 7946 0{d}",
        "us_parens": f"({us}) 555-{us_line}",
        "us_dashed": f"{us}-555-{us_line}",
        "us_dotted": f"{us}.555.{us_line}",
        "us_plus1": f"+1 {us} 555 {us_line}",
    }[fmt]


def _ni(rng: random.Random, fmt: str) -> str:
    pre, digits, suf = rng.choice(NI_PREFIXES), _digits(rng, 6), rng.choice("ABCD")
    return {
        "spaced": f"{pre} {_grouped(digits, (2, 2, 2))} {suf}",
        "unspaced": f"{pre}{digits}{suf}",
        "lower": f"{pre}{digits}{suf}".lower(),
        "lower_spaced": f"{pre} {_grouped(digits, (2, 2, 2))} {suf}".lower(),
        "block_digits": f"{pre} {digits} {suf}",
    }[fmt]


def _claim(rng: random.Random, fmt: str) -> list[Part]:
    year = rng.choice(("2024", "2025"))
    item = lambda t: Item(t, "CLAIM_REF", fmt)  # noqa: E731
    if fmt == "clm_year_seq":
        return _cue(rng, CUES["CLAIM_REF"], item(f"CLM-{year}-{_digits(rng, 6)}"))
    if fmt == "clm_lower":
        return _cue(rng, CUES["CLAIM_REF"], item(f"clm-{year}-{_digits(rng, 6)}"))
    if fmt == "year_slash":
        return ["my claim ", item(f"{year}/{_digits(rng, 5)}")]
    if fmt == "letters_dash_digits":
        return [
            rng.choice(("claim no. ", "claim no ", "Claim No: ")),
            item(f"{_letters(rng, 2)}-{_digits(rng, 7)}"),
        ]
    if fmt == "unknown_after_my_claim":
        ref = rng.choice(
            (
                f"K{_digits(rng, 3)}-{_letters(rng, 2)}{_digits(rng, 2)}",
                f"{_digits(rng, 2)}.{_digits(rng, 4)}.{_digits(rng, 3)}",
                f"HX{_digits(rng, 6)}Z",
            )
        )
        return [rng.choice(("my claim ", "my claim is ", "re my claim ")), item(ref)]
    if fmt == "run_together":
        return _cue(rng, CUES["CLAIM_REF"], item(f"CL{year[2:]}{_digits(rng, 6)}"))
    raise ValueError(fmt)


def _policy(rng: random.Random, fmt: str) -> list[Part]:
    item = lambda t: Item(t, "POLICY_REF", fmt)  # noqa: E731
    if fmt == "pol_dash":
        return _cue(rng, CUES["POLICY_REF"], item(f"POL-{_digits(rng, 8)}"))
    if fmt == "product_slash":
        return ["policy number ", item(f"{rng.choice(('HM', 'MT', 'TR'))}/{_digits(rng, 7)}")]
    if fmt == "pol_no_digits":
        return [
            rng.choice(("pol no ", "policy no. ", "policy # ")),
            item(f"{rng.choice(('888', '771', '402'))}{_digits(rng, 5)}"),
        ]
    if fmt == "insurer_spaced":
        return _cue(
            rng,
            CUES["POLICY_REF"],
            item(f"{rng.choice(('HHP', 'KMC', 'KTA'))} {_digits(rng, 4)} {_digits(rng, 4)}"),
        )
    if fmt == "lower_dash":
        return _cue(rng, CUES["POLICY_REF"], item(f"pol-{_digits(rng, 8)}"))
    if fmt == "year_ref":
        return _cue(
            rng, CUES["POLICY_REF"], item(f"KGI-{rng.choice(('2024', '2025'))}-{_digits(rng, 6)}")
        )
    raise ValueError(fmt)


MONTHS = "January February March April May June July August September October November December"


def _dob_text(rng: random.Random, fmt: str) -> str:
    d = _dob(rng)
    month = MONTHS.split()[d.month - 1]
    return {
        "dd/mm/yyyy": d.strftime("%d/%m/%Y"),
        "d-m-yy": f"{d.day}-{d.month}-{d.strftime('%y')}",
        "dd.mm.yyyy": d.strftime("%d.%m.%Y"),
        "ordinal_month_year": f"{_ordinal(d.day)} {month} {d.year}",
        "month_day_year": f"{month} {d.day}, {d.year}",
        "iso": d.isoformat(),
        "d_mon_yy": f"{d.day} {month[:3].lower()} {d.strftime('%y')}",
    }[fmt]


DOB_CUES = ("dob {}", "d.o.b. {}", "born on {}", "date of birth {}", "DOB: {}", "i was born {}")


def _bank(rng: random.Random, fmt: str) -> list[Part]:
    sort, acc = _digits(rng, 6), _digits(rng, 8)
    item = lambda t, f=fmt: Item(t, "BANK_ACCOUNT", f)  # noqa: E731
    if fmt == "sort_code_dashed":
        return [
            "sort code ",
            item(_grouped(sort, (2, 2, 2), "-")),
            " account ",
            item(acc, "account_after_sort_code"),
        ]
    if fmt == "acc_no":
        return [rng.choice(("acc no ", "account number ", "account no. ")), item(acc)]
    if fmt == "sort_code_spaced":
        return [
            rng.choice(("sortcode ", "sort ", "s/c ")),
            item(_grouped(sort, (2, 2, 2))),
            rng.choice((" a/c ", " acc ")),
            item(acc, "account_after_sort_code"),
        ]
    if fmt == "account_spaced":
        return ["account number ", item(_grouped(acc, (2, 2, 2, 2)))]
    if fmt == "sort_code_run":
        return ["sort code ", item(sort), " ", item(acc, "account_after_sort_code")]
    raise ValueError(fmt)


def _address(rng: random.Random, fmt: str) -> str:
    street, n = rng.choice(STREETS), rng.randint(1, 240)
    return {
        "number_street": f"{n} {street}",
        "flat_comma": f"Flat {rng.randint(1, 30)}, {n} {street}",
        "lower_flat": f"flat {rng.randint(1, 9)}{rng.choice('ab')} {n} {street.lower()}",
        "named_building": f"Apartment {rng.randint(1, 40)}, {rng.choice(BUILDINGS)}, {n} {street}",
        "number_letter": f"{n}{rng.choice('abc')} {street}",
    }[fmt]


def _handle(rng: random.Random, p: Person, fmt: str) -> str:
    f = _ascii(p.first).lower().replace("-", "")
    la = _ascii(p.last).lower().replace("'", "").replace(" ", "")
    n = rng.randint(70, 99)
    return {
        "at_twitter": f"@{f}{la[0]}_{n} on twitter",
        "insta_colon": f"insta: {f}.{la[0]}.{n}",
        "tiktok_at": f"my tiktok is @{f}.{la}",
        "facebook_name": f"facebook.com/{f}.{la}.{n}",
    }[fmt]


def _handle_parts(rng: random.Random, p: Person, fmt: str) -> list[Part]:
    """The handle alone is the item; the platform words around it stay."""
    whole = _handle(rng, p, fmt)
    m = re.search(r"@?[a-z0-9_.]+[a-z0-9_](?= on twitter|$)|facebook\.com/\S+", whole)
    assert m is not None
    return [
        x
        for x in (whole[: m.start()], Item(m.group(), "SOCIAL_HANDLE", fmt), whole[m.end() :])
        if x
    ]


def _url(rng: random.Random, p: Person, fmt: str) -> str:
    f = _ascii(p.first).lower().replace("-", "")
    la = _ascii(p.last).lower().replace("'", "").replace(" ", "")
    dom = rng.choice(DOMAINS)
    return {
        "https_path": f"https://{dom}/u/{f}{la}/claim-photos",
        "www_path": f"www.{dom}/~{f}.{la}",
        "bare_path": f"{dom}/{f}-{la}/albums/{_digits(rng, 5)}",
        "query_string": f"http://photos.{dom}/share?id={_digits(rng, 8)}&user={f}{la[0]}",
    }[fmt]


def _ip(rng: random.Random, fmt: str) -> str:
    net = rng.choice(("192.0.2", "198.51.100", "203.0.113"))
    return {
        "ipv4": f"{net}.{rng.randint(1, 254)}",
        "ipv4_port": f"{net}.{rng.randint(1, 254)}:{rng.choice((8080, 443, 3000))}",
        "ipv6_compressed": f"2001:db8::{rng.randint(1, 0xFFFF):x}:{rng.randint(1, 0xFFFF):x}",
        "ipv6_full": ":".join(
            ["2001", "0db8"] + [f"{rng.randint(0, 0xFFFF):04x}" for _ in range(6)]
        ),
    }[fmt]


def _card_text(rng: random.Random, fmt: str) -> str:
    number = (
        rng.choice(TEST_CARDS)
        if rng.random() < 0.3
        else _card(rng, rng.choice(("4", "51", "53")), 16)
    )
    if fmt == "amex_spaced":
        return _grouped(_card(rng, rng.choice(("34", "37")), 15), (4, 6, 5))
    return {
        "spaced_4": _grouped(number, (4, 4, 4, 4)),
        "dashed_4": _grouped(number, (4, 4, 4, 4), "-"),
        "run_together": number,
    }[fmt]


def _iban_text(rng: random.Random, fmt: str) -> str:
    country = {"gb_spaced": "GB", "gb_compact": "GB", "gb_lower": "GB"}.get(fmt) or rng.choice(
        ("DE", "IE", "FR", "NL")
    )
    number = _iban(rng, country)
    if fmt in ("gb_spaced", "eu_spaced"):
        return _grouped(number, (4,) * 8)
    return number.lower() if fmt == "gb_lower" else number


def _passport(rng: random.Random, fmt: str) -> list[Part]:
    number = _digits(rng, 9)
    item = lambda t: Item(t, "PASSPORT", fmt)  # noqa: E731
    if fmt == "cue_digits":
        return _cue(rng, CUES["PASSPORT"], item(number))
    if fmt == "spaced_3_3_3":
        return _cue(rng, CUES["PASSPORT"], item(_grouped(number, (3, 3, 3))))
    if fmt == "pp_no":
        return [rng.choice(("pp no ", "pp# ", "passport#")), item(number)]
    raise ValueError(fmt)


def _reg_text(rng: random.Random, fmt: str) -> str:
    cur = _reg(rng)
    return {
        "current": cur,
        "current_unspaced": cur.replace(" ", ""),
        "current_lower": cur.lower(),
        "prefix": f"{rng.choice(AGE_LETTERS)}{rng.randint(1, 999)} {_letters(rng, 3, REG_LETTERS)}",
        "suffix": f"{_letters(rng, 3, REG_LETTERS)} {rng.randint(1, 999)}{rng.choice(AGE_LETTERS)}",
    }[fmt]


def _postcode_text(rng: random.Random, fmt: str) -> str:
    pc = _postcode(rng)
    return {
        "spaced": pc,
        "unspaced": pc.replace(" ", ""),
        "lower": pc.lower(),
        "lower_unspaced": pc.replace(" ", "").lower(),
    }[fmt]


def _licence_text(rng: random.Random, p: Person, fmt: str) -> str:
    lic = _licence(p, rng)
    return {"compact": lic, "spaced": f"{lic[:5]} {lic[5:11]} {lic[11:]}", "lower": lic.lower()}[
        fmt
    ]


def _vin_text(rng: random.Random, fmt: str) -> str:
    vin = _vin(rng)
    return {"upper": vin, "lower": vin.lower(), "grouped": f"{vin[:3]} {vin[3:9]} {vin[9:]}"}[fmt]


def _nhs_text(rng: random.Random, fmt: str) -> str:
    n = _nhs(rng)
    return {
        "spaced_3_3_4": _grouped(n, (3, 3, 4)),
        "run_together": n,
        "dashed": _grouped(n, (3, 3, 4), "-"),
    }[fmt]


def _formats() -> dict[str, dict[str, Fmt]]:
    """kind -> format -> how to render one item (cue words included)."""

    def each(names: str, make: Callable[[str], Fmt]) -> dict[str, Fmt]:
        return {n: make(n) for n in names.split()}

    def cued(
        kind: str, names: str, value: Callable[[random.Random, Person, str], str]
    ) -> dict[str, Fmt]:
        return each(names, lambda f: _cued(kind, f, lambda r, p: value(r, p, f)))

    dob = lambda f: lambda r, p: _cue(r, DOB_CUES, Item(_dob_text(r, f), "DOB", f))  # noqa: E731
    return {
        "EMAIL": cued(
            "EMAIL", "plain mixed_case plus_tag spelled_dot_at bracket_at paren_at_dot", _email
        ),
        "URL": cued("URL", "https_path www_path bare_path query_string", _url),
        "IP_ADDRESS": cued(
            "IP_ADDRESS", "ipv4 ipv4_port ipv6_compressed ipv6_full", lambda r, p, f: _ip(r, f)
        ),
        "CARD": cued(
            "CARD", "spaced_4 dashed_4 run_together amex_spaced", lambda r, p, f: _card_text(r, f)
        ),
        "IBAN": cued(
            "IBAN",
            "gb_spaced gb_compact gb_lower eu_spaced eu_compact",
            lambda r, p, f: _iban_text(r, f),
        ),
        "BANK_ACCOUNT": each(
            "sort_code_dashed acc_no sort_code_spaced account_spaced sort_code_run",
            lambda f: lambda r, p: _bank(r, f),
        ),
        "NI_NUMBER": cued(
            "NI_NUMBER",
            "spaced unspaced lower lower_spaced block_digits",
            lambda r, p, f: _ni(r, f),
        ),
        "NHS_NUMBER": cued(
            "NHS_NUMBER", "spaced_3_3_4 run_together dashed", lambda r, p, f: _nhs_text(r, f)
        ),
        "PASSPORT": each("cue_digits spaced_3_3_3 pp_no", lambda f: lambda r, p: _passport(r, f)),
        "DRIVING_LICENCE": cued("DRIVING_LICENCE", "compact spaced lower", _licence_text),
        "VIN": cued("VIN", "upper lower grouped", lambda r, p, f: _vin_text(r, f)),
        "CLAIM_REF": each(
            "clm_year_seq clm_lower year_slash letters_dash_digits unknown_after_my_claim"
            " run_together",
            lambda f: lambda r, p: _claim(r, f),
        ),
        "POLICY_REF": each(
            "pol_dash product_slash pol_no_digits insurer_spaced lower_dash year_ref",
            lambda f: lambda r, p: _policy(r, f),
        ),
        "DOB": each(
            "dd/mm/yyyy d-m-yy dd.mm.yyyy ordinal_month_year month_day_year iso d_mon_yy", dob
        ),
        "PHONE": cued(
            "PHONE",
            "uk_mobile_spaced uk_mobile_run uk_mobile_3_3 plus44_mobile 0044_mobile london_parens"
            " london_spaced london_0207 plus44_0_london us_parens us_dashed us_dotted us_plus1",
            lambda r, p, f: _phone(r, f),
        ),
        "POSTCODE": cued(
            "POSTCODE", "spaced unspaced lower lower_unspaced", lambda r, p, f: _postcode_text(r, f)
        ),
        "VEHICLE_REG": cued(
            "VEHICLE_REG",
            "current current_unspaced current_lower prefix suffix",
            lambda r, p, f: _reg_text(r, f),
        ),
        "ADDRESS": cued(
            "ADDRESS",
            "number_street flat_comma lower_flat named_building number_letter",
            lambda r, p, f: _address(r, f),
        ),
        "SOCIAL_HANDLE": each(
            "at_twitter insta_colon tiktok_at facebook_name",
            lambda f: lambda r, p: _handle_parts(r, p, f),
        ),
        "NAME": each(
            "cue_capitalised title relative lower_case no_cue sign_off caps_surname",
            lambda f: lambda r, p: _names(r, p, f),
        ),
    }


FORMATS: dict[str, dict[str, Fmt]] = _formats()
#: every kind the log plants (the scrubber's kinds: tests/labelling/test_scrub_recall.py checks),
#: in report order; the order items are dealt out in, so it fixes the seeded log
KINDS: tuple[str, ...] = tuple(FORMATS)


# --- the questions ---------------------------------------------------------------------------

#: (product, slice, question); [brackets] mark the question's subject where it looks like data
QUESTIONS: tuple[tuple[str, str, str], ...] = tuple(
    (prod, sl, q.strip())
    for prod, sl, block in (
        (
            "home",
            "limits",
            """
            what is the most you pay for jewellery stolen from the house
            is there a limit on bikes kept in the shed
            how much cover do I get for my garden plants and trees
            whats the single item limit for contents away from home
            how much will you pay for alternative accommodation if my home is unlivable
            is cash covered and up to how much""",
        ),
        (
            "home",
            "exclusions",
            """
            am I covered if the house is empty for more than 60 days
            does the policy exclude wear and tear on the roof
            is damage caused by my dog covered
            are you going to refuse a claim for a leak that has been going on for months
            is subsidence excluded if the house was built on clay
            does my home insurance cover storm damage to fences""",
        ),
        (
            "home",
            "procedures",
            """
            how do I make a claim for a burst pipe
            what do I need to do if I am burgled
            can I use my own builder after the flood or do you send one
            how long do I have to report water damage
            do I need to get two quotes before repairing the ceiling""",
        ),
        (
            "home",
            "definitions",
            """
            what counts as accidental damage
            what do you mean by unoccupied
            what is the difference between buildings and contents
            what does valuables mean in my policy
            what is classed as a storm""",
        ),
        (
            "home",
            "identifiers",
            """
            what does [END-HM-07] change on my home policy
            is exclusion [EX-H-07] about flooding
            what is in [section 4.11] of the home wording
            does [clause 3.2.1] apply to my conservatory""",
        ),
        (
            "motor",
            "limits",
            """
            how much do you pay for personal belongings stolen from my car
            is there a limit for windscreen repairs
            how much is the courtesy car cover per day
            what is the max for new car replacement
            how much is the excess for a young driver""",
        ),
        (
            "motor",
            "exclusions",
            """
            am I covered to drive other cars
            does my insurance cover me if I drive for deliveries
            is my car covered if I leave the keys in it
            am I covered abroad in europe
            is a tyre blowout covered""",
        ),
        (
            "motor",
            "procedures",
            """
            what do I do after an accident that wasnt my fault
            how do I add a named driver to my policy
            can I get a courtesy car while mine is being repaired
            how do I tell you I have modified my car
            what happens if my car is written off""",
        ),
        (
            "motor",
            "definitions",
            """
            what does social domestic and pleasure mean
            what is a named driver
            what counts as a modification
            what is the difference between compulsory and voluntary excess
            what does market value mean""",
        ),
        (
            "motor",
            "identifiers",
            """
            what does endorsement [END-MT-13] mean for me
            is [MT-PW-2024/01] the old motor wording
            what does [section 6.3] say about driving other cars
            what is exclusion [EX-M-02]""",
        ),
        (
            "travel",
            "limits",
            """
            how much cover is there for cancellation
            whats the limit for lost luggage
            how much do you pay for delayed baggage
            is there a limit on medical expenses in the usa
            how much is covered for gadgets on holiday""",
        ),
        (
            "travel",
            "exclusions",
            """
            am I covered for skiing
            are pre existing medical conditions excluded
            is scuba diving covered
            does the policy cover cancellation because of a strike
            am I covered if I drink and get injured""",
        ),
        (
            "travel",
            "procedures",
            """
            how do I claim for a cancelled flight
            what do I do if I need a doctor abroad
            who do I call if I am in hospital overseas
            how do I claim for lost luggage
            do I need a police report for stolen stuff""",
        ),
        (
            "travel",
            "definitions",
            """
            what counts as a close relative
            what is a pre existing condition
            what do you mean by home area
            what is classed as a valuable
            what does curtailment mean""",
        ),
        (
            "travel",
            "identifiers",
            """
            what does [END-TR-05] add to my travel cover
            is [EXC-TR-05] the winter sports exclusion
            what changed in [TR-PW-2025/02]
            what does [section 2.4] cover""",
        ),
    )
    for q in block.strip().splitlines()
)
#: word pairs a typist merges ("young driver" -> "youngdriver") or splits badly ("weara nd")
_PAIR = re.compile(r"\b([a-z]{2,}) ([a-z]{2,})\b")
_WORD = re.compile(r"\b[a-z]{3,}\b")


def _parse(q: str) -> list[Part]:
    parts: list[Part] = []
    for i, chunk in enumerate(re.split(r"\[([^\]]+)\]", q)):
        if chunk:
            parts.append(Item(chunk, "code") if i % 2 else chunk)
    return parts


def _typo(text: str, rng: random.Random) -> str:
    words = list(_WORD.finditer(text))
    if not words:
        return text
    m = rng.choice(words)
    w = m.group()
    i = rng.randrange(len(w) - 1)
    how = rng.choice(("swap", "drop", "double", "near"))
    if how == "swap":
        new = w[:i] + w[i + 1] + w[i] + w[i + 2 :]
    elif how == "drop":
        new = w[:i] + w[i + 1 :]
    elif how == "double":
        new = w[: i + 1] + w[i] + w[i + 1 :]
    else:
        near = {"a": "s", "e": "r", "i": "o", "o": "p", "u": "y", "s": "d", "t": "r", "n": "m"}
        new = w[:i] + near.get(w[i], w[i]) + w[i + 1 :]
    return text[: m.start()] + new + text[m.end() :]


def _merge_split(text: str, rng: random.Random) -> str:
    pairs = list(_PAIR.finditer(text))
    if not pairs:
        return text
    m = rng.choice(pairs)
    a, b = m.group(1), m.group(2)
    new = a + b if rng.random() < 0.5 else a + b[0] + " " + b[1:]
    return text[: m.start()] + new + text[m.end() :]


def _style(parts: list[Part], rng: random.Random, how: str) -> list[Part]:
    """Apply a typing style to the question's own words (items and subjects keep theirs, bar
    lower case, which a lower-case typist applies to codes too)."""

    def plain(fn: Callable[[str], str]) -> list[Part]:
        return [fn(p) if isinstance(p, str) else p for p in parts]

    if how == "lower":
        return [
            p.lower()
            if isinstance(p, str)
            else Item(p.text.lower(), p.kind)
            if p.kind == "code"
            else p
            for p in parts
        ]
    if how == "question_mark":
        return [*parts, "?"]
    if how == "capitalised":
        first = parts[0]
        if isinstance(first, str):
            return [first[:1].upper() + first[1:], *parts[1:], rng.choice(("?", "??", " ?"))]
        return parts
    if how == "no_punctuation":
        return plain(lambda s: re.sub(r"[?.,!]", "", s))
    return parts


@dataclass(frozen=True)
class _Ask:
    qid: str
    product: str
    slice: str
    parts: tuple[Part, ...]


def _asks() -> list[_Ask]:
    return [
        _Ask(f"q{i + 1:03d}", prod, sl, tuple(_parse(q)))
        for i, (prod, sl, q) in enumerate(QUESTIONS)
    ]


GREETINGS = ("hi ", "hello, ", "Hi there ", "hiya ", "", "", "", "ok so ", "quick one ")
JOINERS_START = (", ", " - ", " ", ". ", "\n")
JOINERS_MID = ((", ", ", "), (" - ", " - "), (" (", ") "), (" ", " "))
JOINERS_END = (". ", " ", ", ", " - ", "\n")


def _place(
    question: list[Part], planted: list[tuple[list[Part], str]], rng: random.Random
) -> tuple[list[Part], dict[int, str]]:
    """The question with each planted item's parts at its position (start, middle, end), and
    the position of every item by its index in the returned parts."""
    tagged: list[tuple[Part, str]] = [(p, "") for p in question]
    ends: list[list[Part]] = [p for p, pos in planted if pos == "end"]
    for mid, pos in planted:
        if pos != "middle":
            continue
        # split the longest plain part at its middle space
        idx = max(
            range(len(tagged)), key=lambda i: len(p) if isinstance(p := tagged[i][0], str) else -1
        )
        s = tagged[idx][0]
        spaces = [m.start() for m in re.finditer(" ", s)] if isinstance(s, str) else []
        if not spaces:
            ends.append(mid)
            continue
        cut = spaces[len(spaces) // 2]
        a, b = rng.choice(JOINERS_MID)
        tagged[idx : idx + 1] = [
            (s[:cut] + a, ""),
            *[(x, "middle") for x in mid],
            (b + s[cut + 1 :], ""),
        ]
    out: list[tuple[Part, str]] = []
    for st, pos in planted:
        if pos == "start":
            out += [*[(x, "start") for x in st], (rng.choice(JOINERS_START), "")]
    out += tagged
    for en in ends:
        out += [(rng.choice(JOINERS_END), ""), *[(x, "end") for x in en]]
    position = {
        i: pos for i, (p, pos) in enumerate(out) if isinstance(p, Item) and p.kind.isupper()
    }
    return [p for p, _ in out], position


def _pii_rows(rng: random.Random) -> list[dict]:
    asks = _asks()
    # every (kind, format) ITEMS_PER_FORMAT times, dealt to random entries, at most two each
    slots = [
        (k, f)
        for k in KINDS
        for f in FORMATS[k]
        for _ in range(ITEMS_PER_FORMAT_OF.get(k, ITEMS_PER_FORMAT))
    ]
    rng.shuffle(slots)
    people = [_person(rng) for _ in range(60)]
    weights = [1 / (i + 1) ** 0.7 for i in range(len(asks))]  # some questions are asked a lot
    order = list(range(len(asks)))
    rng.shuffle(order)
    asked: Counter[str] = Counter()
    rows = []
    t0 = dt.datetime(2025, 1, 6, 8, 0, 0)
    load = [0] * N_ENTRIES
    for _ in slots:
        e = rng.randrange(N_ENTRIES)
        while load[e] >= 2:
            e = rng.randrange(N_ENTRIES)
        load[e] += 1
    last: dict[str, tuple[str, list[dict], list[dict]]] = {}
    for n in range(N_ENTRIES):
        ask = asks[order[rng.choices(range(len(asks)), weights)[0]]]
        asked[ask.qid] += 1
        variant = (
            "first"
            if asked[ask.qid] == 1
            else rng.choice(("resend", "other_pii", "typo", "merge_split", "typo"))
        )
        question = list(ask.parts)
        plain_idx = [i for i, p in enumerate(question) if isinstance(p, str)]
        if variant in ("typo", "merge_split") or rng.random() < 0.15:
            i = rng.choice(plain_idx)
            fn = _merge_split if variant == "merge_split" else _typo
            question[i] = fn(question[i], rng)  # type: ignore[arg-type]
        question = _style(
            question,
            rng,
            rng.choice(
                ("lower", "lower", "no_punctuation", "question_mark", "capitalised", "as_is")
            ),
        )
        planted: list[tuple[list[Part], str]] = []
        person = rng.choice(people)
        for _ in range(load[n]):
            kind, fmt = slots.pop()
            pos = (
                "end"
                if kind == "NAME" and fmt == "sign_off"
                else rng.choice(("start", "middle", "end"))
            )
            planted.append((FORMATS[kind][fmt](rng, person), pos))
        greeting = rng.choice(GREETINGS)
        parts, position = _place(question, planted, rng)
        if greeting and not (planted and any(pos == "start" for _, pos in planted)):
            parts = [greeting, *parts]
            position = {i + 1: v for i, v in position.items()}
        text, items, subjects = _join(parts, position)
        if variant == "resend" and not load[n]:  # the previous asking sent again, as it was
            text, items, subjects = last[ask.qid]
        elif variant == "resend":
            variant = "other_pii"
        last[ask.qid] = (text, items, subjects)
        t0 += dt.timedelta(seconds=rng.randint(30, 3600))
        rows.append(
            {
                "id": f"e{n + 1:04d}",
                "set": "pii",
                "ts": t0.isoformat() + "Z",
                "product": ask.product,
                "slice": ask.slice,
                "question": ask.qid,
                "variant": variant,
                "text": text,
                "items": [dict(i) for i in items],
                "subjects": [dict(x) for x in subjects],
            }
        )
    return rows


# --- hard negatives --------------------------------------------------------------------------

NEGATIVE_SUBJECTS: dict[str, tuple[str, ...]] = {
    "insurer_code": (
        "END-M-12",
        "EX-H-07",
        "EXC-TR-05",
        "END-HM-03",
        "END-TR-09",
        "EX-M-02",
        "END-MT-13",
        "GEN-EX-4",
    ),
    "form_code": (
        "MT-PW-2024/01",
        "HM-PW-2025/02",
        "TR-PW-2024/01",
        "KGI/HM/IPID/25",
        "form MC-14b",
        "PW-HM-0325",
    ),
    "section": ("section 4.11", "section 2", "part B", "section 6.3(b)", "schedule 2"),
    "clause": ("clause 3.2.1", "clause 7.4", "condition 12", "general condition 9(a)"),
    "amount": ("£1,250", "250 pounds", "£100", "£50,000", "1.5k", "€420", "£2,500.00", "350 quid"),
    "travel_date": (
        "from 03/06/2025 to 14/06/2025",
        "on 21/12/2025",
        "between 1st and 15th August",
        "12-19 July 2025",
        "from 2025-04-03 to 2025-04-10",
    ),
    "flight": ("BA 2490", "EZY8123", "FR 1884", "flight VS3"),
    "road": ("M25", "A40", "M6 toll", "A1(M)", "B4391"),
    "duration": ("60 days", "31 days", "14 nights", "6 months", "48 hours"),
    "percentage": ("10%", "25 percent", "50%", "2.5%"),
    "car_model": (
        "Ford Fiesta 1.2",
        "VW Golf",
        "Tesla Model 3",
        "BMW 320d",
        "Vauxhall Corsa 1.4 SRi",
        "Nissan Leaf",
    ),
    "destination": ("Spain", "New York", "Lanzarote", "the Algarve", "Thailand", "Paris", "Jersey"),
    "company": (
        "Kestrel General Insurance plc",
        "Kestrel Home Plus",
        "Kestrel Assist",
        "Kestrel Motor Comprehensive",
        "Kestrel Travel Annual",
        "KestrelDrive app",
    ),
}
NEGATIVE_TEMPLATES: dict[str, tuple[str, ...]] = {
    "insurer_code": (
        "what does {} change",
        "what does {} mean on my schedule",
        "is {} still on my policy",
        "does {} apply to me",
    ),
    "form_code": (
        "is {} the latest wording",
        "what changed in {}",
        "where do I find {}",
        "my documents say {} what is that",
    ),
    "section": ("what is in {} of the wording", "can you explain {}", "does {} cover flooding"),
    "clause": ("does {} apply to my conservatory", "what does {} say", "explain {} please"),
    "amount": (
        "is {} the limit for bikes",
        "will you pay {} for a lost phone",
        "my excess is {} is that right",
        "can I claim {} for the carpet",
    ),
    "travel_date": (
        "am I covered {} for skiing",
        "i am travelling {} is that covered",
        "trip {} do I need to tell you",
    ),
    "flight": (
        "my flight {} was cancelled can I claim",
        "{} got delayed 6 hours",
        "is a delay on {} covered",
    ),
    "road": (
        "I broke down on the {} is recovery included",
        "had a crash on the {} what now",
        "does breakdown cover the {}",
    ),
    "duration": (
        "is the house covered if empty for {}",
        "can I travel for {}",
        "how long is {} in the cooling off period",
    ),
    "percentage": (
        "is there a {} discount for no claims",
        "do you take {} off for wear and tear",
        "is {} the multi car discount",
    ),
    "car_model": (
        "is a {} a group 10 car",
        "can I add a {} to my policy",
        "does my {} need a tracker",
    ),
    "destination": (
        "does my travel insurance cover {}",
        "going to {} next month am I covered",
        "is {} in the europe zone",
    ),
    "company": (
        "does {} cover legal expenses",
        "is {} the same as my old policy",
        "how do I contact {}",
    ),
}


def _negative_rows(rng: random.Random) -> list[dict]:
    rows, kinds = [], list(NEGATIVE_SUBJECTS)
    t0 = dt.datetime(2025, 1, 6, 9, 0, 0)
    for n in range(N_NEGATIVES):
        kind = kinds[n % len(kinds)]
        template = rng.randrange(len(NEGATIVE_TEMPLATES[kind]))  # the stream rng.choice draws
        subject = rng.randrange(len(NEGATIVE_SUBJECTS[kind]))
        before, _, after = NEGATIVE_TEMPLATES[kind][template].partition("{}")
        parts: list[Part] = [
            x for x in (before, Item(NEGATIVE_SUBJECTS[kind][subject], kind), after) if x
        ]
        if rng.random() < 0.2:
            parts = [_typo(p, rng) if isinstance(p, str) else p for p in parts]
        how = rng.choice(("lower", "question_mark", "capitalised", "no_punctuation", "as_is"))
        if (
            how == "lower"
        ):  # a lower-case typist lowers codes too; destinations and models are names
            parts = [
                p.lower()
                if isinstance(p, str)
                else Item(p.text.lower(), p.kind)
                if kind.endswith("code")
                else p
                for p in parts
            ]
        else:
            parts = _style(parts, rng, how)
        text, _, subjects = _join(parts, {})
        t0 += dt.timedelta(seconds=rng.randint(60, 7200))
        rows.append(
            {
                "id": f"n{n + 1:04d}",
                "set": "negative",
                "ts": t0.isoformat() + "Z",
                "product": rng.choice(PRODUCTS),
                "slice": "identifiers"
                if kind.endswith("code") or kind in ("section", "clause")
                else "limits"
                if kind == "amount"
                else "exclusions",
                "question": f"neg-{kind}-{template}-{subject}",
                "variant": "negative",
                "text": text,
                "items": [],
                "subjects": subjects,
            }
        )
    return rows


def build(seed: int = 0) -> list[dict]:
    """The log's rows for `seed`: the personal-data entries, then the hard negatives."""
    rng = random.Random(f"ragsweep-pii-log:{seed}")
    rows = _pii_rows(rng) + _negative_rows(rng)
    for r in rows:
        for span in r["items"] + r["subjects"]:
            assert r["text"][span["start"] : span["end"]] == span["value"], (r["id"], span)
    return rows


def totals(rows: list[dict]) -> dict:
    """Counts for a reader: entries, items and formats per kind, distinct values."""
    items = [i for r in rows for i in r["items"]]
    pii = [r for r in rows if r["set"] == "pii"]
    return {
        "entries": len(pii),
        "entries_with_items": sum(bool(r["items"]) for r in pii),
        "negatives": len(rows) - len(pii),
        "questions": len({r["question"] for r in pii}),
        "items": len(items),
        "distinct_values": len({i["value"] for i in items}),
        "items_per_kind": {k: sum(i["kind"] == k for i in items) for k in KINDS},
        "formats_per_kind": {k: len({i["format"] for i in items if i["kind"] == k}) for k in KINDS},
        "positions": dict(Counter(i["position"] for i in items)),
    }


# --- measuring a scrubber against the truth -----------------------------------------------------

PLACEHOLDER = re.compile(r"<[A-Z][A-Z0-9_]*>")
_MARK = "\ue000"  # a placeholder, as one private-use character that matches nothing raw


def kept(raw: str, scrubbed: str) -> list[bool]:
    """Per character of `raw`: did it survive into `scrubbed`? The two are aligned with difflib
    (no autojunk), each placeholder first turned into one private-use character, so a survivor
    is a character inside a block the alignment found equal."""
    out = PLACEHOLDER.sub(_MARK, scrubbed)
    keep = [False] * len(raw)
    matcher = difflib.SequenceMatcher(None, raw, out, autojunk=False)
    for i, _, n in matcher.get_matching_blocks():
        keep[i : i + n] = [True] * n
    return keep


def outcome(raw: str, keep: list[bool], start: int, end: int) -> str:
    """ "removed", "partly" or "missed" for the item at raw[start:end].

    Only letters and digits count (separators and spacing may stay). `missed`: every one of
    them survived. `removed`: no digit survived and no run of 3 or more letters or digits
    (consecutive in the raw text) survived: a stray initial left of "O'Brien" is not the name.
    `partly`: anything between (`<CLAIM_REF>-004417`, `<NAME> Jones`)."""
    alnum = [k for k in range(start, end) if raw[k].isalnum()]
    alive = [k for k in alnum if keep[k]]
    if not alive:
        return "removed"
    if len(alive) == len(alnum):
        return "missed"
    if any(raw[k].isdigit() for k in alive):
        return "partly"
    run = longest = 0
    for k in range(start, end):
        run = run + 1 if raw[k].isalnum() and keep[k] else 0
        longest = max(longest, run)
    return "partly" if longest >= 3 else "removed"


def subject_lost(keep: list[bool], raw: str, start: int, end: int) -> bool:
    """A subject is lost when any of its letters or digits did not survive."""
    return any(raw[k].isalnum() and not keep[k] for k in range(start, end))


def added_placeholders(raw: str, scrubbed: str) -> int:
    """Placeholders in `scrubbed` beyond those `raw` already held."""
    return max(0, len(PLACEHOLDER.findall(scrubbed)) - len(PLACEHOLDER.findall(raw)))


def score(rows: list[dict], scrubbed: list[str]) -> dict:
    """Per kind and per (kind, format): items, removed, partly, missed; on the negatives:
    questions, how many lost a subject, and per subject kind. No text or value goes into the
    result."""
    per_kind: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    per_format: dict[str, Counter[str]] = {}
    negatives: Counter[str] = Counter()
    lost_by_kind: Counter[str] = Counter()  # questions that lost a subject of this kind
    for r, out in zip(rows, scrubbed, strict=True):
        raw = r["text"]
        keep = kept(raw, out)
        for it in r["items"]:
            o = outcome(raw, keep, it["start"], it["end"])
            for c in (
                per_kind[it["kind"]],
                per_format.setdefault(f"{it['kind']}/{it['format']}", Counter()),
            ):
                c["items"] += 1
                c[o] += 1
        if r["set"] == "negative":
            negatives["questions"] += 1
            lost = {
                s["kind"] for s in r["subjects"] if subject_lost(keep, raw, s["start"], s["end"])
            }
            negatives["lost_subject"] += bool(lost)
            lost_by_kind.update(lost)
    return {
        "kinds": per_kind,
        "formats": per_format,
        "negatives": negatives,
        "negatives_lost_by_kind": lost_by_kind,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for pii_log.jsonl")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rows = build(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "pii_log.jsonl").open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(json.dumps(totals(rows), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
