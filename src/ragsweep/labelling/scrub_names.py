"""ragsweep's own recognisers of person names (the second pass): names after a cue ("my name is",
"I'm", a title, a sign-off, "here"), lower case included, listed first names and surnames without
a cue (from Faker's name lists), and the check of a name spaCy found (`person_ok`).
docs/scrubbing.md.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from ragsweep.labelling.scrub_formats import Span

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


_WORD = re.compile(r"\S+")
#: where a name the model found ends at the latest: a dash between spaces, a comma, a bracket,
#: a colon or a new line (the model sometimes runs on into the question)
NAME_END = re.compile(r"\s+[-–—]\s|[,;:()\[\]\n]")
#: a title or greeting spaCy counts into a name ("Mrs Begum"): it stays, as the cue rules keep it
NAME_LEAD = re.compile(r"(?:(?:mr|mrs|ms|mx|dr|prof|sir|dame|miss|hi|hello|hey|dear)\.?\s+)+", re.I)


def _name_end(item: str, max_words: int) -> int:
    """Where the name in `item` ends: before the first stop word, after `max_words` words."""
    end = 0
    for i, word in enumerate(_WORD.finditer(item)):
        if i == max_words or word.group().lower().replace("’", "'") in _NAME_STOP:
            break
        end = word.end()
    return end


def person_ok(name: str) -> bool:
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


def listed_names(text: str) -> Iterable[Span]:
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


def cued_names(text: str) -> Iterable[Span]:
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
