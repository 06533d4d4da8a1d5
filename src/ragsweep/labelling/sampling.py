"""A stratified sample of new questions from a raw query log (`ragsweep labels sample LOG`).

The steps, in this order, each counted in `SampleResult`:

1. **Read** (`read_log`): JSONL or CSV by suffix. Every text goes through the injected `scrub`
   first, before anything else sees it; nothing raw is kept or returned, and no error message
   quotes a log entry (it names the file, line and field only).
2. **Since**: entries with timestamp >= `since`. Timestamps are ISO 8601; a naive one is read as
   UTC, and a `since` given as a date means midnight UTC of that day.
3. **Slice**: the log's slice column when one is named (an empty value is `unknown`), else the
   rule classifier (`slices.yaml` beside this module, `load_classifier`). `unknown` is counted
   and reported, never sampled and never silently dropped.
4. **Traffic shares**: each known slice's share of the entries after `since` and *before*
   dedupe: a question asked fifty times is fifty times the traffic, which is what
   `eval.traffic_weights` weights by. `unknown` is left out of the shares and reported apart.
5. **Exact duplicates**: same `normalise`d text; the earliest entry (timestamp, then line) stays.
6. **Near-duplicates** (`near_duplicates`): see below; each cluster keeps its earliest entry.
   Clusters are connected pairs, so two typos of one word ("whta", "hat") join through the
   word they both misspell, whatever the order the three come in.
7. **Already in the set**: an entry that duplicates or near-duplicates a question of the current
   labelled set is excluded (after dedupe, so the variants of an existing question go with it:
   a cluster is in the set when any of its texts is).
8. **Stratified draw**: up to `target` per slice without replacement, one numpy Generator per
   slice seeded by (seed, CRC-32 of the slice name), so a slice's draw depends on nothing else;
   a slice with fewer entries than its target gives all of them and reports the shortfall.

Near-duplicates. Each text gets a key (`near_key`): its normalised words without greetings and
sign-offs (`LEADING_FILLER`, `TRAILING_FILLER`, the longer words also with a typo), a `MARK` for
each scrubber placeholder, and `FREE` on what may be contact wording rather than the question:
a placeholder's lead-in (`LEAD_CUES`, `LABEL_WORDS`, `ID_NOUNS` + `ID_WORDS`, generic over
kinds: "dob <DOB>", "pol no <POLICY_REF>", "signed <NAME>"), a noun right before one ("my claim
<CLAIM_REF>"), a run of `CONTACT_VOCABULARY` beside one within its segment ("my tiktok is
<URL>", "<URL> has the pics"), and whole segments that are contact detail (a placeholder and at
most `CONTACT_WORDS` other words between commas, brackets or dashes, and a segment of labels or
contact words beside one). Candidates are pairs whose keys score `fuzz.token_sort_ratio` >=
`NEAR_THRESHOLD` with or without their contact wording (`rapidfuzz.process.cdist`, one worker,
so the result is deterministic); the ratio ignores word order. `token_set_ratio` and `WRatio`
were rejected: they score a question 100 against any longer question containing it ("is my bike
covered" vs "is my bike covered abroad"). No character-level threshold alone separates a typo
from a different question on the same template ("... storm damage" vs "... flood damage" scores
84.6), so the score only proposes and a word-level check decides (`same_question`): merged and
split words are cut the way the other text has them ("myhome", "weara nd"), the words that
differ pair up as typos (one OSA edit per `1 / TYPO_EDITS_PER_LETTER` letters, at least one;
words of `SHORT_WORD` letters only with the same letters, "fo"/"of"; never a word holding a
digit, so `EXC-TR-12` vs `EXC-TR-14` and 2024 vs 2025 stay apart), and what is left unpaired
may be articles and contact wording the other text lacks (when the two share `MIN_SHARED`
words; a noun beside a placeholder only when the other side drops none: "my claim <CLAIM_REF>"
and "my policy <POLICY_REF>" stay two), or else the two joined without spaces differ only by
scattered typos (`_same_letters`). Text-speak is read as words (`TEXT_SPEAK`). Measured against
other methods in `benchmarks/dedup.py` (docs/labelling.md, "Duplicates"). `SampleResult.clusters`
lists what each kept question absorbed (`write_clusters`).

Slices that get no question say why (`zero_reasons`): no entry matched the rules (named, with
how to extend them: `write_rules` copies the built-in file to edit), or every entry was a
duplicate or already in the set.
"""

from __future__ import annotations

import bisect
import csv
import functools
import hashlib
import io
import json
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml
from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA, Levenshtein

from ragsweep.conventions import ALL
from ragsweep.data.reader import table
from ragsweep.errors import UserError

#: the injected scrubber: raw text in, text without personal data out
Scrub = Callable[[str], str]

#: the slice of an entry no rule matched (or with an empty slice column)
UNKNOWN = "unknown"
#: questions drawn per slice unless told otherwise
DEFAULT_TARGET = 80
#: the default rule classifier, a plain file beside this module
DEFAULT_RULES = "slices.yaml"

#: near-duplicate candidates: rapidfuzz scorer (by name) and its cutoff, 0-100
NEAR_METHOD = "token_sort_ratio"
NEAR_THRESHOLD = 65
#: two differing words are a typo of each other within this many OSA edits per letter of the
#: longer word (one edit always allowed): 1 edit up to 7 letters, 2 from 8
TYPO_EDITS_PER_LETTER = 0.25
#: words of at most this many letters are typos of each other only with the same letters
SHORT_WORD = 2
#: words a near-duplicate may add or drop
IGNORED_WORDS = frozenset({"a", "an", "the"})
#: a scrubber's replacement token, e.g. <EMAIL> or [PHONE]
PLACEHOLDER = re.compile(r"<[A-Za-z_]+>|\[[A-Za-z_]+\]")
# What introduces a placeholder, matched on normalised words ("d.o.b." is "d o b", "i'm" is
# "i m") and removed with it: "dob <DOB>", "reg <VEHICLE_REG>", "pol no <POLICY_REF>", "signed
# <NAME>", "my nhs number is <NHS_NUMBER>", "acc <BANK_ACCOUNT>", "call me on <PHONE>". Generic
# over kinds: a lead-in is [cue] [possessive] [label | id noun + id word] [is], each part
# optional, right before the placeholder. An id noun alone ("my car <VEHICLE_REG>", "my policy
# <POLICY_REF>") is the question's own subject and stays.
#: contact and sign-off cues ("call me on", "regards", "i'm", a title)
LEAD_CUES: tuple[str, ...] = (
    r"(?:call|text|ring|phone|contact|email|e mail) (?:me|us)(?: on| at)?",
    r"(?:reply|write|send it) to",
    r"we re at",
    r"(?:i )?live (?:in|at)",
    r"i m(?: at)?",
    r"this is",
    r"it s",
    r"(?:kind |best )?regards",
    r"signed",
    r"(?:many )?thanks",
    r"thank you",
    r"cheers",
    r"from",
    r"about",
    r"re",
    r"mr|mrs|ms|miss|dr|mx",
)
#: words that only label personal data ("dob", "reg", "acc", "nhs number", "postcode")
LABEL_WORDS: tuple[str, ...] = (
    r"d o b|dob|date of birth|birthday|born(?: on)?",
    r"reg(?:istration)?|vrn|plate",
    r"pol|acc|acct|a c|iban|vin|sort code",
    r"nhs|ni|nino|national insurance|passport|pp|(?:driving )?licen[cs]e|dl",
    r"e ?mail(?: address)?|phone|mobile|tel|telephone|post ?code|ip(?: address)?|address",
    r"handle|twitter|instagram|insta",
    r"name|details",
)
#: nouns a question may be about, labels only before an id word ("policy no", "claim ref")
ID_NOUNS: tuple[str, ...] = (
    r"policy|claim|(?:bank )?account|(?:debit |credit )?card|car|vehicle|van|chassis",
    r"membership|customer",
)
ID_WORDS: tuple[str, ...] = (r"number|no|num|nr|ref|reference|id|code",)
POSSESSIVES = r"my|our|his|her|the|your"


