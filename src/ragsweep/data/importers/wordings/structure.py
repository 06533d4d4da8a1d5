"""From blocks to parts and clauses: the structure rules shared by every wording format.

A wording's clause ids are its printed clause numbers, so the same clause keeps its id in the next
version as long as the insurer keeps its number. The rules for the title, parts, clauses, clause
headings, sub-clauses and text are in docs/importing.md ("Structured wordings"); a clause number
that appears twice in one wording, or two unnumbered headings that give the same id, is an error
naming both places.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from ragsweep.data.importers.wordings.blocks import Block, Line, clean
from ragsweep.errors import DatasetError

#: a number at the start of a heading: `5`, `5.`, `5.3`, `5.3.1`, `Section 5 -`, `Part 5:`
HEADING_NUMBER_RE = re.compile(
    r"(?:(?:section|part|chapter|clause)\s+)?(?P<num>\d{1,3}(?:\.\d{1,3})*)\.?"
    r"(?:\s*:\s*|\s+[\u2013\u2014-]\s+|\s+|$)",
    re.IGNORECASE,
)
#: a dotted clause number at the start of a paragraph line: `5.3`, `5.3.1`, `5.3.`
PARAGRAPH_NUMBER_RE = re.compile(r"(?P<num>\d{1,3}(?:\.\d{1,3})+)\.?(?:\s+|$)")
#: a sub-clause marker at the start of a line: `(a)`, `a)`, `(ii)`, `(1)`
SUB_MARKER_RE = re.compile(r"(?:\((?P<m>[a-z]|[ivxl]{2,6}|\d{1,2})\)|(?P<m2>[a-z])\))(?:\s+|$)")
#: a short lead sentence that heads a clause: `Theft. We will not pay ...`
_LEAD_SENTENCE = re.compile(
    r"(?P<h>[^.:;!?]{1,80}?)[.:]\s+(?P<t>[A-Z0-9\"'(\u201c\u2018\u00a3$\u20ac].*)"
)
#: words that say which kind a part is, tried in this order (`What is not covered` is an
#: exclusions part before it is a cover part)
KIND_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("exclusions", ("not covered", "exclusion", "we will not pay", "not insured")),
    ("definitions", ("definition", "meaning of words", "glossary", "special meaning")),
    ("limits", ("limit", "excess", "deductible", "sum insured", "sums insured")),
    ("claims", ("claim",)),
    ("conditions", ("condition",)),
    ("cover", ("cover", "what is insured", "insured events")),
)
#: at most this many words make a short clause heading (first line or whole text)
SHORT_HEADING_WORDS = 12
#: at most this many words make a lead sentence a heading
LEAD_SENTENCE_WORDS = 10
#: a clause heading cut from a long text keeps this many words
CUT_HEADING_WORDS = 8
#: the part holding text that comes before the first part heading
PREAMBLE = ("0", "Introduction")
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50}
_QUOTES = "\"'\u201c\u2018"
_TRIM = " .:;\u2013\u2014-"


@dataclass(frozen=True)
class ClauseOut:
    """A clause as the schema writes it, and where it starts in the source (for messages)."""

    section: str
    heading: str
    text: str
    place: str


@dataclass(frozen=True)
class PartOut:
    """A part as the schema writes it."""

    number: str
    title: str
    kind: str
    clauses: tuple[ClauseOut, ...]


@dataclass(frozen=True)
class Structure:
    """A wording's structure: its title when the document has one, and its parts."""

    title: str | None
    parts: tuple[PartOut, ...]

    @property
    def clauses(self) -> tuple[ClauseOut, ...]:
        """Every clause, in reading order."""
        return tuple(c for p in self.parts for c in p.clauses)


def starts_numbered(text: str) -> bool:
    """Whether `text` starts with a clause number or a sub-clause marker of its own (then a
    list item's computed number is not put before it)."""
    return bool(
        PARAGRAPH_NUMBER_RE.match(text) or SUB_MARKER_RE.match(text) or re.match(r"\d", text)
    )


def kind_of(title: str) -> str:
    """The schema kind of a part, from words in its title (`KIND_WORDS`); `other` if none."""
    low = title.casefold()
    for kind, words in KIND_WORDS:
        if any(w in low for w in words):
            return kind
    return "other"


