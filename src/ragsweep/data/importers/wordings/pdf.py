"""Read a PDF wording (its text layer, through pdfplumber) into blocks.

A PDF has no headings or paragraphs, only positioned characters, so they are inferred:

- **Lines**: pdfplumber's words (split where the font or size changes), grouped into lines by
  their vertical position, left to right. Two text columns side by side merge into one line.
- **Running headers and footers**: a line in the top or bottom tenth of the page whose text,
  digits aside, repeats on at least half of the pages (and on two or more) is dropped: page
  numbers, form codes, "continued overleaf".
- **Headings** by font size: the body size is the size most characters have; every size at
  least `HEADING_STEP` points above it is a heading level, the largest level 1. Consecutive
  lines of one heading size are one heading.
- **Paragraphs**: body lines follow each other until a vertical gap larger than
  `PARAGRAPH_GAP` times the font size, or a new page, unless the page's last line runs to the
  right edge of the text (within `FULL_LINE` of its width) and does not end a sentence: then
  the paragraph goes on.
- **Bold**: characters whose font name says Bold, Black, Heavy or Semibold.

A PDF whose pages have no text layer (scanned images) is refused: no OCR is attempted; so is a
password-protected one. Places in messages are `page N`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

from ragsweep.data.importers.wordings.blocks import Block, Line, make_line
from ragsweep.errors import DatasetError

SUFFIXES = (".pdf",)
#: a font at least this many points larger than the body text is a heading
HEADING_STEP = 1.0
#: a vertical gap above a line of more than this many times its font size starts a paragraph
PARAGRAPH_GAP = 0.8
#: the top and bottom share of a page where running headers and footers are looked for
MARGIN = 0.1
#: a body line ending within this share of the text width from its right edge was wrapped, so
#: the paragraph goes on over a page break
FULL_LINE = 0.15
_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)


@dataclass(frozen=True)
class _PdfLine:
    page: int
    top: float
    bottom: float
    left: float
    right: float
    size: float
    line: Line
    chars: int
    header_zone: bool


def _group(words: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Words grouped into lines: a word whose top is within a third of its height of the line's
    first word joins that line."""
    lines: list[list[dict[str, Any]]] = []
    for w in sorted(words, key=lambda w: (round(w["top"], 1), w["x0"])):
        if lines:
            first = lines[-1][0]
            tolerance = max(1.0, (first["bottom"] - first["top"]) / 3)
            if abs(w["top"] - first["top"]) <= tolerance:
                lines[-1].append(w)
                continue
        lines.append([w])
    return [sorted(ln, key=lambda w: w["x0"]) for ln in lines]


def _lines(pdf: Any, path: Path) -> list[_PdfLine]:
    out: list[_PdfLine] = []
    scanned: list[int] = []
    for number, page in enumerate(pdf.pages, start=1):
        words = page.extract_words(extra_attrs=["fontname", "size"], keep_blank_chars=False)
        if not words:
            if page.images:
                scanned.append(number)
            continue
        height = float(page.height)
        for group in _group(words):
            pieces = []
            for i, w in enumerate(group):
                pieces.append(((" " if i else "") + w["text"], bool(_BOLD.search(w["fontname"]))))
            line = make_line(pieces)
            top = min(w["top"] for w in group)
            bottom = max(w["bottom"] for w in group)
            left = min(w["x0"] for w in group)
            right = max(w["x1"] for w in group)
            sizes = [round(float(w["size"]), 1) for w in group for _ in w["text"]]
            out.append(
                _PdfLine(
                    page=number,
                    top=top,
                    bottom=bottom,
                    left=left,
                    right=right,
                    size=median(sizes),
                    line=line,
                    chars=len(sizes),
                    header_zone=top < height * MARGIN or bottom > height * (1 - MARGIN),
                )
            )
    pages = len(pdf.pages)
    if scanned and (not out or len(scanned) == pages):
        raise DatasetError(
            path,
            f"has no text layer on {'any of its' if len(scanned) == pages else ''} "
            f"{len(scanned)} page(s) (scanned images?); ragsweep does no OCR: run OCR first "
            "(e.g. ocrmypdf) or import the wording as Word, HTML or Markdown",
        )
    if scanned:
        shown = ", ".join(str(n) for n in scanned[:5])
        raise DatasetError(
            path,
            f"pages {shown} have no text layer (scanned images?), so their clauses would be "
            "missing; ragsweep does no OCR: run OCR on the file first (e.g. ocrmypdf)",
        )
    return out


def _drop_running(lines: list[_PdfLine], pages: int) -> list[_PdfLine]:
    """The lines without running headers and footers (see the module docstring)."""
    if pages < 2:
        return lines

    def key(ln: _PdfLine) -> str:
        return re.sub(r"\d+", "#", ln.line.text.casefold())

    on_pages: dict[str, set[int]] = {}
    for ln in lines:
        if ln.header_zone:
            on_pages.setdefault(key(ln), set()).add(ln.page)
    running = {k for k, ps in on_pages.items() if len(ps) >= 2 and len(ps) * 2 >= pages}
    return [ln for ln in lines if not (ln.header_zone and key(ln) in running)]


def read_blocks(path: Path) -> list[Block]:
    """The blocks of a PDF wording's text layer."""
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError
    from pdfminer.psparser import PSException
    from pdfplumber.utils.exceptions import PdfminerException

    try:
        with pdfplumber.open(str(path)) as pdf:
            pages = len(pdf.pages)
            lines = _lines(pdf, path)
    except (PdfminerException, PSException) as err:
        cause = err.args[0] if isinstance(err, PdfminerException) and err.args else err
        if isinstance(cause, PDFEncryptionError):
            raise DatasetError(
                path, "is password-protected; save a copy without the password and import that"
            ) from None
        detail = f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__
        raise DatasetError(
            path, f"cannot be read as a PDF ({detail}); check that it is a PDF file"
        ) from None
    lines = _drop_running(lines, pages)
    if not lines:
        raise DatasetError(path, "has no text; is it the right file?")
    weights: Counter[float] = Counter()
    for ln in lines:
        weights[ln.size] += ln.chars
    body = weights.most_common(1)[0][0]
    big = sorted({ln.size for ln in lines if ln.size >= body + HEADING_STEP}, reverse=True)
    level = {size: i for i, size in enumerate(big, start=1)}
    body_lines = [ln for ln in lines if ln.size not in level]
    edge = max((ln.right for ln in body_lines), default=0.0)
    margin = min((ln.left for ln in body_lines), default=0.0)
    full = edge - FULL_LINE * (edge - margin)  # a line reaching this far was wrapped
    blocks: list[Block] = []
    current: list[_PdfLine] = []

    def flush() -> None:
        if not current:
            return
        first = current[0]
        kind = "heading" if first.size in level else "paragraph"
        blocks.append(
            Block(
                kind,
                tuple(ln.line for ln in current),
                level=level.get(first.size, 0),
                where=f"page {first.page}",
            )
        )
        current.clear()

    for ln in lines:
        if current:
            prev = current[-1]
            same_kind = (prev.size in level) == (ln.size in level)
            gap = ln.top - prev.bottom
            turned = ln.page != prev.page
            carried_over = (
                turned
                and ln.size == prev.size
                and prev.right >= full
                and not prev.line.text.endswith((".", "!", "?", ":"))
            )
            if (
                (turned and not carried_over)
                or not same_kind
                or (ln.size in level and ln.size != prev.size)
                or (not turned and gap > PARAGRAPH_GAP * ln.size)
            ):
                flush()
        current.append(ln)
    flush()
    return blocks