def _alt(parts: Iterable[str]) -> str:
    return "(?:" + "|".join(parts) + ")"


_LABEL = (
    rf"(?:{_alt(ID_NOUNS)} )?{_alt(LABEL_WORDS)}(?: {_alt(ID_WORDS)})?"
    rf"|{_alt(ID_NOUNS)} {_alt(ID_WORDS)}|{_alt(ID_NOUNS)} is|{_alt(ID_WORDS)}"
)
_ID_NOUN = re.compile(_alt(ID_NOUNS))
_LEAD_IN = re.compile(
    rf"(?:^| )(?:(?:{_alt(LEAD_CUES)} )*(?:(?:{POSSESSIVES}) )?(?:{_LABEL})(?: (?:is|was|are|s))?"
    rf"|{_alt(LEAD_CUES)}(?: {_alt(LEAD_CUES)})*|{POSSESSIVES})$"
)
#: what may follow a placeholder and goes with it ("<NAME> here")
LEAD_OUT = "here"
#: greetings and sign-offs a near-duplicate may add or drop (normalised; longest first)
LEADING_FILLER: tuple[str, ...] = (
    "sorry to bother you but",
    "hoping you can help",
    "good afternoon",
    "good morning",
    "good evening",
    "quick question",
    "hello there",
    "help please",
    "hi there",
    "quick one",
    "hi team",
    "morning",
    "evening",
    "hello",
    "ok so",
    "hiya",
    "hey",
    "hi",
    "um",
)
TRAILING_FILLER: tuple[str, ...] = (
    "thanks in advance",
    "kind regards",
    "asap please",
    "please help",
    "many thanks",
    "thank you",
    "regards",
    "thanks",
    "cheers",
    "please",
    "asap",
    "thx",
    "pls",
    "ta",
    "x",
)
#: text-speak read as the word it stands for (whole normalised words; "&" is "and")
TEXT_SPEAK: Mapping[str, str] = {
    "u": "you",
    "r": "are",
    "ur": "your",
    "n": "and",
    "w": "with",
    "abt": "about",
    "b4": "before",
    "2": "to",
    "4": "for",
}
#: a new question's id: this prefix + the first characters of sha1(normalised text)
ID_PREFIX, ID_HASH_CHARS = "s", 10

_NON_WORD = re.compile(r"[\W_]+")


# ----------------------------------------------------------------------------- text keys


def normalise(text: str) -> str:
    """Lower-case, every run of punctuation, underscores and whitespace to one space, stripped."""
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


#: where a log text breaks into segments: new lines, brackets, dashes between spaces, and
#: punctuation followed by a space (not a colon: "IBAN: <IBAN>" is one)
_SEGMENT = re.compile(r"\n+|[()\[\]{}]|\s[-–—|]+\s|[,;.!?]+(?:\s+|$)")
#: a segment holding a placeholder and at most this many other words is contact detail
#: ("see <URL>", "(paid with <CARD>)", "- <NAME> on <DOB> -", "IBAN: <IBAN>")
CONTACT_WORDS = 4
#: words that, next to a placeholder, may be contact wording rather than the question ("my
#: tiktok is <URL>", "i uploaded them to <URL>", "<URL> has the pics", "pay it into <IBAN>",
#: "<NAME> asked me to check", "my son <NAME>"); never a noun a question is about (car,
#: policy, claim)
CONTACT_VOCABULARY = frozenset(
    """
    i me my we us our it its them they he she his her is are was were am be been has have had
    at to on in into from of for with via by the a an and or s m here there this that so just
    also please
    call ring text phone tel mob mobile email mail e reply write send sent sending contact
    reach message dm whatsapp uploaded upload photos photo pics pic pictures images attached
    see shows site website web page link blocked logged login tiktok insta instagram twitter
    facebook fb snapchat handle pay paid account acc sort code number no num nr ref reference
    name called asked ask check live lives lived moved address born dob birth birthday
    signed regards thanks cheers passport licence license dl nhs ni nino national vin reg
    registration iban postcode post ip details mr mrs miss ms dr pp
    son daughter wife husband partner mum mom dad sister brother
    """.split()
)
#: at most this many such words on each side of a placeholder
CONTACT_RUN = 4
#: where a placeholder was, in a key `near_key(..., mark=True)` gives `same_question`
MARK = "§"
#: before a word of a marked key: contact wording, which a near-duplicate may lack
FREE = "~"
#: when contact wording is all that two questions do not share, they share at least this
#: many words
MIN_SHARED = 3

_TOKEN = re.compile(r"<[A-Za-z_]+>|\[[A-Za-z_]+\]|[^\W_]+")


@dataclass(frozen=True, slots=True)
class _Token:
    word: str  # normalised, as typed; `MARK` for a placeholder
    segment: int  # which `_SEGMENT` of the text it stands in
    free: bool = False  # contact wording (`FREE`)
    lead: bool = False  # a placeholder's lead-in or "here" after it (`_LEAD_IN`, `LEAD_OUT`)


def _tokens(text: str) -> list[_Token]:
    """`text` as words and `MARK`s (a placeholder each), with what introduces a placeholder
    (its lead-in, within its segment, or "here" after it) and what is contact wording: the
    words of contact segments (`_contact_segments`) and runs of `CONTACT_VOCABULARY` beside a
    placeholder in its segment (`CONTACT_RUN` at most each side)."""
    text = text.replace("&", " and ")
    cuts = [m.end() for m in _SEGMENT.finditer(text)]
    tokens = [
        _Token(
            MARK if PLACEHOLDER.fullmatch(m.group()) else m.group().lower(),
            bisect.bisect_right(cuts, m.start()),
        )
        for m in _TOKEN.finditer(text)
    ]
    marks = [i for i, t in enumerate(tokens) if t.word == MARK]
    lead: set[int] = set()
    for n, m in enumerate(marks):
        since = [k for k in range(marks[n - 1] + 1 if n else 0, m) if k not in lead]
        before = [k for k in since if tokens[k].segment == tokens[m].segment]
        if not before and since:  # a label cut off from its item: "D.O.B. <DOB>", "no: (<X>)"
            before = [k for k in since if tokens[k].segment == tokens[since[-1]].segment]
        found = _LEAD_IN.search(" ".join(tokens[k].word for k in before))
        lead.update(before[len(before) - len(found.group().split()) :] if found else ())
        if m + 1 < len(tokens) and tokens[m + 1].word == LEAD_OUT:
            lead.add(m + 1)
    contact = _contact_segments(tokens, lead)
    free = {i for i, t in enumerate(tokens) if t.segment in contact} | lead
    free.update(  # "my claim <CLAIM_REF>": the noun may be the subject, or contact wording
        m - 1 for m in marks if m and m - 1 not in lead and _ID_NOUN.fullmatch(tokens[m - 1].word)
    )
    for m in marks:
        for step in (-1, 1):
            i, run = m + step, 0
            while 0 <= i < len(tokens) and tokens[i].segment == tokens[m].segment:
                if i not in free:
                    if run == CONTACT_RUN or tokens[i].word not in CONTACT_VOCABULARY:
                        break
                    free.add(i)
                    run += 1
                i += step
    return [
        _Token(t.word, t.segment, i in free and t.word != MARK, i in lead)
        for i, t in enumerate(tokens)
    ]


