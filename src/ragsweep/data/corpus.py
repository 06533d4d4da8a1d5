"""corpus/: the snapshot, one `<document>@<version>.json` wording per file, or many wordings per
`<name>.jsonl` file (one per line, the same object), each read into a `Document` with its
clauses, rendered text and clause spans."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragsweep.data.reader import DataFile, Spec, describe, hint
from ragsweep.data.schema import (
    CORPUS_FILE_RE,
    CORPUS_LINES_RE,
    DOCUMENT_RE,
    PART_KINDS,
    SECTION_RE,
    VERSION_RE,
    Clause,
    Document,
    render,
)

_SPEC: Spec = {
    "document": ("str", False),
    "version": ("str", False),
    "product": ("str", True),
    "form_code": ("str", True),
    "title": ("str", False),
    "parts": ("list", False),
}
_PART: Spec = {
    "number": ("str", False),
    "title": ("str", False),
    "kind": ("str", False),
    "clauses": ("list", False),
}
_CLAUSE: Spec = {"section": ("str", False), "heading": ("str", False), "text": ("str", False)}


def load_corpus(root: Path, contents: Mapping[str, bytes] | None = None) -> tuple[Document, ...]:
    """Every wording in `root`/corpus, checked, sorted by doc_id. corpus/ holds nothing else.

    `contents` holds the bytes of corpus files the caller has already read, by file name; the
    other files are read here. A wording (document@version) is held by one file or line only."""
    folder = DataFile(root, "corpus")
    if not folder.path.is_dir():
        state = "is not a folder" if folder.path.exists() else "is missing"
        folder.fail(
            f"{state}; a dataset folder needs corpus/ holding one "
            "<document>@<version>.json per wording version"
        )
    docs: list[Document] = []
    held: dict[str, str] = {}  # doc_id -> the file (and line) holding it
    for name, is_dir in _listing(folder.path):
        f = DataFile(root, f"corpus/{name}")
        if is_dir:
            f.fail(
                "is a folder; corpus/ holds only <document>@<version>.json and <name>.jsonl "
                "files: move it out"
            )
        one = CORPUS_FILE_RE.fullmatch(name)
        if one is None and CORPUS_LINES_RE.fullmatch(name) is None:
            f.fail(
                f"is not named <document>@<version>.json (document {DOCUMENT_RE.pattern}, "
                f"version {VERSION_RE.pattern}) or <name>.jsonl (many wordings, one per line): "
                "rename it or move it out of corpus/"
            )
        data = None if contents is None else contents.get(name)
        if data is None:
            data = f.read("a wording" if one else "wordings")
        if one is not None:
            wordings = [(None, f.json_object(data), one["document"], one["version"])]
        else:
            wordings = [(n, obj, None, None) for n, obj in enumerate(f.jsonl(data, flat=False), 1)]
        for line, obj, document, version in wordings:
            doc = _wording(f, obj, line, document, version)
            if doc.doc_id in held:
                f.fail(
                    f"wording {doc.doc_id} is already in {held[doc.doc_id]}; keep one of them",
                    line,
                    None if line is None else "document",
                )
            held[doc.doc_id] = f"corpus/{name}" + ("" if line is None else f" line {line}")
            docs.append(doc)
    if not docs:
        folder.fail("holds no wording; add <document>@<version>.json files")
    return tuple(sorted(docs, key=lambda d: d.doc_id))


def _listing(folder: Path) -> list[tuple[str, bool]]:
    """(name, is a folder) of each entry of `folder`, in name order (as `entries`, without a
    `stat` per entry where the file system says the type)."""
    with os.scandir(folder) as it:
        return sorted((e.name, e.is_dir()) for e in it)


def _wording(
    f: DataFile,
    obj: dict[str, Any],
    line: int | None,
    document: str | None = None,
    version: str | None = None,
) -> Document:
    """The wording `obj` of file `f` (of its line `line` in a `.jsonl` file). A
    `<document>@<version>.json` file's name gives `document` and `version`, which the fields
    must repeat; a line's fields must be a valid document id and version."""
    f.fields(obj, _SPEC, line)
    if document is None or version is None:  # a line: its fields are its id
        f.pattern(obj["document"], DOCUMENT_RE, "document id", line, "document")
        f.pattern(obj["version"], VERSION_RE, "version", line, "version")
        document, version = obj["document"], obj["version"]
    else:  # a file: its name is its id, which the fields repeat
        for key, expected in (("document", document), ("version", version)):
            if obj[key] != expected:
                f.fail(
                    f"{obj[key]!r} does not match the file name {document}@{version}.json; "
                    "fix the field or rename the file",
                    field=key,
                )
    f.nonblank(obj["title"], line, "title")
    clauses: list[Clause] = []
    first: dict[str, str] = {}  # section -> where it first appears
    for i, part in enumerate(obj["parts"]):
        where = f"parts[{i}]"
        if not isinstance(part, dict):
            f.fail(f"expected an object, got {describe(part)}", line, where)
        f.fields(part, _PART, line, prefix=where + ".")
        f.nonblank(part["number"], line, where + ".number")
        if part["kind"] not in PART_KINDS:
            f.fail(
                f"unknown part kind {part['kind']!r}; "
                f"{hint(part['kind'], PART_KINDS)}use one of {', '.join(PART_KINDS)}",
                line,
                where + ".kind",
            )
        for j, c in enumerate(part["clauses"]):
            cw = f"{where}.clauses[{j}]"
            if not isinstance(c, dict):
                f.fail(f"expected an object, got {describe(c)}", line, cw)
            f.fields(c, _CLAUSE, line, prefix=cw + ".")
            section = c["section"]
            f.pattern(
                section,
                SECTION_RE,
                "section number (no spaces, '/' or '@')",
                line,
                cw + ".section",
            )
            if section in first:
                f.fail(
                    f"section {section!r} appears twice (first at {first[section]}); sections "
                    "are unique within a wording version: renumber one",
                    line,
                    cw + ".section",
                )
            first[section] = cw
            if not c["heading"].strip() or "\n" in c["heading"]:
                f.fail("must be one non-empty line", line, cw + ".heading")
            f.nonblank(c["text"], line, cw + ".text")
            clauses.append(
                Clause(
                    document,
                    version,
                    section,
                    c["heading"],
                    c["text"],
                    part["number"],
                    part["kind"],
                )
            )
    text, spans = render(obj["title"], obj["parts"])
    return Document(
        document,
        version,
        obj["product"],
        obj["form_code"],
        obj["title"],
        tuple(clauses),
        text,
        tuple(spans),
    )
