"""Traffic shares per slice, the weights of the weighted headline: from `eval.traffic_weights`,
the dataset's declared shares or a weights file, each checked the same way (docs/report.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from omegaconf import DictConfig, OmegaConf

from ragsweep.data.importers.reading import read_text
from ragsweep.errors import UserError, not_yaml

#: Where a sweep's traffic weights are configured (messages name it and its fixes).
CONFIG_WEIGHTS = "eval.traffic_weights"


def slice_weights(
    cfg: DictConfig,
    slices: Sequence[str],
    known: Sequence[str] | None = None,
    declared: dict[str, float] | None = None,
) -> dict[str, float]:
    """Traffic weights of the slices scored (`slices`), as shares summing to 1. When
    `eval.traffic_weights` is null (the default of `data=folder`): the shares the dataset
    declares (`declared`, dataset.json's `traffic_weights`; a slice it leaves out weighs 0),
    else equal shares.

    What the user configured is checked, never silently changed: a weight for a slice the
    labelled set does not have (`known`), a slice scored without a weight, and weights that do
    not sum to 1 are refused with the fix, unless `eval.normalise_weights=true` (then they are
    divided by their sum). Slices of the set that this split holds no question of drop out, and
    the remaining shares are rescaled to sum to 1 over the slices scored.
    """
    raw = cfg.eval.get("traffic_weights")
    if raw is None and declared is not None:
        return _declared_shares(declared, slices)
    if raw is None:
        return {s: 1.0 / len(slices) for s in slices}
    weights = OmegaConf.to_container(raw) if isinstance(raw, DictConfig) else raw
    normalise = bool(OmegaConf.select(cfg, "eval.normalise_weights"))
    return check_shares(weights, slices, known, where=CONFIG_WEIGHTS, normalise=normalise)


def check_shares(
    weights: Any,
    slices: Sequence[str],
    known: Sequence[str] | None = None,
    *,
    where: str,
    normalise: bool = False,
) -> dict[str, float]:
    """Traffic shares (slice -> share) as given by a user, checked, over the slices scored.

    Refused, with the fix, naming `where` (`eval.traffic_weights` or a file): not a mapping, a
    slice outside `known`, a slice scored without a share, a share that is not a number >= 0,
    all shares 0, shares that do not sum to 1 (unless `normalise`: then divided by their sum).
    Returns the shares of `slices`, rescaled to sum to 1 over them.
    """
    config = where == CONFIG_WEIGHTS
    if not isinstance(weights, dict):
        raise UserError(
            f"{where} must map slice -> share, got {weights!r}; e.g. "
            + (
                "eval.traffic_weights={limits:0.6,exclusions:0.4}, or null for equal weights"
                if config
                else "'limits: 0.6' and 'exclusions: 0.4' on two lines"
            )
        )
    unknown = [str(s) for s in weights if known is not None and s not in known]
    if unknown:
        raise UserError(
            f"{where} names slice(s) {', '.join(unknown)} that the labelled set "
            f"does not have (its slices: {', '.join(known or [])}); rename or remove them"
        )
    missing = [s for s in slices if s not in weights]
    if missing:
        raise UserError(
            f"{where} has no weight for slice(s) {', '.join(missing)}; add them"
            + (", or set eval.traffic_weights=null for equal weights" if config else "")
        )
    values = {}
    for s, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, int | float) or not 0 <= w < math.inf:
            raise UserError(
                f"{where}.{s} must be a number >= 0, got {w!r}; give each slice "
                "its share of production traffic"
            )
        values[s] = float(w)
    total = sum(values.values())
    if total <= 0 or not any(values[s] > 0 for s in slices):
        raise UserError(f"{where} are all 0 for the slices scored; give at least one a share > 0")
    if abs(total - 1.0) > 1e-6 and not normalise:
        raise UserError(
            f"{where} sum to {total:g}, not 1, so the weighted headline would not "
            "be what you configured; give shares that sum to 1"
            + (", or set eval.normalise_weights=true to divide them by their sum" if config else "")
        )
    scored = sum(values[s] for s in slices)
    return {s: values[s] / scored for s in slices}


def _declared_shares(declared: dict[str, float], slices: Sequence[str]) -> dict[str, float]:
    """dataset.json's traffic shares (checked when loaded) over the slices scored."""
    total = sum(float(declared.get(s, 0.0)) for s in slices)
    if total <= 0:  # this split holds only slices the dataset gives no traffic
        return {s: 1.0 / len(slices) for s in slices}
    return {s: float(declared.get(s, 0.0)) / total for s in slices}


def read_weights(path: str | Path, slices: list[str]) -> dict[str, float]:
    """Traffic shares from a YAML mapping `slice: share` (JSON is YAML too), checked as
    `eval.traffic_weights` is (`check_shares`): every slice of the slices file given a share
    >= 0, no other slice, shares summing to 1."""
    text = read_text(path, "weights file (slice: share)")
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise not_yaml(path, err, "write one 'slice: share' per line") from None
    return check_shares(loaded, slices, slices, where=str(path))
