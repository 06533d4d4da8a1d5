"""Which code produced a number: the package version, a hash of its source, the git commit.

The source hash covers every `.py` and `.yaml` file of the installed package, so an edit or a
`git pull` changes it even when the version string does not. It names the stage cache's folder
(no index built by older code is reused) and must match for a sweep to skip a configuration
that already finished.
"""

from __future__ import annotations

import hashlib
import subprocess
from functools import lru_cache
from pathlib import Path

from ragsweep import __version__

PACKAGE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def source_hash() -> str:
    """sha256 over the package's .py and .yaml files (path and bytes, in path order)."""
    h = hashlib.sha256()
    for path in sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".yaml")):
        if "__pycache__" in path.parts:
            continue
        h.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


@lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit of the git checkout the package runs from (with `-dirty` if its source has
    uncommitted changes), or None for an installed wheel."""
    try:
        top = subprocess.run(
            ["git", "-C", str(PACKAGE), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(PACKAGE), "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{top}-dirty" if dirty else top


def code_version() -> str:
    """`<version>+<first 12 hex of the source hash>`, e.g. `0.1.0+3f2a9c1b0d4e`."""
    return f"{__version__}+{source_hash()[:12]}"


def code_tags() -> dict[str, str]:
    """Tags for every run: ragsweep's version and source hash, and the git commit if any."""
    tags = {"ragsweep.version": __version__, "ragsweep.code": code_version()}
    commit = git_commit()
    if commit:
        tags["mlflow.source.git.commit"] = commit.removesuffix("-dirty")
        tags["ragsweep.git_commit"] = commit
    return tags
