"""The label files of a dataset folder as every labelling verb reads and writes them: the rows of
its JSON Lines files, the order of labels.jsonl, the review files, the label changelog and the
all-or-nothing write that refreshes the manifest (docs/labelling.md, "Keep the set alive").

- **Changelog**: every change is one row of `CHANGELOG_FILE` (`CHANGELOG_FIELDS`, all present,
  null where they do not apply), appended in the order the changes are made; `kind` is one of
  `KINDS`. It sits in `history/`: the loader refuses unknown `.jsonl` files at the top of a
  dataset folder (`schema.ROOT_FILES`) and allows an unknown subfolder.
- **Order of labels.jsonl**: by the question's position in questions.jsonl, then grade
  descending, ties in their previous file order with new labels after them (`order_labels`).
- **Writing** (`write_dataset_files`): the folder as it would be written is loaded first (a
  staged copy), then each file is written to a temporary sibling and moved into place with
  `os.replace` (data files first, the changelog and the manifest last); the manifest's entries of
  the files written are refreshed. A crash between two renames can leave labels updated and the
  changelog not.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ragsweep.data import load_dataset
from ragsweep.data.reader import DataFile
from ragsweep.data.schema import MANIFEST_FILE, REVIEW_FILES
from ragsweep.errors import DatasetError, UserError

#: the label changelog, relative to the dataset folder
CHANGELOG_FILE = "history/labels_changelog.jsonl"
#: the fields of a changelog row, in order
CHANGELOG_FIELDS = (
    "at",
    "kind",
    "who",
    "qid",
    "document",
    "section",
    "version",
    "old_grade",
    "new_grade",
    "reason",
    "source",
    "note",
)
#: what a changelog row records: `add` (new label, `old_grade` null), `change` (grade changed),
#: `remove` (label dropped, `new_grade` null), `carry` (label carried to a newer wording
#: version), `move` (label moved to the clause's new section number), `question` (a new
#: question), `freeze` (rolling question into core), `retire` (a question taken out of the set,
#: its labels each logged as a `remove`), `version` (a question now asks about `version`); the
#: last four have no clause and no grades. A further judge of a pair already labelled
#: (`import_sheets`): `confirm` (the same grade), `dispute` (another grade: `old_grade` the
#: label's, `new_grade` the judge's; the label is kept), `adjudicate` (the final grade a third
#: person set on a disputed pair). `source`: the sheet's file name for imports, the clause a
#: carried or moved label came from, else null.
KINDS = (
    "add",
    "change",
    "remove",
    "carry",
    "move",
    "question",
    "freeze",
    "retire",
    "version",
    "confirm",
    "dispute",
    "adjudicate",
)
#: the kinds whose `who` set the grade a label now has (the label's judge)
SETTING_KINDS = ("add", "change", "carry", "move", "adjudicate")

Key = tuple[str, str, str, str]  # (qid, document, section, version)


@dataclass(frozen=True)
class Change:
    """One changelog entry before it is stamped with its time (see the module docstring)."""

    kind: str
    who: str
    qid: str
    document: str | None = None
    section: str | None = None
    version: str | None = None
    old_grade: int | None = None
    new_grade: int | None = None
    reason: str = ""
    source: str | None = None
    note: str | None = None

    @classmethod
    def on(cls, kind: str, who: str, key: Key, **fields: Any) -> Change:
        """An entry on the pair `key` (qid, document, section, version)."""
        qid, document, section, version = key
        return cls(kind, who, qid, document, section, version, **fields)

    def row(self, at: str) -> dict[str, Any]:
        """The changelog row, `CHANGELOG_FIELDS` in order."""
        return {
            "at": at,
            "kind": self.kind,
            "who": self.who,
            "qid": self.qid,
            "document": self.document,
            "section": self.section,
            "version": self.version,
            "old_grade": self.old_grade,
            "new_grade": self.new_grade,
            "reason": self.reason,
            "source": self.source,
            "note": self.note,
        }


def check_stamp(at: str, who: str | None, what: str) -> None:
    """`at` must be an ISO 8601 timestamp and `who` a name: every changelog row has both."""
    try:
        datetime.fromisoformat(at)
    except (TypeError, ValueError) as err:
        raise UserError(
            f"{what}: field 'at': {at!r} is not an ISO 8601 timestamp; write e.g. "
            "2025-03-31T12:00:00+00:00"
        ) from err
    if who is not None and not who.strip():
        raise UserError(f"{what}: field 'who': is empty; name who made the change")


def find_file(name: str, data: Path) -> Path:
    """A file a verb names: `name` as given, else inside the dataset folder `data`
    (`review/reviewer2.jsonl`, `labels.jsonl`)."""
    path = Path(name)
    if path.exists():
        return path
    inside = data / name
    if inside.exists():
        return inside
    raise UserError(f"{name}: no such file here or in the dataset folder {data}; give its path")


def label_key(row: Mapping[str, Any]) -> Key:
    """A label-shaped row's pair: (qid, document, section, version)."""
    return (row["qid"], row["document"], row["section"], row["version"])


