"""Traffic shares per slice from a log's entries (`traffic_shares`, counted before de-duplication)
and the weights file `eval.traffic_weights` reads (`write_weights`). docs/labelling.md, step 4.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import yaml

from ragsweep.errors import UserError
from ragsweep.labelling.slicerules import UNKNOWN


def traffic_shares(slices: Sequence[str], known: Sequence[str]) -> dict[str, float]:
    """Each known slice's share of the entries whose slice is known (in `known` order; they sum
    to 1). Entries in `unknown` are not in the shares."""
    counts = Counter(s for s in slices if s != UNKNOWN)
    total = sum(counts[s] for s in known)
    if total == 0:
        raise UserError(
            "no log entry falls in a known slice, so there are no traffic shares; check the slice "
            "column (--slice-field) or the slice rules"
        )
    return {s: counts[s] / total for s in known}


def write_weights(
    path: str | Path, shares: Mapping[str, float], *, digits: int = 4, comment: str | None = None
) -> dict[str, float]:
    """Write `shares` as a yaml mapping usable as `eval.traffic_weights`, rounded to `digits`
    decimals by largest remainder so the written values still sum to exactly 1; returns them."""
    total = sum(shares.values())
    if not shares or abs(total - 1.0) > 1e-6 or any(v < 0 for v in shares.values()):
        raise ValueError(f"shares must be >= 0 and sum to 1, got a sum of {total}")
    unit = 10**digits
    scaled = {s: v * unit for s, v in shares.items()}
    units = {s: int(np.floor(v)) for s, v in scaled.items()}
    left = unit - sum(units.values())
    for s in sorted(scaled, key=lambda s: (units[s] - scaled[s], list(scaled).index(s)))[:left]:
        units[s] += 1
    weights = {s: round(u / unit, digits) for s, u in units.items()}
    header = "".join(f"# {line}\n" for line in (comment or "").splitlines())
    Path(path).write_text(header + yaml.safe_dump(weights, sort_keys=False), encoding="utf-8")
    return weights
