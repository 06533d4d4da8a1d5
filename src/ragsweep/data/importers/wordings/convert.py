"""Import a folder of wording files (Markdown, HTML, Word, PDF) with a labelled set into a
dataset folder.

`read_wordings` finds the wording files of one format in a folder, describes each from the
manifest or its front matter (`manifest`), reads it into blocks (the format module) and finds
its parts and clauses (`structure`). `convert_wordings` adds the labelled set, given as the
schema's questions.jsonl and labels.jsonl anchored to the imported clause ids (the schema needs
at least one labelled question, so a corpus cannot be imported alone); the files are copied
byte for byte, so their labelled-set hash is the one they had. `write_wordings` writes it all or
nothing, validated with `load_dataset`; a problem in the labelled set is reported on the file
given, with its line. Consecutive versions of a document are compared clause by clause
(`compare_versions`) for the summary and dataset.json's notes.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ragsweep import __version__
from ragsweep.conventions import reserved_slice
from ragsweep.data.importers.convert import GENERATOR
from ragsweep.data.importers.wordings.blocks import Block
from ragsweep.data.importers.wordings.manifest import (
    WordingMeta,
    check_versions,
    describe,
    find_manifest,
    read_manifest,
)
from ragsweep.data.importers.wordings.structure import Structure, structure
from ragsweep.data.schema import LABELS_FILE, QUESTIONS_FILE, clause_id, version_key
from ragsweep.data.write import check_out
from ragsweep.errors import DatasetError, UserError

#: format name -> the file name endings it reads (each format's module has a `read_blocks`)
SUFFIXES: dict[str, tuple[str, ...]] = {
    "markdown": (".md", ".markdown"),
    "html": (".html", ".htm"),
    "docx": (".docx",),
    "pdf": (".pdf",),
}
STRUCTURED_FORMATS = tuple(SUFFIXES)


def read_blocks(fmt: str, path: Path) -> list[Block]:
    """The blocks of one wording file, read by the format's module (imported when first used,
    so reading Markdown never loads python-docx or pdfplumber)."""
    module = importlib.import_module(f"ragsweep.data.importers.wordings.{fmt}")
    return module.read_blocks(path)


@dataclass(frozen=True)
class Wording:
    """One imported wording version: what it is, its structure, its title, its file's hash."""

    meta: WordingMeta
    structure: Structure
    title: str
    sha256: str

    def obj(self) -> dict[str, Any]:
        """The wording as corpus/<document>@<version>.json holds it."""
        return {
            "document": self.meta.document,
            "version": self.meta.version,
            "product": self.meta.product,
            "form_code": self.meta.form_code,
            "title": self.title,
            "parts": [
                {
                    "number": p.number,
                    "title": p.title,
                    "kind": p.kind,
                    "clauses": [
                        {"section": c.section, "heading": c.heading, "text": c.text}
                        for c in p.clauses
                    ],
                }
                for p in self.structure.parts
            ],
        }


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _skipped(path: Path) -> bool:
    """Hidden files and Word's lock files (`~$x.docx`) are not wordings."""
    return path.name.startswith((".", "~$"))


