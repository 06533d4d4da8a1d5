"""A raw query log for 2025, as an assistant would have recorded it before any scrubbing.

Sessions of 1-6 questions about one product, drawn from the same question templates as the
labelled set but with more lay wording, casual typing, a skewed slice mix (`SLICE_SHARES`),
exact duplicates (re-sent messages, popular questions), near-duplicates (typos, reordered words)
and personal data: names, emails, UK phone numbers (Ofcom's drama ranges), policy numbers
(`POL-` + 8 digits) and UK postcodes. The realised counts go into `dataset.json` notes.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from dataclasses import dataclass

from ragsweep.data.samplegen.prose import expand
from ragsweep.data.samplegen.questions import (
    P_FORMAL,
    Candidate,
    ask_candidates,
    identifier_candidates,
    version_values,
)
from ragsweep.data.samplegen.spec import SLICES
from ragsweep.data.samplegen.wordings import PRODUCTS, Corpus

MIN_ENTRIES = 5400
SLICE_SHARES: dict[str, float] = {
    "limits": 0.35,
    "procedures": 0.25,
    "definitions": 0.15,
    "exclusions": 0.15,
    "identifiers": 0.10,
}
PRODUCT_SHARES: dict[str, float] = {"motor": 0.40, "home": 0.35, "travel": 0.25}
P_PERSONAL = 0.15  # entry carries personal data (1-2 items)
P_RESEND = 0.06  # exact re-send of the previous message in the session
P_REPEAT = 0.04  # exact repeat of an earlier entry from another session
P_NEAR = 0.10  # typo'd or reordered version of an earlier entry
SESSION_LENGTHS = ((1, 0.55), (2, 0.25), (3, 0.12), (4, 0.05), (5, 0.02), (6, 0.01))

FIRST = tuple(
    "Sarah James Aisha Tom Priya Mark Olivia Daniel Chloe Mohammed Emma Liam Grace Ryan Hannah"
    " Kwame Sophie David Zara Owen Megan Harry Fatima Jack Ellie Connor Niamh Raj Lucy"
    " Callum".split()
)
LAST = tuple(
    "Jones Smith Patel Williams Brown Taylor Khan Davies Evans Wilson Thomas Roberts Walker Wright"
    " Thompson White Hughes Green Hall Clarke Jackson Wood Harris Lewis Murphy Begum O'Brien"
    " Campbell Kelly Morgan".split()
)
DOMAINS = ("example.com", "example.co.uk", "example.org", "example.net")
_POST_AREAS = tuple("SW NW E N SE M B LS G EH CF BS NG L S OX CB BN RG NE".split())
_POST_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"


@dataclass
class _Person:
    name: str
    email: str
    phone: str
    policy: str
    postcode: str


def _person(rng: random.Random) -> _Person:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    local = rng.choice((f"{first}.{last}", f"{first[0]}{last}", f"{first}{rng.randint(1, 99)}"))
    local = local.lower().replace("'", "")
    phone = rng.choice(
        (
            f"07700 900{rng.randint(0, 999):03d}",
            f"+44 7700 900{rng.randint(0, 999):03d}",
            f"020 7946 0{rng.randint(0, 999):03d}",
            f"0161 496 0{rng.randint(0, 999):03d}",
            f"0113 496 0{rng.randint(0, 999):03d}",
        )
    )
    postcode = (
        f"{rng.choice(_POST_AREAS)}{rng.randint(1, 20)} {rng.randint(0, 9)}"
        f"{rng.choice(_POST_LETTERS)}{rng.choice(_POST_LETTERS)}"
    )
    return _Person(
        name=f"{first} {last}",
        email=f"{local}@{rng.choice(DOMAINS)}",
        phone=phone,
        policy=f"POL-{rng.randint(10_000_000, 99_999_999)}",
        postcode=postcode,
    )


_PII_PREFIX = ("Hi, I'm {name}. ", "this is {name} - ", "My name is {name}, ", "{name} here. ")
_PII_SUFFIX = {
    "email": (" my email is {email}", " (email {email})", " please reply to {email}"),
    "phone": (" call me on {phone}", " my number is {phone}", " tel {phone}"),
    "policy": (" policy number {policy}", " my policy is {policy}", " ref {policy}"),
    "postcode": (" postcode {postcode}", " I live in {postcode}", " we're at {postcode}"),
}


def _casual(text: str, rng: random.Random) -> str:
    """How people type into a chat box."""
    if rng.random() < 0.35:
        text = text.lower()
    if rng.random() < 0.25:
        text = text.rstrip("?").rstrip()
    if rng.random() < 0.10:
        text = (
            rng.choice(("hi ", "hello, ", "hi there, ", "quick one: "))
            + text[:1].lower()
            + text[1:]
        )
    if rng.random() < 0.08:
        text += rng.choice((" thanks", " thx", " cheers", " ta"))
    return text


def _typo(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 2)):
        letters = [i for i, c in enumerate(chars[:-1]) if c.isalpha() and chars[i + 1].isalpha()]
        if not letters:
            break
        i = rng.choice(letters)
        kind = rng.randrange(3)
        if kind == 0:
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        elif kind == 1:
            del chars[i]
        else:
            chars.insert(i, chars[i])
    return "".join(chars)


def _reorder(text: str, rng: random.Random) -> str:
    if ", " in text:
        head, _, tail = text.partition(", ")
        return f"{tail.rstrip('?').rstrip()}, {head[:1].lower()}{head[1:]}?"
    words = text.split()
    if len(words) < 4:
        return _typo(text, rng)
    i = rng.randrange(len(words) - 1)
    words[i], words[i + 1] = words[i + 1], words[i]
    return " ".join(words)


_DAYS = list(range(365))
# weekends quieter, traffic growing through the year
_DAY_WEIGHTS = [
    (0.55 if (dt.date(2025, 1, 1) + dt.timedelta(d)).weekday() >= 5 else 1.0)
    * (0.8 + 0.4 * d / 364)
    for d in _DAYS
]
_HOURS = list(range(23))  # no session starts after 23:00, so every session ends within 2025
# fmt: off
_HOUR_WEIGHTS = [0.1, 0.05, 0.03, 0.03, 0.03, 0.1, 0.3, 0.8, 1.2, 1.5, 1.5, 1.4, 1.3, 1.4, 1.4,
                 1.3, 1.2, 1.1, 1.2, 1.3, 1.1, 0.8, 0.5]
# fmt: on


def _timestamp(rng: random.Random) -> int:
    """Seconds since 2025-01-01T00:00:00Z at which a session starts."""
    day = rng.choices(_DAYS, _DAY_WEIGHTS)[0]
    hour = rng.choices(_HOURS, _HOUR_WEIGHTS)[0]
    return day * 86400 + hour * 3600 + rng.randrange(3600)


@dataclass(frozen=True)
class QueryLog:
    entries: list[dict[str, str]]
    notes: dict


def build_query_log(corpus: Corpus, seed: int) -> QueryLog:
    rng = random.Random(f"ragsweep-sample:{seed}:querylog")
    pools: dict[tuple[str, str], list[Candidate]] = {}
    for product in PRODUCTS:
        for cand in ask_candidates(corpus, product):
            pools.setdefault((cand.slice, product.document), []).append(cand)
        for cands in identifier_candidates(corpus, product).values():
            for cand in cands:
                pools.setdefault(("identifiers", product.document), []).append(cand)

    slices, s_w = list(SLICE_SHARES), list(SLICE_SHARES.values())
    products, p_w = list(PRODUCT_SHARES), list(PRODUCT_SHARES.values())
    lengths, l_w = [n for n, _ in SESSION_LENGTHS], [w for _, w in SESSION_LENGTHS]
    by_name = {p.document: p for p in PRODUCTS}

    rows: list[tuple[int, int, int, str]] = []  # (ts, session, seq, text)
    counts: Counter[str] = Counter()
    pii_kinds: Counter[str] = Counter()
    session = 0
    while len(rows) < MIN_ENTRIES:
        session += 1
        product = by_name[rng.choices(products, p_w)[0]]
        person = _person(rng)
        ts = _timestamp(rng)
        for seq in range(rng.choices(lengths, l_w)[0]):
            roll = rng.random()
            if seq > 0 and roll < P_RESEND:
                text = rows[-1][3]
                ts += rng.randint(2, 20)  # impatient re-send seconds later
                counts["resend"] += 1
            elif rows and roll < P_RESEND + P_REPEAT:
                text = rng.choice(rows)[3]
                counts["repeat"] += 1
            elif rows and roll < P_RESEND + P_REPEAT + P_NEAR:
                source = rng.choice(rows)[3]
                text = _typo(source, rng) if rng.random() < 0.6 else _reorder(source, rng)
                counts["near_duplicate"] += 1
            else:  # a new question
                slice_ = rng.choices(slices, s_w)[0]
                cand = rng.choice(pools[(slice_, product.document)])
                text = _casual(_render_log(cand, rng), rng)
                counts[f"slice:{slice_}"] += 1
                if rng.random() < P_PERSONAL:
                    kinds = rng.sample(["name", *_PII_SUFFIX], rng.randint(1, 2))
                    for kind in kinds:
                        if kind == "name":
                            text = rng.choice(_PII_PREFIX).format(name=person.name) + text
                        else:
                            text += rng.choice(_PII_SUFFIX[kind]).format(**vars(person))
                    pii_kinds.update(kinds)
                    counts["personal_data"] += 1
            if seq > 0 and not roll < P_RESEND:
                ts += rng.randint(15, 400)  # reading the answer, typing the next question
            rows.append((ts, session, seq, text))
    rows.sort()

    ids: dict[int, str] = {}
    entries = []
    seen: set[str] = set()
    exact_dups = 0
    epoch = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    for ts, sess, _, text in rows:
        sid = ids.setdefault(sess, f"s{len(ids) + 1:05d}")
        stamp = (epoch + dt.timedelta(seconds=ts)).strftime("%Y-%m-%dT%H:%M:%SZ")
        entries.append({"ts": stamp, "session": sid, "text": text})
        exact_dups += text in seen
        seen.add(text)

    fresh = sum(counts[f"slice:{s}"] for s in SLICES)
    notes = {
        "entries": len(entries),
        "sessions": len(ids),
        "period": "2025-01-01 to 2025-12-31 (UTC)",
        "slice_shares_target": SLICE_SHARES,
        "slice_shares_realised": {s: round(counts[f"slice:{s}"] / fresh, 4) for s in SLICES},
        "product_shares_target": PRODUCT_SHARES,
        "exact_duplicate_entries": exact_dups,
        "resent_in_session": counts["resend"],
        "repeated_from_other_sessions": counts["repeat"],
        "near_duplicates": counts["near_duplicate"],
        "entries_with_personal_data": counts["personal_data"],
        "personal_data_items": {k: pii_kinds[k] for k in ("name", *_PII_SUFFIX)},
        "note": "slice shares count newly asked entries only; duplicates and near-duplicates"
        " repeat an earlier entry's slice. Personal data is fictional (example.* emails, Ofcom"
        " drama phone ranges) but shaped like the real thing, so it must be scrubbed.",
    }
    return QueryLog(entries, notes)


def _render_log(cand: Candidate, rng: random.Random) -> str:
    """A question as typed into the assistant: lay wording more often than in the labelled set."""
    my = rng.choice(cand.product.lay_names)
    values = version_values(cand.product, cand.version)
    text = rng.choice(cand.templates).format_map({"v": values, "my": my, **cand.values})
    return expand(text, rng, P_FORMAL / 2)
