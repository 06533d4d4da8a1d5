"""One configuration run: evaluate, log to MLflow, print the per-slice table."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.compare.table import print_table, slice_table
from ragsweep.data.csvfile import read_csv_exact
from ragsweep.experiment import tracking
from ragsweep.scoring.evaluate import EvalResult, evaluate
from ragsweep.secrets import is_secret_override, mask_config, mask_overrides, mask_text


def run_name(cfg: DictConfig, overrides: list[str] | None = None) -> str:
    """Name a run after what it changed (`chunker.size=256`), else `baseline`."""
    if cfg.tracking.get("run_name"):
        return str(cfg.tracking.run_name)
    changed = [
        o
        for o in (overrides or [])
        if not cv.decides_nothing(o.partition("=")[0]) and not is_secret_override(o)
    ]
    return ",".join(changed) if changed else "baseline"


@dataclass
class Payload:
    """What a configuration run logs: params, tags, metrics and artifact folders; `measured`
    is every number it measured (`metrics` holds those `tracking.metrics` logs as metrics)."""

    params: dict[str, str]
    tags: dict[str, str]
    metrics: dict[str, float]
    artifacts: dict[str, Path]
    datasets: list[tracking.DataInput]
    tables: dict[str, pd.DataFrame]
    measured: dict[str, float]

    def logged(self, **replaced: Any) -> dict[str, Any]:
        """What `tracking.log_run` and `tracking.finish_run` take of it, by keyword, with
        `replaced` instead where given (a confirm run's own tags and metrics)."""
        return {
            "params": self.params,
            "tags": self.tags,
            "metrics": self.metrics,
            "artifacts": self.artifacts,
            "datasets": self.datasets,
            "tables": self.tables,
            **replaced,
        }


#: the per-question results as an MLflow table (the UI's table view compares it across runs)
QUESTION_TABLE = "results/questions.json"
#: every number a run measured, one row per metric key (columns `key`, `value`: every
#: measure per stratum, `cost/`, `seconds/`, `questions/`, `ties/`), in its `results/`
#: beside the per-question rows, and the same rows as an MLflow table for the UI
METRICS_FILE = "metrics.csv"
METRICS_TABLE = "results/metrics.json"
#: clauses of each question's ranking shown in that table
_TABLE_CLAUSES = 5


def data_inputs(result: EvalResult) -> list[tracking.DataInput]:
    """The corpus snapshot and the labelled set a run read, as MLflow dataset inputs whose
    digests are (the first 36 hex digits of) `ragsweep.snapshot` and `ragsweep.labels`."""
    name = result.tags["ragsweep.dataset"]
    context = result.tags["ragsweep.split_name"]
    questions = {"questions": int(sum(result.counts.values()))}
    return [
        tracking.DataInput(
            f"{name} corpus", result.tags["ragsweep.snapshot"], result.data_root, context
        ),
        tracking.DataInput(
            f"{name} labels",
            result.tags["ragsweep.labels"],
            result.data_root,
            context,
            profile=questions,
        ),
    ]


def question_table(result: EvalResult) -> pd.DataFrame:
    """One row per scored question: its id, slice, every measure and the first clauses its
    ranking covers."""
    per_q = result.per_question
    measures = [str(m) for m in result.measures if str(m) in per_q.columns]
    table = per_q[["qid", "slice", *measures]].copy()
    table["top clauses"] = [
        ", ".join(result.clause_rankings.get(qid, [])[:_TABLE_CLAUSES]) for qid in per_q["qid"]
    ]
    # object, not pandas' str dtype: MLflow's log_table looks for object columns
    return table.astype({c: object for c in ("qid", "slice", "top clauses")}).reset_index(drop=True)


def measured(result: EvalResult) -> dict[str, float]:
    """Every number of an evaluation by its metric key (`conventions`, "Metric keys")."""
    numbers = dict(result.metrics)
    numbers.update({f"{cv.COST}/{k}": v for k, v in result.cost.items()})
    numbers.update({f"{cv.SECONDS}/{k}": v for k, v in result.seconds.items()})
    numbers.update({f"{cv.QUESTIONS}/{k}": float(v) for k, v in result.counts.items()})
    numbers.update({f"{cv.TIES}/{k}": float(v) for k, v in result.ties.items()})
    return numbers


def logs_every_number(cfg: DictConfig) -> bool:
    """Whether the config's `tracking.metrics` (checked: `conventions.metrics_rule`) asks for
    every number as a metric (`all`) rather than the default few (`decision`)."""
    return cv.metrics_rule(OmegaConf.select(cfg, cv.METRICS_SETTING)) == cv.METRICS_ALL


def logged_metrics(result: EvalResult, numbers: dict[str, float], every: bool) -> dict[str, float]:
    """Of a run's `numbers`, those it logs as MLflow metrics: all when `every`, else
    `conventions.decision_metrics`."""
    if every:
        return dict(numbers)
    k_prompt = int(result.config["eval"]["k_prompt"])
    return cv.decision_metrics(numbers, k_prompt, result.measures)


def metrics_frame(numbers: dict[str, float]) -> pd.DataFrame:
    """`numbers` as the rows of `METRICS_FILE`, sorted by key."""
    keys = sorted(numbers)
    frame = pd.DataFrame({"key": keys, "value": [float(numbers[k]) for k in keys]})
    return frame.astype({"key": object})  # MLflow's log_table looks for object columns


def read_measured(results: Path) -> dict[str, float] | None:
    """The numbers in a run's downloaded `results/` folder (`METRICS_FILE`), or None when it
    has none (a run logged before ragsweep wrote it)."""
    path = results / METRICS_FILE
    if not path.is_file():
        return None
    frame = read_csv_exact(
        path,
        dtype={"key": str, "value": float},
        keep_default_na=False,
        na_values={"value": [""]},
    )
    return dict(zip(frame["key"], frame["value"].astype(float), strict=True))


def run_measured(mc: Any, run: Any) -> dict[str, float]:
    """Every number a logged run measured: its `results/metrics.csv`, whatever it logged as
    metrics (`tracking.metrics`); a run logged before that file: its metrics, which were all."""
    with tempfile.TemporaryDirectory(prefix="ragsweep-") as tmp:
        try:
            path = mc.download_artifacts(run.info.run_id, f"results/{METRICS_FILE}", tmp)
        except Exception:  # MLflow raises several types for a missing artifact
            return dict(run.data.metrics)
        numbers = read_measured(Path(path).parent)
    return dict(run.data.metrics) if numbers is None else numbers


def _redacted_hydra(source: Path, dest: Path) -> Path:
    """The Hydra job folder's config.yaml and overrides.yaml with secrets masked (hydra.yaml,
    Hydra's own runtime settings, is left out: it repeats the overrides unmasked)."""
    dest.mkdir(exist_ok=True)
    overrides = source / "overrides.yaml"
    if overrides.exists():
        lines = OmegaConf.load(overrides)
        masked = mask_overrides([str(o) for o in lines])
        (dest / "overrides.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(masked)))
    config = source / "config.yaml"
    if config.exists():
        plain = mask_config(OmegaConf.to_container(OmegaConf.load(config), resolve=False))
        (dest / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(plain)))
    return dest


def write_payload(
    result: EvalResult, cfg: DictConfig, folder: Path, hydra_dir: Path | None = None
) -> Payload:
    """Write a configuration run's artifacts into `folder` (config/, results/, trec/, and
    hydra/ when given) and return what the run logs: as metrics, those `tracking.metrics`
    asks for (`logged_metrics`); every number in `results/metrics.csv` and the table
    `results/metrics.json`. Secrets are masked in every file."""
    numbers = measured(result)
    table = metrics_frame(numbers)
    config_dir, results_dir = folder / "config", folder / "results"
    config_dir.mkdir(parents=True, exist_ok=True)
    results_dir.mkdir(parents=True, exist_ok=True)
    plain = mask_config(OmegaConf.to_container(cfg, resolve=True))
    (config_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(plain)))
    result.per_question.to_csv(results_dir / "per_question.csv", index=False)
    result.summary.to_csv(results_dir / "summary.csv")
    table.to_csv(results_dir / METRICS_FILE, index=False)
    result.write_trec(folder / "trec")
    artifacts = {"config": config_dir, "results": results_dir, "trec": folder / "trec"}
    if hydra_dir is not None and hydra_dir.is_dir():
        artifacts["hydra"] = _redacted_hydra(hydra_dir, folder / "hydra")
    p = Payload(
        params=tracking.flatten(result.config),
        tags=dict(result.tags),
        metrics=logged_metrics(result, numbers, logs_every_number(cfg)),
        artifacts=artifacts,
        datasets=data_inputs(result),
        tables={QUESTION_TABLE: question_table(result), METRICS_TABLE: table},
        measured=numbers,
    )
    save_payload(p, folder)
    return p


