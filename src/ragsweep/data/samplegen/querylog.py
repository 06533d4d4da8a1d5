"""A raw query log, 2024-01-15 to 2025-12-19, as the per-product assistants recorded it.

Each session is one policyholder on one product (`product` is always set); `form` is the
policyholder's wording form code, or null for an anonymous session (`P_ANONYMOUS`). A policy is
on the 2024 form until its first start or renewal on or after the 2025 form's start date
(`ProductDef.starts["2025"]`), so for up to a year after that date some sessions still hold 2024
policies.

What production looks like, and what the sample's builder, scrubber and dedupe must cope with:

- Questions drawn from the wordings' asks (`ask_candidates`, `identifier_candidates`), typed the
  way people type: a per-session style (lower case, no question mark, text-speak, curly quotes
  from a phone keyboard), varied greetings and sign-offs, typos in about `P_TYPO` of entries
  (keyboard slips and common misspellings, in content words too), amounts as £1,500 / 1500 /
  1.5k / 350 quid / €420.
- Entries no wording answers (`Truth.candidate is None`): out-of-scope requests, account and
  claim-status requests, follow-ups that only make sense inside the session, chit-chat, a few
  messages in Welsh or Polish.
- Exact duplicates (re-sends, popular questions asked by others) and near-duplicates (typos,
  reordered words) for `labels sample` to remove.
- Personal data at the start, in the middle or at the end of about a sixth of the entries, every
  item recorded as a `(start, end, kind)` span in `Truth.pii` (`PII_KINDS`). All of it fictional:
  example.* email domains, Ofcom's drama telephone ranges, made-up names, streets and plates.

`build_query_log(corpus, seed)` returns the entries (the JSONL rows), the hidden truth per
entry, and `notes` (the realised counts, for dataset.json).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ragsweep.data.samplegen import texts
from ragsweep.data.samplegen.questions import (
    P_FORMAL,
    Candidate,
    ask_candidates,
    identifier_candidates,
    render,
)
from ragsweep.data.samplegen.spec import SLICES, VERSIONS, ProductDef
from ragsweep.data.samplegen.wordings import PRODUCTS, Corpus

START = dt.date(2024, 1, 15)
END = dt.date(2025, 12, 19)
#: sessions are added until the log holds this many entries
MIN_ENTRIES = 7600
PRODUCT_SHARES: dict[str, float] = {"motor": 0.40, "home": 0.35, "travel": 0.25}
#: slice mix of newly asked answerable questions
SLICE_SHARES: dict[str, float] = {
    "limits": 0.22,
    "exclusions": 0.21,
    "procedures": 0.24,
    "definitions": 0.21,
    "identifiers": 0.12,
}
P_ANONYMOUS = 0.10  # session not logged in: form null, version unknown
P_TYPO = 0.20  # entry carries 1-2 typos
P_PERSONAL_QUESTION = 0.16  # an answerable question carries personal data
SESSION_LENGTHS = ((1, 0.45), (2, 0.27), (3, 0.14), (4, 0.08), (5, 0.04), (6, 0.02))
#: what a turn is, first turn of a session / later turns (shares)
FIRST_TURN: dict[str, float] = {
    "ask": 0.70,
    "repeat": 0.05,
    "near": 0.07,
    "account": 0.08,
    "out_of_scope": 0.06,
    "chitchat": 0.03,
    "foreign": 0.01,
}
LATER_TURN: dict[str, float] = {
    "ask": 0.50,
    "resend": 0.06,
    "repeat": 0.03,
    "near": 0.05,
    "follow_up": 0.20,
    "account": 0.07,
    "out_of_scope": 0.04,
    "chitchat": 0.045,
    "foreign": 0.005,
}
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


@dataclass(frozen=True)
class Truth:
    """What the generator knows about one entry and the log does not say."""

    candidate: Candidate | None  # None: out of scope, account/claim status, follow-up, chit-chat
    version: str | None  # the policyholder's wording version (None: anonymous session)
    pii: tuple[tuple[int, int, str], ...]  # (start, end, kind) spans of personal data in text


@dataclass(frozen=True)
class QueryLog:
    entries: list[dict]  # {"ts", "session", "product", "form", "text"}, in time order
    truth: list[Truth]  # same order and length as entries
    notes: dict = field(default_factory=dict)


# --- people ---------------------------------------------------------------------------------


def _text(key: str, tp: Any = tuple[str, ...]) -> Any:
    """Table `key` of querylog.yaml: the log's wording around the questions, one line an entry."""
    return texts.load("querylog.yaml", key, tp)


