"""The documents a real corpus holds besides the wording, derived from the wording's own facts.

Per product and version: a policy schedule (`<p>-schedule`: the limits and excesses as tables),
a product summary sheet (`<p>-summary`, IPID-style headings, one-line glosses), an FAQ
(`<p>-faq`: formal questions answered from one clause's facts) and an endorsement booklet
(`<p>-endorsements`). Each is a document JSON like a wording, and every section says which
facts it `states`: (clause key, core index) pairs, the clause's `core` sentences it restates in
that version. `answers` (every present fact of a clause) and `mentions` (some) follow from
`states`; `points` are clauses a section names without stating them (a summary sheet's gloss, a
list of endorsement codes). The labels are built from these, so they are computed from what the
section actually prints, and `check_passages` verifies it.

Every derived section is built from the clause's *facts* (its rendered `core` sentences in that
version), never from filler, so amounts and wording changes follow the clause between versions.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from ragsweep.data.samplegen import texts
from ragsweep.data.samplegen.prose import sentence_case
from ragsweep.data.samplegen.spec import ProductDef

#: a printed amount (pounds) or time limit: what `check_passages` traces back to a listed clause
FACT_TOKEN = re.compile(
    r"£\d{1,3}(?:,\d{3})*(?:\.\d\d)?|\b\d+ (?:days?|hours?|weeks?|months?|years?|miles?|metres?)\b"
)
#: a `{v[name]}` value that prints as an amount (goes into a schedule table row)
_AMOUNT_VALUE = re.compile(r"^£\d{1,3}(?:,\d{3})*$")

#: FAQ: share of a part kind's clauses that get questions, and chance of a question per fact
P_FAQ: dict[str, float] = {
    "cover": 0.6,
    "limits": 0.6,
    "claims": 0.6,
    "conditions": 0.6,
    "exclusions": 0.5,
    "other": 0.5,
    "definitions": 0.4,
}
P_FAQ_FACT = 0.95

#: schedule table row labels for `{v[name]}` values, by product (fallback: heading + name)
LABELS: dict[str, dict[str, str]] = texts.load(
    "derived.yaml", "schedule_labels", dict[str, dict[str, str]]
)


#: a fact: (wording clause key, 0-based index into that clause's `core` tuple as written)
Fact = tuple[str, int]


@dataclass(frozen=True)
class Passage:
    """One section of one document version, and the wording clauses whose facts it states.

    `answers` and `mentions` are derived from `states` (see `make_passage`): a clause is answered
    when every core sentence it has in that version is stated, mentioned when some are.
    """

    product: str  # "home"
    document: str  # "home", "home-faq", ...
    kind: str  # part kind
    states: frozenset[Fact]  # the (clause key, core index) facts this passage restates
    answers: frozenset[str]  # clause keys all of whose present facts it states
    mentions: frozenset[str]  # clause keys some (not all) of whose present facts it states
    #: clause keys it names without stating any of their facts (summary glosses, code lists)
    points: frozenset[str] = frozenset()


def make_passage(
    product: str,
    document: str,
    kind: str,
    states: frozenset[Fact],
    present: dict[str, frozenset[int]],
    points: frozenset[str] = frozenset(),
) -> Passage:
    """A `Passage` whose `answers`/`mentions` follow from `states`; `present` maps each clause
    key to its core indices in this version. Stating an absent fact is an error."""
    by_key: dict[str, set[int]] = {}
    for key, index in states:
        if index not in present.get(key, frozenset()):
            raise ValueError(f"{document}: states {key}[{index}], not in this version")
        by_key.setdefault(key, set()).add(index)
    answers = frozenset(k for k, got in by_key.items() if got >= present[k])
    return Passage(
        product,
        document,
        kind,
        frozenset(states),
        answers,
        frozenset(by_key) - answers,
        frozenset(points) - frozenset(by_key),
    )


@dataclass(frozen=True)
class ClauseText:
    """One wording clause as printed in one version, split into what derived documents reuse."""

    key: str
    section: str
    heading: str
    kind: str
    facts: tuple[str, ...]  # the rendered `core` sentences present in this version, in order
    indices: tuple[int, ...]  # each fact's index in the clause's `core` tuple
    code_sentence: str | None  # the sentence printing the exclusion code, if any
    #: (core index, value name, printed amount) of the `{v[name]}` values its facts print
    amounts: tuple[tuple[int, str, str], ...]
    gloss: str | None  # the plain-English one-line gloss (None: the clause has none)
    text: str  # the full clause text (facts and filler)

    def all_facts(self) -> frozenset[Fact]:
        return frozenset((self.key, i) for i in self.indices)

    def facts_where(self, keep) -> frozenset[Fact]:
        """The facts whose sentence satisfies `keep(sentence)`."""
        return frozenset(
            (self.key, i) for i, f in zip(self.indices, self.facts, strict=True) if keep(f)
        )


@dataclass
class _Doc:
    """A derived document under construction: parts, sections and their passages."""

    product: ProductDef
    version: str
    name: str
    form_code: str
    title: str
    present: dict[str, frozenset[int]]  # clause key -> its core indices in this version
    parts: list[dict] = field(default_factory=list)
    passages: dict[str, Passage] = field(default_factory=dict)

    def part(self, title: str, kind: str) -> None:
        number = str(len(self.parts) + 1)
        self.parts.append({"number": number, "title": title, "kind": kind, "clauses": []})

    def add(self, heading: str, text: str, states=frozenset(), points=frozenset()) -> None:
        part = self.parts[-1]
        section = f"{part['number']}.{len(part['clauses']) + 1}"
        part["clauses"].append({"section": section, "heading": heading, "text": text})
        self.passages[section] = make_passage(
            self.product.document,
            self.name,
            part["kind"],
            frozenset(states),
            self.present,
            frozenset(points),
        )

    def json(self) -> dict:
        parts = [p for p in self.parts if p["clauses"]]
        return {
            "document": self.name,
            "version": self.version,
            "product": self.product.document,
            "form_code": self.form_code,
            "title": self.title,
            "parts": parts,
        }


def _form(product: ProductDef, version: str, code: str) -> str:
    return product.forms[version].replace("-PW-", f"-{code}-")


def _name(product: ProductDef) -> str:
    return product.title.replace(" Policy Wording", "")


def _cite(section: str) -> str:
    return f"See section {section} of your policy wording."


_PLAIN: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(a), b)
    for a, b in (
        (r"\bwe will not\b", "we won't"),
        (r"\bWe will not\b", "We won't"),
        (r"\bwe will\b", "we'll"),
        (r"\bWe will\b", "We'll"),
        (r"\byou must not\b", "you mustn't"),
        (r"\bYou must not\b", "You mustn't"),
        (r"\byou must\b", "you need to"),
        (r"\bYou must\b", "You need to"),
        (r"\bdoes not\b", "doesn't"),
        (r"\bdo not\b", "don't"),
        (r"\bis not\b", "isn't"),
        (r"\bare not\b", "aren't"),
        (r"\bcannot\b", "can't"),
        (r"\bin any one claim\b", "for each claim"),
        (r"\bshown in your schedule\b", "in your schedule"),
    )
)


def plain(sentence: str) -> str:
    """The same sentence in the looser register of an FAQ (contractions, fewer set phrases)."""
    for pattern, repl in _PLAIN:
        sentence = pattern.sub(repl, sentence)
    return sentence


def _faq_topic_question(clause: ClauseText) -> str:
    h = clause.heading
    if clause.kind == "definitions":
        return f"What does '{h}' mean in my policy?"
    if clause.kind == "limits":
        tail = "how much is it?" if "excess" in h.lower() else "what are the limits?"
    else:
        tail = {
            "cover": "what does the cover include?",
            "exclusions": "what is not covered?",
            "claims": "what do I need to do?",
            "conditions": "what does the condition require?",
        }.get(clause.kind, "what do I need to know?")
    return f"{h}: {tail}"


_FACT_TYPES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (
        re.compile(r"\bexcess\b.*£|£.*\bexcess\b", re.I),
        ("how much do I pay myself?", "is there another excess?", "when does the excess apply?"),
    ),
    (
        re.compile(r"£"),
        ("is there a limit?", "is there a separate limit?", "what other amounts apply?"),
    ),
    (
        re.compile(r"\bwithin \d+ (?:days?|hours?|weeks?|months?)\b|\bas soon as\b"),
        (
            "is there a time limit?",
            "how quickly do I need to act?",
            "what other time limits apply?",
        ),
    ),
    (
        re.compile(r"\b(?:must|need to|have to)\b"),
        ("what do I have to do?", "what else do I have to do?", "what are my other obligations?"),
    ),
    (
        re.compile(r"\b(?:not|no|never|except|unless)\b", re.I),
        ("are there any exceptions?", "what is not included?", "are there any other exceptions?"),
    ),
    (
        re.compile(r".*"),
        (
            "what else should I know?",
            "is there anything else I should know?",
            "what other details apply?",
        ),
    ),
)


def _fact_question(clause: ClauseText, fact: str, used: set[str]) -> str | None:
    """A topic-prefixed question whose answer is `fact`, unique in the FAQ (None: none left)."""
    for pattern, tails in _FACT_TYPES:
        if pattern.search(fact):
            for tail in tails + _FACT_TYPES[-1][1]:
                heading = f"{clause.heading}: {tail}"
                if heading not in used:
                    return heading
            return None
    return None


def _schedule(
    doc: _Doc, clauses: list[ClauseText], listed: list[tuple[str, str, str]], keys: set[str]
) -> None:
    p = doc.product
    doc.part("About your schedule", "other")
    doc.add(
        "About this schedule",
        f"This schedule is part of your {p.prod} and should be read together with your policy"
        f" wording. It sets out the limits and excesses that apply to the {doc.version} edition"
        " of the wording, with the number of the wording section that explains each one.",
    )
    by_key = {c.key: c for c in clauses}
    if "abt.documents" in keys:
        form = p.forms[doc.version]
        doc.add(
            "Your policy documents",
            f"Policy wording: form {form}.\nSchedule: form {doc.form_code}.",
            states=_first(by_key["abt.documents"], lambda f: form in f),
        )
    if listed:
        rows = "\n".join(f"| {code} | {title} | {section} |" for code, title, section in listed)
        doc.add(
            "Endorsements available with this wording",
            "| Endorsement | Title | Wording section |\n|---|---|---|\n" + rows,
            states=_list_fact(by_key, listed),
            points=frozenset(_endorsed(listed, clauses)),
        )
    with_amounts = [c for c in clauses if any(FACT_TOKEN.search(f) for f in c.facts)]
    excesses = [c for c in clauses if any("excess" in n for _, n, _ in c.amounts)]
    if excesses:
        doc.part("Your excesses at a glance", "limits")
        rows, stated = [], set()
        for c in excesses:
            shown = [(n, a) for n, a in _rows(c) if "excess" in n]
            rows += [f"| {_label(p, c, n)} | {a} | {c.section} |" for n, a in shown]
            stated |= {(c.key, i) for i, n, a in c.amounts if (n, a) in shown}
        doc.add(
            "Summary of excesses",
            "| Excess | Amount | Wording section |\n|---|---|---|\n" + "\n".join(rows),
            states=stated,
        )
    for title, kinds in (
        ("Limits and excesses", {"limits"}),
        (
            "Other amounts in your cover",
            {"cover", "claims", "exclusions", "conditions", "other", "definitions"},
        ),
    ):
        group = [c for c in with_amounts if c.kind in kinds and _has_money(c)]
        if not group:
            continue
        doc.part(title, "limits")
        for clause in group:
            text, states = _schedule_section(p, clause)
            doc.add(clause.heading, text, states=states)
    doc.part("Important information", "other")
    doc.add(
        "How to read the tables",
        "Each row gives the item, the most we will pay or the excess you pay, and the wording"
        " section that explains it. A dash means that the row sets no amount in that column."
        " Notes under a table repeat the wording where an amount needs its conditions.",
    )
    doc.add(
        "Checking your schedule",
        "Please check this schedule when you receive it and tell us if anything is wrong. Your"
        " own schedule also shows your name, your address and the sections you have chosen.",
    )


def _has_money(clause: ClauseText) -> bool:
    return any("£" in f for f in clause.facts)


def _first(clause: ClauseText, keep) -> frozenset[Fact]:
    """The first fact of `clause` whose sentence satisfies `keep` (none: empty)."""
    found = sorted(clause.facts_where(keep), key=lambda f: f[1])
    return frozenset(found[:1])


def _list_fact(by_key: dict[str, ClauseText], listed: list[tuple[str, str, str]]) -> frozenset:
    """The `abt.endorsements` sentence a list of the endorsement codes restates (if printed)."""
    clause = by_key.get("abt.endorsements")
    if clause is None:
        return frozenset()
    return _first(clause, lambda f: all(code in f for code, _, _ in listed))


def _endorsed(listed: list[tuple[str, str, str]], clauses: list[ClauseText]) -> list[str]:
    by_section = {c.section: c.key for c in clauses}
    return sorted({by_section[s] for _, _, s in listed if s in by_section})


def _rows(clause: ClauseText) -> list[tuple[str, str]]:
    """The clause's `{v[name]}` amounts, once each, in the order it prints them."""
    return list(dict.fromkeys((n, a) for _, n, a in clause.amounts if _AMOUNT_VALUE.match(a)))


