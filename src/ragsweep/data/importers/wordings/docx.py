"""Read a Word wording (.docx, through python-docx) into blocks.

- **Headings**: paragraph style `Title` (level 0) and `Heading 1` .. `Heading 9`, or an outline
  level set on the paragraph or its style (`w:outlineLvl`, Word's "Level 1" ...).
- **Numbers**: Word's automatic numbering is not in the paragraph text, so it is computed from
  the numbering definitions (`word/numbering.xml`): the paragraph's `w:numPr` (or its style's,
  the level then found through the list level's `w:pStyle`), one counter per list, deeper
  levels restarting when a higher one advances, `w:startOverride` honoured, the level's
  `w:lvlText` (`%1.%2`, `(%3)`) filled in with each level's format (decimal, lower/upper
  letter, lower/upper roman; `w:isLgl` forces decimal). Bullets add nothing. The computed
  number is put before the text, so `Heading 2` + list level `%1.%2` reads `5.3 Theft`.
- **Bold**: runs that are bold themselves or through their character style.
- **Tables** in the body are one block each, a line per row, cells joined by ` | `. Headers,
  footers, footnotes, comments and text boxes are not read.

Places in messages are `paragraph N` (N counts the body's paragraphs and tables from 1).
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docx
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph

from ragsweep.data.importers.wordings.blocks import Block, Line, letters, make_line, roman
from ragsweep.errors import DatasetError

SUFFIXES = (".docx",)
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_HEADING_STYLE = re.compile(r"heading\s*(\d)", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"%(\d)")


def _w(tag: str) -> str:
    return f"{{{_W}}}{tag}"


def _val(el: Any, tag: str) -> str | None:
    """The `w:val` of child `tag` of `el` (None when either is missing)."""
    if el is None:
        return None
    child = el.find(_w(tag))
    return None if child is None else child.get(_w("val"))


@dataclass(frozen=True)
class _Level:
    start: int
    fmt: str
    text: str
    legal: bool


def format_number(n: int, fmt: str) -> str:
    """Counter `n` in Word number format `fmt` (unknown formats print as decimal)."""
    if fmt == "lowerLetter":
        return letters(n)
    if fmt == "upperLetter":
        return letters(n).upper()
    if fmt == "lowerRoman":
        return roman(n)
    if fmt == "upperRoman":
        return roman(n).upper()
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


class Numbering:
    """Word's list numbering of one document, computed paragraph by paragraph in order."""

    def __init__(self, document: Any) -> None:
        root = document.part.numbering_part.element
        self.abstract: dict[str, dict[int, _Level]] = {}
        self.style_level: dict[str, tuple[str, int]] = {}  # styleId -> (abstractNumId, ilvl)
        for an in root.findall(_w("abstractNum")):
            aid = an.get(_w("abstractNumId"))
            levels = {}
            for lvl in an.findall(_w("lvl")):
                ilvl = int(lvl.get(_w("ilvl"), "0"))
                levels[ilvl] = _Level(
                    start=int(_val(lvl, "start") or "1"),
                    fmt=_val(lvl, "numFmt") or "decimal",
                    text=_val(lvl, "lvlText") or "",
                    legal=lvl.find(_w("isLgl")) is not None,
                )
                style = _val(lvl, "pStyle")
                if style:
                    self.style_level[style] = (aid, ilvl)
            self.abstract[aid] = levels
        self.nums: dict[str, tuple[str, dict[int, int]]] = {}
        for num in root.findall(_w("num")):
            overrides = {}
            for ov in num.findall(_w("lvlOverride")):
                start = _val(ov, "startOverride")
                if start is not None:
                    overrides[int(ov.get(_w("ilvl"), "0"))] = int(start)
            self.nums[num.get(_w("numId"))] = (_val(num, "abstractNumId") or "", overrides)
        self.counters: dict[str, list[int | None]] = {}

    def level_of_style(self, style_id: str) -> int | None:
        found = self.style_level.get(style_id)
        return None if found is None else found[1]

    def label(self, num_id: str, ilvl: int) -> str:
        """Advance list `num_id` at level `ilvl` and return the printed number ("" for a
        bullet or an unknown list)."""
        if num_id not in self.nums:
            return ""
        aid, overrides = self.nums[num_id]
        levels = self.abstract.get(aid, {})
        if ilvl not in levels:
            return ""
        key = f"num:{num_id}" if overrides else f"abstract:{aid}"
        counts = self.counters.setdefault(key, [None] * 10)

        def start(i: int) -> int:
            return overrides.get(i, levels[i].start if i in levels else 1)

        counts[ilvl] = start(ilvl) if counts[ilvl] is None else counts[ilvl] + 1
        for i in range(ilvl + 1, len(counts)):
            counts[i] = None
        level = levels[ilvl]
        if level.fmt in ("bullet", "none") or not level.text:
            return ""

        def fill(m: re.Match[str]) -> str:
            i = int(m.group(1)) - 1
            value = counts[i] if counts[i] is not None else start(i)
            fmt = "decimal" if level.legal else (levels[i].fmt if i in levels else "decimal")
            return format_number(value, fmt)

        return _PLACEHOLDER.sub(fill, level.text).strip()