def slug(text: str) -> str:
    """`text` as an id: ASCII, lower case, runs of other characters as `-` (at most 60)."""
    ascii_ = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    s = re.sub(r"[^a-z0-9]+", "-", ascii_.lower()).strip("-")
    return s[:60].rstrip("-") or "untitled"


def _roman(text: str) -> int | None:
    total = 0
    values = [_ROMAN.get(ch) for ch in text]
    if None in values:
        return None
    nums = [v for v in values if v is not None]
    for i, v in enumerate(nums):
        total += -v if i + 1 < len(nums) and nums[i + 1] > v else v
    return total


def _marker_values(marker: str) -> list[tuple[str, int]]:
    """The list kinds a marker can belong to, with its value in each: `i` is a letter (9) and
    a roman numeral (1)."""
    if marker.isdigit():
        return [("digit", int(marker))]
    out = []
    if len(marker) == 1:
        out.append(("letter", ord(marker) - ord("a") + 1))
    value = _roman(marker)
    if value is not None:
        out.append(("roman", value))
    return out


def _words(text: str) -> int:
    return len(text.split())


def _cut(text: str) -> str:
    words = text.split()
    return " ".join(words[:CUT_HEADING_WORDS]) + (" ..." if len(words) > CUT_HEADING_WORDS else "")


def heading_and_text(lines: Sequence[Line], start: int) -> tuple[str, str]:
    """Split a numbered paragraph (its lines; the number ends at `start` of the first) into a
    clause heading and the text that follows it (see the module docstring)."""
    first = lines[0]
    rest = first.text[start:].strip()
    more = [ln.text for ln in lines[1:]]
    lead = first.bold_prefix(start)
    if lead:
        heading = lead.strip(_TRIM)
        after = rest[len(lead) :].lstrip(_TRIM) if rest.startswith(lead) else ""
        if heading:
            return heading, clean(" ".join([after, *more]))
    if (
        more
        and rest
        and _words(rest) <= SHORT_HEADING_WORDS
        and not rest.endswith((",", ";", ":"))
        and (more[0][:1].isupper() or more[0][:1] in _QUOTES)
    ):
        return rest.strip(_TRIM) or rest, clean(" ".join(more))
    joined = clean(" ".join([rest, *more]))
    m = _LEAD_SENTENCE.fullmatch(joined)
    if m and _words(m["h"]) <= LEAD_SENTENCE_WORDS:
        return m["h"].strip(), m["t"].strip()
    if _words(joined) <= SHORT_HEADING_WORDS:
        return joined, ""
    return _cut(joined), joined


@dataclass
class _Clause:
    section: str
    heading: str
    place: str
    level: int | None  # heading level when the clause came from a heading
    paragraphs: list[str] = field(default_factory=list)
    children: int = 0


@dataclass
class _Part:
    number: str
    title: str
    ident: str  # the number, or the title's slug for an unnumbered part
    numbered: bool
    implicit: bool = False  # made for clauses before any part heading (or the preamble)
    clauses: list[_Clause] = field(default_factory=list)
    last: tuple[int, ...] | None = None  # the part's highest dotted clause number so far


@dataclass
class _Unit:
    """A numbered paragraph being read: its clause, its lines, where its number ends."""

    clause: _Clause
    lines: list[Line]
    start: int
    sub: bool