def _label(product: ProductDef, clause: ClauseText, name: str) -> str:
    label = LABELS.get(product.document, {}).get(name)
    return label or f"{clause.heading} ({name.replace('_', ' ')})"


def _schedule_section(product: ProductDef, clause: ClauseText) -> tuple[str, frozenset[Fact]]:
    """A table of the clause's amounts plus notes quoting sentences with unlabelled amounts.

    It states every fact with an amount or time limit: a fact whose amounts are all rows of its
    own values by those rows, any other (a time limit, a literal amount) by quoting it in a note.
    """
    rows = []
    for name, amount in _rows(clause):
        cells = ("-", amount) if "excess" in name else (amount, "-")
        rows.append(f"| {_label(product, clause, name)} | {cells[0]} | {cells[1]} |")
    own: dict[int, set[str]] = {}  # core index -> the amounts its own values print as rows
    for i, _, amount in clause.amounts:
        if _AMOUNT_VALUE.match(amount):
            own.setdefault(i, set()).add(amount)
    quoted = frozenset(
        (clause.key, i)
        for i, f in zip(clause.indices, clause.facts, strict=True)
        if any(t not in own.get(i, set()) for t in FACT_TOKEN.findall(f))
    )
    notes = [
        f for i, f in zip(clause.indices, clause.facts, strict=True) if (clause.key, i) in quoted
    ]
    lines = [f"Wording section {clause.section}."]
    if rows:
        lines += ["| Item | Limit | Excess |", "|---|---|---|", *rows]
    if notes:
        lines.append("Notes: " + " ".join(notes))
    return "\n".join(lines), frozenset((clause.key, i) for i in own) | quoted


