"""The sample's raw query log: sessions of policyholders asking the per-product assistants,
2024-01-15 to 2025-12-19, with the mess production holds (typing habits, personal data, exact and
near duplicates, requests no wording answers) and each entry's hidden truth (`Truth`).

`build_query_log(corpus, seed)` returns the entries (the JSONL rows), the truth per entry and
`notes` (the realised counts, for dataset.json); the `log_*` modules beside it supply the people,
their typing, the personal data in a question and the calendar. See docs/sample.md.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from dataclasses import dataclass, field

from ragsweep.data.samplegen.log_calendar import END, START, in_force, session_start, version_on
from ragsweep.data.samplegen.log_parts import Part, join_parts, log_text
from ragsweep.data.samplegen.log_people import PII_KINDS, new_person, pii_values
from ragsweep.data.samplegen.log_pii import expand_refs, with_pii
from ragsweep.data.samplegen.log_typing import (
    EMOJI,
    GREETINGS,
    MONEY_CONTEXT,
    SELF_INTRO,
    SIGN_OFFS,
    add_typos,
    amount_text,
    apply_style,
    typing_style,
)
from ragsweep.data.samplegen.questions import (
    P_FORMAL,
    Candidate,
    ask_candidates,
    identifier_candidates,
    render,
)
from ragsweep.data.samplegen.spec import SLICES
from ragsweep.data.samplegen.wordings import PRODUCTS, Corpus

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


# --- entries no wording answers -------------------------------------------------------------

OUT_OF_SCOPE: tuple[str, ...] = log_text("out_of_scope")
CHITCHAT: tuple[str, ...] = log_text("chitchat")
FOREIGN: tuple[str, ...] = log_text("foreign")
FOLLOW_UPS_ANY: tuple[str, ...] = log_text("follow_ups_any")
FOLLOW_UPS: dict[str, tuple[str, ...]] = log_text("follow_ups", dict[str, tuple[str, ...]])
ACCOUNT: tuple[str, ...] = log_text("account")
ACCOUNT_MOTOR: tuple[str, ...] = log_text("account_motor")


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
        return "".join(c for c, _ in add_typos([(text, None)], rng))
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
        day, ts = session_start(rng)
        person = new_person(rng, product)
        style = typing_style(rng)
        anonymous = rng.random() < P_ANONYMOUS
        renews = (rng.randint(1, 12), rng.randint(1, 28))
        version = None if anonymous else version_on(product, day, renews)
        asks_version = version or in_force(product, day)
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
                    context = rng.choice(MONEY_CONTEXT[doc]).format(
                        amount=amount_text(rng), euro=amount_text(rng, euro=True)
                    )
                    question = context[:1].upper() + context[1:] + question
                    counts["money_context"] += 1
                parts = [(question, None)]
                if rng.random() < P_PERSONAL_QUESTION:
                    parts = with_pii(question, person, product, rng)
            elif kind in ("repeat", "near"):
                source, cand = rng.choice(asked[(doc, asks_version)])
                text = source
                if kind == "near":
                    text = (
                        "".join(c for c, _ in add_typos([(source, None)], rng))
                        if rng.random() < 0.6
                        else _reorder(source, rng)
                    )
                parts = [(text, None)]
            elif kind == "follow_up":
                tpl = rng.choice(FOLLOW_UPS_ANY + FOLLOW_UPS[doc])
                parts = [(tpl.format(amount=amount_text(rng)), None)]
            elif kind == "account":
                pool = ACCOUNT + (ACCOUNT_MOTOR if doc == "motor" else ())
                parts = expand_refs(rng.choice(pool), pii_values(person, rng), rng)
            elif kind == "out_of_scope":
                parts = [(rng.choice(OUT_OF_SCOPE), None)]
            elif kind == "chitchat":
                parts = [(rng.choice(CHITCHAT), None)]
            else:  # foreign
                parts = [(rng.choice(FOREIGN), None)]

            if kind in ("ask", "account", "follow_up", "out_of_scope", "near"):
                if kind != "near" and rng.random() < P_TYPO:
                    parts = add_typos(parts, rng)
                    counts["typo"] += 1
                if kind != "near":
                    parts = apply_style(parts, style, rng)
                opens = parts[0][0].lower().startswith(SELF_INTRO)
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
            text, spans = join_parts(parts)
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