def _contact_segments(tokens: Sequence[_Token], lead: set[int]) -> set[int]:
    """The segments that are contact detail: those holding a placeholder and at most
    `CONTACT_WORDS` other words, and those beside such one made only of lead-ins and
    `CONTACT_VOCABULARY` ("D.O.B. <DOB>", "i uploaded them, my claim <CLAIM_REF>"); none when
    no other segment holds three words."""
    by: dict[int, list[int]] = {}
    for i, t in enumerate(tokens):
        by.setdefault(t.segment, []).append(i)
    contact = {
        s
        for s, ids in by.items()
        if any(tokens[i].word == MARK for i in ids)
        and sum(tokens[i].word != MARK for i in ids) <= CONTACT_WORDS
    }
    order = sorted(by)
    for n, s in enumerate(order):
        beside = {order[n - 1] if n else None, order[n + 1] if n + 1 < len(order) else None}
        words = " ".join(tokens[i].word for i in by[s])
        if (
            s not in contact
            and beside & contact
            and (
                all(i in lead or tokens[i].word in CONTACT_VOCABULARY for i in by[s])
                or not _LEAD_IN.sub("", words).strip()
            )
        ):
            contact.add(s)
    if not any(
        sum(tokens[i].word != MARK for i in ids) >= 3 for s, ids in by.items() if s not in contact
    ):
        return set()  # no question left elsewhere: "is my car <VEHICLE_REG> covered"
    return contact


def near_key(text: str, mark: bool = False) -> str:
    """The words near-duplicate detection compares: `text` without scrubber placeholders and
    their lead-ins (`_tokens`), normalised, without leading and trailing filler,
    text-speak read as words. `mark`: the key `same_question` reads instead, with `MARK` where
    each placeholder was, `FREE` before contact wording (lead-ins included), words as typed.
    Never empty for a non-empty question: a step that would empty it is skipped."""
    tokens = [t for t in _tokens(text) if mark or not t.lead]
    if all(t.word == MARK for t in tokens):
        tokens = [_Token(w, 0) for w in normalise(text).split()]
    changed = True
    while changed:
        changed = False
        for phrase in LEADING_FILLER:
            n = phrase.count(" ") + 1
            if len(tokens) > n and _is_filler(tokens[:n], phrase):
                tokens, changed = tokens[n:], True
        for phrase in TRAILING_FILLER:
            n = phrase.count(" ") + 1
            if len(tokens) > n and _is_filler(tokens[-n:], phrase):
                tokens, changed = tokens[:-n], True
    if mark:
        return " ".join(FREE + t.word if t.free else t.word for t in tokens)
    return " ".join(TEXT_SPEAK.get(t.word, t.word) for t in tokens if t.word != MARK)


#: filler words this long are known with a typo ("pllease", "thnaks"); shorter ones only as
#: written ("hi" is not "his")
FILLER_TYPO_LETTERS = 5


def _is_filler(tokens: Sequence[_Token], phrase: str) -> bool:
    return all(
        t.word == w or (len(w) >= FILLER_TYPO_LETTERS and _is_typo(t.word, w))
        for t, w in zip(tokens, phrase.split(), strict=True)
    )


def question_id(text: str) -> str:
    """`s` + the first 10 hex digits of sha1 of the normalised text: the same question gets the
    same id on every run."""
    digest = hashlib.sha1(normalise(text).encode("utf-8")).hexdigest()
    return f"{ID_PREFIX}{digest[:ID_HASH_CHARS]}"


def _is_typo(a: str, b: str) -> bool:
    if not (a + b).isalpha():
        return False
    if max(len(a), len(b)) <= SHORT_WORD:  # "fo" / "of"; never "in" / "on", nor "hm" / "tr"
        return sorted(a) == sorted(b)
    allowed = max(1, int(max(len(a), len(b)) * TYPO_EDITS_PER_LETTER))
    return OSA.distance(a, b, score_cutoff=allowed) <= allowed


@dataclass(frozen=True, slots=True)
class _Word:
    typed: str
    said: str  # text-speak read as the word it stands for
    free: bool  # contact wording (`FREE`)


@functools.lru_cache(maxsize=1 << 16)
def _words(key: str) -> tuple[_Word, ...]:
    out = []
    for w in key.split():
        if w != MARK:
            typed = w.removeprefix(FREE)
            out.append(_Word(typed, TEXT_SPEAK.get(typed, typed), w.startswith(FREE)))
    return tuple(out)


@functools.lru_cache(maxsize=1 << 16)
def _said(key: str) -> frozenset[str]:
    return frozenset(w.said for w in _words(key))


def _split(joined: str, vocabulary: frozenset[str]) -> tuple[str, str] | None:
    """`joined` cut into two words of `vocabulary`, the cut with the longer shorter part first;
    None when there is none or it holds a digit."""
    if not joined.isalpha():
        return None
    cuts = [
        k for k in range(1, len(joined)) if joined[:k] in vocabulary and joined[k:] in vocabulary
    ]
    if not cuts:
        return None
    k = max(cuts, key=lambda k: (min(k, len(joined) - k), -k))
    return joined[:k], joined[k:]


def _resegmented(words: Sequence[_Word], vocabulary: frozenset[str]) -> list[_Word]:
    """`words` with merged and split words cut and joined the way `vocabulary` (the other
    text's words) has them: a word it lacks, alone or joined with the next, that is one of its
    words or two of them ("myhome", "weara nd", "payf or", "changeo n")."""
    out: list[_Word] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w.said in vocabulary or not w.typed.isalpha():
            out.append(w)
            i += 1
            continue
        nxt = words[i + 1] if i + 1 < len(words) else None
        for joined, used, free in (
            *(((w.typed + nxt.typed, 2, w.free and nxt.free),) if nxt else ()),
            (w.typed, 1, w.free),
        ):
            parts = (joined,) if joined in vocabulary else _split(joined, vocabulary)
            if parts and (used == 2 or len(parts) == 2):
                out.extend(_Word(p, p, free) for p in parts)
                i += used
                break
        else:
            out.append(w)
            i += 1
    return out