def _styles(paragraph: Paragraph) -> list[Any]:
    """The paragraph's style and the styles it is based on, nearest first."""
    out = []
    style = paragraph.style
    while style is not None and len(out) < 20:
        out.append(style)
        style = style.base_style
    return out


def _heading_level(paragraph: Paragraph, styles: list[Any]) -> int | None:
    for style in styles:
        name = style.name or ""
        if name.lower() == "title":
            return 0
        m = _HEADING_STYLE.fullmatch(name.strip())
        if m:
            return int(m.group(1))
    for el in [paragraph._p.pPr, *(s.element.pPr for s in styles)]:
        level = _val(el, "outlineLvl")
        if level is not None and int(level) < 9:
            return int(level) + 1
    return None


def _number(paragraph: Paragraph, styles: list[Any], numbering: Numbering) -> str:
    """The paragraph's automatic number ("" without one)."""
    ppr = paragraph._p.pPr
    num_pr = None if ppr is None else ppr.find(_w("numPr"))
    ilvl: int | None = None
    if num_pr is not None:
        num_id = _val(num_pr, "numId")
        level = _val(num_pr, "ilvl")
        ilvl = int(level) if level is not None else 0
    else:
        num_id = None
        for style in styles:
            spr = style.element.pPr
            snum = None if spr is None else spr.find(_w("numPr"))
            if snum is not None:
                num_id = _val(snum, "numId")
                level = _val(snum, "ilvl")
                ilvl = int(level) if level is not None else numbering.level_of_style(style.style_id)
                break
    if not num_id or num_id == "0":
        return ""
    return numbering.label(num_id, ilvl or 0)


def _bold(run: Any) -> bool:
    if run.bold is not None:
        return bool(run.bold)
    style = run.style
    return bool(style is not None and style.font is not None and style.font.bold)


def _lines(paragraph: Paragraph, label: str) -> tuple[Line, ...]:
    pieces: list[list[tuple[str, bool]]] = [[(label + " ", False)] if label else []]
    for item in paragraph.iter_inner_content():
        runs = item.runs if hasattr(item, "runs") else [item]
        for run in runs:
            bold = _bold(run)
            for i, part in enumerate(run.text.split("\n")):
                if i:
                    pieces.append([])
                pieces[-1].append((part, bold))
    return tuple(ln for ln in (make_line(p) for p in pieces) if ln.text)


def _table(table: Table) -> tuple[Line, ...]:
    rows = []
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            if id(cell._tc) in seen:  # a merged cell is listed once per grid column
                continue
            seen.add(id(cell._tc))
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            rows.append(Line(" | ".join(cells)))
    return tuple(rows)


def read_blocks(path: Path) -> list[Block]:
    """The blocks of a .docx wording, in body order."""
    try:
        document = docx.Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as err:
        raise DatasetError(
            path,
            f"cannot be opened as a Word .docx file ({type(err).__name__}); save it from "
            "Word as .docx (a .doc or a renamed file will not do)",
        ) from None
    numbering = Numbering(document)
    out: list[Block] = []
    for index, item in enumerate(document.iter_inner_content(), start=1):
        where = f"paragraph {index}"
        if isinstance(item, Table):
            rows = _table(item)
            if rows:
                out.append(Block("table", rows, where=where))
            continue
        styles = _styles(item)
        label = _number(item, styles, numbering)
        lines = _lines(item, label)
        if not lines or (label and len(lines) == 1 and lines[0].text == label):
            continue  # an empty paragraph (an empty numbered one still advanced its list)
        level = _heading_level(item, styles)
        if level is None:
            out.append(Block("paragraph", lines, where=where))
        else:
            out.append(Block("heading", lines, level=level, where=where))
    return out
