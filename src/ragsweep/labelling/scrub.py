"""Scrub personal data from raw query-log texts before anything is written or printed.

`scrub(text)` replaces each personal item with a typed placeholder and counts them per kind;
`scrub_all(texts)` does the same for many texts and sums the counts. Kinds, in the order they
are applied (earlier kinds protect their digits and words from later ones: a card number never
becomes phone numbers, an email address never leaves a name behind):

1. `<EMAIL>`: `local@domain.tld`.
2. `<CARD>`: 13-19 digits, optionally grouped by spaces or dashes, passing the Luhn check.
3. `<CLAIM_REF>`: `CLM-` + 4 or more digits anywhere; after "claim number/no/ref/reference/id",
   a token holding a run of 5 or more digits.
4. `<POLICY_REF>`: `POL-` (or `POL `/`POL`) + 4 or more digits anywhere; after a cue ("policy
   number/no/num/ref/reference/id", or a bare "ref"/"reference number" that no claim cue took),
   a token holding a run of 5 or more digits (`policy number 12345678`, `policy no. HM/1234567`);
   and any other reference-shaped token, 2-5 letters + `-` + 6 or more digits (`PLO-34514577`).
5. `<NI_NUMBER>`: UK national insurance numbers, `AB123456C` or `AB 12 34 56 C` (two prefix
   letters of the allowed alphabet, six digits, suffix A-D), any case.
6. `<DOB>`: a date after a date-of-birth cue ("born", "born on", "DOB", "d.o.b.", "date of
   birth", "birth date", "birthday"), written 01/02/1980, 1-2-80, 01.02.1980, 1980-02-01,
   1 Feb 1980, 1st of February 1980, February 1, 1980 or February 1980. The cue is kept.
7. `<PHONE>`: whatever `phonenumbers.PhoneNumberMatcher` (region GB) finds valid, plus numbers
   it finds merely possible when they start with `+`, `00` or a UK trunk `0` and have at least
   10 digits (Ofcom's drama ranges such as 07700 900123 are not "valid" in its metadata).
8. `<POSTCODE>`: UK postcodes, spaced or not, any case (`SW1A 1AA`, `m1 1ae`, `GIR 0AA`).
9. `<VEHICLE_REG>`: current UK plates `AB12 CDE`/`AB12CDE` (any case); the older prefix
   (`A123 BCD`) and suffix (`ABC 123D`) formats only when written in capitals, where they cannot
   be ordinary words.
10. `<ADDRESS>`: a house number (optionally after "flat/apartment/unit N,") + one to three
    street-name words + a street suffix (Road, Rd, Street, St, Lane, Avenue, Close, Drive, Way,
    Crescent, Grove, Gardens, Terrace, Place, Court, Square, Mews, Hill, Park, Row, Walk ...).
    The street name must not contain function words or units ("5 days in the park" stays); in
    lower case only the unambiguous suffixes count ("2 sons drive" stays).
11. `<NAME>`: one to three capitalised words after a cue: "my name is"/"my name's"/"name is"
    (lower-case names accepted here, up to two words), "I'm"/"I am"/"this is", a title
    (Mr, Mrs, Ms, Mx, Dr, Prof, Sir, Dame; `Miss` only capitalised), a relation ("my husband
    John", "my son, Jack"), "<Name> <Surname> here" opening a sentence, and a sign-off
    ("regards/thanks/cheers, Sarah" ending the text). Cue words stay; words in a stop list
    ("I'm Not sure", "this is Covered") end the name.

Not caught (by design or as a known limit): names without a cue or after a misspelt cue, or in
lower case after "I'm"/"this is" ("i'm sarah jones"); obfuscated emails ("sarah at example dot
com"); card numbers failing Luhn; phone numbers with fewer than 10 digits that `phonenumbers`
does not call valid; policy or claim references without a `POL-`/`CLM-` prefix, a cue or a
`LETTERS-digits` shape, or with fewer than 5 consecutive digits after a cue; ordinary dates
without a date-of-birth cue ("I travel on 3 March", "from 03/03/2025") and a bare birth year
("born in 1980"): a date alone does not identify anyone, and travel and claim dates matter to
the question; addresses without a house number or street suffix ("Rose Cottage"); towns and
cities; older plates in lower case. Money, clause numbers (section 4.11, 5.3.1), endorsement and
wording ids (END-HM-14, TR-PW-2025/01), years, durations and percentages are left alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import phonenumbers
from phonenumbers import Leniency, PhoneNumberMatcher

#: the kinds, in the order `scrub` applies them; the placeholder of kind K is `<K>`
KINDS: tuple[str, ...] = (
    "EMAIL",
    "CARD",
    "CLAIM_REF",
    "POLICY_REF",
    "NI_NUMBER",
    "DOB",
    "PHONE",
    "POSTCODE",
    "VEHICLE_REG",
    "ADDRESS",
    "NAME",
)
PHONE_REGION = "GB"
#: a merely "possible" phone number needs this many digits to count
MIN_POSSIBLE_PHONE_DIGITS = 10


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


# --- patterns -------------------------------------------------------------------------------

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")

# 13-19 digits, single spaces or dashes between them, not glued to other digits
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])")

_POL_PREFIX = re.compile(r"\bPOL[- ]?\d{4,}\b", re.IGNORECASE)
_CLM_PREFIX = re.compile(r"\bCLM[- ]?\d{4,}\b", re.IGNORECASE)
# a reference-shaped token with some other prefix (a typed "PLO-34514577"): counted as a policy
_OTHER_REF = re.compile(r"\b[A-Z]{2,5}-\d{6,}\b", re.IGNORECASE)
# a slashed reference (`HM/1234567`, `MTC/204588`): counted as a policy unless a claim cue took it
_SLASH_REF = re.compile(r"\b[A-Z]{2,4}/\d{5,}\b", re.IGNORECASE)
# 7-12 digits standing alone, not a phone (those start with 0 or +), an amount or a decimal
_BARE_REF = re.compile(
    r"(?<![£€$+\d.,/-])\b[1-9]\d{6,11}\b(?![.,]\d|\s*(?:pounds|quid|euros|dollars|%|k\b))",
    re.IGNORECASE,
)
# a reference token after a cue: letters, digits, / and -, holding 5+ consecutive digits
_REF_TOKEN = r"(?=[A-Za-z0-9/-]*\d{5})[A-Za-z0-9][A-Za-z0-9/-]*"
_REF_LINK = r"(?:\s+is)?\s*[:#.]?\s*"
_POLICY_CUE = re.compile(
    r"(?P<cue>\b(?:policy(?:\s+(?:number|num|no|ref|reference|id))?|ref(?:erence)?(?:\s+(?:number|no))?)"
    r"\.?" + _REF_LINK + r")(?P<item>" + _REF_TOKEN + r")",
    re.IGNORECASE,
)
_CLAIM_CUE = re.compile(
    r"(?P<cue>\b(?:claim|handling)(?:\s+(?:number|num|no|ref|reference|id))?\.?" + _REF_LINK + r")"
    r"(?P<item>" + _REF_TOKEN + r")",
    re.IGNORECASE,
)

_NI_NUMBER = re.compile(
    r"\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b", re.IGNORECASE
)

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_ORD = r"(?:st|nd|rd|th)?"
_DATE = (
    r"(?:\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})"
    r"|\d{4}-\d{1,2}-\d{1,2}"
    r"|(?:the\s+)?\d{1,2}" + _ORD + r"(?:\s+of)?\s+" + _MONTH + r",?\s+\d{4}"
    r"|" + _MONTH + r"\s+\d{1,2}" + _ORD + r",?\s+\d{4}"
    r"|" + _MONTH + r"\s+\d{4})"
)
_DOB = re.compile(
    r"(?P<cue>\b(?:date\s+of\s+birth|birth\s*date|d\.?o\.?b\b\.?|birthday|born)"
    r"(?:\s+(?:is|was|on|in))?\s*[:\-]?\s*(?:[^\d.?!<>]{0,40}?\b(?:is|be|was|to)\s+)?)"
    r"(?P<item>" + _DATE + r")(?![\d/.-]*\d)",
    re.IGNORECASE,
)

_POSTCODE = re.compile(r"\b(?:[A-Z]{1,2}\d[A-Z\d]?|GIR) ?\d[ABD-HJLNP-UW-Z]{2}\b", re.IGNORECASE)

_REG_CURRENT = re.compile(r"\b[A-Z]{2}\d{2} ?[A-Z]{3}\b", re.IGNORECASE)
_REG_PREFIX = re.compile(r"\b[A-Z]\d{1,3} ?[A-Z]{3}\b")
_REG_SUFFIX = re.compile(r"\b[A-Z]{3} ?\d{1,3} ?[A-Z]\b")
# after "reg"/"registration"/"car is"/"my car" an older plate counts in any case
_REG_CUED = re.compile(
    r"(?P<cue>\b(?:reg(?:istration)?(?:\s+(?:is|no\.?|number))?|car\s+is|my\s+car)\s*[:(,]?\s*)"
    r"(?P<item>[A-Z]\d{1,3} ?[A-Z]{3}|[A-Z]{3} ?\d{1,3} ?[A-Z])\b",
    re.IGNORECASE,
)

_SUFFIX_CLEAR = (
    "road rd street st lane ln avenue ave crescent cres terrace gardens gdns mews grove boulevard"
    " parade"
).split()
_SUFFIX_AMBIGUOUS = (
    "close drive dr way place court ct square sq hill park row walk green rise view vale wharf"
).split()
_ADDRESS = re.compile(
    r"(?P<cue>\b(?:at|to|is|address)\s+)?\b(?P<flat>(?:flat|apartment|apt|unit)\s+\d{1,4}[a-z]?,?\s+)?"
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
        " mr mrs ms mx dr miss prof"
    ).split()
)
_NAME_CUES: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"(?P<cue>\b(?i:I'm|I’m|im|I\s+am|this\s+is|it's|it’s|its)\s+)(?P<item>" + _NAMES + r")"
    ),
    re.compile(
        r"(?P<cue>\b(?:(?i:mr|mrs|ms|mx|dr|prof|sir|dame)\.?|Miss)\s+)(?P<item>" + _NAMES + r")"
    ),
    re.compile(
        r"(?P<cue>\b(?i:my)\s+(?i:husband|wife|partner|son|daughter|mum|mom|mother|dad|father"
        r"|brother|sister|friend|boyfriend|girlfriend|fianc[eé]e?|nan|nana|gran|granny|grandma"
        r"|grandad|grandpa|grandson|granddaughter|uncle|aunt|auntie|cousin|nephew|niece|child"
        r"|colleague|flatmate|housemate|neighbour|lodger|carer|tenant|landlord|stepson"
        r"|stepdaughter),?\s+)(?P<item>" + _NAMES + r")"
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
    re.compile(
        r"(?P<cue>(?:^|[.!?,]\s+|\s-\s)(?i:(?:hi|hello|hey)\s*,?\s+)?"
        r"(?i:i'm|i’m|im|i\s+am|this\s+is|it's|it’s|its)\s+)"
        r"(?P<item>" + _NAME_LOWER + r"(?:\s+" + _NAME_LOWER + r")?)" + _AFTER_LOWER
    ),
    # lower case after a title or a greeting: "mx macleod here", "hi, fatima thompson, ..."
    re.compile(
        r"(?P<cue>(?:\b(?i:mr|mrs|ms|mx|dr|miss)\.?|^(?i:hi|hello|hey)\s*,)\s+)"
        r"(?P<item>" + _NAME_LOWER + r"(?:\s+" + _NAME_LOWER + r")?)" + _AFTER_LOWER
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


# --- one kind at a time ---------------------------------------------------------------------


def _luhn_ok(digits: str) -> bool:
    """True when the digit string passes the Luhn (mod 10) check card numbers carry."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _sub(
    pattern: re.Pattern[str], kind: str, text: str, keep: Callable[[str], bool] | None = None
) -> tuple[str, int]:
    """Replace every match of `pattern` (its `item` group if it has one) by `<kind>`.

    `keep(item)` returning False leaves that match alone. Returns (text, number replaced).
    """
    n = 0
    has_item = "item" in pattern.groupindex

    def repl(m: re.Match[str]) -> str:
        nonlocal n
        item = m.group("item") if has_item else m.group(0)
        if keep is not None and not keep(item):
            return m.group(0)
        n += 1
        if not has_item:
            return placeholder(kind)
        start, end = m.span("item")
        whole = m.group(0)
        offset = m.start()
        return whole[: start - offset] + placeholder(kind) + whole[end - offset :]

    return pattern.sub(repl, text), n


