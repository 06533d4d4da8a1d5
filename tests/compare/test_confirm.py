"""The confirm stage's winner rule: the best dev headline among rows decided `better`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ragsweep.compare.build import build_report
from ragsweep.experiment.confirm import pick_winner

SLICES = ["limits", "exclusions", "identifiers"]
N = 60


def frame(rng: np.random.Generator, p: dict[str, float]) -> pd.DataFrame:
    rows = []
    for s in SLICES:
        hits = rng.random(N) < p[s]
        for i, h in enumerate(hits):
            rows.append(
                {"qid": f"{s[:3]}{i:03d}", "slice": s, "recall@5": float(h), "RR": float(h)}
            )
    return pd.DataFrame(rows)


def test_best_better_row_wins_and_a_guard_failure_never_does():
    rng = np.random.default_rng(7)
    base = frame(rng, {"limits": 0.5, "exclusions": 0.8, "identifiers": 0.5})

    # candidates improve on the baseline question by question (paired), by different amounts
    def lift(share_fixed: float, exclusions_broken: float) -> pd.DataFrame:
        out = base.copy()
        r = np.random.default_rng(int(share_fixed * 100 + exclusions_broken * 10))
        miss = out["recall@5"] == 0
        fix = miss & (r.random(len(out)) < share_fixed) & (out["slice"] != "exclusions")
        out.loc[fix, ["recall@5", "RR"]] = 1.0
        hit_exc = (out["slice"] == "exclusions") & (out["recall@5"] == 1)
        brk = hit_exc & (r.random(len(out)) < exclusions_broken)
        out.loc[brk, ["recall@5", "RR"]] = 0.0
        return out

    cands = {"small": lift(0.4, 0.0), "big": lift(0.8, 0.0), "risky": lift(0.9, 0.3)}
    report = build_report(
        base,
        cands,
        decision="recall@5",
        slices=SLICES,
        weights={"limits": 0.5, "exclusions": 0.3, "identifiers": 0.2},
    )
    decisions = {d.config: d.decision for d in report.decisions}
    assert decisions["risky"] == "fails guard"
    assert decisions["small"] == "better" and decisions["big"] == "better"
    assert pick_winner(report) == "big"


def test_no_better_row_means_no_winner():
    rng = np.random.default_rng(1)
    base = frame(rng, {"limits": 0.5, "exclusions": 0.8, "identifiers": 0.5})
    report = build_report(base, {"same": base.copy()}, decision="recall@5")
    assert pick_winner(report) is None