#: summary sheet headings and which clauses they gloss (by part kind, then by key/heading words)
_SUMMARY_PARTS: tuple[tuple[str, str], ...] = (
    ("What is insured?", "cover"),
    ("What is not insured?", "exclusions"),
    ("Are there any restrictions on cover?", "limits"),
    ("Where am I covered?", "where"),
    ("What are my obligations?", "obligations"),
    ("When and how do I pay?", "pay"),
    ("When does the cover start and end?", "period"),
    ("How do I cancel the contract?", "cancel"),
    ("Words with special meanings", "definitions"),
    ("About your policy", "other"),
)
_WHERE = re.compile(
    r"territorial limits|anywhere in the world|worldwide|United Kingdom|\bEurope\b|home area"
)
_PAY = re.compile(r"instalment|premium", re.I)
_CANCEL = re.compile(r"cancel|cooling", re.I)


def _summary_group(what: str, c: ClauseText) -> bool:
    if what == "where":
        return c.kind in {"cover", "definitions"} and any(_WHERE.search(f) for f in c.facts)
    if what == "pay":
        return bool(_PAY.search(c.key) or _PAY.search(c.heading))
    if what == "period":
        return c.key.endswith(".period")
    if what == "cancel":
        return bool(_CANCEL.search(c.key) or _CANCEL.search(c.heading))
    if what == "obligations":
        return c.kind in {"conditions", "claims"} and not (
            _summary_group("pay", c) or _summary_group("cancel", c)
        )
    if what == "other":
        return c.kind == "other" and not _summary_group("cancel", c)
    return c.kind == what