def read_rows(root: Path, rel: str) -> list[dict[str, Any]]:
    """The objects of a JSON Lines file of the dataset, in file order (checked by the loader
    before; a file that went missing since is reported as such)."""
    f = DataFile(root, rel)
    return f.jsonl(f.read("a file of the dataset"))


def order_labels(rows: Iterable[dict[str, Any]], qids: Sequence[str]) -> list[dict[str, Any]]:
    """Labels in the file order: question position in `qids`, then grade descending, ties in
    the order given (stable)."""
    position = {q: i for i, q in enumerate(qids)}
    return sorted(rows, key=lambda r: (position[r["qid"]], -r["grade"]))


def jsonl_bytes(rows: Iterable[Mapping[str, Any]]) -> bytes:
    """JSON Lines as the dataset files are written: one `json.dumps` object per line."""
    return "".join(json.dumps(dict(r), ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def reviewed(root: Path) -> dict[str, str]:
    """qid -> the first review file grading it (`review/<name>.jsonl`); such questions must
    keep exactly the pairs labels.jsonl judges for them."""
    out: dict[str, str] = {}
    for name in REVIEW_FILES:
        rel = f"review/{name}.jsonl"
        path = root / rel
        if path.is_file():
            for row in DataFile(root, rel).jsonl(path.read_bytes()):
                out.setdefault(row["qid"], rel)
    return out


def write_dataset_files(
    root: Path, files: Mapping[str, bytes], changes: Sequence[Change], at: str
) -> None:
    """Write `files` (relative path -> bytes), append `changes` to the changelog (untouched when
    there are none) and refresh the manifest's entries for what was written, each file
    atomically (see the module docstring).

    The would-be folder is loaded first (a copy in a temporary folder with the new files in
    place), so a write never leaves a folder `load_dataset` refuses; the callers' own checks
    come before and name the input, this is the safety net.
    """
    out = dict(files)
    log = root / CHANGELOG_FILE
    if changes:
        old_log = log.read_bytes() if log.is_file() else b""
        out[CHANGELOG_FILE] = old_log + jsonl_bytes(c.row(at) for c in changes)
    manifest = root / MANIFEST_FILE
    if manifest.is_file():
        out[MANIFEST_FILE] = _refreshed_manifest(manifest.read_bytes(), out)
    _check_staged(root, out)
    token = secrets.token_hex(4)
    temps: list[tuple[Path, Path]] = []
    try:
        for rel in sorted(out, key=_write_order):
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.parent / f".{target.name}.tmp-{token}"
            temps.append((tmp, target))
            with open(tmp, "wb") as fh:
                fh.write(out[rel])
                fh.flush()
                os.fsync(fh.fileno())
        for tmp, target in temps:
            os.replace(tmp, target)
    finally:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)


def _write_order(rel: str) -> tuple[int, str]:
    """Data files first, then the changelog, the manifest last."""
    return ({CHANGELOG_FILE: 1, MANIFEST_FILE: 2}.get(rel, 0), rel)


def _check_staged(root: Path, files: Mapping[str, bytes]) -> None:
    """Load a copy of `root` with `files` in place; a problem is reported against `root`."""
    with tempfile.TemporaryDirectory(prefix="ragsweep-stage-") as tmp:
        stage = Path(tmp) / root.name
        shutil.copytree(root, stage)
        for rel, data in files.items():
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            (stage / rel).write_bytes(data)
        try:
            load_dataset(stage, pool=True)  # as `data check` reads it, review/pool.jsonl too
        except DatasetError as err:
            rel = (
                Path(err.path).relative_to(stage) if Path(err.path).is_relative_to(stage) else None
            )
            where = root / rel if rel is not None else err.path
            raise DatasetError(
                where,
                f"{err.detail} (in the folder as it would be written: nothing was changed)",
                line=err.line,
                field=err.field,
            ) from err


def _refreshed_manifest(old: bytes, written: Mapping[str, bytes]) -> bytes:
    """MANIFEST.sha256 with the entries of `written` set to their new hashes (added if new),
    sorted by path, in sha256sum format."""
    entries: dict[str, str] = {}
    for line in old.decode("utf-8").splitlines():
        digest, path = line.split(maxsplit=1)
        entries[path.lstrip("*").lstrip()] = digest
    for rel, data in written.items():
        if rel != MANIFEST_FILE:
            entries[rel] = hashlib.sha256(data).hexdigest()
    return "".join(f"{entries[p]}  {p}\n" for p in sorted(entries)).encode("utf-8")