def read_wordings(
    fmt: str, source: str | Path, manifest: str | Path | None = None
) -> tuple[Wording, ...]:
    """Read every `fmt` wording file in folder `source` (see the module docstring), sorted by
    document and version. The manifest is `manifest`, else `source`/manifest.yaml; Markdown
    files may do without one through front matter."""
    if fmt not in SUFFIXES:
        raise UserError(f"unknown wording format {fmt!r}; use one of {', '.join(SUFFIXES)}")
    suffixes = SUFFIXES[fmt]
    folder = Path(source)
    if not folder.is_dir():
        state = "is not a folder" if folder.exists() else "no such folder"
        raise UserError(f"{folder}: {state}; give --source the folder holding the wording files")
    manifest_path = find_manifest(folder, manifest)
    if manifest_path is None and fmt != "markdown":
        raise UserError(
            f"{folder}: no manifest.yaml; add one (or pass --manifest FILE) listing each wording "
            "file's document, version, product and effective date (docs/importing.md)"
        )
    entries = read_manifest(manifest_path) if manifest_path is not None else {}
    files = sorted(
        p
        for p in folder.iterdir()
        if p.is_file() and p.suffix.lower() in suffixes and not _skipped(p)
    )
    for name, entry in entries.items():
        p = folder / name
        if not p.is_file():
            raise DatasetError(
                str(manifest_path),
                f"{name!r} is not in {folder}; fix the name or add the file",
                line=entry.line,
                field="file",
            )
        if p.suffix.lower() not in suffixes:
            raise DatasetError(
                str(manifest_path),
                f"{name!r} is not a {'/'.join(suffixes)} file, which --format {fmt} reads; "
                "import each format separately",
                line=entry.line,
                field="file",
            )
    if not files:
        raise UserError(
            f"{folder}: holds no {'/'.join(suffixes)} file; check --source and --format"
        )
    wordings = []
    for path in files:
        front = None
        if fmt == "markdown":
            from ragsweep.data.importers.wordings.markdown import front_matter

            front = front_matter(path)
        meta = describe(path, entries.get(path.name), manifest_path, front)
        found = structure(read_blocks(fmt, path), path)
        title = meta.title or found.title
        if not title:
            raise DatasetError(
                path,
                "has no title (no unnumbered top-level heading before the first part); give "
                "`title:` in the manifest, or start the wording with a title heading",
            )
        wordings.append(Wording(meta, found, title, _sha256(path)))
    check_versions([w.meta for w in wordings])
    return tuple(sorted(wordings, key=lambda w: (w.meta.document, version_key(w.meta.version))))


# --------------------------------------------------------------------------------------------
# Comparing versions


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@dataclass(frozen=True)
class VersionChanges:
    """How version `new` of a document differs from `old`, by clause id: `kept` clauses have
    the same id, heading and text; `changed` the same id and other words; `renumbered` (old id,
    new id) the same heading and text under another id; `added` and `removed` the rest."""

    document: str
    old: str
    new: str
    kept: tuple[str, ...]
    changed: tuple[str, ...]
    renumbered: tuple[tuple[str, str], ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]

    def line(self) -> str:
        """One line for the import summary."""

        def ids(items: tuple[str, ...]) -> str:
            return f" ({', '.join(items)})" if items else ""

        moved = ", ".join(f"{a} -> {b}" for a, b in self.renumbered)
        return (
            f"{self.document} {self.old} -> {self.new}: {len(self.kept)} clauses kept, "
            f"{len(self.changed)} changed{ids(self.changed)}, {len(self.renumbered)} renumbered"
            f"{f' ({moved})' if moved else ''}, {len(self.added)} added{ids(self.added)}, "
            f"{len(self.removed)} removed{ids(self.removed)}"
        )

    def notes(self) -> dict[str, Any]:
        return {
            "document": self.document,
            "from": self.old,
            "to": self.new,
            "kept": len(self.kept),
            "changed": list(self.changed),
            "renumbered": [list(p) for p in self.renumbered],
            "added": list(self.added),
            "removed": list(self.removed),
        }


def compare_versions(old: Wording, new: Wording) -> VersionChanges:
    """Clause-by-clause changes from `old` to `new` (two versions of one document)."""
    a = {c.section: (_norm(c.heading), _norm(c.text)) for c in old.structure.clauses}
    b = {c.section: (_norm(c.heading), _norm(c.text)) for c in new.structure.clauses}
    kept = [s for s in a if s in b and a[s] == b[s]]
    old_by = _unique_by_content(a, kept)
    new_by = _unique_by_content(b, kept)
    moved = [(old_by[k], new_by[k]) for k in old_by if k in new_by and old_by[k] != new_by[k]]
    sources = {x for x, _ in moved}
    targets = {y for _, y in moved}
    changed = [s for s in a if s in b and s not in kept and s not in sources | targets]
    added = [s for s in b if s not in kept and s not in changed and s not in targets]
    removed = [s for s in a if s not in kept and s not in changed and s not in sources]
    return VersionChanges(
        old.meta.document,
        old.meta.version,
        new.meta.version,
        tuple(kept),
        tuple(changed),
        tuple(moved),
        tuple(added),
        tuple(removed),
    )


