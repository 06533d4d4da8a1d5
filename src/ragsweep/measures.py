"""Retrieval measures as parsed, hashable objects (ir_measures style).

`Measure.parse("nDCG@10")` gives an object whose `str` parses back to itself and whose `key` is
its MLflow metric name (`ndcg_at_10`). Scoring them is `ragsweep.scoring.metrics`; the
conventions (gain, cutoffs, ties) are in `docs/metrics.md`. `unjudged@k` is not a quality
measure but the share of the top k that nobody judged (trec_eval's 1 - judged@k, BEIR's hole@k):
the measure that says how far the others can be trusted (docs/metrics.md, "Unjudged passages").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ragsweep.errors import UserError

#: canonical measure names, in the order the help text lists them
NAMES: tuple[str, ...] = ("recall", "P", "RR", "AP", "nDCG", "unjudged")
#: lower-cased spellings accepted by `Measure.parse` -> canonical name
_ALIASES: dict[str, str] = {
    "recall": "recall",
    "r": "recall",
    "p": "P",
    "precision": "P",
    "rr": "RR",
    "mrr": "RR",
    "ap": "AP",
    "map": "AP",
    "ndcg": "nDCG",
    "unjudged": "unjudged",
    "hole": "unjudged",
}
#: canonical name -> MLflow metric prefix
_KEY_PREFIX: dict[str, str] = {
    "recall": "recall",
    "P": "precision",
    "RR": "mrr",
    "AP": "map",
    "nDCG": "ndcg",
    "unjudged": "unjudged",
}
_NEEDS_K = frozenset({"recall", "P", "nDCG", "unjudged"})
#: measures that say how much of a ranking was judged, not how good it is: lower is better and
#: they are never compared for a verdict
DIAGNOSTICS = frozenset({"unjudged"})
ACCEPTED = (
    "recall@K (or R@K), P@K (or precision@K), RR or RR@K (or MRR, MRR@K), AP or AP@K (or "
    "MAP, MAP@K), nDCG@K, unjudged@K (or hole@K) (any case; K a positive integer)"
)
_TEXT = re.compile(r"(?P<name>[a-z]+)(?:@(?P<k>.*))?")
_KEY = re.compile(r"(?P<name>[a-z]+)_at_(?P<k>.*)")

Gain = Literal["exp", "linear"]
GAINS: tuple[str, ...] = ("exp", "linear")


def relevance_level(value: object) -> int:
    """`value` checked as a relevance level (trec_eval's `-l`): an integer >= 1, the grade from
    which a document counts as relevant for recall, P, RR and AP; else a `UserError`."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise UserError(
            f"relevance level (--rel-level, trec_eval's -l) must be an integer >= 1, got "
            f"{value!r}; a document is relevant when its grade is at least the level"
        )
    return int(value)


@dataclass(frozen=True)
class Measure:
    """One retrieval measure at an optional rank cutoff `k` (ir_measures style).

    `name` is one of `NAMES`; `k` is a positive integer, required for recall, P, nDCG and
    unjudged, optional for RR and AP (None: the whole ranked list). `str(m)` is the canonical
    form (`recall@10`, `P@10`, `RR`, `RR@10`, `AP`, `AP@10`, `nDCG@10`, `unjudged@10`) and parses
    back to an equal object; `m.key` is the MLflow metric name (`recall_at_10`,
    `precision_at_10`, `mrr`, `mrr_at_10`, `map`, `map_at_10`, `ndcg_at_10`, `unjudged_at_10`).
    """

    name: str
    k: int | None = None

    def __post_init__(self) -> None:
        if self.name not in NAMES:
            raise UserError(f"unknown measure name {self.name!r}; accepted: {', '.join(NAMES)}")
        if self.k is None:
            if self.name in _NEEDS_K:
                raise UserError(
                    f"measure {self.name} needs a cutoff, e.g. {self.name}@10; accepted: {ACCEPTED}"
                )
        elif isinstance(self.k, bool) or not isinstance(self.k, int | np.integer) or self.k <= 0:
            raise UserError(
                f"measure {self.name}: cutoff must be a positive integer, got {self.k!r}"
            )
        else:
            object.__setattr__(self, "k", int(self.k))

    @classmethod
    def parse(cls, text: str) -> Measure:
        """Parse `recall@10`, `R@10`, `P@10`, `precision@10`, `RR`, `MRR`, `RR@10`, `AP`, `MAP`,
        `AP@10`, `nDCG@10`.

        Case-insensitive; the MLflow key form (`recall_at_10`, `mrr`, `map_at_10`) parses too,
        so a logged metric name leads back to its measure. Raises `UserError` naming `text`
        otherwise.
        """
        if not isinstance(text, str):
            raise UserError(f"measure must be a string like 'nDCG@10', got {text!r}")
        s = text.strip().lower()
        match = _TEXT.fullmatch(s) or _KEY.fullmatch(s)
        name = _ALIASES.get(match["name"]) if match else None
        if name is None:
            raise UserError(f"unknown measure {text!r}; accepted: {ACCEPTED}")
        k_text = match["k"]
        if k_text is None:
            if name in _NEEDS_K:
                raise UserError(
                    f"measure {text!r} needs a cutoff, e.g. {name}@10; accepted: {ACCEPTED}"
                )
            return cls(name)
        if not re.fullmatch(r"-?[0-9]+", k_text):
            raise UserError(
                f"measure {text!r}: cutoff {k_text!r} is not an integer; accepted: {ACCEPTED}"
            )
        k = int(k_text)
        if k <= 0:
            raise UserError(f"measure {text!r}: cutoff must be a positive integer, got {k}")
        return cls(name, k)

    @property
    def diagnostic(self) -> bool:
        """Whether this measure describes the labels' reach (unjudged@k), not retrieval quality."""
        return self.name in DIAGNOSTICS

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"

    @property
    def key(self) -> str:
        """MLflow metric name: `recall_at_10`, `precision_at_10`, `mrr`, `map_at_10`, `ndcg_at_10`.

        The nDCG gain is not part of the name: record it with the run (`eval.gain`).
        """
        prefix = _KEY_PREFIX[self.name]
        return prefix if self.k is None else f"{prefix}_at_{self.k}"


def parse_measures(text: str) -> tuple[Measure, ...]:
    """Parse a comma-separated list such as `recall@10,P@10,RR,AP,nDCG@10` (empty items refused)."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise UserError(f"measure list {text!r} has an empty item; give e.g. recall@10,P@10,RR")
    return tuple(Measure.parse(t) for t in items)
