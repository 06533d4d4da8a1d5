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
