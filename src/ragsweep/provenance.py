"""Which code produced a number: the package version, a hash of its source, the git commit.

The source hash covers every `.py` and `.yaml` file of the installed package and its configs
(but not the sample generator, which cannot change a number), so an edit or a `git pull` changes
it even when the version string does not. It names the stage cache's folder
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
#: parts of the package that cannot change a number: the sample generator writes the shipped
#: sample (whose bytes the snapshot and labels hashes pin), and the data folder holds that sample
_NOT_CODE = ("data/samplegen", "data/sample")


def source_folders() -> dict[str, Path]:
    """Where the code and configs live, by the name they carry in the hash: the package, its
    Hydra config root and the sweep files (one folder in a wheel, three in a git checkout)."""
    from importlib.resources import files

    return {
        "": PACKAGE,
        "conf/": Path(str(files("ragsweep.conf"))),
        "conf/sweep/": Path(str(files("ragsweep.conf.sweep"))),
    }


def _source_files() -> list[tuple[str, Path]]:
    found: dict[str, Path] = {}
    for prefix, folder in source_folders().items():
        for path in folder.rglob("*"):
            if path.suffix not in (".py", ".yaml") or "__pycache__" in path.parts:
                continue
            name = prefix + path.relative_to(folder).as_posix()
            if not name.startswith(_NOT_CODE):
                found[name] = path
    return sorted(found.items())


@lru_cache(maxsize=1)
def source_hash() -> str:
    """sha256 over the .py and .yaml files of the package, its configs and its sweep files
    (name and bytes, in name order), leaving out the sample generator."""
    h = hashlib.sha256()
    for name, path in _source_files():
        h.update(name.encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


@lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit of the git checkout the package runs from (with `-dirty` if its source has
    uncommitted changes), or None for an installed wheel."""
    dirs = [str(p) for p in source_folders().values()]
    try:
        top = subprocess.run(
            ["git", "-C", str(PACKAGE), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(PACKAGE), "status", "--porcelain", "--", *dirs],
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