class _Builder:
    """Reads blocks in order into parts and clauses (the rules of the module docstring)."""

    def __init__(self, path: str, part_level: int | None) -> None:
        self.path = path
        self.part_level = part_level
        self.parts: list[_Part] = []
        self.base: _Clause | None = None  # the clause sub-clauses hang from
        self.open: _Clause | None = None  # the clause text goes to
        self.stack: list[tuple[str, int, str]] = []  # open sub-lists: (kind, value, label)
        self.seen: dict[str, str] = {}  # section -> where it first appears
        self.unit: _Unit | None = None
        self.joining = False  # whether a paragraph's next line joins the text before it

    # -- places ------------------------------------------------------------------------------

    def fail(self, block: Block, message: str, line: Line | None = None) -> NoReturn:
        number = line.number if line is not None and line.number is not None else block.line
        where = "" if number is not None else f"{block.where}: "
        raise DatasetError(self.path, where + message, line=number)

    @staticmethod
    def place(block: Block, line: Line | None) -> str:
        """Where a clause starts: its line when the format has lines, else the block's place."""
        if line is not None and line.number is not None:
            return f"line {line.number}"
        return block.place

    @property
    def part(self) -> _Part | None:
        return self.parts[-1] if self.parts else None

    def start_part(self, number: str | None, title: str) -> _Part:
        self.finish_unit()
        position = str(len(self.parts) + 1)
        part = _Part(
            number=number if number is not None else position,
            title=title,
            ident=number if number is not None else slug(title),
            numbered=number is not None,
        )
        self.parts.append(part)
        self.base = self.open = None
        self.stack = []
        return part

    def ensure_part(self, first: str | None = None) -> _Part:
        """The part a clause goes to. Before any part heading (or after one made here), a
        clause numbered `first.x` goes to an implicit part `first`, and text to the preamble."""
        part = self.part
        if part is not None and not (part.implicit and first is not None and part.number != first):
            return part
        if first is not None:
            new = self.start_part(first, f"Part {first}")
        else:
            new = self.start_part(PREAMBLE[0], PREAMBLE[1])
            new.numbered = False
        new.implicit = True
        return new

    def add_clause(
        self,
        block: Block,
        section: str,
        heading: str,
        level: int | None,
        *,
        sub: bool = False,
        line: Line | None = None,
    ) -> _Clause:
        place = self.place(block, line)
        if section in self.seen:
            self.fail(
                block,
                f"clause id {section!r} appears twice in this wording (first at "
                f"{self.seen[section]}); number the clauses uniquely, or give the two "
                "headings different words",
                line,
            )
        self.seen[section] = place
        clause = _Clause(section, heading, place, level)
        self.part_or_fail().clauses.append(clause)
        self.open = clause
        if not sub:
            self.base = clause
            self.stack = []
        return clause

    def part_or_fail(self) -> _Part:
        part = self.part
        assert part is not None  # add_clause is only called once a part exists
        return part

    # -- blocks ------------------------------------------------------------------------------

    def add(self, block: Block) -> None:
        if block.kind == "heading":
            self.heading(block)
        elif block.kind == "table":
            self.finish_unit()
            self.continuation(block, block.text)
        else:
            self.paragraph(block)

    def heading(self, block: Block) -> None:
        self.finish_unit()
        text = clean(block.text)
        m = HEADING_NUMBER_RE.match(text)
        if m:
            num, rest = m["num"], text[m.end() :].strip()
            if "." not in num:
                self.start_part(num, rest or text)
                return
            comps = tuple(int(c) for c in num.split("."))
            part = self.ensure_part(str(comps[0]))
            part.last = comps if part.last is None else max(part.last, comps)
            self.add_clause(block, num, rest or f"Clause {num}", block.level)
            return
        if self.part_level is None or block.level <= self.part_level:
            self.start_part(None, text)
            return
        base = self.base
        if base is not None and base.level is not None and block.level > base.level:
            (self.open or base).paragraphs.append(text)  # a sub-heading inside the clause
            return
        part = self.ensure_part()
        self.add_clause(block, f"{part.ident}-{slug(text)}", text, block.level)

    def paragraph(self, block: Block) -> None:
        for line in block.lines:
            if not line.text:
                continue
            if self.clause_line(block, line) or self.sub_line(block, line):
                continue
            if self.unit is not None:
                self.unit.lines.append(line)
            else:
                self.continuation(block, line.text, join=True)
        self.finish_unit()
        self.joining = False

    def continuation(self, block: Block, text: str, *, join: bool = False) -> None:
        """Text that starts no clause: it continues the open clause, or starts the part's
        introduction."""
        target = self.open
        if target is None:
            part = self.ensure_part()
            target = self.add_clause(block, part.ident, part.title, None)
            self.joining = False
        if join and self.joining and target.paragraphs:
            target.paragraphs[-1] = f"{target.paragraphs[-1]} {text}"
        else:
            target.paragraphs.append(text)
        self.joining = join

    def clause_line(self, block: Block, line: Line) -> bool:
        m = PARAGRAPH_NUMBER_RE.match(line.text)
        if m is None:
            return False
        num = m["num"]
        comps = tuple(int(c) for c in num.split("."))
        part = self.part
        if part is not None and part.implicit:
            part = part if part.number == str(comps[0]) else None  # a new implicit part
        if part is not None and part.numbered and comps[0] != int(part.number):
            return False
        if part is not None and part.last is not None and comps <= part.last:
            return False
        rest = line.text[m.end() :]
        if rest and not (rest[0].isupper() or rest[0] in _QUOTES or line.bold_prefix(m.end())):
            return False
        self.finish_unit()
        part = self.ensure_part(str(comps[0]))
        part.last = comps
        clause = self.add_clause(block, num, "", None, line=line)
        self.unit = _Unit(clause, [line], m.end(), sub=False)
        return True

    def sub_line(self, block: Block, line: Line) -> bool:
        m = SUB_MARKER_RE.match(line.text)
        if m is None or self.base is None:
            return False
        marker = m["m"] or m["m2"]
        fit = self.fit(marker)
        if fit is None:
            return False
        self.finish_unit()
        depth, kind, value = fit
        self.stack = [*self.stack[:depth], (kind, value, f"({marker})")]
        base = self.base
        base.children += 1
        section = base.section + "".join(label for _, _, label in self.stack)
        clause = self.add_clause(block, section, base.heading, None, sub=True, line=line)
        self.unit = _Unit(clause, [line], m.end(), sub=True)
        return True

    def fit(self, marker: str) -> tuple[int, str, int] | None:
        """Where a sub-clause marker goes: (depth in the open lists, kind, value), or None when
        it is neither the next item of an open list nor the first item of a new one."""
        values = _marker_values(marker)
        for depth in range(len(self.stack) - 1, -1, -1):
            kind, last, _ = self.stack[depth]
            for k, v in values:
                if k == kind and v == last + 1:
                    return depth, k, v
        kinds = {k for k, _, _ in self.stack}
        for k, v in values:
            if v == 1 and k not in kinds:
                return len(self.stack), k, v
        return None

    def finish_unit(self) -> None:
        unit, self.unit = self.unit, None
        if unit is None:
            return
        if unit.sub:
            rest = [unit.lines[0].text[unit.start :], *(ln.text for ln in unit.lines[1:])]
            text = clean(" ".join(rest))
        else:
            heading, text = heading_and_text(unit.lines, unit.start)
            unit.clause.heading = heading
        if text:
            unit.clause.paragraphs.append(text)
        self.joining = False

    def result(self) -> tuple[PartOut, ...]:
        self.finish_unit()
        parts = []
        for p in self.parts:
            clauses = []
            for c in p.clauses:
                text = "\n".join(c.paragraphs).strip()
                if not text:
                    if c.children:
                        continue  # `5.3 Theft` followed by `(a) ...`: its sub-clauses hold it
                    text = c.heading
                clauses.append(ClauseOut(c.section, clean(c.heading), text, c.place))
            parts.append(PartOut(p.number, clean(p.title), kind_of(p.title), tuple(clauses)))
        return tuple(parts)


