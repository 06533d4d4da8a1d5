"""The format-neutral reading of a wording file: a sequence of headings, paragraphs and tables.

Every format reader (`markdown`, `html`, `docx`, `pdf`) turns its file into `Block`s in reading
order and leaves the rest to `structure`: which block starts a part, a clause or a sub-clause is
decided there, from the heading levels and the printed numbers, the same way for every format.

A block keeps its lines as the source broke them (soft line breaks in Markdown, `<br>` in HTML,
text lines in a PDF): a numbered line inside a paragraph ("...as follows:\\n(a) when ...") still
starts a clause. `bold` marks emphasised character ranges of a line (`**x**`, `<strong>`, bold
runs, a bold font), which is how a clause heading run into its text is told apart from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

BlockKind = Literal["heading", "paragraph", "table"]


@dataclass(frozen=True)
class Line:
    """One line of text (whitespace runs collapsed, stripped), its bold [start, end) ranges and
    the source line it starts on (Markdown, HTML)."""

    text: str
    bold: tuple[tuple[int, int], ...] = ()
    number: int | None = None  # the 1-based source line it starts on, when the format has one

    def prefixed(self, prefix: str) -> Line:
        """The line with `prefix` (a list item's printed number) put before its text."""
        shift = len(prefix)
        return Line(
            prefix + self.text, tuple((a + shift, b + shift) for a, b in self.bold), self.number
        )

    def bold_prefix(self, start: int) -> str:
        """The bold text from `start` (after spaces) to the end of its bold range, "" when the
        character there is not bold."""
        while start < len(self.text) and self.text[start] == " ":
            start += 1
        for a, b in self.bold:
            if a <= start < b:
                return self.text[start:b].strip()
        return ""


@dataclass(frozen=True)
class Block:
    """A heading (with its `level`, 1 = largest; 0 for a document title style), a paragraph or
    a table (one line per row, cells joined by ` | `), with where it is for error messages:
    `line` (1-based, formats with source lines) or `where` ("paragraph 7", "page 2")."""

    kind: BlockKind
    lines: tuple[Line, ...]
    level: int = 0
    line: int | None = None
    where: str = ""

    @property
    def text(self) -> str:
        """The lines joined by spaces (a table's by newlines)."""
        sep = "\n" if self.kind == "table" else " "
        return sep.join(ln.text for ln in self.lines)

    @property
    def place(self) -> str:
        """Where the block is, for a message: `line 12`, `paragraph 7`, `page 2`."""
        return f"line {self.line}" if self.line is not None else self.where


def clean(text: str) -> str:
    """`text` with every whitespace run (non-breaking spaces included) made one space, stripped."""
    return " ".join(text.split())


def make_line(pieces: list[tuple[str, bool]], number: int | None = None) -> Line:
    """A `Line` from (text, bold) pieces in order: whitespace collapsed across pieces, bold
    ranges mapped onto the collapsed text; `number` is its source line."""
    out: list[str] = []
    bold: list[tuple[int, int]] = []
    pos = 0
    pending_space = False
    for text, is_bold in pieces:
        words = text.split()
        if not words:
            pending_space = pending_space or bool(text)
            continue
        lead_space = text[:1].isspace()
        start = None
        for i, word in enumerate(words):
            if pos > 0 and (i > 0 or lead_space or pending_space):
                out.append(" ")
                pos += 1
            if start is None:
                start = pos
            out.append(word)
            pos += len(word)
        pending_space = text[-1:].isspace()
        if is_bold and start is not None:
            if bold and bold[-1][1] in (start, start - 1):
                bold[-1] = (bold[-1][0], pos)
            else:
                bold.append((start, pos))
    return Line("".join(out), tuple(bold), number)


def letters(n: int) -> str:
    """List item `n` (from 1) as letters: a, b, ..., z, aa, ab, ..."""
    out = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        out = chr(ord("a") + r) + out
    return out


_ROMAN_PAIRS = tuple(
    zip(
        (1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1),
        ("m", "cm", "d", "cd", "c", "xc", "l", "xl", "x", "ix", "v", "iv", "i"),
        strict=True,
    )
)


def roman(n: int) -> str:
    """List item `n` (from 1) as a lower-case roman numeral."""
    out = ""
    for value, numeral in _ROMAN_PAIRS:
        while n >= value:
            out += numeral
            n -= value
    return out