def _summary(doc: _Doc, clauses: list[ClauseText], seed: int) -> None:
    p = doc.product
    doc.part("About this document", "other")
    doc.add(
        "What is this type of insurance?",
        f"This document is a summary of the main features of the {_name(p)} ({doc.version}"
        " edition). It does not list every term: the full terms are in the policy wording and"
        " your schedule.",
    )
    for title, what in _SUMMARY_PARTS:
        group = [c for c in clauses if c.gloss and _summary_group(what, c)]
        if not group:
            continue
        doc.part(
            title,
            "other"
            if what in {"where", "pay", "period", "cancel"}
            else {"obligations": "conditions"}.get(what, what),
        )
        rng = random.Random(f"ragsweep-sample:{seed}:summary:{p.document}:{what}")
        sizes = [rng.randint(2, 5) for _ in range(len(group))]
        i = 0
        for size in sizes:
            chunk = group[i : i + size]
            if not chunk:
                break
            i += size
            heading = _join_headings([c.heading for c in chunk])
            text = "\n".join(
                f"- {sentence_case(_bare(c.gloss))} (see section {c.section})." for c in chunk
            )
            doc.add(heading, text, points=frozenset(c.key for c in chunk))


def _bare(gloss: str | None) -> str:
    return (gloss or "").strip().rstrip(".")


