"""Coverage of ragsweep's paired intervals, by simulation against populations whose truth is known.

    python benchmarks/interval_coverage.py             # every case, 2,000 trials (a few minutes)
    python benchmarks/interval_coverage.py --trials 600 --methods percentile,ragsweep
    python benchmarks/interval_coverage.py --json coverage.json

A population is a finite table of per-question scores (baseline and candidates) for each slice;
a trial samples questions from it with replacement (so questions are independent draws and the
true difference of a slice is exactly the population's mean paired difference), computes the
95% intervals of every method, and records whether each row's interval covers its truth: each
slice, `all` (the question-weighted mean of the slice truths, at the labelled set's slice
sizes) and `weighted` (the traffic-weighted mean). With several candidates the Bonferroni
family covers when every candidate's interval covers (jointly, per row).

Cases (what `docs/statistics.md` tabulates): recall@5 scored hit/miss near 0.5 and 0.9, 20 and
80 questions per slice, gaps that are not a whole number of questions (+0.03 on 20); nDCG@10
from graded labels and simulated rankings; correlated systems (they miss the same questions)
and independent ones; one and three candidates.

Methods: `percentile` (the paired percentile bootstrap ragsweep used until issue 25, 2,000
resamples here), `t` (Student-t on the paired differences, no floor), `ragsweep`
(`ragsweep.compare.stats`: what every report uses now).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ragsweep.compare import stats  # noqa: E402

LEVEL = 0.95


# --- populations --------------------------------------------------------------------------
@dataclass(frozen=True)
class Population:
    """Per-question scores of one slice's population: `base` (M,), `cands` (C, M)."""

    base: np.ndarray
    cands: np.ndarray

    @property
    def truth(self) -> np.ndarray:
        """The exact mean paired difference of each candidate (C,)."""
        return (self.cands - self.base).mean(axis=1)


def hit_miss(p11: float, p10: float, p01: float, m: int = 100_000) -> Population:
    """Hit/miss scores from the 2x2 table of (baseline, candidate) outcomes, one candidate.

    p10: baseline hits, candidate misses; p01: the reverse. Cell counts are rounded to whole
    questions of an M-question population, so the truth is exact (p01 - p10 up to 1/M).
    """
    counts = np.round(np.array([p11, p10, p01]) * m).astype(int)
    c00 = m - counts.sum()
    if c00 < 0:
        raise ValueError("cell probabilities exceed 1")
    base = np.concatenate([np.ones(counts[0]), np.ones(counts[1]), np.zeros(counts[2] + c00)])
    cand = np.concatenate(
        [np.ones(counts[0]), np.zeros(counts[1]), np.ones(counts[2]), np.zeros(c00)]
    )
    return Population(base, cand[None])


def correlated(p_base: float, gap: float, disagree: float) -> Population:
    """Hit/miss systems that mostly fail the same questions: a share `disagree` of questions
    scores differently, split so that the candidate's recall is `p_base + gap`."""
    p01 = (disagree + gap) / 2
    p10 = (disagree - gap) / 2
    return hit_miss(p_base - p10, p10, p01)


def independent(p_base: float, gap: float) -> Population:
    """Hit/miss systems that fail independently (recall p_base and p_base + gap)."""
    pc = p_base + gap
    return hit_miss(p_base * pc, p_base * (1 - pc), (1 - p_base) * pc)


