"""Personal data in a question: one or two of a policyholder's items at its start, in its middle
(after "my car", "my wife" ...) or at its end, each recorded as a span. See docs/sample.md.
"""

from __future__ import annotations

import random
import re

from ragsweep.data.samplegen.log_parts import Part, fill, log_text
from ragsweep.data.samplegen.log_people import Person, pii_values
from ragsweep.data.samplegen.spec import ProductDef

_POLICY_CUE: tuple[str, ...] = log_text("policy_cues")
_CLAIM_CUE: tuple[str, ...] = log_text("claim_cues")
_DOB_CUE: tuple[str, ...] = log_text("dob_cues")


def _cued(value: Part, cues: tuple[str, ...], rng: random.Random) -> list[Part]:
    """A reference: prefixed ones (POL-, CLM-, HM/) may stand alone, bare digits need a cue."""
    if value[0][:1].isalpha() and rng.random() < 0.4:
        return [value]
    return [(rng.choice(cues), None), value]


_LEADS: tuple[tuple[str, str], ...] = log_text("leads", tuple[tuple[str, str], ...])
_TAILS: tuple[tuple[str, str], ...] = log_text("tails", tuple[tuple[str, str], ...])
_TAILS_MOTOR: tuple[tuple[str, str], ...] = log_text("tails_motor", tuple[tuple[str, str], ...])
_MIDDLE: dict[str, tuple[str, ...]] = log_text("middle", dict[str, tuple[str, ...]])
_VEHICLES = ("car", "van", "vehicle")
_MIDDLE_AT = re.compile(
    r"\bmy (" + "|".join(_MIDDLE) + r")\b(?!'|’|\s+(?:insurance|policy|cover|polic))", re.IGNORECASE
)


def expand_refs(template: str, values: dict[str, Part], rng: random.Random) -> list[Part]:
    """A frame with its fields filled; `{POLICY}`, `{CLAIM}`, `{DOB}` with a cue before them."""
    parts: list[Part] = []
    for chunk in re.split(r"(\{[A-Za-z_]+\})", template):
        if chunk == "{POLICY}":
            parts.extend(_cued(values["policy"], _POLICY_CUE, rng))
        elif chunk == "{CLAIM}":
            parts.extend(_cued(values["claim"], _CLAIM_CUE, rng))
        elif chunk == "{DOB}":
            parts.extend([(rng.choice(_DOB_CUE), None), values["dob"]])
        elif chunk:
            parts.extend(fill(chunk, values))
    return parts


def with_pii(question: str, person: Person, product: ProductDef, rng: random.Random) -> list[Part]:
    """The question with 1-2 personal items at its start, in its middle or at its end."""
    values = pii_values(person, rng)
    parts: list[Part] = [(question, None)]
    n = rng.choices((1, 2), (0.7, 0.3))[0]
    for _ in range(n):
        where = rng.choices(("lead", "middle", "tail"), (0.35, 0.3, 0.35))[0]
        text = "".join(c for c, _ in parts)
        if where == "middle":
            spots = [
                m
                for m in _MIDDLE_AT.finditer(parts[0][0] if len(parts) == 1 else "")
                if m.group(1).lower() not in ("car", "van", "vehicle")
                or product.document == "motor"
            ]
            if spots:
                m = rng.choice(spots)
                tpl = rng.choice(_MIDDLE[m.group(1).lower()])
                q = parts[0][0]
                parts = [
                    (q[: m.end()], None),
                    *expand_refs(tpl, values, rng),
                    (q[m.end() :], None),
                ]
                continue
            where = "tail"
        if where == "lead":
            _, tpl = rng.choice(_LEADS)
            lead = expand_refs(tpl, values, rng)
            first = parts[0]
            if first[1] is None and tpl.endswith((". ", ": ", "- ")):
                first = (first[0][:1].upper() + first[0][1:], None)
            elif first[1] is None:
                first = (first[0][:1].lower() + first[0][1:], None)
            parts = [*lead, first, *parts[1:]]
        else:
            _, tpl = rng.choice(_TAILS + (_TAILS_MOTOR if product.document == "motor" else ()))
            tail = expand_refs(tpl, values, rng)
            if not text.rstrip().endswith(("?", ".", "!")) and rng.random() < 0.5:
                tail = [(",", None), *tail]
            parts = [*parts, *tail]
    return parts