def _join_headings(headings: list[str]) -> str:
    if len(headings) <= 3:
        return "; ".join(headings)
    return f"{headings[0]}; {headings[1]} and other items"


def _faq(doc: _Doc, clauses: list[ClauseText], seed: int) -> None:
    p = doc.product
    titles = {
        "other": "About your policy",
        "definitions": "Words we use",
        "cover": "Your cover",
        "limits": "Limits and excesses",
        "exclusions": "What is not covered",
        "claims": "Making a claim",
        "conditions": "Your policy conditions",
    }
    used: set[str] = set()
    doc.part("About these questions", "other")
    doc.add(
        "How do these answers relate to my policy?",
        f"These answers explain the {_name(p)} ({doc.version} edition) in everyday words. Each"
        " one names the section of the policy wording it comes from; where an answer and the"
        " wording differ, the wording applies.",
    )
    kinds = list(dict.fromkeys(c.kind for c in clauses))
    for kind in kinds:
        # a fixed share of each kind, ranked by a per-clause draw (the same in every version)
        of_kind = [c for c in clauses if c.kind == kind]
        draws = {}
        for c in of_kind:
            rng = random.Random(f"ragsweep-sample:{seed}:faq:{p.document}:{c.key}")
            draws[c.key] = (rng.random(), [rng.random() < P_FAQ_FACT for _ in range(32)])
        n = round(P_FAQ.get(kind, 0.4) * len(of_kind))
        picked = set(sorted(draws, key=lambda k: (draws[k][0], k))[:n])
        chosen = [(c, draws[c.key][1]) for c in of_kind if c.key in picked]
        if not chosen:
            continue
        doc.part(titles.get(kind, "Other questions"), kind)
        for c, take in chosen:
            heading = _faq_topic_question(c)
            if heading in used:
                heading = f"{heading[:-1]} (section {c.section})?"
            used.add(heading)
            body = [plain(f) for f in c.facts]
            if c.code_sentence:
                body.append(c.code_sentence)
            doc.add(heading, " ".join([*body, _cite(c.section)]), states=c.all_facts())
            if len(c.facts) < 2:
                continue
            for index, fact, keep in zip(c.indices, c.facts, take, strict=False):
                if not keep:
                    continue
                q = _fact_question(c, fact, used)
                if q is None:
                    continue
                used.add(q)
                doc.add(q, f"{plain(fact)} {_cite(c.section)}", states={(c.key, index)})