def _unshared(words: Sequence[_Word], other: Sequence[_Word]) -> list[_Word]:
    """`words` not in `other` (as multisets of what they say), in their order; contact wording
    is left over before the rest."""
    left = Counter(w.said for w in other)
    out = set()
    for i in sorted(range(len(words)), key=lambda i: words[i].free):
        if left[words[i].said]:
            left[words[i].said] -= 1
        else:
            out.add(i)
    return [words[i] for i in sorted(out)]


def _unpaired(only_a: Sequence[_Word], only_b: Sequence[_Word]) -> tuple[list[_Word], list[_Word]]:
    """The words of each side left after pairing them up as typos (greedily: the question's
    words before contact wording, in sorted order, each with its most similar partner)."""
    rest = sorted(only_b, key=lambda w: (w.free, w.said))
    left_a = []
    for word in sorted(only_a, key=lambda w: (w.free, w.said)):
        best = max(rest, key=lambda o: OSA.normalized_similarity(word.said, o.said), default=None)
        if best is not None and _is_typo(word.said, best.said):
            rest.remove(best)
        else:
            left_a.append(word)
    return left_a, rest


def same_question(key_a: str, key_b: str) -> bool:
    """Whether two marked `near_key`s differ only by word order, typos, articles, words merged
    or split, and contact wording one has and the other lacks. Merged and split words are first
    cut the way the other text has them (`_resegmented`); the words left after removing the
    common ones (as multisets) pair up one to one as typos (`_unpaired`), and what stays
    unpaired may be articles (`IGNORED_WORDS`) and contact wording (`FREE`), the latter only
    when the two share `MIN_SHARED` words; else the two, joined without spaces, differ only by
    scattered typos (`_same_letters`, contact wording one lacks left out)."""
    a, b = _words(key_a), _words(key_b)
    a, b = _resegmented(a, _said(key_b)), _resegmented(b, _said(key_a))
    only_a, only_b = _unshared(a, b), _unshared(b, a)
    left_a, left_b = _unpaired(only_a, only_b)
    # contact wording one side lacks goes; nouns beside a placeholder ("my claim <CLAIM_REF>")
    # only when the other side drops none of its own ("my policy <POLICY_REF>" is another)
    both = all(
        any(w.free and w.said not in CONTACT_VOCABULARY for w in s) for s in (left_a, left_b)
    )
    dropped = {
        id(w) for w in left_a + left_b if w.free and (w.said in CONTACT_VOCABULARY or not both)
    }
    if dropped and len(a) - len(only_a) < MIN_SHARED:
        return False
    if all(id(w) in dropped or w.said in IGNORED_WORDS for w in left_a + left_b):
        return True
    return _same_letters(
        [w.typed for w in a if id(w) not in dropped], [w.typed for w in b if id(w) not in dropped]
    )


#: letters a typo region may span in the texts joined without spaces ("deos" / "does": 2)
TYPO_REGION = 2
#: typo regions allowed per this many letters (at least one)
LETTERS_PER_TYPO = 12


