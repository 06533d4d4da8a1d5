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
6. **Near-duplicates** (`near_duplicates`): see below; again the earliest entry stays, and an
   entry is compared with the entries kept so far only (no chaining through removed ones).
7. **Already in the set**: an entry that duplicates or near-duplicates a question of the current
   labelled set is excluded (after dedupe, so the variants of an existing question go with it).
8. **Stratified draw**: up to `target` per slice without replacement, one numpy Generator per
   slice seeded by (seed, CRC-32 of the slice name), so a slice's draw depends on nothing else;
   a slice with fewer entries than its target gives all of them and reports the shortfall.

Near-duplicates. Candidates are pairs whose `near_key`s score `fuzz.token_sort_ratio` >=
`NEAR_THRESHOLD` (`rapidfuzz.process.cdist`, one worker, so the result is deterministic). The
token-sort ratio ignores word order, so reordered questions score 100. `token_set_ratio` and
`WRatio` were rejected: they score a question 100 against any longer question containing it
("is my bike covered" vs "is my bike covered abroad"). No character-level threshold alone
separates a typo from a different question on the same template ("... storm damage" vs "...
flood damage" scores 84.6, a short question with two typos less), so the score only proposes
and a word-level check decides (`same_question`): the words that differ pair up as typos (one
OSA edit per `1 / TYPO_EDITS_PER_LETTER` letters, at least one; words of `SHORT_WORD` letters
only with the same letters, "fo"/"of"; never a word holding a digit, so `EXC-TR-12` vs
`EXC-TR-14` and 2024 vs 2025 stay apart), articles may come or go, or, when the numbers of
words differ, the leftovers joined without spaces are `JOINED_EDITS` apart ("youngdriver").
`near_key` first drops what says nothing about the question: scrubber placeholders with their
lead-ins (`without_placeholders`: `LEAD_CUES`, `LABEL_WORDS`, `ID_NOUNS`, `ID_WORDS`, generic
over kinds: "dob <DOB>", "pol no <POLICY_REF>", "signed <NAME>"), greetings and sign-offs
(`LEADING_FILLER`, `TRAILING_FILLER`), and reads text-speak as words (`TEXT_SPEAK`). Measured
against other methods in `benchmarks/dedup.py` (docs/labelling.md, "Duplicates": precision 1.000
and recall 0.83 of same-wording pairs on the sample's log, 28 of 28 hard pairs; 6 s for the
near-duplicates of a 10,000-line log on one thread). `SampleResult.clusters` lists what each
kept question absorbed (`write_clusters`).

Slices that get no question say why (`zero_reasons`): no entry matched the rules (named, with
how to extend them: `write_rules` copies the built-in file to edit), or every entry was a
duplicate or already in the set.
"""

from __future__ import annotations

import csv
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
#: edits allowed between the leftover words joined without spaces ("youngdirver" / "young
#: driver"), when their numbers of words differ
JOINED_EDITS = 1
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
    r"nhs|ni|nino|national insurance|passport|(?:driving )?licen[cs]e",
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
_LEAD_IN = re.compile(
    rf"(?:^| )(?:(?:{_alt(LEAD_CUES)} )*(?:(?:{POSSESSIVES}) )?(?:{_LABEL})(?: (?:is|was|are|s))?"
    rf"|{_alt(LEAD_CUES)}(?: {_alt(LEAD_CUES)})*|{POSSESSIVES})$"
)
#: what may follow a placeholder and goes with it ("<NAME> here")
_LEAD_OUT = re.compile(r"^here\b ?")
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
#: punctuation followed by a space
_SEGMENT = re.compile(r"\n+|[()\[\]{}]|\s[-–—|]+\s|[,;:.!?]+(?:\s+|$)")
#: a segment holding a placeholder and at most this many other words is contact detail
#: ("see <URL>", "(paid with <CARD>)", "- <NAME> on <DOB> -", "IBAN: <IBAN>")
CONTACT_WORDS = 4


def _without_contact_segments(text: str) -> str:
    """`text` without the segments that are contact detail (`CONTACT_WORDS`), when what is left
    still holds a question of three words or more."""
    parts = [p for p in _SEGMENT.split(text) if p and p.strip()]
    contact = [
        bool(PLACEHOLDER.search(p))
        and len(normalise(PLACEHOLDER.sub(" ", p)).split()) <= CONTACT_WORDS
        for p in parts
    ]
    for i in range(len(parts) - 1):  # a label cut off from its item: "D.O.B. <DOB>"
        if contact[i + 1] and not _LEAD_IN.sub("", normalise(parts[i])).strip():
            contact[i] = True
    rest = [p for p, c in zip(parts, contact, strict=True) if not c]
    if not any(contact) or len(normalise(" ".join(rest)).split()) < 3:
        return text
    return " , ".join(rest)


#: where a placeholder was, in a key `near_key(..., mark=True)` gives `same_question`
MARK = "§"
#: words this close to a placeholder that the other text lacks are taken for contact wording
#: ("dl <DRIVING_LICENCE>", "<URL> has the pics", "logged in from <IP_ADDRESS>")
NEAR_MARK = 2


def without_placeholders(text: str, mark: bool = False) -> list[str]:
    """The normalised words of `text` without its contact segments (`CONTACT_WORDS`), its
    scrubber placeholders and the lead-in before each (`LEAD_CUES`, `LABEL_WORDS`, `ID_NOUNS` +
    `ID_WORDS`) or "here" after it, text-speak read as words (`TEXT_SPEAK`); `mark`: `MARK`
    where each placeholder was."""
    words: list[str] = []
    pieces = PLACEHOLDER.split(_without_contact_segments(text).replace("&", " and "))
    for i, piece in enumerate(pieces):
        segment = normalise(piece)
        if i > 0:
            segment = _LEAD_OUT.sub("", segment)
        if i < len(pieces) - 1:
            segment = _LEAD_IN.sub("", segment)
        words.extend(TEXT_SPEAK.get(w, w) for w in segment.split())
        if mark and i < len(pieces) - 1:
            words.append(MARK)
    return words


def near_key(text: str, mark: bool = False) -> str:
    """The words near-duplicate detection compares: `text` without scrubber placeholders and
    their lead-ins (`without_placeholders`), normalised, without leading and trailing filler.
    Never empty for a non-empty question: a step that would empty it is skipped."""
    words = [w for w in without_placeholders(text, mark)] or normalise(text).split()
    if all(w == MARK for w in words):
        words = normalise(text).split()
    changed = True
    while changed:
        changed = False
        for phrase in LEADING_FILLER:
            n = phrase.count(" ") + 1
            if len(words) > n and " ".join(words[:n]) == phrase:
                words, changed = words[n:], True
        for phrase in TRAILING_FILLER:
            n = phrase.count(" ") + 1
            if len(words) > n and " ".join(words[-n:]) == phrase:
                words, changed = words[:-n], True
    return " ".join(words)


def question_id(text: str) -> str:
    """`s` + the first 10 hex digits of sha1 of the normalised text: the same question gets the
    same id on every run."""
    digest = hashlib.sha1(normalise(text).encode("utf-8")).hexdigest()
    return f"{ID_PREFIX}{digest[:ID_HASH_CHARS]}"


def _is_typo(a: str, b: str) -> bool:
    if any(c.isdigit() for c in a + b):
        return False
    if max(len(a), len(b)) <= SHORT_WORD:  # "fo" / "of"; never "in" / "on", nor "hm" / "tr"
        return sorted(a) == sorted(b)
    allowed = max(1, int(max(len(a), len(b)) * TYPO_EDITS_PER_LETTER))
    return OSA.distance(a, b, score_cutoff=allowed) <= allowed


def _unmarked(words: Sequence[str], other: Sequence[str]) -> list[str]:
    """`words` without `MARK`s and without the words within `NEAR_MARK` of one that `other`
    lacks: contact wording around a placeholder ("pay it into §", "§ has the pics")."""
    if MARK not in words:
        return list(words)
    marks = [i for i, w in enumerate(words) if w == MARK]
    others = set(other)
    return [
        w
        for i, w in enumerate(words)
        if w != MARK and (w in others or all(abs(i - m) > NEAR_MARK for m in marks))
    ]


def _residue(words: Sequence[str], other: Counter[str]) -> list[str]:
    """`words` not in `other` (as multisets), in their order."""
    left = Counter(other)
    out = []
    for w in words:
        if left[w]:
            left[w] -= 1
        else:
            out.append(w)
    return out


def same_question(key_a: str, key_b: str) -> bool:
    """Whether two `near_key`s differ only by word order, typos, articles and words merged or
    split. The words left after removing the common ones (as multisets) pair up one to one
    as typos (greedily, in sorted order, each with its most similar partner), articles
    (`IGNORED_WORDS`) may stay unpaired ("teh" pairs with "the" first); else, when their
    numbers of words differ, the two leftovers joined without spaces in their order are at
    most `JOINED_EDITS` apart ("youngdriver" / "young driver", "weara nd" / "wear and")."""
    a, b = _unmarked(key_a.split(), key_b.split()), _unmarked(key_b.split(), key_a.split())
    only_a, only_b = _residue(a, Counter(b)), _residue(b, Counter(a))
    if _pair_as_typos(only_a, only_b) or _same_letters(a, b):
        return True
    only_a = [w for w in only_a if w not in IGNORED_WORDS]
    only_b = [w for w in only_b if w not in IGNORED_WORDS]
    if not only_a or not only_b or len(only_a) == len(only_b):
        return False  # words merged or split change the number of words
    joined_a, joined_b = "".join(only_a), "".join(only_b)
    if any(c.isdigit() for c in joined_a + joined_b):
        return False
    return OSA.distance(joined_a, joined_b, score_cutoff=JOINED_EDITS) <= JOINED_EDITS


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
    lens_a, lens_b = _word_lengths(wa), _word_lengths(wb)
    regions: list[list[int]] = []  # [start_a, end_a, start_b, end_b]
    for op in Levenshtein.opcodes(ja, jb):
        if op.tag == "equal":
            continue
        if regions and op.src_start - regions[-1][1] <= TYPO_REGION:
            regions[-1][1], regions[-1][3] = op.src_end, op.dest_end
        else:
            regions.append([op.src_start, op.src_end, op.dest_start, op.dest_end])
    if len(regions) > max(1, len(ja) // LETTERS_PER_TYPO):
        return False
    for sa, ea, sb, eb in regions:
        left, right = ja[sa:ea], jb[sb:eb]
        if max(len(left), len(right)) > TYPO_REGION or any(c.isdigit() for c in left + right):
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


def _pair_as_typos(only_a: Sequence[str], only_b: Sequence[str]) -> bool:
    rest = sorted(only_b)
    for word in sorted(only_a):
        best = max(rest, key=lambda other: OSA.normalized_similarity(word, other), default=None)
        if best is not None and _is_typo(word, best):
            rest.remove(best)
        elif word not in IGNORED_WORDS:
            return False
    return all(w in IGNORED_WORDS for w in rest)


def _sorted_words(key: str) -> str:
    return " ".join(sorted(key.split()))


def _candidates(queries: Sequence[str], choices: Sequence[str]) -> np.ndarray:
    """token_sort_ratio >= NEAR_THRESHOLD as a boolean matrix (sorting once here and scoring
    with `fuzz.ratio` is `fuzz.token_sort_ratio`, without re-sorting every pair)."""
    if not queries or not choices:
        return np.zeros((len(queries), len(choices)), dtype=bool)
    scores = process.cdist(
        [_sorted_words(q) for q in queries],
        [_sorted_words(c) for c in choices],
        scorer=fuzz.ratio,
        score_cutoff=NEAR_THRESHOLD,
        dtype=np.uint8,
        workers=1,
    )
    return scores >= NEAR_THRESHOLD


def near_duplicates(keys: Sequence[str]) -> list[int | None]:
    """For each key, in the given order (earliest first), the index of the earlier kept key it
    near-duplicates, or None when it is kept."""
    cand = _candidates(keys, keys)
    kept = np.zeros(len(keys), dtype=bool)
    out: list[int | None] = []
    for i, key in enumerate(keys):
        match = None
        for j in np.flatnonzero(cand[i, :i] & kept[:i]):
            if same_question(key, keys[j]):
                match = int(j)
                break
        kept[i] = match is None
        out.append(match)
    return out


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
    kept_keys = [k for k, d in zip(keys, dup_of, strict=True) if d is None]
    existing = list(existing)
    if getattr(scrub, "many", None) is not None:
        scrub.many(existing)  # type: ignore[attr-defined]
    existing_keys = sorted(
        {near_key(t, mark=True) for t in (scrub(x) for x in existing) if t.strip()}
    )
    in_set = matches_any(kept_keys, existing_keys)
    fresh = [i for i, hit in zip(kept, in_set, strict=True) if not hit]

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
        f"(placeholders and their lead-ins dropped; {NEAR_METHOD} >= {NEAR_THRESHOLD} proposes, "
        "words differing only by typos, articles or merged words decide)",
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
