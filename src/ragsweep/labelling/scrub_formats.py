"""ragsweep's own recognisers of personal items with a format of their own, for what Presidio does
not know: policy and claim references after a cue or in the rules' shapes, dates of birth after a
cue, National Insurance numbers, bank accounts and sort codes, passports, VINs, driving licences,
social-media handles, obfuscated e-mail addresses, links, long phone-shaped numbers, and street
addresses (the second pass, after the placeholders of the first). docs/scrubbing.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from phonenumbers import Leniency, PhoneNumberMatcher

from ragsweep.labelling.scrub_rules import Rules

#: a merely "possible" phone number needs this many digits to count
MIN_POSSIBLE_PHONE_DIGITS = 10


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


def address(text: str) -> Iterable[Span]:
    for m in _ADDRESS.finditer(text):
        if _address_ok(m):
            start = m.start("flat") if m.group("flat") else m.start("num")
            end = m.end("suffix") + text[m.end("suffix") : m.end("suffix") + 1].startswith(".")
            yield start, end, "ADDRESS"


def vehicle_ok(text: str) -> Callable[[tuple[int, int]], bool]:
    """Presidio's plates: the current format in any case, older formats only in capitals."""

    def ok(span: tuple[int, int]) -> bool:
        value = text[span[0] : span[1]]
        return bool(_REG_CURRENT.fullmatch(value)) or value.isupper()

    return ok


def format_finders(rules: Rules) -> list[Finder]:
    """ragsweep's own recognisers of items with a format of their own: the first pass."""
    refs: list[Finder] = [
        *(_items(p, "CLAIM_REF") for p in rules.claim_ref),
        _items(_CLAIM_CUE, "CLAIM_REF"),
        *(_items(p, "POLICY_REF") for p in rules.policy_ref),
        _items(_POLICY_CUE, "POLICY_REF"),
        _items(_BARE_REF, "POLICY_REF"),
    ]
    return [
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
