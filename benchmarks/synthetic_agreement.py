"""Do synthetic questions rank configurations as the real ones do? On the built-in sample.

    python benchmarks/synthetic_agreement.py [--per-slice 40] [--seed 0] [--json out.json]

A copy of the sample gets `--per-slice` synthetic questions per slice from the offline
generator (`ragsweep labels generate`: templates, the pool judged by the offline pre-labeller),
then each configuration of the chunk-size sweep (`sweeps/chunk_size.yaml`) and the fusion sweep
(`sweeps/fusion_k.yaml`) is scored twice on the dev split: on the real questions
(`eval.subset=all`) and on the synthetic ones (`eval.subset=synthetic`). For each sweep and
measure (recall@5, nDCG@10 on `all`) it prints the configurations' values on both, the Spearman
and Kendall rank correlations between them (scipy; 4 configurations, so +1, 0.8, 0.4 ... are
the steps of Spearman's rho), and whether both pick the same best configuration.
docs/labelling.md, "Questions from the corpus", quotes what it printed. Not run in CI.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ragsweep.config import compose  # noqa: E402
from ragsweep.data import load_dataset  # noqa: E402
from ragsweep.data.load import sample_path  # noqa: E402
from ragsweep.labelling.generate import generate  # noqa: E402
from ragsweep.scoring.evaluate import evaluate  # noqa: E402

SWEEPS = {
    "chunk_size": ("chunker.size", [64, 128, 256, 512]),
    "fusion_k": ("fusion.k", [10, 30, 60, 100]),
}
MEASURES = ("recall@5", "nDCG@10")
SALT = "ragsweep-sample-36"  # the sample's split (conf/data/sample.yaml)
AT = "2026-01-05T12:00:00+00:00"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-slice", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragsweep-synthetic-") as tmp:
        data = Path(shutil.copytree(sample_path(), Path(tmp) / "sample"))
        cache = Path(tmp) / "cache"
        started = time.perf_counter()
        done = generate(
            data,
            per_slice=args.per_slice,
            seed=args.seed,
            at=AT,
            apply=True,
            overrides=[f"cache.dir={cache}"],
        )
        print(
            f"generated {len(done.questions)} synthetic questions ({done.counts()}) and "
            f"{len(done.labels)} labels (grades {done.grades()}) in "
            f"{time.perf_counter() - started:.0f} s; {done.duplicates} drafts were duplicates"
        )
        ds = load_dataset(data)
        base = ["data=folder", f"data.path={data}", f"data.split.salt={SALT}", f"cache.dir={cache}"]
        results: dict[str, dict] = {}
        for sweep, (factor, values) in SWEEPS.items():
            rows: dict[str, dict[str, list[float]]] = {"all": {}, "synthetic": {}}
            counts = {}
            for subset in rows:
                for value in values:
                    r = evaluate(compose([*base, f"{factor}={value}", f"eval.subset={subset}"]))
                    counts[subset] = len(r.per_question)
                    for m in MEASURES:
                        rows[subset].setdefault(m, []).append(float(r.summary.loc["all", m]))
            results[sweep] = {"factor": factor, "values": values, "questions": counts, "by": {}}
            for m in MEASURES:
                real, synth = rows["all"][m], rows["synthetic"][m]
                rho = sps.spearmanr(real, synth).statistic
                tau = sps.kendalltau(real, synth).statistic
                same = values[real.index(max(real))] == values[synth.index(max(synth))]
                results[sweep]["by"][m] = {
                    "real": real,
                    "synthetic": synth,
                    "spearman": float(rho),
                    "kendall": float(tau),
                    "same_best": bool(same),
                }
                print(
                    f"{sweep} {m}: real {_fmt(real)} vs synthetic {_fmt(synth)} over "
                    f"{factor}={values}; Spearman {rho:+.2f}, Kendall {tau:+.2f}, "
                    f"same best: {'yes' if same else 'no'} (dev questions: real "
                    f"{counts['all']}, synthetic {counts['synthetic']})"
                )
        real_total = int(ds.questions["subset"].isin(["core", "rolling"]).sum())
        print(f"questions in the set: real {real_total}, synthetic {len(done.questions)}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


def _fmt(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:.3f}" for v in values) + "]"


if __name__ == "__main__":
    sys.exit(main())