def _endorsements(doc: _Doc, clauses: list[ClauseText], listed: list[tuple[str, str, str]]) -> None:
    p = doc.product
    by_section = {c.section: c for c in clauses}
    doc.part("About this booklet", "other")
    doc.add(
        "About this booklet",
        f"This booklet explains the endorsements used with the {_name(p)} ({doc.version}"
        " edition). Each entry gives the endorsement's code and title and explains its effect"
        " in the words of the policy wording section it changes.",
    )
    if not listed:
        return
    doc.add(
        "Endorsements in this booklet",
        "\n".join(f"- {code}: {title}" for code, title, _ in listed),
        states=_list_fact({c.key: c for c in clauses}, listed),
        points=frozenset(_endorsed(listed, clauses)),
    )
    doc.part("Endorsements", "conditions")
    for code, title, section in listed:
        clause = by_section[section]
        effect = [f for f in clause.facts if code in f]
        text = (
            f"Endorsement {code} ({title}) changes section {section} of the policy wording,"
            f" {clause.heading}. " + " ".join(plain(f) for f in effect)
        )
        doc.add(f"{code} {title}", text, states=clause.facts_where(lambda f, c=code: c in f))


def build_derived(
    product: ProductDef,
    version: str,
    clauses: list[ClauseText],
    listed: list[tuple[str, str, str]],
    seed: int,
) -> list[tuple[dict, dict[str, Passage]]]:
    """The four derived documents of one product version: (document JSON, section -> Passage).

    `clauses` are the version's wording clauses in order; `listed` the endorsements in force
    (code, title, wording section).
    """
    keys = {c.key for c in clauses}
    present = {c.key: frozenset(c.indices) for c in clauses}
    name = _name(product)
    out = []
    for suffix, code, title, build in (
        (
            "schedule",
            "SC",
            f"{name} Schedule of Limits and Excesses",
            lambda d: _schedule(d, clauses, listed, keys),
        ),
        (
            "summary",
            "PS",
            f"{name} Product Summary (Insurance Product Information Document)",
            lambda d: _summary(d, clauses, seed),
        ),
        ("faq", "FQ", f"{name} Frequently Asked Questions", lambda d: _faq(d, clauses, seed)),
        (
            "endorsements",
            "EN",
            f"{name} Endorsements Booklet",
            lambda d: _endorsements(d, clauses, listed),
        ),
    ):
        doc = _Doc(
            product,
            version,
            f"{product.document}-{suffix}",
            _form(product, version, code),
            f"{title} ({version} edition)",
            present,
        )
        build(doc)
        kept = {c["section"] for part in doc.json()["parts"] for c in part["clauses"]}
        out.append((doc.json(), {s: p for s, p in doc.passages.items() if s in kept}))
    return out


def check_passages(
    documents: dict[tuple[str, str], dict],
    passages: dict[tuple[str, str, str], Passage],
    facts: dict[tuple[str, str, str], dict[int, str]],
) -> list[str]:
    """Problems with the labels' source: a stated fact that is not in that product version,
    `answers`/`mentions` that do not follow from `states`, and amounts or time limits a passage
    prints that none of the facts it states prints.

    `facts` maps (product, clause key, version) to the clause's core sentences by core index.
    """
    problems = []
    for (document, version), doc in sorted(documents.items()):
        for part in doc["parts"]:
            for clause in part["clauses"]:
                where = f"{document}/{clause['section']}@{version}"
                p = passages[(document, clause["section"], version)]
                stated, got = [], {}
                for key, index in sorted(p.states):
                    sentence = facts.get((p.product, key, version), {}).get(index)
                    if sentence is None:
                        problems.append(f"{where}: states {key}[{index}], not in that version")
                    else:
                        stated.append(sentence)
                        got.setdefault(key, set()).add(index)
                full = {k for k, g in got.items() if g >= set(facts[(p.product, k, version)])}
                if p.answers != full or p.mentions != set(got) - full:
                    problems.append(f"{where}: answers/mentions do not follow from states")
                joined = " ".join(stated)
                for token in FACT_TOKEN.findall(clause["heading"] + "\n" + clause["text"]):
                    if token not in joined:
                        problems.append(
                            f"{where}: prints {token!r}, which none of the facts it states"
                            f" ({sorted(p.states)}) prints"
                        )
    return problems
