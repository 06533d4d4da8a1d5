"""Writing all-or-nothing: one file (`replace_file`, every file ragsweep writes in place) and a
dataset folder (`swap_in_folder`: `ragsweep data sample`, `ragsweep data import`), and when an
existing folder may be replaced by one (`check_out`)."""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path


def replace_file(target: Path, content: bytes | str | Callable[[Path], None]) -> None:
    """Write `target` whole or not at all: `content` (bytes, UTF-8 text, or a function that
    writes the path it is given) goes into a hidden sibling with the same suffix (a workbook
    library wants its own), which then replaces `target` in one rename. Readers see the old
    file or the new one, never half of one; on any failure the sibling is removed."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp{target.suffix}"
    try:
        if isinstance(content, bytes):
            tmp.write_bytes(content)
        elif isinstance(content, str):
            tmp.write_text(content, encoding="utf-8")
        else:
            content(tmp)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def check_out(out: Path, force: bool) -> None:
    """Refuse an --out that is a file, or a non-empty folder without --force; with --force,
    replace only an empty folder or a dataset folder (one holding dataset.json)."""
    from ragsweep.errors import UserError

    if not out.exists():
        return
    if not out.is_dir():
        raise UserError(f"{out}: exists and is not a folder; choose another --out")
    if not any(out.iterdir()):
        return
    if not force:
        raise UserError(
            f"{out}: already exists and is not empty; pass --force to replace it, "
            "or choose another --out"
        )
    if not (out / "dataset.json").is_file():
        raise UserError(
            f"{out}: is not empty and holds no dataset.json, so --force will not "
            "replace it; choose another --out"
        )


def swap_in_folder(
    out: Path, files: Mapping[str, bytes], check: Callable[[Path], None] | None = None
) -> None:
    """Write `files` (relative path -> bytes) into a temporary sibling of `out`, run `check` on
    it, then swap it in place of `out`: a crash or a failed check leaves `out` as it was, never
    half-written. The caller decides whether an existing `out` may be replaced."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(4)
    tmp = out.parent / f".{out.name}.tmp-{token}"
    old = out.parent / f".{out.name}.old-{token}"
    tmp.mkdir()
    try:
        for rel, data in sorted(files.items()):
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        if check is not None:
            check(tmp)
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not out.exists():
            os.replace(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)
