"""Read a Markdown wording (CommonMark with tables, parsed by markdown-it-py) into blocks.

Headings (`#` .. `######`) keep their level; paragraphs keep their source lines (soft breaks),
so a line starting with `5.3` or `(a)` inside a paragraph still starts a clause; `**strong**`
text is bold. An ordered list item keeps its printed number (`3. Fire`) unless its text starts
with one; bullet items are paragraphs. A table is one block, one line per row. Code blocks are
paragraphs; raw HTML is skipped. YAML front matter (`---` lines at the top) describes the
wording (`manifest`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ragsweep.data.importers.reading import read_text
from ragsweep.data.importers.wordings.blocks import Block, Line, make_line
from ragsweep.data.importers.wordings.manifest import load_yaml, split_front_matter
from ragsweep.data.importers.wordings.structure import starts_numbered
from ragsweep.errors import DatasetError

SUFFIXES = (".md", ".markdown")


def front_matter(path: Path) -> Any:
    """The file's YAML front matter, a mapping (None without one)."""
    front, _ = split_front_matter(read_text(path, "Markdown wording"))
    if front is None:
        return None
    data = load_yaml(front, str(path), first_line=2)
    if not isinstance(data, dict):
        raise DatasetError(path, "front matter must be a YAML mapping (document: ...)", line=2)
    return data


def _lines(inline: Token) -> tuple[Line, ...]:
    """The lines of an inline token: text pieces, bold inside `**`, a new line at each break
    (each a source line: a paragraph's lines are the file's)."""
    first = inline.map[0] + 1 if inline.map else None
    lines: list[list[tuple[str, bool]]] = [[]]
    bold = 0
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            lines[-1].append((child.content, bold > 0))
        elif child.type in ("softbreak", "hardbreak"):
            lines.append([])
        elif child.type == "strong_open":
            bold += 1
        elif child.type == "strong_close":
            bold -= 1
        elif child.type == "image":
            lines[-1].append((child.content, bold > 0))  # the alt text
    return tuple(
        make_line(pieces, None if first is None else first + i) for i, pieces in enumerate(lines)
    )


def blocks_of(text: str) -> list[Block]:
    """The blocks of Markdown `text` (front matter already blanked)."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    out: list[Block] = []
    ordered: list[bool] = []  # per open list: whether it is numbered
    pending = ""  # a list item's number, put before its first paragraph
    row: list[str] = []
    rows: list[Line] = []
    table_line = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        line = tok.map[0] + 1 if tok.map else None
        if tok.type == "heading_open":
            lines = _lines(tokens[i + 1])
            out.append(Block("heading", lines, level=int(tok.tag[1:]), line=line))
            i += 3
            continue
        if tok.type in ("ordered_list_open", "bullet_list_open"):
            ordered.append(tok.type == "ordered_list_open")
        elif tok.type in ("ordered_list_close", "bullet_list_close"):
            ordered.pop()
        elif tok.type == "list_item_open":
            pending = f"{tok.info}{tok.markup} " if ordered and ordered[-1] else ""
        elif tok.type == "list_item_close":
            pending = ""
        elif tok.type == "paragraph_open":
            lines = _lines(tokens[i + 1])
            if pending and lines and not starts_numbered(lines[0].text):
                lines = (lines[0].prefixed(pending), *lines[1:])
            pending = ""
            out.append(Block("paragraph", lines, line=line))
            i += 3
            continue
        elif tok.type in ("fence", "code_block"):
            lines = tuple(Line(" ".join(s.split())) for s in tok.content.split("\n") if s.strip())
            out.append(Block("paragraph", lines, line=line))
        elif tok.type == "table_open":
            rows, table_line = [], line or 0
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            row.append(" ".join(ln.text for ln in _lines(tok)))
        elif tok.type == "tr_close":
            rows.append(Line(" | ".join(row)))
        elif tok.type == "table_close":
            out.append(Block("table", tuple(rows), line=table_line))
        i += 1
    return out


def read_blocks(path: Path) -> list[Block]:
    """The blocks of a Markdown wording file (its front matter left out, line numbers kept)."""
    _, body = split_front_matter(read_text(path, "Markdown wording"))
    return blocks_of(body)
