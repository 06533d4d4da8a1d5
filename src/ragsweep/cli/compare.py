"""`ragsweep compare`: the paired comparison report for TREC run files from any system.

    ragsweep compare --qrels qrels.txt --runs base.txt cand.txt [cand2.txt ...] \\
        [--slices slices.tsv [--weights shares.yaml]] [--metric recall@10] [--format table|json]

The first run is the baseline. Every qrels query is scored with trec_eval's conventions (see
`ragsweep score`; a query a run lacks scores 0) and compared per slice with the paired intervals
of `ragsweep.compare.stats`. The slices file holds `qid<TAB>slice` lines; without it every query
is in one slice, `all`. The weights file (traffic shares, a YAML mapping `slice: share` as
`ragsweep labels sample` writes) adds the traffic-weighted headline. No MLflow: this path imports
numpy, pandas, rich (and matplotlib only for --out).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd
import yaml

from ragsweep.compare.stats import CORRECTIONS
from ragsweep.config import packaged_default
from ragsweep.conventions import ALL, UNJUDGED_CHOICES, decision_measure, unjudged_measures
from ragsweep.data.importers.reading import read_slices, read_text
from ragsweep.errors import DatasetError, UserError
from ragsweep.measures import GAINS, Measure, parse_measures
from ragsweep.scoring import trec
from ragsweep.scoring.bounds import labels_needed
from ragsweep.scoring.metrics import score_gains

#: the defaults a sweep's report and evaluation use (conf/report, conf/eval): one place
_REPORT, _EVAL = packaged_default("report"), packaged_default("eval")
#: the measure a sweep decides on, recall@k_prompt
DEFAULT_METRIC = str(decision_measure(int(_EVAL.k_prompt)))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragsweep compare",
        description=(
            "Compare TREC runs with a baseline (the first run) per slice: paired "
            "intervals, a verdict per cell, guard slices and a decision per run "
            "(docs/report.md)."
        ),
    )
    parser.add_argument(
        "--qrels",
        required=True,
        metavar="FILE",
        help="qrels file: 'qid 0 docid grade' per line (.gz read as gzip)",
    )
    parser.add_argument(
        "--runs",
        required=True,
        nargs="+",
        metavar="RUN",
        help="run files, 'qid Q0 docid rank score tag' per line; the first is the baseline",
    )
    parser.add_argument(
        "--slices", metavar="FILE", help="'qid<TAB>slice' per line (default: one slice, all)"
    )
    parser.add_argument(
        "--weights",
        metavar="FILE",
        help="traffic shares, a YAML mapping 'slice: share' summing to 1 (as `ragsweep labels "
        "sample` writes): adds the weighted headline, which then decides (needs --slices)",
    )
    parser.add_argument(
        "--metric",
        default=DEFAULT_METRIC,
        metavar="LIST",
        help="measure that decides, or a comma-separated list whose first "
        f"decides (default {DEFAULT_METRIC})",
    )
    parser.add_argument(
        "--gain",
        choices=GAINS,
        default=_EVAL.gain,
        help=f"nDCG gain: exp = 2^g - 1, linear = g (trec_eval's); default {_EVAL.gain}",
    )
    parser.add_argument(
        "--guard",
        default=",".join(_REPORT.guard_slices),
        metavar="LIST",
        help="guard slices, comma-separated: a run below the baseline there "
        f"fails (default {','.join(_REPORT.guard_slices)}; '' for none)",
    )
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default=_REPORT.correction,
        help=f"family-wise correction over the runs (default {_REPORT.correction})",
    )
    parser.add_argument(
        "--level", type=float, default=_REPORT.level, help=f"interval level ({_REPORT.level})"
    )
    parser.add_argument(
        "--target-gap",
        type=float,
        default=_REPORT.target_gap,
        help=f"gap the questions-needed column plans for (default {_REPORT.target_gap})",
    )
    parser.add_argument(
        "--unjudged",
        choices=UNJUDGED_CHOICES,
        default=_EVAL.unjudged,
        help="documents the qrels do not judge: bounds (score them as not relevant and as "
        "relevant; a verdict that differs reads 'needs judging', the default) or "
        "assume_not_relevant (trec_eval's convention, printed as an assumption)",
    )
    parser.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="table: rich tables (default); json: baseline, correction, rows",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="also write the report files (markdown, HTML, CSV, plots) into DIR",
    )
    return parser


def read_weights(path: str | Path, slices: list[str]) -> dict[str, float]:
    """Traffic shares from a YAML mapping `slice: share` (JSON is YAML too), checked as
    `eval.traffic_weights` is (`scoring.evaluate.check_shares`): every slice of the slices file
    given a share >= 0, no other slice, shares summing to 1."""
    text = read_text(path, "weights file (slice: share)")
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise DatasetError(
            path,
            "is not a YAML mapping 'slice: share'; write one 'slice: share' per line",
            line=None if mark is None else mark.line + 1,
        ) from None
    from ragsweep.scoring.evaluate import check_shares  # the config's own check; Hydra-free

    return check_shares(loaded, slices, slices, where=str(path))


def run_names(paths: list[str]) -> list[str]:
    """Each run's file stem (`.gz` dropped), or its path as given when two stems coincide."""
    stems = []
    for p in paths:
        name = Path(p).name
        name = name[:-3] if name.endswith(".gz") else name
        stems.append(Path(name).stem or name)
    return [p if stems.count(s) > 1 else s for s, p in zip(stems, paths, strict=True)]