def _same_letters(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether the two word lists, articles out and joined without spaces, differ only by
    scattered typos: every differing region (differences at most 2 letters apart count as one)
    spans at most `TYPO_REGION` letters on each side, holds no digit, touches no word of
    `SHORT_WORD` letters or fewer (the letters of a code, "in" / "on") and is a typo of the
    words it touches (`TYPO_EDITS_PER_LETTER`: "rug" / "ring" is not), and there is at most
    one region per `LETTERS_PER_TYPO` letters. Merged and split words vanish here ("whatd oes"
    / "what does", "myh ome" / "my home"); a word swapped for another does not ("storm" /
    "flood", "car" / "van")."""
    return _same_joined(a, b) or _same_joined(
        [w for w in a if w not in IGNORED_WORDS], [w for w in b if w not in IGNORED_WORDS]
    )


def _same_joined(wa: Sequence[str], wb: Sequence[str]) -> bool:
    """`_same_letters` on one pair of word lists (with, or without, the articles)."""
    ja, jb = "".join(wa), "".join(wb)
    if ja == jb:
        return True
    regions_allowed = max(1, len(ja) // LETTERS_PER_TYPO)
    most = regions_allowed * TYPO_REGION  # no more edits than that many regions hold
    if Levenshtein.distance(ja, jb, score_cutoff=most) > most:
        return False
    lens_a, lens_b = _word_lengths(wa), _word_lengths(wb)
    regions: list[list[int]] = []  # [start_a, end_a, start_b, end_b]
    for op in Levenshtein.opcodes(ja, jb):
        if op.tag == "equal":
            continue
        if regions and op.src_start - regions[-1][1] <= TYPO_REGION:
            regions[-1][1], regions[-1][3] = op.src_end, op.dest_end
        else:
            regions.append([op.src_start, op.src_end, op.dest_start, op.dest_end])
    if len(regions) > regions_allowed:
        return False
    for sa, ea, sb, eb in regions:
        left, right = ja[sa:ea], jb[sb:eb]
        if max(len(left), len(right)) > TYPO_REGION or not (left + right).isalpha():
            return False
        touched_a, touched_b = lens_a[max(0, sa - 1) : ea + 1], lens_b[max(0, sb - 1) : eb + 1]
        if min(touched_a + touched_b) <= SHORT_WORD:
            return False  # "hm" / "tr" in a code, "in" / "on": short words are not typos here
        allowed = max(1, int(max(touched_a + touched_b) * TYPO_EDITS_PER_LETTER))
        if OSA.distance(left, right) > allowed:
            return False  # "rug" / "ring": a word for another, not a typo
    return True


def _word_lengths(words: Sequence[str]) -> list[int]:
    """Per letter of the words joined, the length of its word."""
    return [len(w) for w in words for _ in w]


def _sorted_words(key: str, free: bool) -> str:
    """The words of a key as said, sorted; `free`: with contact wording."""
    return " ".join(sorted(w.said for w in _words(key) if free or not w.free))


def _candidates(queries: Sequence[str], choices: Sequence[str]) -> np.ndarray:
    """token_sort_ratio >= NEAR_THRESHOLD, of the keys with or without their contact wording,
    as a boolean matrix (sorting once here and scoring with `fuzz.ratio` is
    `fuzz.token_sort_ratio`, without re-sorting every pair)."""
    found = _ratio_hits(queries, choices, free=True)
    if not found.size:
        return found
    rows = [i for i, q in enumerate(queries) if FREE in q]  # only these change without it
    cols = [j for j, c in enumerate(choices) if FREE in c]
    found[rows, :] |= _ratio_hits([queries[i] for i in rows], choices, free=False)
    found[:, cols] |= _ratio_hits([choices[j] for j in cols], queries, free=False).T
    return found


def _ratio_hits(queries: Sequence[str], choices: Sequence[str], free: bool) -> np.ndarray:
    if not queries or not choices:
        return np.zeros((len(queries), len(choices)), dtype=bool)
    scores = process.cdist(
        [_sorted_words(q, free) for q in queries],
        [_sorted_words(c, free) for c in choices],
        scorer=fuzz.ratio,
        score_cutoff=NEAR_THRESHOLD,
        dtype=np.uint8,
        workers=1,
    )
    return scores >= NEAR_THRESHOLD


def near_duplicates(keys: Sequence[str]) -> list[int | None]:
    """For each key, in the given order (earliest first), the index of the earliest key of its
    cluster, or None when it is that key (kept). Clusters are the connected pairs
    (`same_question`): two typos of one word ("whta", "hat") are one question through the word
    they both misspell, whatever the order the three come in."""
    cand = _candidates(keys, keys)
    root = list(range(len(keys)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for i, key in enumerate(keys):
        for j in np.flatnonzero(cand[i, :i]):
            a, b = find(i), find(int(j))
            if a != b and same_question(key, keys[j]):
                root[max(a, b)] = min(a, b)
    return [None if find(i) == i else find(i) for i in range(len(keys))]


def matches_any(keys: Sequence[str], others: Sequence[str]) -> list[bool]:
    """For each key, whether it equals or near-duplicates one of `others` (all `near_key`s)."""
    cand = _candidates(keys, others)
    return [
        any(same_question(k, others[j]) for j in np.flatnonzero(cand[i]))
        for i, k in enumerate(keys)
    ]


# ----------------------------------------------------------------------------- classifier


@dataclass(frozen=True)
class SliceRule:
    """One slice's rule: `keywords` are phrases matched as whole words on the normalised text;
    `patterns` are regexes searched case-insensitively in the (scrubbed) text itself."""

    slice: str
    keywords: tuple[str, ...]
    patterns: tuple[re.Pattern[str], ...]

    def matches(self, text: str, normalised: str) -> bool:
        padded = f" {normalised} "
        return any(f" {k} " in padded for k in self.keywords) or any(
            p.search(text) for p in self.patterns
        )


@dataclass(frozen=True)
class SliceClassifier:
    """Rules in precedence order: the first slice with a matching keyword or pattern wins, and a
    text no rule matches is `UNKNOWN`."""

    rules: tuple[SliceRule, ...]
    source: str

    @property
    def slices(self) -> tuple[str, ...]:
        return tuple(r.slice for r in self.rules)

    def classify(self, text: str) -> str:
        normalised = normalise(text)
        for rule in self.rules:
            if rule.matches(text, normalised):
                return rule.slice
        return UNKNOWN


def _str_list(value: Any, where: str, source: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise UserError(f"{source}: {where} must be a list of non-empty strings; fix the rules")
    return value


def load_classifier(path: str | Path | None = None) -> SliceClassifier:
    """The rule classifier in `path` (default: `slices.yaml` beside this module): a yaml with
    `slices:`, a list in precedence order of `{name, keywords, patterns}`."""
    if path is None:
        source = f"ragsweep/labelling/{DEFAULT_RULES}"
        text = resources.files("ragsweep.labelling").joinpath(DEFAULT_RULES).read_text("utf-8")
    else:
        source = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise UserError(
                f"{source}: cannot read the slice rules ({e.strerror}); fix the path"
            ) from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        raise UserError(f"{where}: not valid yaml; fix the slice rules") from None
    items = doc.get("slices") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise UserError(f"{source}: needs `slices:`, a list of {{name, keywords, patterns}}")
    rules, seen = [], set()
    for i, item in enumerate(items):
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name or name in (UNKNOWN, ALL) or name in seen:
            raise UserError(
                f"{source}: slices[{i}].name must be a new slice name other than "
                f"'{UNKNOWN}' and '{ALL}'; fix the rules"
            )
        seen.add(name)
        keywords = [
            normalise(k) for k in _str_list(item.get("keywords"), f"{name}.keywords", source)
        ]
        patterns = []
        for j, p in enumerate(_str_list(item.get("patterns"), f"{name}.patterns", source)):
            try:
                patterns.append(re.compile(p, re.IGNORECASE))
            except re.error as e:
                raise UserError(
                    f"{source}: {name}.patterns[{j}]: invalid regex ({e}); fix it"
                ) from None
        rules.append(SliceRule(name, tuple(keywords), tuple(patterns)))
    return SliceClassifier(tuple(rules), source)


def write_rules(path: str | Path) -> Path:
    """A copy of the built-in rules (`slices.yaml`) at `path`, to edit and pass as `--rules`;
    an existing file is never overwritten."""
    path = Path(path)
    if path.exists():
        raise UserError(f"{path}: already exists; give another file name, or remove it first")
    text = resources.files("ragsweep.labelling").joinpath(DEFAULT_RULES).read_text("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@dataclass(frozen=True)
class SliceAccuracy:
    """How many questions labelled with a slice the classifier put there (`correct`), put in
    `unknown`, or put in another slice."""

    n: int
    correct: int
    unknown: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else float("nan")


def classifier_accuracy(
    classifier: SliceClassifier, texts: Sequence[str], labels: Sequence[str]
) -> dict[str, SliceAccuracy]:
    """Per labelled slice (sorted by name) and `all`: the share of questions classified into
    their labelled slice (the slice's recall)."""
    if len(texts) != len(labels):
        raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
    got = [classifier.classify(t) for t in texts]
    out = {}
    for s in sorted(set(labels)):
        idx = [i for i, label in enumerate(labels) if label == s]
        out[s] = SliceAccuracy(
            len(idx), sum(got[i] == s for i in idx), sum(got[i] == UNKNOWN for i in idx)
        )
    out[ALL] = SliceAccuracy(
        len(labels), sum(g == lab for g, lab in zip(got, labels, strict=True)), got.count(UNKNOWN)
    )
    return out


# ----------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class LogEntry:
    """One log entry: `line` in the file (1-based; a CSV row's last line), the scrubbed text,
    the timestamp (UTC) when there is a timestamp field, and the slice column's value (`UNKNOWN`
    when empty; None when there is no slice column, so the classifier decides)."""

    line: int
    text: str
    ts: datetime | None
    slice: str | None


def parse_when(value: date | datetime | str, what: str = "--since") -> datetime:
    """A date or an ISO 8601 timestamp as an aware UTC datetime (naive: UTC; a date: midnight)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise UserError(
                f"{what}: {value!r} is not a date; write YYYY-MM-DD or an ISO 8601 timestamp"
            ) from None
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _decode(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UserError(f"{path}: cannot read the log ({e.strerror}); fix the path") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise UserError(f"{path}:{line}: not UTF-8 text; save the log as UTF-8") from None


def _kind(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


class _Fields:
    """Reads the named fields of one raw record into a LogEntry (scrubbing the text first)."""

    def __init__(
        self,
        path: Path,
        scrub: Scrub,
        text_field: str,
        ts_field: str | None,
        slice_field: str | None,
        known_slices: Sequence[str] | None,
    ) -> None:
        self.path, self.scrub = path, scrub
        self.text_field, self.ts_field, self.slice_field = text_field, ts_field, slice_field
        self.known = None if known_slices is None else frozenset(known_slices)

    def fail(self, line: int, field: str, message: str) -> UserError:
        return UserError(f"{self.path}:{line}: field '{field}': {message}")

    def entry(self, line: int, record: Mapping[str, Any]) -> LogEntry:
        raw = record.get(self.text_field)
        if not isinstance(raw, str):
            got = "missing" if raw is None else f"{_kind(raw)}, not a string"
            raise self.fail(
                line, self.text_field, f"{got}; name the question field with --text-field"
            )
        text = self.scrub(raw)
        if not isinstance(text, str):
            raise TypeError(f"scrub must return str, got {type(text).__name__}")
        if not text.strip():
            raise self.fail(line, self.text_field, "empty; remove the line or fill in the question")
        ts = None
        if self.ts_field is not None:
            value = record.get(self.ts_field)
            try:
                ok = isinstance(value, str) and bool(value.strip())
                ts = parse_when(value) if ok else None
            except UserError:
                ok = False
            if not ok:
                raise self.fail(
                    line,
                    self.ts_field,
                    "missing or not an ISO 8601 timestamp (e.g. 2025-01-31T09:00:00Z); fix the "
                    "value, or name the timestamp field with --ts-field",
                )
        label = None
        if self.slice_field is not None:
            value = record.get(self.slice_field)
            if value is not None and not isinstance(value, str):
                raise self.fail(line, self.slice_field, f"{_kind(value)}, not a slice name")
            label = value.strip() if value and value.strip() else UNKNOWN
            if label != UNKNOWN and self.known is not None:
                if label not in self.known:
                    raise self.fail(
                        line,
                        self.slice_field,
                        f"not one of the slices {', '.join(sorted(self.known))}; fix the label, "
                        f"or leave it empty for {UNKNOWN}",
                    )
        return LogEntry(line, text, ts, label)


def read_log(
    path: str | Path,
    scrub: Scrub,
    *,
    text_field: str = "text",
    ts_field: str | None = "ts",
    slice_field: str | None = None,
    known_slices: Sequence[str] | None = None,
) -> list[LogEntry]:
    """The entries of a JSONL (`.jsonl`, `.ndjson`: one object a line, blank lines skipped) or
    CSV (`.csv`, with a header) log, in file order, each text scrubbed as it is read.
    `ts_field=None`: no timestamps (file order is time order). `known_slices`: the values the
    slice column may hold besides empty and `unknown`. Bad input (an unknown format, a missing
    field, a log with no entry, bytes that are not UTF-8) raises UserError naming the file, line
    and field, never quoting the entry."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".ndjson", ".csv"):
        raise UserError(f"{path}: unknown log format '{suffix}'; give a .jsonl or .csv file")
    fields = _Fields(path, scrub, text_field, ts_field, slice_field, known_slices)
    text = _decode(path)
    records: list[tuple[int, Mapping[str, Any]]] = []
    if suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text, newline=""))
        columns = reader.fieldnames or []
        for name, option in (
            (text_field, "--text-field"),
            (ts_field, "--ts-field"),
            (slice_field, "--slice-field"),
        ):
            if name is not None and name not in columns:
                raise UserError(
                    f"{path}:1: no column '{name}' ({_header(columns)}); name the column with "
                    f"{option}"
                )
        try:
            for record in reader:
                records.append((reader.line_num, record))
        except csv.Error:
            raise UserError(f"{path}:{reader.line_num}: not valid CSV; fix the quoting") from None
        return _some(path, _entries(fields, records), text_field)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise UserError(
                f"{path}:{number}: not valid JSON (column {e.colno}); write one JSON object a line"
            ) from None
        if not isinstance(record, dict):
            raise UserError(
                f"{path}:{number}: {_kind(record)}, not a JSON object; write one object a line"
            )
        records.append((number, record))
    return _some(path, _entries(fields, records), text_field)