def _card(text: str) -> tuple[str, int]:
    """Digit runs of card length that pass Luhn (a random 16-digit number fails 9 times in 10)."""
    return _sub(_CARD, "CARD", text, lambda s: _luhn_ok(re.sub(r"\D", "", s)))


def _policy(text: str) -> tuple[str, int]:
    text, a = _sub(_POL_PREFIX, "POLICY_REF", text)
    text, b = _sub(_POLICY_CUE, "POLICY_REF", text)
    text, c = _sub(_OTHER_REF, "POLICY_REF", text)
    text, d = _sub(_SLASH_REF, "POLICY_REF", text)
    text, e = _sub(_BARE_REF, "POLICY_REF", text)
    return text, a + b + c + d + e


def _claim(text: str) -> tuple[str, int]:
    text, a = _sub(_CLM_PREFIX, "CLAIM_REF", text)
    text, b = _sub(_CLAIM_CUE, "CLAIM_REF", text)
    return text, a + b


def _phone_span_ok(match: phonenumbers.PhoneNumberMatch) -> bool:
    """A merely possible number counts when it starts like a dialled number and is long."""
    raw = match.raw_string.lstrip("(")
    digits = re.sub(r"\D", "", raw)
    return raw.startswith(("+", "0")) and len(digits) >= MIN_POSSIBLE_PHONE_DIGITS