FIRST: tuple[str, ...] = _text("first_names")
LAST: tuple[str, ...] = _text("last_names")
DOMAINS = ("example.com", "example.co.uk", "example.org", "example.net")
_POST_AREAS = tuple("SW NW E N SE M B LS G EH CF BS NG L S OX CB BN RG NE W EC WC BT SA".split())
_POST_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"
_STREETS: tuple[str, ...] = _text("streets")
_SUFFIXES: tuple[str, ...] = _text("street_suffixes")
_REG_AREAS = tuple("AB BD CE DL EF FG GH HK KM LN MA NB OE PF RK SN VA WF YB".split())
_REG_AGES = ("12", "15", "17", "19", "20", "21", "22", "23", "24", "25", "62", "66", "68", "70")
_REG_LETTERS = "ABCDEFGHJKLMNOPRSTUVWXYZ"


def _letters(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_REG_LETTERS) for _ in range(n))


def _ascii(name: str) -> str:
    table = str.maketrans("ëéèáíóúñüöłżśąćęńÓŁ", "eeeaiounuolzsacenOL")
    return name.translate(table)


@dataclass(frozen=True)
class _Person:
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


def _person(rng: random.Random, product: ProductDef) -> _Person:
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
    return _Person(
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


def _phone_text(p: _Person, rng: random.Random) -> str:
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


# --- text with spans ------------------------------------------------------------------------

Part = tuple[str, str | None]  # (text, PII kind or None)


def _fill(template: str, values: dict[str, Part]) -> list[Part]:
    """`template` with `{name}` placeholders replaced by `values` (kept as separate parts)."""
    parts: list[Part] = []
    pos = 0
    for m in re.finditer(r"\{(\w+)\}", template):
        if m.start() > pos:
            parts.append((template[pos : m.start()], None))
        parts.append(values[m.group(1)])
        pos = m.end()
    if pos < len(template):
        parts.append((template[pos:], None))
    return parts


def _join(parts: list[Part]) -> tuple[str, tuple[tuple[int, int, str], ...]]:
    text, spans, pos = [], [], 0
    for chunk, kind in parts:
        if kind is not None:
            spans.append((pos, pos + len(chunk), kind))
        text.append(chunk)
        pos += len(chunk)
    return "".join(text), tuple(spans)


# --- typing styles --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Style:
    lower: float  # chance an entry is all lower case
    no_mark: float  # chance the question mark is dropped
    textspeak: float  # chance per replaceable word
    curly: bool  # phone keyboard: ’ for '
    greet: float
    sign: float


def _style(rng: random.Random) -> _Style:
    kind = rng.choices(("neat", "casual", "sloppy", "textspeak"), (0.35, 0.35, 0.18, 0.12))[0]
    lower, no_mark, speak = {
        "neat": (0.02, 0.05, 0.0),
        "casual": (0.3, 0.35, 0.05),
        "sloppy": (0.85, 0.7, 0.15),
        "textspeak": (0.7, 0.6, 0.6),
    }[kind]
    return _Style(
        lower, no_mark, speak, rng.random() < 0.12, rng.uniform(0.0, 0.3), rng.uniform(0.0, 0.15)
    )


_TEXTSPEAK: dict[str, tuple[str, ...]] = _text("textspeak", dict[str, tuple[str, ...]])
_SPEAK_WORD = re.compile(
    r"\b(?:" + "|".join(sorted(map(re.escape, _TEXTSPEAK), key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)

_SELF_INTRO = ("hi", "hello", "this is", "my name", "it's", "name:", "re ", "about")
GREETINGS: tuple[str, ...] = _text("greetings")
SIGN_OFFS: tuple[str, ...] = _text("sign_offs")
EMOJI: tuple[str, ...] = _text("emoji")

MISSPELLINGS: dict[str, tuple[str, ...]] = _text("misspellings", dict[str, tuple[str, ...]])
_KEYBOARD = {
    c: n
    for row in ("qwertyuiop", "asdfghjkl", "zxcvbnm")
    for i, c in enumerate(row)
    for n in [row[max(0, i - 1)] + row[min(len(row) - 1, i + 1)]]
}
_WORD = re.compile(r"[A-Za-z]{3,}")


def _typo_word(word: str, rng: random.Random) -> str:
    known = MISSPELLINGS.get(word.lower())
    if known and rng.random() < 0.6:
        out = rng.choice(known)
        return out.capitalize() if word[:1].isupper() else out
    chars = list(word)
    i = rng.randrange(1, len(chars) - 1) if len(chars) > 2 else 0
    kind = rng.randrange(4)
    if kind == 0:
        chars[i], chars[i + 1] = chars[i + 1], chars[i]
    elif kind == 1:
        del chars[i]
    elif kind == 2:
        chars.insert(i, chars[i])
    else:
        near = _KEYBOARD.get(chars[i].lower())
        if near:
            chars[i] = rng.choice(near)
    return "".join(chars)


def _typos(parts: list[Part], rng: random.Random) -> list[Part]:
    """1-2 typos in the plain (non-personal) parts, content words preferred."""
    spots = [
        (p, m)
        for p, (chunk, kind) in enumerate(parts)
        if kind is None
        for m in _WORD.finditer(chunk)
        if not any(c.isupper() for c in m.group()[1:])  # not in codes like EXC or END
    ]
    if not spots:
        return parts
    weights = [len(m.group()) ** 1.5 for _, m in spots]
    chosen = {id(m): (p, m) for p, m in rng.choices(spots, weights, k=rng.randint(1, 2))}
    out = list(parts)
    for p, m in sorted(chosen.values(), key=lambda pm: (-pm[0], -pm[1].start())):
        chunk = out[p][0]
        out[p] = (chunk[: m.start()] + _typo_word(m.group(), rng) + chunk[m.end() :], None)
    return out


def _plain(parts: list[Part], fn: Callable[[str], str]) -> list[Part]:
    return [(fn(chunk) if kind is None else chunk, kind) for chunk, kind in parts]


def _apply_style(parts: list[Part], style: _Style, rng: random.Random) -> list[Part]:
    """Case, punctuation, text-speak and apostrophes of one typist; personal items keep their
    own case except in an all-lower-case entry, where names and codes are lowered too (often)."""
    lower = rng.random() < style.lower
    if lower:
        lower_pii = rng.random() < 0.6
        parts = [
            (chunk.lower() if kind is None or (lower_pii and kind != "email") else chunk, kind)
            for chunk, kind in parts
        ]
    if style.textspeak:

        def speak(chunk: str) -> str:
            def one(m: re.Match[str]) -> str:
                if rng.random() >= style.textspeak:
                    return m.group()
                return rng.choice(_TEXTSPEAK[m.group().lower()])

            return _SPEAK_WORD.sub(one, chunk)

        parts = _plain(parts, speak)
    if rng.random() < style.no_mark:
        parts = _plain(parts, lambda c: c.replace("?", ""))
    if style.curly:
        parts = [(c.replace("'", "’"), k) for c, k in parts]
    return parts


# --- money ----------------------------------------------------------------------------------


def _amount(rng: random.Random, euro: bool = False) -> str:
    n = rng.choice((85, 120, 250, 350, 400, 480, 650, 750, 900, 1200, 1500, 2000, 2500, 3800))
    if euro:
        return rng.choice((f"€{n}", f"{n} euros", f"€{n:,}", f"{n}€", f"EUR {n}"))
    forms = [f"£{n:,}", f"£{n}", f"{n}", f"{n} pounds", f"£ {n}", f"{n} quid", f"£{n}.00"]
    if n >= 1000:
        forms += [f"{n / 1000:g}k", f"£{n / 1000:g}k", f"{n / 1000:g} grand"]
    return rng.choice(forms)


_MONEY_CONTEXT: dict[str, tuple[str, ...]] = _text("money_context", dict[str, tuple[str, ...]])


# --- entries no wording answers -------------------------------------------------------------

OUT_OF_SCOPE: tuple[str, ...] = _text("out_of_scope")
CHITCHAT: tuple[str, ...] = _text("chitchat")
FOREIGN: tuple[str, ...] = _text("foreign")
FOLLOW_UPS_ANY: tuple[str, ...] = _text("follow_ups_any")
FOLLOW_UPS: dict[str, tuple[str, ...]] = _text("follow_ups", dict[str, tuple[str, ...]])
ACCOUNT: tuple[str, ...] = _text("account")
ACCOUNT_MOTOR: tuple[str, ...] = _text("account_motor")


# --- timestamps -----------------------------------------------------------------------------

_N_DAYS = (END - START).days + 1
_DAYS = list(range(_N_DAYS))
# weekends quieter, traffic growing over the two years
_DAY_WEIGHTS = [
    (0.55 if (START + dt.timedelta(d)).weekday() >= 5 else 1.0) * (0.6 + 1.0 * d / (_N_DAYS - 1))
    for d in _DAYS
]
_HOURS = list(range(23))  # no session starts after 23:00, so every session ends on its day
# fmt: off
_HOUR_WEIGHTS = [0.1, 0.05, 0.03, 0.03, 0.03, 0.1, 0.3, 0.8, 1.2, 1.5, 1.5, 1.4, 1.3, 1.4, 1.4,
                 1.3, 1.2, 1.1, 1.2, 1.3, 1.1, 0.8, 0.5]
# fmt: on


def _start_date(product: ProductDef, version: str) -> dt.date:
    return dt.datetime.strptime(product.starts[version], "%d %B %Y").date()


def _version_on(product: ProductDef, day: dt.date, renews: tuple[int, int]) -> str:
    """The form of a policy renewing every year on `renews` (month, day), on `day`."""
    month, mday = renews
    term = dt.date(day.year, month, min(mday, 28))
    if term > day:
        term = term.replace(year=day.year - 1)
    return VERSIONS[1] if term >= _start_date(product, VERSIONS[1]) else VERSIONS[0]


def _in_force(product: ProductDef, day: dt.date) -> str:
    """The form a policy bought on `day` would be on."""
    return VERSIONS[1] if day >= _start_date(product, VERSIONS[1]) else VERSIONS[0]


# --- personal data in a question ------------------------------------------------------------


def _pii_values(p: _Person, rng: random.Random) -> dict[str, Part]:
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
        "amount": (_amount(rng), None),
    }


_POLICY_CUE: tuple[str, ...] = _text("policy_cues")
_CLAIM_CUE: tuple[str, ...] = _text("claim_cues")
_DOB_CUE: tuple[str, ...] = _text("dob_cues")


def _cued(value: Part, cues: tuple[str, ...], rng: random.Random) -> list[Part]:
    """A reference: prefixed ones (POL-, CLM-, HM/) may stand alone, bare digits need a cue."""
    if value[0][:1].isalpha() and rng.random() < 0.4:
        return [value]
    return [(rng.choice(cues), None), value]


_LEADS: tuple[tuple[str, str], ...] = _text("leads", tuple[tuple[str, str], ...])
_TAILS: tuple[tuple[str, str], ...] = _text("tails", tuple[tuple[str, str], ...])
_TAILS_MOTOR: tuple[tuple[str, str], ...] = _text("tails_motor", tuple[tuple[str, str], ...])
_MIDDLE: dict[str, tuple[str, ...]] = _text("middle", dict[str, tuple[str, ...]])
_VEHICLES = ("car", "van", "vehicle")
_MIDDLE_AT = re.compile(
    r"\bmy (" + "|".join(_MIDDLE) + r")\b(?!'|’|\s+(?:insurance|policy|cover|polic))", re.IGNORECASE
)


def _expand_refs(template: str, values: dict[str, Part], rng: random.Random) -> list[Part]:
    parts: list[Part] = []
    for chunk in re.split(r"(\{[A-Za-z_]+\})", template):
        if chunk == "{POLICY}":
            parts.extend(_cued(values["policy"], _POLICY_CUE, rng))
        elif chunk == "{CLAIM}":
            parts.extend(_cued(values["claim"], _CLAIM_CUE, rng))
        elif chunk == "{DOB}":
            parts.extend([(rng.choice(_DOB_CUE), None), values["dob"]])
        elif chunk:
            parts.extend(_fill(chunk, values))
    return parts


def _with_pii(
    question: str, person: _Person, product: ProductDef, rng: random.Random
) -> list[Part]:
    """The question with 1-2 personal items at its start, in its middle or at its end."""
    values = _pii_values(person, rng)
    parts: list[Part] = [(question, None)]
    n = rng.choices((1, 2), (0.7, 0.3))[0]
    for _ in range(n):
        where = rng.choices(("lead", "middle", "tail"), (0.35, 0.3, 0.35))[0]
        text = "".join(c for c, _ in parts)
        if where == "middle":
            spots = [
                m
                for m in _MIDDLE_AT.finditer(parts[0][0] if len(parts) == 1 else "")
                if m.group(1).lower() not in ("car", "van", "vehicle")
                or product.document == "motor"
            ]
            if spots:
                m = rng.choice(spots)
                tpl = rng.choice(_MIDDLE[m.group(1).lower()])
                q = parts[0][0]
                parts = [
                    (q[: m.end()], None),
                    *_expand_refs(tpl, values, rng),
                    (q[m.end() :], None),
                ]
                continue
            where = "tail"
        if where == "lead":
            _, tpl = rng.choice(_LEADS)
            lead = _expand_refs(tpl, values, rng)
            first = parts[0]
            if first[1] is None and tpl.endswith((". ", ": ", "- ")):
                first = (first[0][:1].upper() + first[0][1:], None)
            elif first[1] is None:
                first = (first[0][:1].lower() + first[0][1:], None)
            parts = [*lead, first, *parts[1:]]
        else:
            _, tpl = rng.choice(_TAILS + (_TAILS_MOTOR if product.document == "motor" else ()))
            tail = _expand_refs(tpl, values, rng)
            if not text.rstrip().endswith(("?", ".", "!")) and rng.random() < 0.5:
                tail = [(",", None), *tail]
            parts = [*parts, *tail]
    return parts


# --- sessions -------------------------------------------------------------------------------


@dataclass
class _Row:
    ts: int  # seconds since START midnight UTC
    session: int
    seq: int
    product: str
    form: str | None
    text: str
    truth: Truth
    kind: str


def _pools(corpus: Corpus) -> dict[tuple[str, str, str], list[Candidate]]:
    """(product, version, slice) -> candidates."""
    pools: dict[tuple[str, str, str], list[Candidate]] = {}
    for product in PRODUCTS:
        cands = list(ask_candidates(corpus, product))
        for by_kind in identifier_candidates(corpus, product).values():
            cands.extend(by_kind)
        for c in cands:
            pools.setdefault((product.document, c.version, c.slice), []).append(c)
    return pools


def _reorder(text: str, rng: random.Random) -> str:
    if ", " in text:
        head, _, tail = text.partition(", ")
        return f"{tail.rstrip('?').rstrip()}, {head[:1].lower()}{head[1:]}?"
    words = text.split()
    if len(words) < 4:
        return "".join(c for c, _ in _typos([(text, None)], rng))
    i = rng.randrange(len(words) - 1)
    words[i], words[i + 1] = words[i + 1], words[i]
    return " ".join(words)


def build_query_log(corpus: Corpus, seed: int) -> QueryLog:
    """The log for `seed`: entries in time order, their truth, and the realised counts."""
    rng = random.Random(f"ragsweep-sample:{seed}:querylog")
    pools = _pools(corpus)
    by_name = {p.document: p for p in PRODUCTS}
    products, p_w = list(PRODUCT_SHARES), list(PRODUCT_SHARES.values())
    slices, s_w = list(SLICE_SHARES), list(SLICE_SHARES.values())
    lengths, l_w = [n for n, _ in SESSION_LENGTHS], [w for _, w in SESSION_LENGTHS]
    # earlier plain questions per (product, candidate version), for repeats and near-duplicates
    asked: dict[tuple[str, str], list[tuple[str, Candidate]]] = {}
    rows: list[_Row] = []
    counts: Counter[str] = Counter()
    session = 0
    while len(rows) < MIN_ENTRIES:
        session += 1
        product = by_name[rng.choices(products, p_w)[0]]
        doc = product.document
        day = START + dt.timedelta(rng.choices(_DAYS, _DAY_WEIGHTS)[0])
        ts = (day - START).days * 86400 + rng.choices(_HOURS, _HOUR_WEIGHTS)[0] * 3600
        ts += rng.randrange(3600)
        person = _person(rng, product)
        style = _style(rng)
        anonymous = rng.random() < P_ANONYMOUS
        renews = (rng.randint(1, 12), rng.randint(1, 28))
        version = None if anonymous else _version_on(product, day, renews)
        asks_version = version or _in_force(product, day)
        form = None if version is None else product.forms[version]
        previous: _Row | None = None
        for seq in range(rng.choices(lengths, l_w)[0]):
            shares = FIRST_TURN if seq == 0 else LATER_TURN
            kind = rng.choices(list(shares), list(shares.values()))[0]
            cand: Candidate | None = None
            parts: list[Part]
            if kind in ("repeat", "near") and not asked.get((doc, asks_version)):
                kind = "ask"
            if kind == "resend" and previous is not None:
                ts += rng.randint(2, 20)  # an impatient re-send seconds later
                rows.append(_Row(ts, session, seq, doc, form, previous.text, previous.truth, kind))
                counts[kind] += 1
                continue
            if kind == "resend":
                kind = "ask"
            if kind == "ask":
                slice_ = rng.choices(slices, s_w)[0]
                cand = rng.choice(pools[(doc, asks_version, slice_)])
                question = render(cand, rng, P_FORMAL / 2)
                if slice_ == "limits" and rng.random() < 0.15:
                    context = rng.choice(_MONEY_CONTEXT[doc]).format(
                        amount=_amount(rng), euro=_amount(rng, euro=True)
                    )
                    question = context[:1].upper() + context[1:] + question
                    counts["money_context"] += 1
                parts = [(question, None)]
                if rng.random() < P_PERSONAL_QUESTION:
                    parts = _with_pii(question, person, product, rng)
            elif kind in ("repeat", "near"):
                source, cand = rng.choice(asked[(doc, asks_version)])
                text = source
                if kind == "near":
                    text = (
                        "".join(c for c, _ in _typos([(source, None)], rng))
                        if rng.random() < 0.6
                        else _reorder(source, rng)
                    )
                parts = [(text, None)]
            elif kind == "follow_up":
                tpl = rng.choice(FOLLOW_UPS_ANY + FOLLOW_UPS[doc])
                parts = [(tpl.format(amount=_amount(rng)), None)]
            elif kind == "account":
                pool = ACCOUNT + (ACCOUNT_MOTOR if doc == "motor" else ())
                parts = _expand_refs(rng.choice(pool), _pii_values(person, rng), rng)
            elif kind == "out_of_scope":
                parts = [(rng.choice(OUT_OF_SCOPE), None)]
            elif kind == "chitchat":
                parts = [(rng.choice(CHITCHAT), None)]
            else:  # foreign
                parts = [(rng.choice(FOREIGN), None)]

            if kind in ("ask", "account", "follow_up", "out_of_scope", "near"):
                if kind != "near" and rng.random() < P_TYPO:
                    parts = _typos(parts, rng)
                    counts["typo"] += 1
                if kind != "near":
                    parts = _apply_style(parts, style, rng)
                opens = parts[0][0].lower().startswith(_SELF_INTRO)
                if seq == 0 and not opens and rng.random() < style.greet:
                    greet = rng.choice(GREETINGS)
                    first = parts[0]
                    if first[1] is None:
                        first = (first[0][:1].lower() + first[0][1:], None)
                    parts = [(greet, None), first, *parts[1:]]
                if rng.random() < style.sign:
                    parts = [*parts, (rng.choice(SIGN_OFFS), None)]
                elif rng.random() < 0.02:
                    parts = [*parts, (rng.choice(EMOJI), None)]
            if kind == "ask":
                plain = "".join(c for c, k in parts if k is None)
                if not any(k for _, k in parts):
                    asked.setdefault((doc, asks_version), []).append((plain, cand))
            text, spans = _join(parts)
            truth = Truth(cand, version, spans)
            if seq > 0:
                ts += rng.randint(15, 400)  # reading the answer, typing the next message
            row = _Row(ts, session, seq, doc, form, text, truth, kind)
            rows.append(row)
            previous = row
            counts[kind] += 1
    rows.sort(key=lambda r: (r.ts, r.session, r.seq))

    ids: dict[int, str] = {}
    entries: list[dict] = []
    truth: list[Truth] = []
    epoch = dt.datetime(START.year, START.month, START.day, tzinfo=dt.UTC)
    for r in rows:
        sid = ids.setdefault(r.session, f"s{len(ids) + 1:05d}")
        stamp = (epoch + dt.timedelta(seconds=r.ts)).strftime("%Y-%m-%dT%H:%M:%SZ")
        entries.append(
            {"ts": stamp, "session": sid, "product": r.product, "form": r.form, "text": r.text}
        )
        truth.append(r.truth)
    return QueryLog(entries, truth, _notes(entries, truth, rows, counts, len(ids)))


def _notes(
    entries: list[dict], truth: list[Truth], rows: list[_Row], counts: Counter[str], sessions: int
) -> dict:
    n = len(entries)
    texts = [e["text"] for e in entries]
    seen: set[str] = set()
    exact = 0
    for t in texts:
        exact += t in seen
        seen.add(t)
    kinds = Counter(r.kind for r in rows)
    pii = Counter(k for t in truth for *_, k in t.pii)
    answerable = [t for t in truth if t.candidate is not None]
    return {
        "entries": n,
        "sessions": sessions,
        "period": f"{START} to {END} (UTC)",
        "anonymous_entries": sum(e["form"] is None for e in entries),
        "product_shares_target": PRODUCT_SHARES,
        "product_shares_realised": {
            p: round(sum(e["product"] == p for e in entries) / n, 4) for p in PRODUCT_SHARES
        },
        "answerable_entries": len(answerable),
        "slice_shares_target": SLICE_SHARES,
        "slice_shares_realised": {
            s: round(sum(t.candidate.slice == s for t in answerable) / len(answerable), 4)  # type: ignore[union-attr]
            for s in SLICES
        },
        "turns": {k: kinds[k] for k in sorted(kinds)},
        "exact_duplicate_entries": exact,
        "entries_with_typos": counts["typo"],
        "entries_with_money_context": counts["money_context"],
        "non_ascii_entries": sum(not t.isascii() for t in texts),
        "entries_with_personal_data": sum(bool(t.pii) for t in truth),
        "personal_data_items": {k: pii[k] for k in PII_KINDS},
        "note": "Personal data is fictional (example.* emails, Ofcom drama phone ranges, made-up"
        " names, streets, plates and references) but shaped like the real thing, so it must be"
        " scrubbed. Entries with no candidate (out of scope, account, follow-ups, chit-chat,"
        " other languages) have no answer in the wordings.",
    }


# --- scrubber check -------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"<[A-Z_]+>")


def scrub_check(
    texts: list[str], truth: list[Truth], scrub: Callable[[str], str]
) -> dict[str, dict[str, float]]:
    """How well `scrub` removes the personal data the truth records, per kind: `spans`, `recall`
    (share of spans whose every letter and digit was replaced) and, under `placeholders`,
    `precision` (share of placeholders that replaced text overlapping a personal item). The raw
    and scrubbed texts are aligned with difflib, each placeholder first turned into one
    private-use character that matches nothing in the raw text."""
    import difflib

    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    placed = hit = 0
    for raw, t in zip(texts, truth, strict=True):
        out = _PLACEHOLDER.sub("\ue000", scrub(raw))
        replaced = [False] * len(raw)
        regions: list[tuple[int, int]] = []
        matcher = difflib.SequenceMatcher(None, raw, out, autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            if "\ue000" in out[j1:j2] or op == "delete":
                for i in range(i1, i2):
                    replaced[i] = True
            for _ in range(out[j1:j2].count("\ue000")):
                regions.append((i1, i2))
        for start, end, kind in t.pii:
            total[kind] += 1
            # spaces and punctuation inside an item may align with those between placeholders
            found[kind] += all(replaced[i] for i in range(start, end) if raw[i].isalnum())
        for i1, i2 in regions:
            placed += 1
            hit += any(s < i2 and i1 < e for s, e, _ in t.pii)
    report: dict[str, dict[str, float]] = {
        k: {"spans": total[k], "recall": round(found[k] / total[k], 4) if total[k] else 1.0}
        for k in PII_KINDS
    }
    report["placeholders"] = {"n": placed, "precision": round(hit / placed, 4) if placed else 1.0}
    return report