def _entries(fields: _Fields, records: Sequence[tuple[int, Mapping[str, Any]]]) -> list[LogEntry]:
    """Each record as a LogEntry. A scrubber with a `many` method (`scrub.Counting`) reads the
    texts in one batch first: a model reads a batch several times faster than one text at a
    time."""
    many = getattr(fields.scrub, "many", None)
    if many is not None:
        many(
            [r[fields.text_field] for _, r in records if isinstance(r.get(fields.text_field), str)]
        )
    return [fields.entry(line, record) for line, record in records]


#: a CSV header cell that reads as a column name; any other is quoted by count only (a log
#: without a header has a question where its header should be)
_COLUMN_NAME = re.compile(r"[A-Za-z_][\w.-]{0,39}")


def _header(columns: Sequence[str]) -> str:
    """The CSV header for an error message, without quoting a cell that may be log text."""
    if not columns:
        return "no header"
    if all(_COLUMN_NAME.fullmatch(c) for c in columns):
        return f"columns: {', '.join(columns)}"
    return f"{len(columns)} cells that are not column names: is the first line a header?"


def _some(path: Path, entries: list[LogEntry], text_field: str) -> list[LogEntry]:
    """`entries`, refused when there are none: an empty log has nothing to sample."""
    if not entries:
        raise UserError(
            f"{path}: field '{text_field}': no entries, the log is empty; give a log with at "
            "least one question"
        )
    return entries


# ----------------------------------------------------------------------------- shares


def traffic_shares(slices: Sequence[str], known: Sequence[str]) -> dict[str, float]:
    """Each known slice's share of the entries whose slice is known (in `known` order; they sum
    to 1). Entries in `unknown` are not in the shares."""
    counts = Counter(s for s in slices if s != UNKNOWN)
    total = sum(counts[s] for s in known)
    if total == 0:
        raise UserError(
            "no log entry falls in a known slice, so there are no traffic shares; check the slice "
            "column (--slice-field) or the slice rules"
        )
    return {s: counts[s] / total for s in known}


def write_weights(
    path: str | Path, shares: Mapping[str, float], *, digits: int = 4, comment: str | None = None
) -> dict[str, float]:
    """Write `shares` as a yaml mapping usable as `eval.traffic_weights`, rounded to `digits`
    decimals by largest remainder so the written values still sum to exactly 1; returns them."""
    total = sum(shares.values())
    if not shares or abs(total - 1.0) > 1e-6 or any(v < 0 for v in shares.values()):
        raise ValueError(f"shares must be >= 0 and sum to 1, got a sum of {total}")
    unit = 10**digits
    scaled = {s: v * unit for s, v in shares.items()}
    units = {s: int(np.floor(v)) for s, v in scaled.items()}
    left = unit - sum(units.values())
    for s in sorted(scaled, key=lambda s: (units[s] - scaled[s], list(scaled).index(s)))[:left]:
        units[s] += 1
    weights = {s: round(u / unit, digits) for s, u in units.items()}
    header = "".join(f"# {line}\n" for line in (comment or "").splitlines())
    Path(path).write_text(header + yaml.safe_dump(weights, sort_keys=False), encoding="utf-8")
    return weights


# ----------------------------------------------------------------------------- sampling


@dataclass(frozen=True)
class SampledQuestion:
    """A drawn question: its id, scrubbed text, slice, timestamp and line in the log."""

    id: str
    text: str
    slice: str
    ts: datetime | None
    line: int