def _phone(text: str) -> tuple[str, int]:
    """Valid numbers, then long possible ones that do not overlap them."""
    spans: list[tuple[int, int]] = [
        (m.start, m.end) for m in PhoneNumberMatcher(text, PHONE_REGION, leniency=Leniency.VALID)
    ]
    for m in PhoneNumberMatcher(text, PHONE_REGION, leniency=Leniency.POSSIBLE):
        overlaps = any(m.start < e and s < m.end for s, e in spans)
        if not overlaps and _phone_span_ok(m):
            spans.append((m.start, m.end))
    # the matcher drops a leading "(" of "(020) 7946 0958"; keep the bracket pair together
    out = text
    for start, end in sorted(spans, reverse=True):
        if start > 0 and out[start - 1] == "(" and ")" in out[start:end]:
            start -= 1
        out = out[:start] + placeholder("PHONE") + out[end:]
    return out, len(spans)


def _vehicle(text: str) -> tuple[str, int]:
    text, a = _sub(_REG_CURRENT, "VEHICLE_REG", text)
    text, b = _sub(_REG_PREFIX, "VEHICLE_REG", text)
    text, c = _sub(_REG_SUFFIX, "VEHICLE_REG", text)
    text, d = _sub(_REG_CUED, "VEHICLE_REG", text)
    return text, a + b + c + d


