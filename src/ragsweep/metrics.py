"""Retrieval measures over graded labels, vectorised over questions.

A `Measure` is a parsed, hashable object (`Measure.parse("nDCG@10")`); `score_gains` scores every
question on every measure at once from per-rank credit arrays. The same core serves the pipeline
(chunks ranked, labels on clauses; see `ragsweep.anchors.gain_arrays`) and TREC files (documents
ranked and labelled; see `ragsweep.trec.gain_arrays`). Conventions are in `docs/metrics.md`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ragsweep.errors import UserError

#: canonical measure names, in the order the help text lists them
NAMES: tuple[str, ...] = ("recall", "P", "RR", "nDCG")
#: lower-cased spellings accepted by `Measure.parse` -> canonical name
_ALIASES: dict[str, str] = {
    "recall": "recall",
    "r": "recall",
    "p": "P",
    "precision": "P",
    "rr": "RR",
    "mrr": "RR",
    "ndcg": "nDCG",
}
#: canonical name -> MLflow metric prefix
_KEY_PREFIX: dict[str, str] = {"recall": "recall", "P": "precision", "RR": "mrr", "nDCG": "ndcg"}
_NEEDS_K = frozenset({"recall", "P", "nDCG"})
ACCEPTED = (
    "recall@K (or R@K), P@K (or precision@K), RR or RR@K (or MRR, MRR@K), nDCG@K "
    "(any case; K a positive integer)"
)
_TEXT = re.compile(r"(?P<name>[a-z]+)(?:@(?P<k>.*))?")
_KEY = re.compile(r"(?P<name>[a-z]+)_at_(?P<k>.*)")

Gain = Literal["exp", "linear"]
GAINS: tuple[str, ...] = ("exp", "linear")


@dataclass(frozen=True)
class Measure:
    """One retrieval measure at an optional rank cutoff `k` (ir_measures style).

    `name` is one of `NAMES`; `k` is a positive integer, required for recall, P and nDCG, optional
    for RR (None: the whole ranked list). `str(m)` is the canonical form (`recall@10`, `P@10`,
    `RR`, `RR@10`, `nDCG@10`) and parses back to an equal object; `m.key` is the MLflow metric
    name (`recall_at_10`, `precision_at_10`, `mrr`, `mrr_at_10`, `ndcg_at_10`).
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
        """Parse `recall@10`, `R@10`, `P@10`, `precision@10`, `RR`, `MRR`, `RR@10`, `nDCG@10`.

        Case-insensitive; the MLflow key form (`recall_at_10`, `mrr`) parses too, so a logged
        metric name leads back to its measure. Raises `UserError` naming `text` otherwise.
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

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"

    @property
    def key(self) -> str:
        """MLflow metric name: `recall_at_10`, `precision_at_10`, `mrr`, `mrr_at_10`, `ndcg_at_10`.

        The nDCG gain is not part of the name: record it with the run (`eval.gain`).
        """
        prefix = _KEY_PREFIX[self.name]
        return prefix if self.k is None else f"{prefix}_at_{self.k}"


def parse_measures(text: str) -> tuple[Measure, ...]:
    """Parse a comma-separated list such as `recall@10,P@10,RR,nDCG@10` (empty items rejected)."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise UserError(f"measure list {text!r} has an empty item; give e.g. recall@10,P@10,RR")
    return tuple(Measure.parse(t) for t in items)


def _discount(depth: int) -> np.ndarray:
    """1 / log2(rank + 1) for ranks 1..depth."""
    return 1.0 / np.log2(np.arange(2, depth + 2, dtype=np.float64))


def _gain_values(grades: np.ndarray, gain: Gain) -> np.ndarray:
    """nDCG gain of each grade; negative grades gain 0 (as trec_eval and ranx; docs/metrics.md)."""
    g = np.maximum(grades, 0).astype(np.float64)
    return np.exp2(g) - 1.0 if gain == "exp" else g


def score_gains(
    gains: np.ndarray,
    new_rel: np.ndarray,
    n_rel: np.ndarray,
    ideal: np.ndarray,
    measures: Sequence[Measure],
    gain: Gain = "exp",
) -> np.ndarray:
    """Score every question on every measure; shape (n_queries, len(measures)), float64.

    - `gains[q, i]`: integer grade credited at rank i+1 (0 when nothing new is credited there;
      rows 0-padded beyond the ranked list). Negative grades are judged non-relevant.
    - `new_rel[q, i]`: relevant units (grade >= 1) newly credited at rank i+1.
    - `n_rel[q]`: relevant units labelled for the question.
    - `ideal[q, :]`: all judged grades of the question, sorted descending, 0-padded.

    recall@k = sum(new_rel[:, :k]) / n_rel (0 when n_rel == 0); P@k = count(gains[:, :k] >= 1)
    / k (short lists count as padded with non-relevant); RR = 1 / first rank with gains >= 1
    (0 if none; RR@k looks within k); nDCG@k = DCG@k / IDCG@k, discount 1 / log2(rank + 1),
    gain 2^g - 1 (`exp`) or g (`linear`, trec_eval's), negative grades gain 0, and 0 when
    IDCG@k is 0. Cutoffs beyond the arrays' width read as 0-padding.
    """
    if gain not in GAINS:
        raise UserError(f"nDCG gain must be one of {', '.join(GAINS)}, got {gain!r}")
    gains = np.asarray(gains)
    new_rel = np.asarray(new_rel)
    n_rel = np.asarray(n_rel)
    ideal = np.asarray(ideal)
    if gains.ndim != 2 or new_rel.shape != gains.shape:
        raise ValueError(
            f"gains and new_rel must be 2-D of one shape, got {gains.shape} and {new_rel.shape}"
        )
    nq = gains.shape[0]
    if n_rel.shape != (nq,) or ideal.ndim != 2 or ideal.shape[0] != nq:
        raise ValueError(
            f"n_rel must be ({nq},) and ideal ({nq}, m); got {n_rel.shape} and {ideal.shape}"
        )
    out = np.zeros((nq, len(measures)), dtype=np.float64)
    if nq == 0:
        return out
    hit = gains >= 1
    n_rel_f = n_rel.astype(np.float64)
    for j, m in enumerate(measures):
        k = m.k
        if m.name == "recall":
            found = new_rel[:, :k].sum(axis=1, dtype=np.float64)
            np.divide(found, n_rel_f, out=out[:, j], where=n_rel_f > 0)
        elif m.name == "P":
            out[:, j] = hit[:, :k].sum(axis=1) / k
        elif m.name == "RR":
            h = hit[:, :k] if k is not None else hit
            if h.shape[1]:
                first = np.argmax(h, axis=1)
                out[:, j] = np.where(h.any(axis=1), 1.0 / (first + 1.0), 0.0)
        elif m.name == "nDCG":
            g = gains[:, :k]
            dcg = _gain_values(g, gain) @ _discount(g.shape[1])
            best = ideal[:, :k]
            idcg = _gain_values(best, gain) @ _discount(best.shape[1])
            np.divide(dcg, idcg, out=out[:, j], where=idcg > 0)
        else:  # pragma: no cover - Measure.__post_init__ rejects other names
            raise ValueError(f"unsupported measure {m}")
    return out
