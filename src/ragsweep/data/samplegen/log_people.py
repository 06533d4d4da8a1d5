"""Fictional policyholders for the query log: names, emails, phones, policy and claim references,
number plates, dates of birth and addresses, each typed one of the ways people type it. All of it
made up (example.* domains, Ofcom's drama telephone ranges). See docs/sample.md.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from ragsweep.data.samplegen.log_parts import Part, log_text
from ragsweep.data.samplegen.log_typing import amount_text
from ragsweep.data.samplegen.spec import ProductDef

PII_KINDS: tuple[str, ...] = (
    "name",
    "email",
    "phone",
    "policy",
    "claim",
    "vehicle_reg",
    "dob",
    "address",
    "postcode",
)

FIRST: tuple[str, ...] = log_text("first_names")
LAST: tuple[str, ...] = log_text("last_names")
DOMAINS = ("example.com", "example.co.uk", "example.org", "example.net")
_POST_AREAS = tuple("SW NW E N SE M B LS G EH CF BS NG L S OX CB BN RG NE W EC WC BT SA".split())
_POST_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"
_STREETS: tuple[str, ...] = log_text("streets")
_SUFFIXES: tuple[str, ...] = log_text("street_suffixes")
_REG_AREAS = tuple("AB BD CE DL EF FG GH HK KM LN MA NB OE PF RK SN VA WF YB".split())
_REG_AGES = ("12", "15", "17", "19", "20", "21", "22", "23", "24", "25", "62", "66", "68", "70")
_REG_LETTERS = "ABCDEFGHJKLMNOPRSTUVWXYZ"


def _letters(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_REG_LETTERS) for _ in range(n))


def _ascii(name: str) -> str:
    table = str.maketrans("ëéèáíóúñüöłżśąćęńÓŁ", "eeeaiounuolzsacenOL")
    return name.translate(table)


@dataclass(frozen=True)
class Person:
    """One fictional policyholder: every personal item a session of theirs may type."""

    first: str
    last: str
    title: str
    email: str
    mobile: str
    phone: str
    policy: str
    claim: str
    reg: str
    dob: dt.date
    address: str
    postcode: str
    relative: str  # "wife", "son" ...
    relative_name: str


def new_person(rng: random.Random, product: ProductDef) -> Person:
    """A made-up policyholder of `product` (its code prefixes some references)."""
    first, last = rng.choice(FIRST), rng.choice(LAST)
    f, la = _ascii(first).lower().replace("-", ""), _ascii(last).lower().replace("'", "")
    local = rng.choice(
        (f"{f}.{la}", f"{f[0]}{la}", f"{f}{rng.randint(1, 99)}", f"{f}_{la}{rng.randint(70, 99)}")
    )
    mobile = f"07700 900{rng.randint(0, 999):03d}"
    area = rng.choice(
        ("020 7946 0", "0161 496 0", "0113 496 0", "0117 496 0", "0121 496 0", "0131 496 0")
    )
    digits = rng.randint(1_000_000, 9_999_999)
    policy = rng.choice(
        (
            f"POL-{rng.randint(10_000_000, 99_999_999)}",
            f"POL{rng.randint(10_000_000, 99_999_999)}",
            f"{product.code}/{digits}",
            f"{product.code}-{rng.randint(10_000_000, 99_999_999)}",
            f"{rng.randint(10_000_000, 99_999_999)}",
        )
    )
    claim = rng.choice(
        (
            f"CLM-{rng.randint(1_000_000, 9_999_999)}",
            f"CLM{rng.randint(100_000, 999_999)}",
            f"{product.code}C/{rng.randint(100_000, 999_999)}",
            f"{rng.randint(1_000_000, 9_999_999)}",
        )
    )
    reg = rng.choices(
        (
            f"{rng.choice(_REG_AREAS)}{rng.choice(_REG_AGES)} {_letters(rng, 3)}",
            f"{rng.choice(_REG_AREAS)}{rng.choice(_REG_AGES)}{_letters(rng, 3)}",
            f"{_letters(rng, 1)}{rng.randint(1, 999)} {_letters(rng, 3)}",
            f"{_letters(rng, 3)} {rng.randint(1, 999)}{_letters(rng, 1)}",
        ),
        (0.55, 0.2, 0.15, 0.1),
    )[0]
    street = f"{rng.choice(_STREETS)} {rng.choice(_SUFFIXES)}"
    number = rng.randint(1, 180)
    address = rng.choices(
        (
            f"{number} {street}",
            f"flat {rng.randint(1, 24)}, {number} {street}",
            f"Flat {rng.randint(1, 9)}{rng.choice('ABC')}, {number} {street}",
            f"{number}a {street}",
        ),
        (0.6, 0.2, 0.1, 0.1),
    )[0]
    postcode = (
        f"{rng.choice(_POST_AREAS)}{rng.randint(1, 20)} {rng.randint(0, 9)}"
        f"{rng.choice(_POST_LETTERS)}{rng.choice(_POST_LETTERS)}"
    )
    return Person(
        first=first,
        last=last,
        title=rng.choice(("Mr", "Mrs", "Ms", "Miss", "Dr", "Mx")),
        email=f"{local}@{rng.choice(DOMAINS)}",
        mobile=mobile,
        phone=f"{area}{rng.randint(0, 999):03d}",
        policy=policy,
        claim=claim,
        reg=reg,
        dob=dt.date(1940, 1, 1) + dt.timedelta(days=rng.randrange(365 * 63)),
        address=address,
        postcode=postcode,
        relative=rng.choice(("wife", "husband", "partner", "son", "daughter", "mum", "dad")),
        relative_name=rng.choice(FIRST),
    )


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _dob_text(d: dt.date, rng: random.Random) -> str:
    month = d.strftime("%B")
    return rng.choice(
        (
            f"{d:%d/%m/%Y}",
            f"{d.day}/{d.month}/{d:%y}",
            f"{d:%d.%m.%Y}",
            f"{d.isoformat()}",
            f"{_ordinal(d.day)} {month} {d.year}",
            f"{d.day} {month.lower()[:3]} {d.year}",
            f"{month} {d.day}, {d.year}",
            f"the {_ordinal(d.day)} of {month} {d.year}",
        )
    )


def _phone_text(p: Person, rng: random.Random) -> str:
    """One of the person's numbers, typed one of the ways people type them."""
    if rng.random() < 0.6:
        rest = p.mobile[6:]
        return rng.choice(
            (
                p.mobile,
                f"07700{rest}",
                f"+447700{rest}",
                f"+44 7700 {rest}",
                f"07700 {rest[:3]} {rest[3:]}",
                f"+44 (0)7700 {rest}",
            )
        )
    code, mid, end = p.phone.rsplit(" ", 2) if p.phone.count(" ") == 2 else (p.phone, "", "")
    return rng.choice(
        (p.phone, f"({code}) {mid} {end}", f"{code}{mid}{end}", f"+44 {code[1:]} {mid} {end}")
    )


def pii_values(p: Person, rng: random.Random) -> dict[str, Part]:
    """The `{name}` fields of querylog.yaml's frames, each of `p`'s items typed one way."""
    name = rng.choice(
        (
            f"{p.first} {p.last}",
            f"{p.first} {p.last}",
            p.first,
            f"{p.first.lower()} {p.last.lower()}",
            f"{p.first} {p.last.upper()}",
        )
    )
    return {
        "name": (name, "name"),
        "first": (p.first, "name"),
        "title": (p.title, None),
        "last": (p.last, "name"),
        "relative": (p.relative, None),
        "rel_name": (p.relative_name, "name"),
        "email": (p.email if rng.random() < 0.85 else p.email.capitalize(), "email"),
        "phone": (_phone_text(p, rng), "phone"),
        "policy": (p.policy, "policy"),
        "claim": (p.claim, "claim"),
        "reg": (p.reg if rng.random() < 0.85 else p.reg.lower(), "vehicle_reg"),
        "dob": (_dob_text(p.dob, rng), "dob"),
        "address": (p.address, "address"),
        "postcode": (p.postcode if rng.random() < 0.85 else p.postcode.lower(), "postcode"),
        "amount": (amount_text(rng), None),
    }
