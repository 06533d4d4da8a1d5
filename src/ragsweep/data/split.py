"""Dev / held-out split of the labelled set by a stable hash of the question id.

A question is held out when `sha256(salt + ":" + qid)`, read as a number in [0, 1), falls below
`heldout` (default 0.25). The rule looks at nothing but the question's own id and the salt, so
adding questions never moves an old one between splits. The share is met per slice in
expectation (each slice's questions are hashed independently of the others); the realised counts
per slice are reported with every run. Sweeps score only `dev`; `heldout` is for confirmation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from ragsweep.errors import UserError

SPLITS = ("dev", "heldout", "all")


def _unit(salt: str, qid: str) -> float:
    digest = hashlib.sha256(f"{salt}:{qid}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def assign(qids: Sequence[str], salt: str, heldout: float) -> np.ndarray:
    """Array of "dev" / "heldout", aligned with `qids`."""
    if not 0.0 <= heldout < 1.0:
        raise UserError(f"split.heldout must be in [0, 1), got {heldout!r}")
    return np.array(["heldout" if _unit(salt, q) < heldout else "dev" for q in qids], dtype=object)


def split_hash(qids: Sequence[str], salt: str, heldout: float) -> str:
    """Hash of the split: salt, share and each question's side, in qid order."""
    sides = assign(qids, salt, heldout)
    h = hashlib.sha256(f"salt={salt}\nheldout={heldout!r}\n".encode())
    for q, s in sorted(zip(qids, sides, strict=True)):
        h.update(f"{q}\t{s}\n".encode())
    return h.hexdigest()


def select(qids: Sequence[str], salt: str, heldout: float, which: str) -> np.ndarray:
    """Boolean mask of the questions in split `which` (dev, heldout or all)."""
    if which not in SPLITS:
        raise UserError(f"eval.split must be one of {', '.join(SPLITS)}, got {which!r}")
    if which == "all":
        return np.ones(len(qids), dtype=bool)
    return assign(qids, salt, heldout) == which


def counts(
    qids: Sequence[str], slices: Sequence[str], salt: str, heldout: float
) -> dict[str, tuple[int, int]]:
    """Per slice: (questions, held out), in order of first appearance."""
    sides = assign(qids, salt, heldout)
    out: dict[str, list[int]] = {}
    for s, side in zip(slices, sides, strict=True):
        row = out.setdefault(s, [0, 0])
        row[0] += 1
        row[1] += side == "heldout"
    return {s: (n, h) for s, (n, h) in out.items()}


def balanced_salt(
    qids: Sequence[str], slices: Sequence[str], heldout: float, base: str, tries: int = 100_000
) -> str:
    """The first salt `<base>-<i>` whose split holds out every slice's share to within one
    question (stratified per slice). Choose it once, when the set is made, and record it in
    `data.split.salt`: from then on the hash rule keeps old questions where they are, and only
    new questions land by chance."""
    for i in range(tries):
        salt = f"{base}-{i}"
        if all(abs(h - heldout * n) <= 1 for n, h in counts(qids, slices, salt, heldout).values()):
            return salt
    raise UserError(
        f"no salt among {tries} tries holds out {heldout:.0%} of every slice to within one "
        "question; use fewer slices or a different share"
    )
