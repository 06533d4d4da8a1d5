"""Read a passages run file: the ranked passages any retrieval system returned, per question.

One JSON object per line, `{"qid": ..., "passages": [...]}`, each passage a text, a text of a
document, or a span of a document's rendered text (the shapes: docs/passages.md). This module
checks the file on its own; whether a document exists, a span fits it and a text is found in the
snapshot is checked against the dataset by `ragsweep.scoring.passages`. Every problem is one
`DatasetError` naming the file, the line and the field, and saying how to fix it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from ragsweep.data.reader import DataFile, describe
from ragsweep.errors import DatasetError

#: `document@version`, as the wording files are named (docs/schema.md)
_DOCUMENT = re.compile(r"[a-z0-9][a-z0-9_.-]*@[A-Za-z0-9][A-Za-z0-9_.-]*")
_WHITESPACE = re.compile(r"\s")
#: the keys a passage object may have, and the shapes they may form
PASSAGE_KEYS = ("text", "document", "start", "end")
SHAPES = (
    frozenset({"text"}),
    frozenset({"document", "text"}),
    frozenset({"document", "start", "end"}),
    frozenset({"document", "start", "end", "text"}),
)
_PASSAGE_SPEC = {
    "text": ("str", False),
    "document": ("str", False),
    "start": ("int", False),
    "end": ("int", False),
}
_SHAPES_TEXT = (
    'a string, {"text"}, {"document", "text"}, {"document", "start", "end"} or '
    '{"document", "start", "end", "text"}'
)


@dataclass(frozen=True)
class Passage:
    """One ranked passage as the run file gives it (`text` and/or `document` + span)."""

    text: str | None
    document: str | None  # `document@version`, the wording's doc id
    start: int | None
    end: int | None
    field: str  # where it is on its line, for messages: `passages[3]`

    @property
    def is_span(self) -> bool:
        return self.start is not None


@dataclass(frozen=True)
class RankedPassages:
    """One line of the run file: a question and its passages, best first."""

    qid: str
    line: int
    passages: tuple[Passage, ...]


@dataclass(frozen=True)
class PassageRun:
    """A checked passages run file: its lines in file order and the sha256 of its bytes."""

    path: Path
    sha256: str
    lines: tuple[RankedPassages, ...]

    def by_qid(self) -> dict[str, RankedPassages]:
        return {r.qid: r for r in self.lines}

    def fail(self, message: str, line: int | None = None, field: str | None = None) -> DatasetError:
        """The error naming this file (and line and field) for a problem found later."""
        return DatasetError(self.path, message, line=line, field=field)

    @property
    def n_passages(self) -> int:
        return sum(len(r.passages) for r in self.lines)


def _passage(f: DataFile, value: object, line: int, field: str) -> Passage:
    if isinstance(value, str):
        if not value.strip():
            f.fail("is empty; give the passage's text, or leave the passage out", line, field)
        return Passage(value, None, None, None, field)
    if not isinstance(value, dict):
        f.fail(f"expected a passage, {_SHAPES_TEXT}; got {describe(value)}", line, field)
    keys = frozenset(value)
    for key in value:
        if key not in PASSAGE_KEYS:
            f.fail(
                f"unknown field; allowed: {', '.join(PASSAGE_KEYS)} (the order of the list is the "
                "rank; scores are not read)",
                line,
                f"{field}.{key}",
            )
    if keys not in SHAPES:
        have = ", ".join(sorted(keys))
        f.fail(f"has the fields {have}; a passage is {_SHAPES_TEXT}", line, field)
    f.fields(
        value,
        _PASSAGE_SPEC,
        line,
        prefix=f"{field}.",
        optional=[k for k in PASSAGE_KEYS if k not in keys],
    )
    text = value.get("text")
    if text is not None and not text.strip():
        f.fail("is empty; give the passage's text, or leave the passage out", line, f"{field}.text")
    document = value.get("document")
    if document is not None and not _DOCUMENT.fullmatch(document):
        f.fail(
            f"{document!r} is not a wording version; write it as <document>@<version>, the name "
            "of its file in corpus/ without .json (e.g. home@2025)",
            line,
            f"{field}.document",
        )
    start, end = value.get("start"), value.get("end")
    if start is not None and end is not None and not 0 <= start < end:
        f.fail(
            f"span [{start}, {end}) is empty or negative; start and end are character offsets "
            "in the document's rendered text with 0 <= start < end (docs/schema.md)",
            line,
            f"{field}.end" if start >= 0 else f"{field}.start",
        )
    return Passage(text, document, start, end, field)


def read_passage_run(path: str | Path) -> PassageRun:
    """Read and check a passages run file (see the module docstring)."""
    p = Path(path)
    if not p.is_file():
        state = "is not a file" if p.exists() else "no such file"
        raise DatasetError(p, f"{state}; give the passages run file (JSON Lines, docs/passages.md)")
    f = DataFile(p.parent, p.name)
    data = f.read_bytes()
    rows = f.jsonl(data)
    if not rows:
        f.fail('holds no line; write one {"qid": ..., "passages": [...]} per question')
    seen: dict[str, int] = {}
    lines = []
    for number, row in enumerate(rows, start=1):
        f.fields(row, {"qid": ("str", False), "passages": ("list", False)}, number)
        qid = row["qid"]
        if not qid or _WHITESPACE.search(qid):
            f.fail(
                f"{qid!r} is not a question id; use the qid of questions.jsonl (no whitespace)",
                number,
                "qid",
            )
        if qid in seen:
            f.fail(
                f"question {qid!r} already has line {seen[qid]}; give each question one line "
                "with all its passages",
                number,
                "qid",
            )
        seen[qid] = number
        passages = tuple(
            _passage(f, value, number, f"passages[{i}]") for i, value in enumerate(row["passages"])
        )
        lines.append(RankedPassages(qid, number, passages))
    return PassageRun(p, hashlib.sha256(data).hexdigest(), tuple(lines))