#: the payload beside its artifact folders, so a run can be logged later without evaluating
#: again (a sweep whose tracking server went away: `experiment.worker`)
PAYLOAD_FILE = "payload.json"


def save_payload(p: Payload, folder: Path) -> None:
    """`p` as `PAYLOAD_FILE` in `folder`, its artifact folders named relative to it."""
    record = {
        "params": p.params,
        "tags": p.tags,
        "metrics": p.metrics,
        "artifacts": {k: str(Path(v).relative_to(folder)) for k, v in p.artifacts.items()},
        "datasets": [asdict(d) for d in p.datasets],
        "tables": {k: json.loads(t.to_json(orient="split")) for k, t in p.tables.items()},
        "measured": p.measured,
    }
    (folder / PAYLOAD_FILE).write_text(json.dumps(record))


def read_payload(folder: Path) -> Payload:
    """The payload `write_payload` wrote into `folder` (its artifact folders beside it)."""
    record = json.loads((folder / PAYLOAD_FILE).read_text())
    tables = {}
    for name, split in record["tables"].items():
        frame = pd.DataFrame(split["data"], index=split["index"], columns=split["columns"])
        # object, not pandas' str dtype: MLflow's log_table looks for object columns
        tables[name] = frame.astype({c: object for c in frame if frame[c].dtype.kind in "OSU"})
    return Payload(
        params=record["params"],
        tags=record["tags"],
        metrics=record["metrics"],
        artifacts={k: folder / v for k, v in record["artifacts"].items()},
        datasets=[tracking.DataInput(**d) for d in record["datasets"]],
        tables=tables,
        measured=record["measured"],
    )