def _unique_by_content(
    clauses: dict[str, tuple[str, str]], kept: list[str]
) -> dict[tuple[str, str], str]:
    """Content -> section for the clauses not kept whose content no other clause shares."""
    counts: dict[tuple[str, str], int] = {}
    for content in clauses.values():
        counts[content] = counts.get(content, 0) + 1
    return {c: s for s, c in clauses.items() if s not in kept and counts[c] == 1}


def all_changes(wordings: tuple[Wording, ...]) -> tuple[VersionChanges, ...]:
    """The changes between each pair of consecutive versions of every document."""
    by_doc: dict[str, list[Wording]] = {}
    for w in wordings:
        by_doc.setdefault(w.meta.document, []).append(w)
    out = []
    for versions in by_doc.values():
        ordered = sorted(versions, key=lambda w: version_key(w.meta.version))
        out.extend(compare_versions(x, y) for x, y in zip(ordered, ordered[1:], strict=False))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# The dataset


def outline(wordings: tuple[Wording, ...]) -> str:
    """Every imported clause id with its heading, part by part (what `--dry-run` prints)."""
    lines = []
    for w in wordings:
        m = w.meta
        lines.append(f"{m.doc_id}  {w.title}  ({m.path.name}, effective {m.effective})")
        for p in w.structure.parts:
            lines.append(f"  {p.number}. {p.title}  [{p.kind}]")
            for c in p.clauses:
                cid = clause_id(m.document, c.section, m.version)
                lines.append(f"    {cid}  {c.heading}  ({c.place})")
    return "\n".join(lines)


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class WordingsReport:
    """What a structured import wrote; `summary()` is what the CLI prints."""

    name: str
    wordings: tuple[tuple[str, int, int], ...]  # (document@version, parts, clauses)
    questions: int
    labels_per_grade: dict[str, int]
    changes: tuple[VersionChanges, ...]
    out: Path | None = None

    def summary(self) -> str:
        where = f" to {self.out}" if self.out is not None else ""
        grades = ", ".join(f"grade {g}: {n}" for g, n in self.labels_per_grade.items())
        clauses = sum(n for _, _, n in self.wordings)
        docs = len({d.split("@")[0] for d, _, _ in self.wordings})
        lines = [
            f"wrote dataset {self.name!r}{where}: {_count(len(self.wordings), 'wording version')}"
            f" of {_count(docs, 'document')}, {clauses} clauses; {self.questions} questions, "
            f"{sum(self.labels_per_grade.values())} labels ({grades})",
            *(f"{d}: {p} parts, {n} clauses" for d, p, n in self.wordings),
            *(c.line() for c in self.changes),
        ]
        return "\n".join(lines)


@dataclass(frozen=True)
class ConvertedWordings:
    """Files to write (relative path -> bytes), the labelled set's source files, a report."""

    files: dict[str, bytes]
    questions: Path
    labels: Path
    report: WordingsReport


def _read_bytes(path: Path, what: str) -> bytes:
    if not path.is_file():
        state = "is a folder" if path.is_dir() else "no such file"
        raise DatasetError(path, f"{state}; give the {what} (JSON Lines, docs/schema.md)")
    return path.read_bytes()


def _slices(path: Path, data: bytes) -> list[str]:
    """The slices the questions use, in order of first appearance (the loader checks the rest
    of each line)."""
    order: list[str] = []
    rows: list[tuple[int, str]] = []
    for n, raw in enumerate(data.decode("utf-8", errors="replace").split("\n"), start=1):
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("slice"), str) and obj["slice"]:
            rows.append((n, obj["slice"]))
            if obj["slice"] not in order:
                order.append(obj["slice"])
    for n, s in rows:
        if reserved_slice(s, len(order)):
            raise DatasetError(
                path,
                f"slice {s!r} is reserved for a row the reports add; rename the slice",
                line=n,
                field="slice",
            )
    if not order:
        raise DatasetError(
            path, "holds no question with a slice; one JSON object per line (docs/schema.md)"
        )
    return order


