"""Coverage of judge-corrected intervals (`ragsweep.compare.ppi`), simulated against a known truth.

    python benchmarks/ppi_coverage.py                  # every case, 2,000 trials (about a minute)
    python benchmarks/ppi_coverage.py --trials 500 --json ppi.json

A population is simulated at the level of labels: each question has a pool of 12 clauses with
true grades (one graded 2, each other graded 1 with probability 0.15), two configurations rank
the pool by grade plus noise (the candidate with less noise), and a model judge grades the same
clauses through a confusion matrix, with a known bias: on the `exclusions` slice it over-calls
grade 1 (a clause people grade 0 is called 1 with probability 0.25, against 0.04 elsewhere).
recall@5 and nDCG@5 are scored per question on the people's grades (the truth) and on the
judge's. The true value of each slice is the population mean on the people's grades.

A trial draws N questions per slice with replacement from the population, audits a random n
of each slice (people's grades known there; the judge's everywhere), and records whether each
row's 95% interval covers its truth:
- **corrected**: `ppi.paired` (what a report uses) on the judge's scores with the audited
  people's scores;
- **uncorrected**: what a report says without correction, the judge's labels where nobody
  audited and the people's where they did, with the intervals every report uses
  (`ragsweep.compare.stats`, paired t with the Agresti-Min floor);
- **audited only**: the same intervals on the n audited questions alone (valid, but wider).
Both the baseline's value and the paired difference (candidate - baseline) are checked, per
slice, `all` and `weighted`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ragsweep.compare import ppi, stats  # noqa: E402

LEVEL = 0.95
SLICES = ("limits", "exclusions", "procedures", "definitions", "identifiers")
WEIGHTS = {
    "limits": 0.3,
    "exclusions": 0.25,
    "procedures": 0.2,
    "definitions": 0.15,
    "identifiers": 0.1,
}
POOL, K = 12, 5


def _judge_matrix(over_call: float) -> np.ndarray:
    """P(judge grade | people's grade), rows 0, 1, 2: `over_call` of the 0s called 1."""
    return np.array(
        [
            [1 - over_call - 0.01, over_call, 0.01],
            [0.15, 0.75, 0.10],
            [0.02, 0.13, 0.85],
        ]
    )


def _scores(grades: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """recall@5 and nDCG@5 (exp gain) of each question's ranking `order` on `grades`."""
    top = np.take_along_axis(grades, order[:, :K], axis=1)
    rel = (grades >= 1).sum(axis=1)
    recall = np.divide((top >= 1).sum(axis=1), rel, out=np.zeros(len(grades)), where=rel > 0)
    disc = 1 / np.log2(np.arange(2, K + 2))
    dcg = ((2.0**top - 1) * disc).sum(axis=1)
    ideal = np.sort(grades, axis=1)[:, ::-1][:, :K]
    idcg = ((2.0**ideal - 1) * disc).sum(axis=1)
    ndcg = np.divide(dcg, idcg, out=np.zeros(len(grades)), where=idcg > 0)
    return recall, ndcg


@dataclass(frozen=True)
class Population:
    """Per-question scores of one slice: (4, M) rows people-baseline, people-candidate,
    judge-baseline, judge-candidate; one such table per measure."""

    by_measure: dict[str, np.ndarray]


def population(slice_name: str, rng: np.random.Generator, m: int) -> Population:
    grades = np.zeros((m, POOL), dtype=np.int64)
    grades[:, 0] = 2
    grades[:, 1:] = (rng.random((m, POOL - 1)) < 0.15).astype(np.int64)
    over = 0.25 if slice_name == "exclusions" else 0.04
    cum = _judge_matrix(over).cumsum(axis=1)
    u = rng.random((m, POOL))
    judge = (u[..., None] > cum[grades]).sum(axis=-1)
    signal = grades.astype(np.float64)
    base = np.argsort(-(signal + rng.normal(0, 1.6, (m, POOL))), axis=1, kind="stable")
    cand = np.argsort(-(signal + rng.normal(0, 1.2, (m, POOL))), axis=1, kind="stable")
    out = {}
    for i, name in enumerate(("recall@5", "nDCG@5")):
        rows = [_scores(g, o)[i] for g in (grades, judge) for o in (base, cand)]
        out[name] = np.array([rows[0], rows[1], rows[2], rows[3]])
    return Population(out)


def t_interval(x: np.ndarray) -> tuple[float, float]:
    n = x.size
    se = x.std(ddof=1) / np.sqrt(n)
    q = sps.t.ppf(0.5 + LEVEL / 2, n - 1)
    return x.mean() - q * se, x.mean() + q * se


def trial(
    pops: dict[str, Population], measure: str, big_n: int, n: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """One trial's 95% intervals, (low, high) per row (slices, all, weighted): `corrected` for
    the value and the difference, `plain_delta`, `only_delta`, `plain_value`; and the rows."""
    tables, strata, audited = [], [], []
    for s in SLICES:
        table = pops[s].by_measure[measure]
        pick = rng.integers(0, table.shape[1], big_n)
        tables.append(table[:, pick])
        strata += [s] * big_n
        mask = np.zeros(big_n, dtype=bool)
        mask[rng.choice(big_n, n, replace=False)] = True
        audited.append(mask)
    t = np.concatenate(tables, axis=1)
    aud = np.concatenate(audited)
    labels = np.array(strata, dtype=object)
    people_base, people_cand, judge_base, judge_cand = t
    _, est = ppi.paired(
        np.array([judge_base, judge_cand]),
        np.array([people_base, people_cand]),
        aud,
        labels,
        ["c"],
        weights=WEIGHTS,
    )
    pick = [0, 2]  # the baseline's value and the difference, as a report's cells use them
    q = sps.t.ppf(0.5 + LEVEL / 2, est.df[:, pick])
    centre, se = est.estimate[:, pick], est.se[:, pick]
    lo, hi = centre - q * se, centre + q * se
    mixed_base = np.where(aud, people_base, judge_base)
    mixed_cand = np.where(aud, people_cand, judge_cand)
    plain = stats.compare(
        stats.paired_differences(mixed_base, mixed_cand[None], labels, ["c"], weights=WEIGHTS),
        level=LEVEL,
    )
    only = stats.compare(
        stats.paired_differences(
            people_base[aud], people_cand[aud][None], labels[aud], ["c"], weights=WEIGHTS
        ),
        level=LEVEL,
    )
    return {
        "corrected": np.stack([lo, hi], axis=-1),  # (R, 2 quantities, 2)
        "plain_delta": np.array([[c.ci_low, c.ci_high] for c in plain]),
        "only_delta": np.array([[c.ci_low, c.ci_high] for c in only]),
        "plain_value": _value_rows(mixed_base, labels),
        "strata": np.array(est.strata, dtype=object),
    }


def _value_rows(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Uncorrected intervals of the baseline's value: t per slice, stratified for the others."""
    rows, means, vars_, ns = [], [], [], []
    for s in SLICES:
        v = x[labels == s]
        rows.append(t_interval(v))
        means.append(v.mean())
        vars_.append(v.var(ddof=1) / v.size)
        ns.append(v.size)
    for wv in (np.array(ns) / sum(ns), np.array([WEIGHTS[s] for s in SLICES])):
        m = float((wv * means).sum())
        se = float(np.sqrt((wv**2 * vars_).sum()))
        q = sps.norm.ppf(0.5 + LEVEL / 2)
        rows.append((m - q * se, m + q * se))
    return np.array(rows)


def truths(pops: dict[str, Population], measure: str) -> np.ndarray:
    """(R, 2): each row's true baseline value and difference on the people's grades."""
    per = np.array(
        [
            [
                pops[s].by_measure[measure][0].mean(),
                (pops[s].by_measure[measure][1] - pops[s].by_measure[measure][0]).mean(),
            ]
            for s in SLICES
        ]
    )
    out = [*per]
    for wv in (np.full(len(SLICES), 1 / len(SLICES)), np.array([WEIGHTS[s] for s in SLICES])):
        out.append((wv[:, None] * per).sum(axis=0))
    return np.array(out)


def run_case(measure: str, big_n: int, n: int, trials: int, seed: int, m: int) -> dict:
    rng = np.random.default_rng(seed)
    pops = {s: population(s, rng, m) for s in SLICES}
    truth = truths(pops, measure)
    covers = {k: [] for k in ("corrected", "plain_delta", "only_delta", "plain_value")}
    widths = {k: [] for k in covers}
    strata = None
    for _ in range(trials):
        r = trial(pops, measure, big_n, n, rng)
        strata = r["strata"]
        c = r["corrected"]
        covers["corrected"].append((c[..., 0] <= truth) & (truth <= c[..., 1]))
        widths["corrected"].append(c[..., 1] - c[..., 0])
        for key, col in (("plain_delta", 1), ("only_delta", 1), ("plain_value", 0)):
            iv = r[key]
            covers[key].append((iv[:, 0] <= truth[:, col]) & (truth[:, col] <= iv[:, 1]))
            widths[key].append(iv[:, 1] - iv[:, 0])
    out = {"measure": measure, "N": big_n, "n": n, "trials": trials, "rows": []}
    cov = {k: np.mean(v, axis=0) for k, v in covers.items()}
    wid = {k: np.mean(v, axis=0) for k, v in widths.items()}
    for i, s in enumerate(strata):
        out["rows"].append(
            {
                "row": str(s),
                "truth_value": float(truth[i, 0]),
                "truth_delta": float(truth[i, 1]),
                "value": {
                    "corrected": float(cov["corrected"][i, 0]),
                    "uncorrected": float(cov["plain_value"][i]),
                    "width_corrected": float(wid["corrected"][i, 0]),
                },
                "delta": {
                    "corrected": float(cov["corrected"][i, 1]),
                    "uncorrected": float(cov["plain_delta"][i]),
                    "audited_only": float(cov["only_delta"][i]),
                    "width_corrected": float(wid["corrected"][i, 1]),
                    "width_audited_only": float(wid["only_delta"][i]),
                },
            }
        )
    return out


CASES = (
    ("recall@5", 100, 20),
    ("nDCG@5", 100, 20),
    ("recall@5", 40, 8),
    ("recall@5", 20, 4),
    ("recall@5", 400, 80),
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=2000)
    ap.add_argument("--population", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    results = []
    for i, (measure, big_n, n) in enumerate(CASES):
        res = run_case(measure, big_n, n, args.trials, args.seed + i, args.population)
        results.append(res)
        print(f"\n{measure}, {big_n} questions per slice, {n} audited ({args.trials} trials)")
        heads = ("truth", "value corr", "uncorr", "delta", "corr", "uncorr", "aud-only", "width")
        print(f"{'row':<12} " + " ".join(f"{h:>10}" for h in heads))
        for r in res["rows"]:
            v, d = r["value"], r["delta"]
            cells = (
                f"{r['truth_value']:.3f}",
                f"{v['corrected']:.1%}",
                f"{v['uncorrected']:.1%}",
                f"{r['truth_delta']:+.3f}",
                f"{d['corrected']:.1%}",
                f"{d['uncorrected']:.1%}",
                f"{d['audited_only']:.1%}",
                f"{d['width_corrected']:.3f}/{d['width_audited_only']:.3f}",
            )
            print(f"{r['row']:<12} " + " ".join(f"{c:>10}" for c in cells))
    print(f"\n{time.perf_counter() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"level": LEVEL, "cases": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