def _address_ok(m: re.Match[str]) -> bool:
    """No function words or units in the street name; in lower case, only clear suffixes."""
    words = m.group("words").split()
    if any(w.lower() in _ADDRESS_STOP for w in words):
        return False
    capitalised = all(w[:1].isupper() for w in words)
    cued = bool(m.group("cue") or m.group("flat") or m.group("post"))
    return capitalised or cued or m.group("suffix").lower() in _SUFFIX_CLEAR


def _address(text: str) -> tuple[str, int]:
    """House number + street + suffix, when `_address_ok` accepts the street words."""
    n = 0

    def repl(m: re.Match[str]) -> str:
        nonlocal n
        if not _address_ok(m):
            return m.group(0)
        n += 1
        start, end = m.span("flat") if m.group("flat") else m.span("num")
        end = m.end("suffix") + (m.group(0)[m.end("suffix") - m.start() :].startswith("."))
        whole, offset = m.group(0), m.start()
        return whole[: start - offset] + placeholder("ADDRESS") + whole[end - offset :]

    return _ADDRESS.sub(repl, text), n


_WORD = re.compile(r"\S+")


def _name_end(item: str, max_words: int) -> int:
    """Where the name in `item` ends: before the first stop word, after `max_words` words."""
    end = 0
    for i, word in enumerate(_WORD.finditer(item)):
        if i == max_words or word.group().lower().replace("’", "'") in _NAME_STOP:
            break
        end = word.end()
    return end


def _name_sub(pattern: re.Pattern[str], text: str, max_words: int = 3) -> tuple[str, int]:
    """Replace the name after each cue `pattern` finds, keeping the cue and any trailing words."""
    n = 0

    def repl(m: re.Match[str]) -> str:
        nonlocal n
        item = m.group("item")
        end = _name_end(item, max_words)
        if not end:
            return m.group(0)
        n += 1
        return m.group("cue") + placeholder("NAME") + item[end:]

    return pattern.sub(repl, text), n


def _name(text: str) -> tuple[str, int]:
    text, total = _name_sub(_NAME_IS, text, max_words=2)
    for pattern in _NAME_CUES:
        text, n = _name_sub(pattern, text)
        total += n
    return text, total


_STEPS: tuple[tuple[str, Callable[[str], tuple[str, int]]], ...] = (
    ("EMAIL", lambda t: _sub(_EMAIL, "EMAIL", t)),
    ("CARD", _card),
    ("CLAIM_REF", _claim),
    ("POLICY_REF", _policy),
    ("NI_NUMBER", lambda t: _sub(_NI_NUMBER, "NI_NUMBER", t)),
    ("DOB", lambda t: _sub(_DOB, "DOB", t)),
    ("PHONE", _phone),
    ("POSTCODE", lambda t: _sub(_POSTCODE, "POSTCODE", t)),
    ("VEHICLE_REG", _vehicle),
    ("ADDRESS", _address),
    ("NAME", _name),
)


# --- public API -----------------------------------------------------------------------------


def scrub(text: str) -> Scrubbed:
    """`text` with every personal item this module recognises replaced by `<KIND>`.

    The kinds are applied in `KINDS` order, each on the output of the previous one.
    """
    counts: dict[str, int] = {}
    for kind, step in _STEPS:
        text, n = step(text)
        if n:
            counts[kind] = n
    return Scrubbed(text, counts)


def scrub_all(texts: Iterable[str]) -> tuple[list[str], Counter[str]]:
    """Scrub each text; return the scrubbed texts (same order) and the summed counts per kind."""
    out: list[str] = []
    total: Counter[str] = Counter()
    for text in texts:
        result = scrub(text)
        out.append(result.text)
        total.update(result.counts)
    return out, total