@contextmanager
def payload(
    result: EvalResult, cfg: DictConfig, hydra_dir: Path | None = None
) -> Iterator[Payload]:
    """`write_payload` into a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="ragsweep-") as tmp:
        yield write_payload(result, cfg, Path(tmp), hydra_dir)


def log_result(
    result: EvalResult,
    cfg: DictConfig,
    *,
    name: str,
    hydra_dir: Path | None = None,
) -> tuple[str, str]:
    """Log a finished evaluation as one MLflow run; return (experiment id, run id)."""
    store = tracking.configured_store(cfg.tracking)
    exp_id = tracking.prepare(store, str(cfg.tracking.experiment))
    with payload(result, cfg, hydra_dir) as p:
        run_id = tracking.log_run(store, exp_id, run_name=name, **p.logged())
    return exp_id, run_id


def run(
    cfg: DictConfig, overrides: list[str] | None = None, hydra_dir: Path | None = None
) -> EvalResult:
    """Evaluate `cfg`, log it (unless tracking.enabled is false) and print the table.

    A resource that runs out (a full disk, memory, open files) is raised as `errors.Exhausted`
    (its one line); a run it stopped is marked FAILED as far as the resource allows."""
    try:
        return _run(cfg, overrides, hydra_dir)
    except Exception as err:
        store = tracking.resolve_store(cfg.tracking.get("uri") or None)
        cache = OmegaConf.select(cfg, "cache.dir", default=None)
        stop = tracking.exhaustion(err, store, cache, hydra_dir, sweep=False)
        if stop is None:
            raise
        raise stop from None


def _run(cfg: DictConfig, overrides: list[str] | None, hydra_dir: Path | None) -> EvalResult:
    store = None
    if cfg.tracking.enabled:
        store = tracking.configured_store(cfg.tracking)
        tracking.check_store(store)
        logs_every_number(cfg)  # a bad tracking.metrics is refused before any work
    with tracking.opened_meanwhile(store):
        result = evaluate(cfg, once=True)
    name = run_name(cfg, overrides)
    title = f"ragsweep {name}: {cfg.eval.split} questions, subset {cfg.eval.subset}"
    print_table(slice_table(result.summary, result.counts, title))
    if cfg.tracking.enabled:
        store = tracking.configured_store(cfg.tracking)
        exp_id, run_id = log_result(result, cfg, name=name, hydra_dir=hydra_dir)
        result.tags["mlflow.run_id"] = run_id
        print(f"logged run {run_id} to {mask_text(store.uri)}")
        print(f"see it with `ragsweep ui`, then {tracking.runs_url(store, exp_id)}")
    return result