def convert_wordings(
    wordings: tuple[Wording, ...],
    *,
    name: str,
    fmt: str,
    questions: str | Path,
    labels: str | Path,
    manifest: str | Path | None = None,
) -> ConvertedWordings:
    """The dataset folder's files for `wordings` and the labelled set in `questions` and
    `labels` (see the module docstring); nothing is written."""
    if not name.strip():
        raise UserError("--name is empty; give the dataset a name")
    qpath, lpath = Path(questions), Path(labels)
    qdata = _read_bytes(qpath, "questions file")
    ldata = _read_bytes(lpath, "labels file")
    slices = _slices(qpath, qdata)
    files: dict[str, bytes] = {}
    for w in wordings:
        files[f"corpus/{w.meta.doc_id}.json"] = (
            json.dumps(w.obj(), ensure_ascii=False, indent=2) + "\n"
        ).encode("utf-8")
    files[QUESTIONS_FILE] = qdata
    files[LABELS_FILE] = ldata
    changes = all_changes(wordings)
    grades = {"2": 0, "1": 0, "0": 0}
    n_questions = 0
    for raw in qdata.decode("utf-8", errors="replace").splitlines():
        n_questions += bool(raw.strip())
    for raw in ldata.decode("utf-8", errors="replace").splitlines():
        try:
            grade = json.loads(raw).get("grade")
        except (json.JSONDecodeError, AttributeError):
            continue
        if str(grade) in grades:
            grades[str(grade)] += 1
    report = WordingsReport(
        name=name.strip(),
        wordings=tuple(
            (w.meta.doc_id, len(w.structure.parts), len(w.structure.clauses)) for w in wordings
        ),
        questions=n_questions,
        labels_per_grade=grades,
        changes=changes,
    )
    docs = sorted({w.meta.document for w in wordings})
    description = (
        f"{len(wordings)} wording versions of {len(docs)} documents ({', '.join(docs)}) imported "
        f"from {fmt} files by `ragsweep data import`: parts and clauses found from headings and "
        "printed clause numbers, which are the clause ids (docs/importing.md); the questions and "
        f"labels are {qpath.name} and {lpath.name} as given."
    )
    notes: dict[str, Any] = {
        "source_format": fmt,
        "manifest": None
        if manifest is None
        else {"name": Path(manifest).name, "sha256": _sha256(Path(manifest))},
        "wordings": [
            {
                "file": w.meta.path.name,
                "sha256": w.sha256,
                "document": w.meta.document,
                "version": w.meta.version,
                "product": w.meta.product,
                "effective": w.meta.effective,
                "parts": len(w.structure.parts),
                "clauses": len(w.structure.clauses),
            }
            for w in wordings
        ],
        "labelled_set": [
            {"role": "questions", "name": qpath.name, "sha256": hashlib.sha256(qdata).hexdigest()},
            {"role": "labels", "name": lpath.name, "sha256": hashlib.sha256(ldata).hexdigest()},
        ],
        "version_changes": [c.notes() for c in changes],
    }
    meta = {
        "schema_version": 1,
        "name": report.name,
        "description": description,
        "slices": slices,
        "generator": {"name": GENERATOR, "version": __version__, "seed": None},
        "notes": notes,
    }
    files["dataset.json"] = (json.dumps(meta, ensure_ascii=False, indent=2) + "\n").encode()
    return ConvertedWordings(files, qpath, lpath, report)


_ANCHOR_FIELDS = ("document", "section", "version")


def write_wordings(
    converted: ConvertedWordings, out: str | Path, *, force: bool = False
) -> WordingsReport:
    """Write the dataset folder all or nothing (`swap_in_folder`), validated by `load_dataset`.
    A problem in the questions or labels is reported on the file given, with its line."""
    from ragsweep.data import load_dataset, swap_in_folder

    def validate(folder: Path) -> None:
        try:
            load_dataset(folder)
        except DatasetError as err:
            given = {
                str(folder / QUESTIONS_FILE): converted.questions,
                str(folder / LABELS_FILE): converted.labels,
            }
            if err.path not in given:  # pragma: no cover - would be an importer bug
                raise UserError(
                    f"the imported dataset does not pass validation ({err}); this is a bug in "
                    "ragsweep's importer: please report it"
                ) from None
            detail = err.detail
            if err.field in _ANCHOR_FIELDS:
                detail += " (`ragsweep data import ... --dry-run` lists the imported clause ids)"
            raise DatasetError(given[err.path], detail, line=err.line, field=err.field) from None

    out = Path(out)
    check_out(out, force)
    swap_in_folder(out, converted.files, validate)
    return replace(converted.report, out=out)