@dataclass(frozen=True)
class SliceCount:
    """Entries of a slice left after dedupe and exclusion (`available`), its target, and how
    many were drawn; `shortfall` is what the slice lacks to reach the target. `matched`: the
    entries (after `since`, before dedupe) the rules or the slice column put in the slice."""

    target: int
    available: int
    sampled: int
    matched: int = 0

    @property
    def shortfall(self) -> int:
        return self.target - self.sampled


@dataclass(frozen=True)
class Absorbed:
    """A scrubbed text a kept question absorbed: `near`, the first entry of a `normalise`d text
    `same_question` merged (count 1), or `exact`, entries repeating the normalised text of the
    kept entry or of a near one, as `SampleResult` counts them; the first at `line`."""

    text: str
    how: str
    count: int
    line: int


@dataclass(frozen=True)
class Cluster:
    """A kept question (its scrubbed text, line and slice) and the texts it absorbed, for a
    person to check. `fate`: `sampled`, `available` (not drawn), `in the set` (it duplicates
    a question of the labelled set) or `unknown` (no slice)."""

    text: str
    line: int
    slice: str
    fate: str
    absorbed: tuple[Absorbed, ...]

    @property
    def size(self) -> int:
        return 1 + sum(a.count for a in self.absorbed)

    @property
    def near(self) -> int:
        return sum(a.count for a in self.absorbed if a.how == "near")

    @property
    def exact(self) -> int:
        return sum(a.count for a in self.absorbed if a.how == "exact")

    def row(self) -> dict[str, Any]:
        """The cluster as one JSON object (scrubbed texts only)."""
        return {
            "kept": self.text,
            "line": self.line,
            "slice": self.slice,
            "fate": self.fate,
            "exact": self.exact,
            "near": self.near,
            "absorbed": [
                {"text": a.text, "how": a.how, "count": a.count, "line": a.line}
                for a in self.absorbed
            ],
        }


@dataclass(frozen=True)
class SampleResult:
    """What `draw_sample` did. Counts follow the pipeline of the module docstring:
    `entries_in` -> `after_since` -> minus `exact_duplicates`, `near_duplicates` and
    `already_in_set` -> per slice `available`. `unknown` counts entries after `since` (traffic),
    `unknown_available` those left after dedupe and exclusion; neither is drawn. `shares` are
    the traffic shares over the known slices."""

    source: str
    since: datetime | None
    seed: int
    rows: tuple[SampledQuestion, ...]
    entries_in: int
    after_since: int
    exact_duplicates: int
    near_duplicates: int
    already_in_set: int
    slices: Mapping[str, SliceCount]
    unknown: int
    unknown_available: int
    shares: Mapping[str, float]
    #: every kept question that absorbed another entry, largest first (`write_clusters`)
    clusters: tuple[Cluster, ...] = ()
    #: where the slices came from: the rules file's name, or None (the log's slice column)
    rules: str | None = None


def _targets(target: int | Mapping[str, int], known: Sequence[str]) -> dict[str, int]:
    if isinstance(target, Mapping):
        missing = [s for s in known if s not in target]
        if missing:
            raise UserError(f"no target for slice(s) {', '.join(missing)}; give one per slice")
        targets = {s: target[s] for s in known}
    else:
        targets = dict.fromkeys(known, target)
    for s, t in targets.items():
        if isinstance(t, bool) or not isinstance(t, int) or t < 0:
            raise UserError(f"target for {s} must be a whole number >= 0, got {t!r}")
    return targets