def _depth(measures: tuple[Measure, ...]) -> int | None:
    cutoffs = [m.k for m in measures]
    return None if any(k is None for k in cutoffs) else max(k for k in cutoffs if k is not None)


def score_runs(
    qrels_path: str,
    run_paths: list[str],
    measures: tuple[Measure, ...],
    gain: str,
    slices: dict[str, str] | None,
) -> dict[str, pd.DataFrame]:
    """Per-question frames for every run, keyed by name: qid, slice, one column per measure,
    unjudged@k at the first measure's cutoff and the deepest (`conventions.unjudged_measures`),
    and what the bounds read (`scoring.bounds`): `clauses` (each rank's document, as a list of
    one, down to the deepest cutoff or 10) and `labels` (the query's qrels)."""
    qrels = trec.read_qrels(qrels_path)
    if len(qrels) == 0:
        raise DatasetError(qrels_path, "holds no judgements; give a qrels file with at least one")
    names = run_names(run_paths)
    measures = (*measures, *unjudged_measures(measures[0].k or 10, measures))
    measures = tuple(dict.fromkeys(measures))
    top = max([m.k for m in measures if m.k is not None] + [10])
    judged: dict[str, dict[str, int]] = {}
    for q, d, g in zip(qrels.qid_codes, qrels.doc_codes, qrels.grades.tolist(), strict=True):
        judged.setdefault(qrels.qid_names[q], {})[qrels.doc_names[d]] = int(g)
    frames: dict[str, pd.DataFrame] = {}
    for name, path in zip(names, run_paths, strict=True):
        run = trec.read_run(path)
        arrays = trec.gain_arrays(qrels, run, depth=_depth(measures))
        if not arrays.in_run.any():
            raise UserError(
                f"{path}: no query of the run is in {qrels_path}; check that both "
                "files use the same query ids"
            )
        missing = int((~arrays.in_run).sum())
        if missing:
            print(
                f"note: {name}: {missing} of {len(arrays.qids)} qrels queries have no line in "
                "the run; each scores 0",
                file=sys.stderr,
            )
        if slices is None:
            labels = [ALL] * len(arrays.qids)
        else:
            lacking = [q for q in arrays.qids if q not in slices]
            if lacking:
                shown = ", ".join(lacking[:3]) + (", ..." if len(lacking) > 3 else "")
                raise UserError(
                    f"the slices file gives no slice for {len(lacking)} qrels "
                    f"query(ies) ({shown}); add a 'qid<TAB>slice' line for each"
                )
            labels = [slices[q] for q in arrays.qids]
        scores = score_gains(
            arrays.gains,
            arrays.new_rel,
            arrays.n_rel,
            arrays.ideal,
            measures,
            gain,
            unjudged=arrays.unjudged,
        )
        frame = pd.DataFrame({"qid": list(arrays.qids), "slice": labels})
        for j, m in enumerate(measures):
            frame[str(m)] = scores[:, j]
        frame["clauses"] = [
            json.dumps([[run.doc_names[c]] for c in row[:top] if c >= 0])
            for row in arrays.docs.tolist()
        ]
        frame["labels"] = [
            json.dumps(labels_needed(judged.get(q, {}), json.loads(c)), sort_keys=True)
            for q, c in zip(arrays.qids, frame["clauses"], strict=True)
        ]
        frames[name] = frame
    return frames


def main(argv: list[str]) -> int:
    """Run `ragsweep compare`; returns 0. Bad input raises `UserError` (the CLI exits 2)."""
    args = _parser().parse_args(argv)
    if len(args.runs) < 2:
        raise UserError("--runs needs a baseline run and at least one run to compare with it")
    if len({str(Path(p).resolve()) for p in args.runs}) != len(args.runs):
        raise UserError("a run file is given twice in --runs; give each run once")
    measures = parse_measures(args.metric)
    if args.weights and not args.slices:
        raise UserError(
            "--weights gives traffic shares per slice: give the slices too (--slices FILE)"
        )
    slices = dict(read_slices(args.slices).assign) if args.slices else None
    order = list(dict.fromkeys(slices.values())) if slices else None
    weights = read_weights(args.weights, order or []) if args.weights else None
    frames = score_runs(args.qrels, list(args.runs), measures, args.gain, slices)

    from ragsweep.compare.build import build_report
    from ragsweep.compare.files import write_report
    from ragsweep.compare.text import print_report

    names = list(frames)
    report = build_report(
        frames[names[0]],
        {n: frames[n] for n in names[1:]},
        decision=measures[0],
        baseline_name=names[0],
        measures=measures,
        slices=order,
        weights=weights,
        guard_slices=[s.strip() for s in args.guard.split(",") if s.strip()],
        correction=args.correction,
        level=args.level,
        target_gap=args.target_gap,
        slice_decision={},
        factor="run",
        title=f"{', '.join(names[1:])} against the baseline {names[0]}",
        unjudged=args.unjudged,
        gain=args.gain,
    )
    if args.out:
        write_report(report, args.out)
    if args.format == "json":
        out = {
            "baseline": report.baseline,
            "correction": report.correction,
            "level": report.level,
            "interval_level": report.interval_level,
            "method": report.method,
            "weights": report.weights,
            "unjudged": report.unjudged,
            "notes": [t for t in [report.unjudged_note()] if t],
            "decisions": {d.config: d.decision for d in report.decisions},
            "rows": report.rows(),
        }
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print_report(report)
    return 0