def _heading_number(block: Block) -> str | None:
    m = HEADING_NUMBER_RE.match(clean(block.text))
    return m["num"] if m else None


def structure(blocks: Sequence[Block], path: str | Path) -> Structure:
    """The title and parts of a wording read as `blocks` (see the module docstring).

    Raises DatasetError naming `path` (and the line or place) when the wording has no text or a
    clause id twice.
    """
    name = str(path)
    kept = [b for b in blocks if b.text.strip()]
    if not kept:
        raise DatasetError(name, "holds no text; is it the right file?")
    title = None
    first = kept[0]
    headings = [b for b in kept if b.kind == "heading"]
    if (
        first.kind == "heading"
        and _heading_number(first) is None
        and (
            all(h.level > first.level or _heading_number(h) for h in headings[1:])
            or (len(kept) > 1 and kept[1].kind == "heading")
        )
    ):
        title = clean(first.text)
        kept = kept[1:]
    part_levels = [
        b.level
        for b in kept
        if b.kind == "heading" and (n := _heading_number(b)) is not None and "." not in n
    ]
    levels = [b.level for b in kept if b.kind == "heading"]
    part_level = min(part_levels) if part_levels else (min(levels) if levels else None)
    builder = _Builder(name, part_level)
    for block in kept:
        builder.add(block)
    parts = builder.result()
    if not any(p.clauses for p in parts):
        raise DatasetError(name, "holds no clause text after its title; is it the right file?")
    return Structure(title, parts)
