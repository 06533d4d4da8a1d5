"""The folder as a whole: no unknown dataset file at the top, and MANIFEST.sha256 (optional)
matching every file below the folder, so an edit after the manifest was written is caught.
`write_manifest` (`ragsweep data manifest DIR`) writes it again after a deliberate edit."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path, PurePosixPath

from ragsweep.data.reader import DataFile, entries, hint
from ragsweep.data.schema import MANIFEST_FILE, META_FILE, ROOT_FILES
from ragsweep.data.write import replace_file
from ragsweep.errors import UserError

_LINE_RE = re.compile(r"(?P<hex>[0-9a-f]{64}) [ *](?P<path>.+)")


def manifest_command(root: Path) -> str:
    """The command that writes `root`'s manifest again: what every manifest error names."""
    return f"ragsweep data manifest {root}"


def manifest_bytes(root: Path) -> bytes:
    """MANIFEST.sha256 for the folder as it is: every other file below it, by path, in
    sha256sum format (`<hex>  <relative path>`)."""
    lines = []
    for p in sorted(root.rglob("*"), key=lambda p: p.relative_to(root).as_posix()):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and rel != MANIFEST_FILE:
            lines.append(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {rel}\n")
    return "".join(lines).encode("utf-8")


def write_manifest(root: str | Path) -> tuple[int, bool]:
    """Write `root`/MANIFEST.sha256 for the files as they are now (atomically: a temporary
    sibling, then `os.replace`). Returns (files listed, whether the manifest changed)."""
    folder = Path(root)
    if not (folder / META_FILE).is_file():
        raise UserError(
            f"{folder}: no {META_FILE} here, so not a dataset folder; give the folder holding it"
        )
    data = manifest_bytes(folder)
    target = folder / MANIFEST_FILE
    if target.is_file() and target.read_bytes() == data:
        return data.count(b"\n"), False
    replace_file(target, data)
    return data.count(b"\n"), True


def check_root_files(root: Path) -> None:
    """Unknown .json/.jsonl files at the top are most likely misnamed: refuse them."""
    for p in entries(root):
        if p.is_file() and p.suffix in (".json", ".jsonl") and p.name not in ROOT_FILES:
            DataFile(root, p.name).fail(
                f"unknown dataset file; {hint(p.name, ROOT_FILES)}rename it or move it out of "
                "the dataset folder (docs/schema.md lists the files)"
            )


def check_manifest(root: Path) -> None:
    """`root`/MANIFEST.sha256, if present, in sha256sum format: lists every other file of the
    folder once, each with its current sha256."""
    f = DataFile(root, MANIFEST_FILE)
    data = f.read_optional()
    if data is None:
        return
    listed: dict[str, int] = {}
    for n, raw in enumerate(f.lines(data), start=1):
        m = _LINE_RE.fullmatch(raw)
        if m is None:
            f.fail("expected `<sha256 hex>  <relative path>` (sha256sum format)", n)
        path = m["path"]
        pure = PurePosixPath(path)
        if pure.is_absolute() or ".." in pure.parts or "\\" in path:
            f.fail(f"{path!r} is not a relative path inside the dataset folder", n)
        if path in listed:
            f.fail(f"{path!r} is listed twice (first on line {listed[path]})", n)
        listed[path] = n
        target = DataFile(root, path)
        if not target.path.is_file():
            f.fail(
                f"lists {path}, which is missing from the dataset folder; restore it, or if "
                f"the removal is meant, run `{manifest_command(root)}`",
                n,
            )
        if hashlib.sha256(target.read_bytes()).hexdigest() != m["hex"]:
            f.fail(
                f"sha256 of {path} does not match: the file changed after the manifest was "
                f"written; restore it, or if the edit is meant, run `{manifest_command(root)}`",
                n,
            )
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and rel != MANIFEST_FILE and rel not in listed:
            f.fail(
                f"{rel} is not listed; remove the file, or if it belongs there, run "
                f"`{manifest_command(root)}`"
            )
