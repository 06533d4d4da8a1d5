"""One configuration run: evaluate, log to MLflow, print the per-slice table."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from ragsweep.compare.table import print_table, slice_table
from ragsweep.experiment import tracking
from ragsweep.scoring.evaluate import EvalResult, evaluate


def run_name(cfg: DictConfig, overrides: list[str] | None = None) -> str:
    """Name a run after what it changed (`chunker.size=256`), else `baseline`."""
    if cfg.tracking.get("run_name"):
        return str(cfg.tracking.run_name)
    changed = [
        tracking.redact_override(o)
        for o in (overrides or [])
        if not o.lstrip("+~").startswith(("tracking.", "hydra.", "cache."))
        and not tracking.is_secret(o.partition("=")[0])
    ]
    return ",".join(changed) if changed else "baseline"


@dataclass
class Payload:
    """What a configuration run logs: params, tags, metrics and artifact folders."""

    params: dict[str, str]
    tags: dict[str, str]
    metrics: dict[str, float]
    artifacts: dict[str, Path]


TREC_FILES = {
    "chunk": "run_chunks.txt",
    "clause": "run_clauses.txt",
    "qrels": "qrels_clauses.txt",
}


def write_trec(result: EvalResult, folder: Path) -> None:
    """The run as TREC files, so trec_eval or ranx can check any number we report.

    `run_chunks.txt` ranks chunk ids (the retriever's own output); `run_clauses.txt` ranks
    clause ids in the order the chunks first cover them, and `qrels_clauses.txt` holds the
    clause labels of the scored questions. With one chunk per clause (`chunker=section`)
    trec_eval on the clause files gives our numbers exactly (linear gain for nDCG). Scores are
    n - rank, so trec_eval's tie rule cannot reorder anything.
    """
    from ragsweep.scoring.trec import write_run

    folder.mkdir(parents=True, exist_ok=True)
    write_run(folder / TREC_FILES["chunk"], result.rankings)
    write_run(folder / TREC_FILES["clause"], result.clause_rankings)
    lines = [
        f"{qid} 0 {cid} {grade}\n"
        for qid in sorted(result.qrels)
        for cid, grade in sorted(result.qrels[qid].items())
    ]
    (folder / TREC_FILES["qrels"]).write_text("".join(lines))


def _redacted_hydra(source: Path, dest: Path) -> Path:
    """The Hydra job folder's config.yaml and overrides.yaml with secrets masked (hydra.yaml,
    Hydra's own runtime settings, is left out: it repeats the overrides unmasked)."""
    dest.mkdir()
    overrides = source / "overrides.yaml"
    if overrides.exists():
        lines = OmegaConf.load(overrides)
        masked = [tracking.redact_override(str(o)) for o in lines]
        (dest / "overrides.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(masked)))
    config = source / "config.yaml"
    if config.exists():
        plain = tracking.redact(OmegaConf.to_container(OmegaConf.load(config), resolve=False))
        (dest / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(plain)))
    return dest


@contextmanager
def payload(
    result: EvalResult, cfg: DictConfig, hydra_dir: Path | None = None
) -> Iterator[Payload]:
    """The MLflow payload of `result`, with its artifact files in a temporary folder."""
    metrics = dict(result.metrics)
    metrics.update({f"cost/{k}": v for k, v in result.cost.items()})
    metrics.update({f"seconds/{k}": v for k, v in result.seconds.items()})
    metrics.update({f"questions/{k}": float(v) for k, v in result.counts.items()})
    with tempfile.TemporaryDirectory(prefix="ragsweep-") as tmp:
        config_dir, results_dir = Path(tmp, "config"), Path(tmp, "results")
        config_dir.mkdir()
        results_dir.mkdir()
        plain = tracking.redact(OmegaConf.to_container(cfg, resolve=True))
        (config_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(plain)))
        result.per_question.to_csv(results_dir / "per_question.csv", index=False)
        result.summary.to_csv(results_dir / "summary.csv")
        trec_dir = Path(tmp, "trec")
        write_trec(result, trec_dir)
        artifacts = {"config": config_dir, "results": results_dir, "trec": trec_dir}
        if hydra_dir is not None and hydra_dir.is_dir():
            artifacts["hydra"] = _redacted_hydra(hydra_dir, Path(tmp, "hydra"))
        yield Payload(
            params=tracking.flatten(result.config),
            tags=dict(result.tags),
            metrics=metrics,
            artifacts=artifacts,
        )


def log_result(
    result: EvalResult,
    cfg: DictConfig,
    *,
    name: str,
    hydra_dir: Path | None = None,
) -> tuple[str, str]:
    """Log a finished evaluation as one MLflow run; return (experiment id, run id)."""
    store = tracking.resolve_store(cfg.tracking.get("uri"))
    exp_id = tracking.prepare(store, str(cfg.tracking.experiment))
    with payload(result, cfg, hydra_dir) as p:
        run_id = tracking.log_run(
            store,
            exp_id,
            run_name=name,
            params=p.params,
            tags=p.tags,
            metrics=p.metrics,
            artifacts=p.artifacts,
        )
    return exp_id, run_id


def run(
    cfg: DictConfig, overrides: list[str] | None = None, hydra_dir: Path | None = None
) -> EvalResult:
    """Evaluate `cfg`, log it (unless tracking.enabled is false) and print the table."""
    result = evaluate(cfg)
    name = run_name(cfg, overrides)
    title = f"ragsweep {name}: {cfg.eval.split} questions, subset {cfg.eval.subset}"
    print_table(slice_table(result.summary, result.counts, title))
    if cfg.tracking.enabled:
        store = tracking.resolve_store(cfg.tracking.get("uri"))
        exp_id, run_id = log_result(result, cfg, name=name, hydra_dir=hydra_dir)
        result.tags["mlflow.run_id"] = run_id
        print(f"logged run {run_id} to {tracking.redact_uri(store.uri)}")
        print(f"see it with `ragsweep ui`, then {tracking.runs_url(store, exp_id)}")
    return result
