"""Writing a dataset folder all-or-nothing (`ragsweep data sample`, `ragsweep data import`)."""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path


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
