"""How people type a question into the assistant: a per-session style (case, question marks,
text-speak, curly quotes), greetings and sign-offs, typos, and amounts of money as typed.
See docs/sample.md.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from ragsweep.data.samplegen.log_parts import Part, log_text


@dataclass(frozen=True)
class TypingStyle:
    lower: float  # chance an entry is all lower case
    no_mark: float  # chance the question mark is dropped
    textspeak: float  # chance per replaceable word
    curly: bool  # phone keyboard: ’ for '
    greet: float
    sign: float


def typing_style(rng: random.Random) -> TypingStyle:
    """One typist: neat, casual, sloppy or text-speak, with their greeting and sign-off odds."""
    kind = rng.choices(("neat", "casual", "sloppy", "textspeak"), (0.35, 0.35, 0.18, 0.12))[0]
    lower, no_mark, speak = {
        "neat": (0.02, 0.05, 0.0),
        "casual": (0.3, 0.35, 0.05),
        "sloppy": (0.85, 0.7, 0.15),
        "textspeak": (0.7, 0.6, 0.6),
    }[kind]
    return TypingStyle(
        lower, no_mark, speak, rng.random() < 0.12, rng.uniform(0.0, 0.3), rng.uniform(0.0, 0.15)
    )


_TEXTSPEAK: dict[str, tuple[str, ...]] = log_text("textspeak", dict[str, tuple[str, ...]])
_SPEAK_WORD = re.compile(
    r"\b(?:" + "|".join(sorted(map(re.escape, _TEXTSPEAK), key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)

SELF_INTRO = ("hi", "hello", "this is", "my name", "it's", "name:", "re ", "about")
GREETINGS: tuple[str, ...] = log_text("greetings")
SIGN_OFFS: tuple[str, ...] = log_text("sign_offs")
EMOJI: tuple[str, ...] = log_text("emoji")

MISSPELLINGS: dict[str, tuple[str, ...]] = log_text("misspellings", dict[str, tuple[str, ...]])
_KEYBOARD = {
    c: n
    for row in ("qwertyuiop", "asdfghjkl", "zxcvbnm")
    for i, c in enumerate(row)
    for n in [row[max(0, i - 1)] + row[min(len(row) - 1, i + 1)]]
}
_WORD = re.compile(r"[A-Za-z]{3,}")


def _typo_word(word: str, rng: random.Random) -> str:
    known = MISSPELLINGS.get(word.lower())
    if known and rng.random() < 0.6:
        out = rng.choice(known)
        return out.capitalize() if word[:1].isupper() else out
    chars = list(word)
    i = rng.randrange(1, len(chars) - 1) if len(chars) > 2 else 0
    kind = rng.randrange(4)
    if kind == 0:
        chars[i], chars[i + 1] = chars[i + 1], chars[i]
    elif kind == 1:
        del chars[i]
    elif kind == 2:
        chars.insert(i, chars[i])
    else:
        near = _KEYBOARD.get(chars[i].lower())
        if near:
            chars[i] = rng.choice(near)
    return "".join(chars)


def add_typos(parts: list[Part], rng: random.Random) -> list[Part]:
    """1-2 typos in the plain (non-personal) parts, content words preferred."""
    spots = [
        (p, m)
        for p, (chunk, kind) in enumerate(parts)
        if kind is None
        for m in _WORD.finditer(chunk)
        if not any(c.isupper() for c in m.group()[1:])  # not in codes like EXC or END
    ]
    if not spots:
        return parts
    weights = [len(m.group()) ** 1.5 for _, m in spots]
    chosen = {id(m): (p, m) for p, m in rng.choices(spots, weights, k=rng.randint(1, 2))}
    out = list(parts)
    for p, m in sorted(chosen.values(), key=lambda pm: (-pm[0], -pm[1].start())):
        chunk = out[p][0]
        out[p] = (chunk[: m.start()] + _typo_word(m.group(), rng) + chunk[m.end() :], None)
    return out


def _plain(parts: list[Part], fn: Callable[[str], str]) -> list[Part]:
    return [(fn(chunk) if kind is None else chunk, kind) for chunk, kind in parts]


def apply_style(parts: list[Part], style: TypingStyle, rng: random.Random) -> list[Part]:
    """Case, punctuation, text-speak and apostrophes of one typist; personal items keep their
    own case except in an all-lower-case entry, where names and codes are lowered too (often)."""
    lower = rng.random() < style.lower
    if lower:
        lower_pii = rng.random() < 0.6
        parts = [
            (chunk.lower() if kind is None or (lower_pii and kind != "email") else chunk, kind)
            for chunk, kind in parts
        ]
    if style.textspeak:

        def speak(chunk: str) -> str:
            def one(m: re.Match[str]) -> str:
                if rng.random() >= style.textspeak:
                    return m.group()
                return rng.choice(_TEXTSPEAK[m.group().lower()])

            return _SPEAK_WORD.sub(one, chunk)

        parts = _plain(parts, speak)
    if rng.random() < style.no_mark:
        parts = _plain(parts, lambda c: c.replace("?", ""))
    if style.curly:
        parts = [(c.replace("'", "’"), k) for c, k in parts]
    return parts


def amount_text(rng: random.Random, euro: bool = False) -> str:
    """An amount of money as people type it (£1,500, 1500, 1.5k, 350 quid; `euro`: €420 ...)."""
    n = rng.choice((85, 120, 250, 350, 400, 480, 650, 750, 900, 1200, 1500, 2000, 2500, 3800))
    if euro:
        return rng.choice((f"€{n}", f"{n} euros", f"€{n:,}", f"{n}€", f"EUR {n}"))
    forms = [f"£{n:,}", f"£{n}", f"{n}", f"{n} pounds", f"£ {n}", f"{n} quid", f"£{n}.00"]
    if n >= 1000:
        forms += [f"{n / 1000:g}k", f"£{n / 1000:g}k", f"{n / 1000:g} grand"]
    return rng.choice(forms)


MONEY_CONTEXT: dict[str, tuple[str, ...]] = log_text("money_context", dict[str, tuple[str, ...]])
