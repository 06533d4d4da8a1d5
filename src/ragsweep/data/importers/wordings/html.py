"""Read an HTML wording (parsed by lxml.html) into blocks.

`<h1>` .. `<h6>` are headings of that level; `<p>`, `<li>`, `<dt>`, `<dd>`, `<pre>`,
`<blockquote>` and the text directly inside containers (`<div>`, `<section>` ...) are
paragraphs, `<br>` breaks a line, `<strong>`/`<b>` are bold. An `<ol>` item gets its printed
marker (`3.` for decimal lists, `(c)` / `(iii)` for `type="a"` / `type="i"` lists, so those
items are sub-clauses) unless its text starts with a number of its own. A `<table>` is one
block, a line per row, cells joined by ` | `.
`<head>`, `<script>`, `<style>`, `<nav>`, `<template>`, `<noscript>`, and the `<header>` and
`<footer>` of the page itself (children of `<body>`) are skipped. Every block knows its source
line.
"""

from __future__ import annotations

from pathlib import Path

import lxml.html
from lxml import etree

from ragsweep.data.importers.wordings.blocks import Block, Line, letters, make_line, roman
from ragsweep.data.importers.wordings.structure import starts_numbered
from ragsweep.errors import DatasetError

SUFFIXES = (".html", ".htm")
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_PARAGRAPHS = {"p", "li", "dt", "dd", "pre", "caption", "figcaption", "address", "summary"}
_CONTAINERS = {
    "html", "body", "div", "section", "article", "main", "header", "footer", "aside",
    "blockquote", "ol", "ul", "dl", "figure", "details", "form", "fieldset", "center",
}  # fmt: skip
_SKIP = {"head", "script", "style", "nav", "template", "noscript", "svg", "button", "select"}
_BOLD = {"strong", "b"}
#: a page's own header and footer (children of <body>: site chrome, not the wording)
_PAGE_CHROME = {"header", "footer"}


def _marker(ol: etree._Element, value: int) -> str:
    """The printed marker of item number `value` of list `ol`."""
    kind = (ol.get("type") or "1").strip()
    if kind in ("a", "A"):
        return f"({letters(value)}) "
    if kind in ("i", "I"):
        return f"({roman(value)}) "
    return f"{value}. "


class _Reader:
    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.pieces: list[list[tuple[str, bool]]] = [[]]
        self.numbers: list[int | None] = [None]  # the source line each line starts on
        self.prefix = ""

    def lines(self) -> tuple[Line, ...]:
        """The lines gathered since the last block, and start gathering anew."""
        made = (make_line(p, n) for p, n in zip(self.pieces, self.numbers, strict=True))
        self.pieces, self.numbers = [[]], [None]
        return tuple(ln for ln in made if ln.text)

    def new_line(self) -> None:
        self.pieces.append([])
        self.numbers.append(None)

    def flush(self) -> None:
        lines = self.lines()
        if not lines:
            return
        if self.prefix and not starts_numbered(lines[0].text):
            lines = (lines[0].prefixed(self.prefix), *lines[1:])
        self.prefix = ""
        self.blocks.append(Block("paragraph", lines, line=lines[0].number))

    def text(self, text: str | None, bold: bool, line: int | None) -> None:
        if text:
            if self.numbers[-1] is None and text.strip():
                self.numbers[-1] = line
            self.pieces[-1].append((text, bold))

    def inline(self, el: etree._Element, bold: bool) -> None:
        """An element inside a paragraph: its text, its children, their tails."""
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag in _SKIP:
            return
        if tag == "br":
            self.new_line()
            return
        here = bold or tag in _BOLD
        self.text(el.text, here, el.sourceline)
        for child in el:
            if isinstance(child.tag, str) and (
                child.tag in _PARAGRAPHS
                or child.tag in _CONTAINERS
                or child.tag in _HEADINGS
                or child.tag == "table"
            ):
                self.block(child)
            else:
                self.inline(child, here)
            self.text(child.tail, here, child.sourceline)

    def block(self, el: etree._Element) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        parent = el.getparent()
        if tag in _SKIP or (tag in _PAGE_CHROME and parent is not None and parent.tag == "body"):
            return
        self.flush()
        if tag in _HEADINGS:
            self.inline(el, False)
            lines = self.lines()
            if lines:
                level = _HEADINGS[tag]
                self.blocks.append(Block("heading", lines, level=level, line=el.sourceline))
            return
        if tag == "table":
            rows = []
            for tr in el.iter("tr"):
                cells = [" ".join(td.text_content().split()) for td in tr if td.tag in ("td", "th")]
                if any(cells):
                    rows.append(Line(" | ".join(cells)))
            if rows:
                self.blocks.append(Block("table", tuple(rows), line=el.sourceline))
            return
        if tag in ("ol", "ul"):
            value = int(el.get("start") or 1) if tag == "ol" else 0
            for child in el:
                if isinstance(child.tag, str) and child.tag == "li":
                    if tag == "ol":
                        value = int(child.get("value") or value)
                        self.prefix = _marker(el, value)
                        value += 1
                    self.block(child)
                    self.flush()
                    self.prefix = ""
                elif isinstance(child.tag, str):
                    self.block(child)
            return
        self.inline(el, False)
        self.flush()


def read_blocks(path: Path) -> list[Block]:
    """The blocks of an HTML wording file (UTF-8, or the charset its `<meta>` declares)."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise DatasetError(path, f"cannot be read ({err.strerror})") from None
    try:
        data.decode("utf-8")
        parser = lxml.html.HTMLParser(encoding="utf-8")
    except UnicodeDecodeError:
        parser = lxml.html.HTMLParser()
    if not data.strip():
        raise DatasetError(path, "is empty; is it the right file?")
    try:
        root = lxml.html.document_fromstring(data, parser=parser)
    except (etree.ParserError, ValueError) as err:
        raise DatasetError(path, f"cannot be parsed as HTML ({err}); check the file") from None
    body = root.find("body")
    reader = _Reader()
    reader.block(body if body is not None else root)
    reader.flush()
    return reader.blocks