def draw_sample(
    entries: Sequence[LogEntry],
    scrub: Scrub,
    *,
    existing: Iterable[str] = (),
    since: date | datetime | str | None = None,
    target: int | Mapping[str, int] = DEFAULT_TARGET,
    seed: int = 0,
    classifier: SliceClassifier | None = None,
    slices: Sequence[str] | None = None,
    source: str = "log",
) -> SampleResult:
    """The pipeline of the module docstring on entries read by `read_log`. `existing`: the
    texts of the current labelled set (scrubbed here too, so like is compared with like).
    `slices`: the known slices, in report order (default: the classifier's); an entry's own
    slice (from the log's column, `UNKNOWN` when empty) is used when there is a slice column,
    the classifier otherwise. Rows come
    out by slice, then time."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UserError(f"seed must be a whole number >= 0, got {seed!r}")
    classifier = classifier or load_classifier()
    known = tuple(slices) if slices is not None else classifier.slices
    targets = _targets(target, known)
    start = None if since is None else parse_when(since)
    pool = list(entries)
    if start is not None:
        if any(e.ts is None for e in pool):
            raise UserError(f"{source}: --since needs timestamps; name the field with --ts-field")
        pool = [e for e in pool if e.ts >= start]  # type: ignore[operator]
    if entries and not pool:
        raise UserError(
            f"{source}: no entry is on or after {start:%Y-%m-%d}; choose an earlier --since"
        )
    labels = [e.slice if e.slice is not None else classifier.classify(e.text) for e in pool]
    shares = traffic_shares(labels, known) if pool else {}

    order = sorted(
        range(len(pool)), key=lambda i: (pool[i].ts is not None, pool[i].ts, pool[i].line)
    )
    first_of: dict[str, int] = {}
    for i in order:
        first_of.setdefault(normalise(pool[i].text), i)
    unique = [i for i in order if first_of[normalise(pool[i].text)] == i]
    keys = [near_key(pool[i].text, mark=True) for i in unique]
    dup_of = near_duplicates(keys)
    kept = [i for i, d in zip(unique, dup_of, strict=True) if d is None]
    existing = list(existing)
    if getattr(scrub, "many", None) is not None:
        scrub.many(existing)  # type: ignore[attr-defined]
    existing_keys = sorted(
        {near_key(t, mark=True) for t in (scrub(x) for x in existing) if t.strip()}
    )
    # a cluster is in the set when any of its texts is: its kept text may reach a labelled
    # question only through another member
    hit = {
        n if d is None else d
        for n, (d, h) in enumerate(zip(dup_of, matches_any(keys, existing_keys), strict=True))
        if h
    }
    in_set = [n in hit for n, d in enumerate(dup_of) if d is None]
    fresh = [i for i, h in zip(kept, in_set, strict=True) if not h]

    rows, counts, drawn = [], {}, set()
    for s in known:
        candidates = [i for i in fresh if labels[i] == s]
        n = min(targets[s], len(candidates))
        rng = np.random.default_rng([seed, zlib.crc32(s.encode("utf-8"))])
        chosen = sorted(rng.choice(len(candidates), size=n, replace=False)) if n else []
        for c in chosen:
            e = pool[candidates[c]]
            drawn.add(candidates[c])
            rows.append(SampledQuestion(question_id(e.text), e.text, s, e.ts, e.line))
        counts[s] = SliceCount(targets[s], len(candidates), n, labels.count(s))
    root = {u: unique[d] if d is not None else u for u, d in zip(unique, dup_of, strict=True)}
    fate = {i: "in the set" for i, hit in zip(kept, in_set, strict=True) if hit}
    fate |= {
        i: "sampled" if i in drawn else UNKNOWN if labels[i] == UNKNOWN else "available"
        for i in fresh
    }
    clusters = _clusters(pool, order, first_of, root, labels, fate)
    return SampleResult(
        source=source,
        since=start,
        seed=seed,
        rows=tuple(rows),
        entries_in=len(entries),
        after_since=len(pool),
        exact_duplicates=len(pool) - len(unique),
        near_duplicates=len(unique) - len(kept),
        already_in_set=len(kept) - len(fresh),
        slices=counts,
        unknown=labels.count(UNKNOWN),
        unknown_available=sum(labels[i] == UNKNOWN for i in fresh),
        shares=shares,
        clusters=clusters,
        rules=classifier.source if not pool or any(e.slice is None for e in pool) else None,
    )


def _clusters(
    pool: Sequence[LogEntry],
    order: Sequence[int],
    first_of: Mapping[str, int],
    root: Mapping[int, int],
    labels: Sequence[str],
    fate: Mapping[int, str],
) -> tuple[Cluster, ...]:
    """Each kept entry that absorbed others, with the texts it absorbed (`Absorbed`, in time
    order)."""
    absorbed: dict[int, dict[tuple[str, str], list[int]]] = {}
    for i in order:
        first = first_of[normalise(pool[i].text)]
        kept = root[first]
        if i == kept:
            continue
        how = "near" if i == first else "exact"
        seen = absorbed.setdefault(kept, {}).setdefault((pool[i].text, how), [0, pool[i].line])
        seen[0] += 1
    out = [
        Cluster(
            pool[k].text,
            pool[k].line,
            labels[k],
            fate[k],
            tuple(Absorbed(text, how, n, line) for (text, how), (n, line) in texts.items()),
        )
        for k, texts in absorbed.items()
    ]
    return tuple(sorted(out, key=lambda c: (-c.size, c.line)))


def write_clusters(result: SampleResult, path: str | Path) -> Path:
    """The duplicate clusters as JSON Lines at `path`, one kept question a line, largest first
    (`Cluster.row`: scrubbed texts only)."""
    path = Path(path)
    path.write_text(
        "".join(json.dumps(c.row(), ensure_ascii=False) + "\n" for c in result.clusters),
        encoding="utf-8",
    )
    return path


def clusters_path(out: str | Path) -> Path:
    """Where `labels sample` writes the clusters of a sample written to `out`: beside it,
    `<stem>.clusters.jsonl`."""
    out = Path(out)
    return out.with_name(f"{out.stem}.clusters.jsonl")


def sample_log(
    path: str | Path,
    scrub: Scrub,
    *,
    text_field: str = "text",
    ts_field: str | None = "ts",
    slice_field: str | None = None,
    existing: Iterable[str] = (),
    since: date | datetime | str | None = None,
    target: int | Mapping[str, int] = DEFAULT_TARGET,
    seed: int = 0,
    classifier: SliceClassifier | None = None,
) -> SampleResult:
    """`read_log` then `draw_sample`: what `ragsweep labels sample LOG` runs."""
    classifier = classifier or load_classifier()
    entries = read_log(
        path,
        scrub,
        text_field=text_field,
        ts_field=ts_field,
        slice_field=slice_field,
        known_slices=classifier.slices,
    )
    return draw_sample(
        entries,
        scrub,
        existing=existing,
        since=since,
        target=target,
        seed=seed,
        classifier=classifier,
        source=str(path),
    )


#: how to extend the rules, named when a slice gets no question because none matched
EXTEND_RULES = (
    "copy the rules (`ragsweep labels sample --write-rules slices.yaml`), add the keywords or "
    "patterns your log uses (identifiers: your insurer's code pattern, e.g. "
    "'\\bABC-[A-Z]{2}-\\d{3}\\b'), then sample with --rules slices.yaml"
)


def zero_reasons(result: SampleResult) -> dict[str, str]:
    """Why each slice with a target got no question: no entry matched (its rules, or the log's
    slice column), or every entry that did was a duplicate or already in the labelled set."""
    out = {}
    for s, c in result.slices.items():
        if c.sampled or not c.target:
            continue
        if c.matched == 0 and result.rules is None:
            out[s] = "no entry of the log's slice column names it"
        elif c.matched == 0:
            out[s] = f"no entry matched its rules in {result.rules}; {EXTEND_RULES}"
        else:
            out[s] = (
                f"all {c.matched} entries the rules put in it were duplicates (of each other or "
                "of another slice's entries) or already in the labelled set; see the clusters"
            )
    return out


def render_summary(result: SampleResult) -> str:
    """A plain-text summary: the counts down the pipeline, then one line per slice, and why a
    slice got no question."""
    since = "" if result.since is None else f" since {result.since:%Y-%m-%d %H:%M} UTC"
    source = "the log's slice column" if result.rules is None else f"the rules in {result.rules}"
    lines = [
        f"{result.source}: {result.entries_in} entries in, {result.after_since} kept{since}",
        f"  exact duplicates removed   {result.exact_duplicates}",
        f"  near-duplicates removed    {result.near_duplicates} "
        f"({NEAR_METHOD} >= {NEAR_THRESHOLD} proposes; texts differing only by typos, articles, "
        "merged words or contact wording around a placeholder are one)",
        f"  already in the labelled set {result.already_in_set}",
        f"  unknown slice              {result.unknown} entries "
        f"({result.unknown_available} after dedupe; not sampled, not in the shares)",
        f"sampled {len(result.rows)} questions, seed {result.seed}, slices by {source}",
        f"  {'slice':<12} {'share':>6} {'available':>9} {'target':>6} {'sampled':>7} {'short':>5}",
    ]
    for s, c in result.slices.items():
        lines.append(
            f"  {s:<12} {result.shares.get(s, 0.0):>6.3f} {c.available:>9} {c.target:>6} "
            f"{c.sampled:>7} {c.shortfall:>5}"
        )
    for s, why in zero_reasons(result).items():
        lines.append(f"  {s}: 0 questions: {why}")
    return "\n".join(lines)


def read_candidates(path: str | Path, products: Sequence[str]) -> pd.DataFrame:
    """The questions `labels sample` wrote (`sampled_questions.jsonl`: id, text, slice, ...) as
    candidate questions for `labels pool` and `labels import`: qid (the sample's id), text,
    slice, product and version. The product is the one corpus product whose name the text holds
    as a word ("my motor policy"), else None; the version is None (a log question asks about the
    wording in force, which the log does not say): the retriever then does not filter by it."""
    file = Path(path)
    if not file.is_file():
        raise UserError(f"{file}: no such file; write it with `ragsweep labels sample`")
    rows = []
    for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            entry = json.loads(line)
            qid, text, slice_ = str(entry["id"]), str(entry["text"]), str(entry["slice"])
        except (ValueError, KeyError, TypeError):
            raise UserError(
                f"{file}:{n}: not a sampled question (id, text, slice); write the file with "
                "`ragsweep labels sample`"
            ) from None
        named = [p for p in products if re.search(rf"\b{re.escape(p)}\b", text, re.I)]
        product = named[0] if len(named) == 1 else None
        rows.append(
            {"qid": qid, "text": text, "slice": slice_, "product": product, "version": None}
        )
    return table(rows, ["qid", "text", "slice", "product", "version"])
