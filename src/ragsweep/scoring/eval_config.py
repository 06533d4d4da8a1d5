"""What a configuration asks to score and how: its `eval` block checked, the measures, the
questions selected, the traffic weights, the config's hash and the tags that pin a run.

`scoring(cfg, ds)` gathers them for `evaluate` and every other scorer of ranked passages
(docs/metrics.md, docs/report.md).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import pandas as pd
from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.data import Dataset, split
from ragsweep.data.reviews import kappa_summary
from ragsweep.data.schema import REAL_SUBSETS
from ragsweep.errors import UserError
from ragsweep.measures import Measure
from ragsweep.provenance import code_tags
from ragsweep.scoring.weights import slice_weights
from ragsweep.secrets import mask_config

#: `eval.subset`: one part of the labelled set, or `all`: the questions people asked (core and
#: rolling); synthetic questions (generated from the corpus) are scored only on their own
SUBSETS = ("core", "rolling", "synthetic", "all")


def measures_of(cfg: DictConfig) -> list[Measure]:
    """The configured measures, plus recall@k_prompt (the decision metric) if missing, plus
    unjudged@k at k_prompt and at the deepest cutoff (`conventions.unjudged_measures`)."""
    k_prompt = int(cfg.eval.k_prompt)
    if k_prompt <= 0:
        raise UserError(f"eval.k_prompt must be a positive number of passages, got {k_prompt}")
    measures = [Measure.parse(str(m)) for m in cfg.eval.measures]
    decision = cv.decision_measure(k_prompt)
    if decision not in measures:
        measures.append(decision)
    measures += cv.unjudged_measures(k_prompt, measures)
    return list(dict.fromkeys(measures))


def _whole(value: Any) -> int | None:
    """`value` as a whole number (5, 5.0, "5"), else None (2.5, "abc", true)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return int(number) if number.is_integer() else None


def check_eval(cfg: DictConfig) -> None:
    """Every setting of the `eval` block checked, each refused in one line with the fix
    (`UserError`), before anything runs: `eval.min_overlap` is read only once the corpus is
    chunked, and a sweep's configurations all failed on it."""
    k_prompt = _whole(cfg.eval.k_prompt)
    if k_prompt is None or k_prompt <= 0:
        raise UserError(
            f"eval.k_prompt must be a positive whole number of passages, got {cfg.eval.k_prompt!r}"
        )
    share = cfg.eval.min_overlap
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
        raise UserError(
            f"eval.min_overlap must be a share in (0, 1]: how much of the shorter of a chunk and a "
            f"clause they must share (default 0.5), got {share!r}"
        )
    if str(cfg.eval.gain) not in ("exp", "linear"):
        raise UserError(f"eval.gain must be exp or linear, got {cfg.eval.gain!r}")
    normalise = OmegaConf.select(cfg, "eval.normalise_weights", default=False)
    if not isinstance(normalise, bool):
        raise UserError(f"eval.normalise_weights must be true or false, got {normalise!r}")
    cv.unjudged_rule(OmegaConf.select(cfg, "eval.unjudged"))
    measures_of(cfg)


def check_snapshot(cfg: DictConfig, ds: Dataset) -> None:
    pinned = cfg.data.get("sha256")
    if pinned and pinned != ds.snapshot_hash:
        raise UserError(
            f"corpus snapshot {ds.root / 'corpus'} has sha256 {ds.snapshot_hash}, but the config "
            f"pins data.sha256={pinned}; point data.path at the pinned snapshot, set data.sha256 "
            "to the new hash to accept it, or use `data=folder data.path=DIR` for another dataset"
        )


