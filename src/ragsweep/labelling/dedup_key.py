"""The key near-duplicate detection compares (`near_key`): a log text's words without greetings,
sign-offs and scrubber placeholders, with the wording around a placeholder that may be contact
detail rather than the question flagged (`FREE`); and `normalise`, the exact-duplicate key.
Which keys are one question is `dedup.py`'s; docs/labelling.md, "Duplicates", explains both.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import OSA

#: two differing words are a typo of each other within this many OSA edits per letter of the
#: longer word (one edit always allowed): 1 edit up to 7 letters, 2 from 8
TYPO_EDITS_PER_LETTER = 0.25
#: words of at most this many letters are typos of each other only with the same letters
SHORT_WORD = 2

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

_NON_WORD = re.compile(r"[\W_]+")


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
        t.word == w or (len(w) >= FILLER_TYPO_LETTERS and is_typo(t.word, w))
        for t, w in zip(tokens, phrase.split(), strict=True)
    )


def is_typo(a: str, b: str) -> bool:
    if not (a + b).isalpha():
        return False
    if max(len(a), len(b)) <= SHORT_WORD:  # "fo" / "of"; never "in" / "on", nor "hm" / "tr"
        return sorted(a) == sorted(b)
    allowed = max(1, int(max(len(a), len(b)) * TYPO_EDITS_PER_LETTER))
    return OSA.distance(a, b, score_cutoff=allowed) <= allowed