def _ndcg10(ranks: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """nDCG@10 (linear gain, log2 discount) of questions whose relevant passages sit at `ranks`
    (1-based, > 10 for not retrieved), `grades` their grades (0 pads unused slots)."""
    disc = np.where(ranks <= 10, 1.0 / np.log2(ranks + 1.0), 0.0)
    dcg = (grades * disc).sum(axis=1)
    ideal_g = -np.sort(-grades, axis=1)
    ideal = (ideal_g / np.log2(np.arange(2, grades.shape[1] + 2))).sum(axis=1)
    return dcg / ideal


def _place(pref: np.ndarray) -> np.ndarray:
    """Distinct ranks from preferred ones (a later passage wanting a taken rank moves down)."""
    out = pref.copy()
    for j in range(1, out.shape[1]):
        clash = (out[:, :j] == out[:, j : j + 1]).any(axis=1)
        while clash.any():
            out[clash, j] += 1
            clash = (out[:, :j] == out[:, j : j + 1]).any(axis=1)
    return out


def graded(
    n_cands: int, stay: float, lift: Sequence[float], m: int = 60_000, seed: int = 11
) -> Population:
    """nDCG@10 from graded labels and simulated rankings.

    Each question has 1-3 relevant passages (one graded 2, the rest 1) and a difficulty; the
    baseline ranks each relevant passage at a geometric rank whose spread grows with the
    difficulty. Each candidate keeps the baseline's rank of a passage with probability `stay`
    (correlated systems) and otherwise draws its own, `lift[c]` easier. The truth is the exact
    mean over the M questions.
    """
    rng = np.random.default_rng(seed)
    r = rng.integers(1, 4, size=m)
    slots = np.arange(3)[None, :]
    grades = np.where(slots < r[:, None], np.where(slots == 0, 2.0, 1.0), 0.0)
    difficulty = rng.beta(2, 3, size=m)

    def draw(easier: float) -> np.ndarray:
        q = np.clip(0.75 - 0.6 * difficulty + easier, 0.05, 0.95)[:, None]
        return rng.geometric(q, size=(m, 3))

    base_ranks = _place(draw(0.0))
    base = _ndcg10(np.where(grades > 0, base_ranks, 99), grades)
    cands = []
    for lf in lift:
        own = draw(lf)
        keep = rng.random((m, 3)) < stay
        ranks = _place(np.where(keep, base_ranks, own))
        cands.append(_ndcg10(np.where(grades > 0, ranks, 99), grades))
    return Population(base, np.array(cands[:n_cands]))


@dataclass(frozen=True)
class Case:
    """Slices (name -> (population, questions per slice)), traffic weights, the measure."""

    name: str
    slices: dict[str, tuple[Population, int]]
    weights: dict[str, float] | None = None
    measure: str = "recall@5 hit/miss"


def _cases() -> list[Case]:
    five = [f"s{i}" for i in range(5)]
    traffic = dict(zip(five, [0.35, 0.25, 0.2, 0.12, 0.08], strict=True))

    def same(pop: Population, n: int) -> dict[str, tuple[Population, int]]:
        return {s: (pop, n) for s in five}

    mixed = {
        "s0": (correlated(0.90, 0.05, 0.09), 20),
        "s1": (correlated(0.92, 0.0, 0.06), 20),
        "s2": (correlated(0.88, 0.03, 0.11), 20),
        "s3": (correlated(0.95, 0.02, 0.04), 20),
        "s4": (correlated(0.85, -0.02, 0.12), 20),
    }
    return [
        Case("recall@5 ~0.5, 80/slice, gap +0.03", same(correlated(0.5, 0.03, 0.2), 80)),
        Case("recall@5 ~0.9, 80/slice, gap +0.05", same(correlated(0.9, 0.05, 0.09), 80)),
        Case("recall@5 ~0.5, 20/slice, gap +0.03", same(correlated(0.5, 0.03, 0.2), 20)),
        Case("recall@5 ~0.9, 20/slice, gap +0.05", same(correlated(0.9, 0.05, 0.09), 20)),
        Case("recall@5 ~0.9, 20/slice, no gap", same(correlated(0.9, 0.0, 0.06), 20)),
        Case("recall@5 ~0.5, 20/slice, independent", same(independent(0.5, 0.03), 20)),
        Case("recall@5 ~0.9, 20/slice, independent", same(independent(0.88, 0.05), 20)),
        Case(
            "nDCG@10, 20/slice, correlated",
            same(graded(1, 0.8, [0.05]), 20),
            measure="nDCG@10 graded",
        ),
        Case(
            "nDCG@10, 20/slice, independent",
            same(graded(1, 0.0, [0.05]), 20),
            measure="nDCG@10 graded",
        ),
        Case("weighted headline ~0.9, 20/slice", mixed, weights=traffic),
        Case(
            "3 candidates (Bonferroni), ~0.9, 20/slice",
            same(_three(0.9, (0.0, 0.03, 0.05), 0.09), 20),
            weights=traffic,
        ),
        Case(
            "3 candidates (Bonferroni), ~0.5, 20/slice",
            same(_three(0.5, (0.0, 0.03, -0.03), 0.2), 20),
            weights=traffic,
        ),
        Case(
            "3 candidates (Bonferroni), nDCG@10, 20/slice",
            same(graded(3, 0.8, [0.0, 0.05, 0.1]), 20),
            weights=traffic,
            measure="nDCG@10 graded",
        ),
    ]


def _three(p_base: float, gaps: Sequence[float], disagree: float, m: int = 100_000) -> Population:
    """One hit/miss baseline and three correlated candidates, each differing on a share
    `disagree` of questions (drawn independently per candidate) with its own gap."""
    rng = np.random.default_rng(5)
    base = (rng.random(m) < p_base).astype(float)
    hits, misses = np.flatnonzero(base == 1), np.flatnonzero(base == 0)
    cands = []
    for g in gaps:
        cand = base.copy()
        n10 = round((disagree - g) / 2 * m)
        n01 = round((disagree + g) / 2 * m)
        cand[rng.choice(hits, n10, replace=False)] = 0.0
        cand[rng.choice(misses, n01, replace=False)] = 1.0
        cands.append(cand)
    return Population(base, np.array(cands))


# --- methods ------------------------------------------------------------------------------
#: (base, cands, strata, names, weights, seed) -> (ends (rows, C, 2), row names)
Method = Callable[
    [np.ndarray, np.ndarray, np.ndarray, list[str], dict | None, int],
    tuple[np.ndarray, tuple[str, ...]],
]


def _percentile(base, cands, strata, names, weights, seed):  # type: ignore[no-untyped-def]
    """The paired, stratified percentile bootstrap ragsweep used before (2,000 resamples):
    questions resampled within each slice, the same draw for every candidate, Bonferroni-widened
    percentile intervals of each row's resampled mean difference."""
    rng = np.random.default_rng(seed)
    labels = np.asarray(strata)
    present = list(dict.fromkeys(labels.tolist()))
    diff = (cands - base).T
    b = 2000
    slice_means = []
    for s in present:
        d = diff[labels == s]
        idx = rng.integers(0, d.shape[0], size=(b, d.shape[0]))
        slice_means.append(d[idx].mean(axis=1))  # (B, C)
    slice_means = np.stack(slice_means, axis=1)  # (B, S, C)
    ns = np.array([(labels == s).sum() for s in present], dtype=float)
    rows = [slice_means[:, i] for i in range(len(present))]
    names_out = [*present, "all"]
    rows.append((slice_means * (ns / ns.sum())[None, :, None]).sum(axis=1))
    if weights is not None:
        w = np.array([weights[s] for s in present])
        rows.append((slice_means * (w / w.sum())[None, :, None]).sum(axis=1))
        names_out.append("weighted")
    tail = (1 - LEVEL) / len(names) / 2
    ends = [np.stack(np.quantile(r, [tail, 1 - tail], axis=0), axis=-1) for r in rows]
    return np.array(ends), tuple(names_out)


def _student(base, cands, strata, names, weights, seed):  # type: ignore[no-untyped-def]
    """Student-t on the paired differences per slice, Welch-combined; no floor."""
    labels = np.asarray(strata)
    present = list(dict.fromkeys(labels.tolist()))
    diff = cands - base
    c = len(names)
    q_tail = (1 - LEVEL) / (2 * c)
    means, variances, ns = [], [], []
    for s in present:
        d = diff[:, labels == s]
        means.append(d.mean(axis=1))
        variances.append(d.var(axis=1, ddof=1) / d.shape[1])
        ns.append(d.shape[1])
    means, variances, ns = np.array(means), np.array(variances), np.array(ns)
    rows = [(means[i], variances[i], ns[i] - 1.0) for i in range(len(present))]
    share = ns / ns.sum()
    names_out = list(present) + ["all"]
    combos = [share]
    if weights is not None:
        w = np.array([weights[s] for s in present])
        combos.append(w / w.sum())
        names_out.append("weighted")
    for w in combos:
        m = (w[:, None] * means).sum(axis=0)
        v = (w[:, None] ** 2 * variances).sum(axis=0)
        denom = ((w[:, None] ** 2 * variances) ** 2 / (ns[:, None] - 1.0)).sum(axis=0)
        df = np.where(denom > 0, v**2 / np.where(denom > 0, denom, 1.0), ns.sum() - len(ns))
        rows.append((m, v, df))
    out = []
    for m, v, df in rows:
        h = sps.t.ppf(1 - q_tail, df) * np.sqrt(v)
        out.append(np.stack([m - h, m + h], axis=-1))
    return np.array(out), tuple(names_out)


def _ragsweep(base, cands, strata, names, weights, seed):  # type: ignore[no-untyped-def]
    diffs = stats.paired_differences(base, cands, strata, names, weights=weights)
    rows = stats.compare(diffs, level=LEVEL, correction="bonferroni")
    ends = {(r.candidate, r.stratum): (r.ci_low, r.ci_high) for r in rows}
    out = np.array([[ends[c, s] for c in names] for s in diffs.strata])
    return out, diffs.strata


METHODS: dict[str, Method] = {
    "percentile": _percentile,
    "t": _student,
    "ragsweep": _ragsweep,
}


# --- the simulation -----------------------------------------------------------------------
def run_case(case: Case, method: Method, trials: int, seed: int = 0) -> dict[str, float]:
    """Coverage of each row (slices pooled as `slice`, `all`, `weighted`) and, with several
    candidates, of the family (every candidate covered) per row kind; also mean widths."""
    rng = np.random.default_rng(seed)
    names_s = list(case.slices)
    sizes = np.array([case.slices[s][1] for s in names_s])
    truths = np.array([case.slices[s][0].truth for s in names_s])  # (S, C)
    c = truths.shape[1]
    share = sizes / sizes.sum()
    t_all = (share[:, None] * truths).sum(axis=0)
    if case.weights is not None:
        w = np.array([case.weights[s] for s in names_s])
        t_w = ((w / w.sum())[:, None] * truths).sum(axis=0)
    strata = np.repeat(names_s, sizes)
    cand_names = [f"c{j}" for j in range(c)]
    hits: dict[str, list[np.ndarray]] = {"slice": [], "all": [], "weighted": []}
    widths: dict[str, list[float]] = {"slice": [], "all": [], "weighted": []}
    for t in range(trials):
        base_parts, cand_parts = [], []
        for s in names_s:
            pop, n = case.slices[s]
            idx = rng.integers(0, pop.base.size, size=n)
            base_parts.append(pop.base[idx])
            cand_parts.append(pop.cands[:, idx])
        base = np.concatenate(base_parts)
        cands = np.concatenate(cand_parts, axis=1)
        ends, rows = method(base, cands, strata, cand_names, case.weights, t)
        for i, r in enumerate(rows):
            if r == "all":
                kind, truth = "all", t_all
            elif r == "weighted":
                kind, truth = "weighted", t_w
            else:
                kind, truth = "slice", truths[names_s.index(r)]
            covered = (ends[i, :, 0] <= truth + 1e-12) & (truth - 1e-12 <= ends[i, :, 1])
            hits[kind].append(covered)
            widths[kind].extend((ends[i, :, 1] - ends[i, :, 0]).tolist())
    # how many questions of a slice the systems are expected to score differently
    out: dict[str, float] = {
        "disputed per slice": float(
            np.mean([n * (pop.cands != pop.base).mean() for pop, n in case.slices.values()])
        )
    }
    for kind, got in hits.items():
        if not got:
            continue
        arr = np.array(got)  # (trials x rows, C)
        out[f"{kind}"] = float(arr.mean())
        if c > 1:
            out[f"{kind} family"] = float(arr.all(axis=1).mean())
        out[f"{kind} width"] = float(np.mean(widths[kind]))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--methods", default="percentile,t,ragsweep")
    parser.add_argument("--cases", default="", help="substring filter on case names")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    results = []
    for case in _cases():
        if args.cases and args.cases not in case.name:
            continue
        for m in methods:
            start = time.perf_counter()
            cov = run_case(case, METHODS[m], args.trials)
            secs = time.perf_counter() - start
            results.append(
                {"case": case.name, "measure": case.measure, "method": m, **cov, "seconds": secs}
            )
            shown = "  ".join(f"{k} {v:.3f}" for k, v in cov.items() if not k.endswith("width"))
            wid = "  ".join(f"{k} {v:.3f}" for k, v in cov.items() if k.endswith("width"))
            print(f"{case.name:45s} {m:10s} {shown}   | {wid}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