def select_questions(
    cfg: DictConfig, ds: Dataset, allow_heldout: bool = False
) -> tuple[pd.DataFrame, str]:
    """The questions this run scores (split and subset applied), and the split's hash.
    `eval.subset=all` is the real questions (core and rolling): synthetic ones only with
    `eval.subset=synthetic`, never mixed in.

    Held-out questions are scored only by the confirm stage (`allow_heldout`): a split nobody
    tuned on stays that way. `eval.split=all` is allowed only when nothing is held out.
    """
    q = ds.questions
    salt, heldout = str(cfg.data.split.salt), float(cfg.data.split.heldout)
    wanted = str(cfg.eval.split)
    if not allow_heldout and heldout > 0 and wanted in ("heldout", "all"):
        raise UserError(
            f"eval.split={wanted} would score held-out questions, which only `ragsweep confirm` "
            "scores; use eval.split=dev, or data.split.heldout=0 to hold nothing out"
        )
    mask = split.select(list(q["qid"]), salt, heldout, str(cfg.eval.split))
    subset = str(cfg.eval.subset)
    if subset not in SUBSETS:
        raise UserError(f"eval.subset must be one of {', '.join(SUBSETS)}, got {subset!r}")
    if subset == "all":
        mask &= q["subset"].isin(REAL_SUBSETS).to_numpy()
    else:
        mask &= (q["subset"] == subset).to_numpy()
    chosen = q[mask].reset_index(drop=True)
    if chosen.empty:
        raise UserError(
            f"no question of {ds.root} is in split {cfg.eval.split!r} and subset {subset!r}; "
            "choose another eval.split or eval.subset"
        )
    return chosen, split.split_hash(list(q["qid"]), salt, heldout)


@dataclass(frozen=True)
class Scoring:
    """How a configuration's rankings are scored: what `evaluate` and every other scorer of
    ranked passages (`ragsweep.scoring.passages`) share, so equal rankings get equal numbers."""

    measures: list[Measure]
    gain: str  # nDCG gain: exp or linear
    min_overlap: float  # the coverage rule's share (docs/anchoring.md)
    questions: pd.DataFrame  # the questions scored (split and subset applied), in file order
    split_hash: str
    weights: dict[str, float]  # traffic weight of each slice scored


def scoring(cfg: DictConfig, ds: Dataset, allow_heldout: bool = False) -> Scoring:
    """The measures, gain, coverage share, questions and slice weights `cfg` asks for on `ds`
    (the snapshot pin checked first)."""
    check_snapshot(cfg, ds)
    check_eval(cfg)
    measures = measures_of(cfg)
    gain = str(cfg.eval.gain)
    questions, split_hash = select_questions(cfg, ds, allow_heldout)
    scored = [s for s in ds.slices if (questions["slice"] == s).any()]
    weights = slice_weights(cfg, scored, known=ds.slices, declared=ds.meta.get("traffic_weights"))
    return Scoring(measures, gain, float(cfg.eval.min_overlap), questions, split_hash, weights)


def _hash(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def config_hash(cfg: DictConfig) -> str:
    """Hash of the resolved config minus `conventions.NOT_RESULTS`, secrets masked: equal
    hashes, equal numbers (a new API key changes no number, and no hash can be traced back to
    a key)."""
    plain = mask_config(OmegaConf.to_container(cfg, resolve=True))
    for key in cv.NOT_RESULTS:
        plain.pop(key, None)
    return _hash(plain)


def pin_tags(cfg: DictConfig, ds: Dataset, how: Scoring) -> dict[str, str]:
    """The tags every scored run carries: the pins (snapshot, labelled set, split), the split's
    name and subset, the dataset's name, the config hash and the code that ran; and, when the
    dataset records two judges' agreement (review/agreement.json), its overall kappa with the
    interval (`ragsweep.kappa`, e.g. `0.70 [0.58, 0.80] n=307 (ann vs bob)`)."""
    kappa = {} if ds.agreement is None else {cv.tag("kappa"): kappa_summary(ds.agreement)}
    return {
        "ragsweep.snapshot": ds.snapshot_hash,
        "ragsweep.labels": ds.labels_hash,
        "ragsweep.split": how.split_hash,
        "ragsweep.split_name": str(cfg.eval.split),
        "ragsweep.subset": str(cfg.eval.subset),
        "ragsweep.config_hash": config_hash(cfg),
        cv.tag("unjudged"): cv.unjudged_rule(OmegaConf.select(cfg, "eval.unjudged")),
        **code_tags(),
        "ragsweep.dataset": str(ds.meta.get("name", ds.root.name)),
        **kappa,
    }
