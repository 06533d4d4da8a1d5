"""Another system's ranked passages scored and logged as a configuration run (`ragsweep
score-passages`): situation 1, "it got worse after the release", is two of these and
`ragsweep report --runs A B`.

    scored, run_id = score_and_log("release-a.jsonl", name="release-a")

The passages are read, placed and scored by `ragsweep.scoring.passages` before anything touches
the store, so bad input logs nothing. The run is logged as `ragsweep.experiment.single` logs a
configuration run (params, the pins, per-slice metrics, `results/`, `config/`, `trec/`, the
datasets it read, the per-question table), with its own tags (`ragsweep.stage=external`,
`ragsweep.run_file`, `ragsweep.run_sha256`), the location counts as `passages/<what>` metrics
and where every passage went as `results/passages.csv`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from ragsweep.chunking.locate import MIN_SIMILARITY
from ragsweep.compare.table import print_table, slice_table
from ragsweep.data.passages import read_passage_run
from ragsweep.experiment import tracking
from ragsweep.experiment.single import payload
from ragsweep.scoring.passages import EXTERNAL, PassagesResult, passages_config, score_passages
from ragsweep.secrets import mask_text

#: where every passage of a logged passages run went (one row per passage)
PASSAGES_FILE = "passages.csv"


def log_passages(scored: PassagesResult, cfg: DictConfig, *, name: str) -> tuple[str, str]:
    """Log a scored passages run as one MLflow run; return (experiment id, run id)."""
    store = tracking.configured_store(cfg.tracking)
    exp_id = tracking.prepare(store, str(cfg.tracking.experiment))
    with payload(scored.result, cfg) as p:
        scored.passages.to_csv(p.artifacts["results"] / PASSAGES_FILE, index=False)
        run_id = tracking.log_run(
            store,
            exp_id,
            run_name=name,
            **p.logged(metrics={**p.metrics, **scored.stats.metrics()}),
        )
    return exp_id, run_id


def score_and_log(
    run_file: str | Path,
    *,
    data: str | Path | None = None,
    split: str = "dev",
    overrides: Sequence[str] = (),
    min_similarity: float = MIN_SIMILARITY,
    name: str | None = None,
    log: bool = True,
    tracking_uri: str | None = None,
    experiment: str | None = None,
) -> tuple[PassagesResult, str | None]:
    """Score the passages run `run_file` per slice, print the table and what happened to its
    passages, and log it (unless `log` is false): (the result, the run id or None).

    `name` names the run (default: the run file's name without its extension); `tracking_uri`
    and `experiment` choose the store and experiment (default: as `ragsweep` resolves them,
    experiment `ragsweep`).
    """
    run = read_passage_run(run_file)
    cfg = passages_config(
        run, data=data, split=split, overrides=overrides, min_similarity=min_similarity
    )
    if tracking_uri is not None:
        OmegaConf.update(cfg, "tracking.uri", tracking_uri)
    if experiment is not None:
        OmegaConf.update(cfg, "tracking.experiment", experiment)
    name = name or str(cfg.tracking.get("run_name") or "") or run.path.stem
    store = tracking.configured_store(cfg.tracking)
    if log:
        tracking.check_store(store)
    scored = score_passages(cfg, run)
    split_name = str(cfg.eval.split)
    title = f"ragsweep score-passages {name}: {split_name} questions, subset {cfg.eval.subset}"
    print_table(slice_table(scored.result.summary, scored.result.counts, title))
    for line in scored.stats.describe(split_name, float(cfg[EXTERNAL].min_similarity)):
        print(line)
    if not log:
        return scored, None
    exp_id, run_id = log_passages(scored, cfg, name=name)
    scored.result.tags["mlflow.run_id"] = run_id
    print(f"logged run {run_id} to {mask_text(store.uri)}")
    print(f"see it with `ragsweep ui`, then {tracking.runs_url(store, exp_id)}")
    return scored, run_id
