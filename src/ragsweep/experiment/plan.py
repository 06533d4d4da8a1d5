"""Planning a one-factor sweep: what runs, checked before anything does.

`draft(args)` takes the factor, values and baseline of a multirun command line
(`experiment.factor.expand`), composes every configuration and refuses the sweep (one-line
`UserError`) unless exactly one config key varies, that key is a pipeline setting some stage
reads, and every configuration shares the corpus snapshot, labelled set and split (and the index
build when the factor spares it). Which stages the factor touches comes from the stages' own keys
(`ragsweep.retrieval.pipeline.Pipeline.stage_keys`), in one place.

The `Plan` is written into the sweep folder, where the workers, the launcher's live view and
the finish step find it; `SweepFolder` names every file in that folder in one place. So is the
dataset the launcher loaded and checked (`share_dataset`): every configuration of a sweep
reads that one copy (`shared_dataset`), so none re-reads and re-validates the folder, and all
of them see the same snapshot even if the folder is edited while the sweep runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from ragsweep import conventions as cv
from ragsweep.config import compose
from ragsweep.data import Dataset, copy_dataset, load_dataset, sample_path
from ragsweep.data.write import replace_file
from ragsweep.errors import UserError, first_line
from ragsweep.experiment import tracking
from ragsweep.experiment.factor import expand, factor_prefix
from ragsweep.retrieval.cache import keep, kept, key_of, read_pickle, write_pickle
from ragsweep.retrieval.pipeline import Pipeline
from ragsweep.scoring.eval_config import check_eval, check_snapshot, config_hash, select_questions
from ragsweep.secrets import mask_uri, unmask_uri

#: the stage a worker reports for a configuration that finished in an earlier launch
SKIPPED_STAGE = "skipped (already finished)"
#: stages after which a configuration is done (the live view counts them)
FINAL_STAGES = ("done", "failed", SKIPPED_STAGE)


class SweepFolder:
    """The files of a sweep folder: the plan, one progress file and one result per value."""

    PLAN = "ragsweep_plan.json"

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @property
    def plan(self) -> Path:
        return self.root / self.PLAN

    def progress(self, value: str) -> Path:
        return self.root / "progress" / f"{cv.metric_safe(value)}.json"

    def progress_files(self) -> list[Path]:
        return sorted((self.root / "progress").glob("*.json"))

    def status(self, value: str) -> Path:
        """The worker's record of a value: status, run id, error."""
        return self.root / "results" / f"{cv.metric_safe(value)}.json"

    def rows(self, value: str) -> Path:
        """A value's results, laid out as its run's artifacts (results/, config/)."""
        return self.root / "results" / cv.metric_safe(value)

    @property
    def dataset(self) -> Path:
        """The dataset the launcher loaded, as every configuration reads it."""
        return self.root / "dataset.pkl"


#: what `retrieval.cache.keep` calls the shared dataset this process wrote or read last
SHARED = "dataset"


def share_dataset(folder: SweepFolder, ds: Dataset) -> None:
    """Write `ds` into the sweep folder (a temporary file renamed into place), and keep it for
    the configurations this process runs (`shared_dataset`)."""
    folder.root.mkdir(parents=True, exist_ok=True)
    write_pickle(folder.dataset, ds)
    keep(SHARED, folder.dataset, ds)


def shared_dataset(folder: SweepFolder, cfg: DictConfig) -> Dataset | None:
    """The dataset the launcher shared, when `cfg` reads that folder; None otherwise (or when
    the file is missing or damaged: the configuration then loads the folder itself). Read once
    a process while the file stays the same (1.6 s for 100,000 chunks' wordings): each
    configuration gets its own frames of it (`copy_dataset`)."""
    found, ds = kept(SHARED, folder.dataset)
    if not found:
        try:
            ds = read_pickle(folder.dataset)
        except Exception:  # missing, or damaged by a full disk: load the folder instead
            return None
        keep(SHARED, folder.dataset, ds)
    wanted = Path(cfg.data.path) if cfg.data.path is not None else sample_path()
    if not isinstance(ds, Dataset) or wanted.resolve() != Path(ds.root).resolve():
        return None
    return copy_dataset(ds)


def write_json(path: Path, record: dict[str, Any]) -> None:
    """Write `record` as JSON via a temporary file and a rename: readers never see half."""
    replace_file(path, json.dumps(record, indent=2, sort_keys=True))


def read_stages(root: str | Path) -> dict[str, str]:
    """value -> the stage its worker last reported (half-written files are skipped)."""
    out = {}
    for path in SweepFolder(root).progress_files():
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        out[str(record.get("value"))] = str(record.get("stage"))
    return out


@dataclass
class Plan:
    """Everything workers and the finish step need, written as JSON into the sweep folder."""

    name: str
    factor: str
    values: list[str]
    baseline: str
    fixed: list[str]  # the overrides every configuration shares, secrets masked
    sweep_dir: str
    store_uri: str  # masked (a password inside it reads ***): `store` has the real one
    artifact_root: str | None
    experiment_id: str
    parent_run_id: str
    pins: dict[str, str]  # snapshot, labels, split (+ index_build when the factor spares it)
    config_hashes: dict[str, str]  # value -> config hash
    decision: str = ""  # the decision measure, e.g. recall@5
    slices: list[str] = field(default_factory=list)  # the dataset's slices, in report order
    confirm: bool = True  # run the confirm stage at the end
    launch_dir: str = ""  # where the sweep was launched: relative paths resolve from here
    owner: str = ""  # the launching process (`experiment.lifecycle`): workers stop when it is gone
    launch: str = ""  # the parent run's name, which tells this launch from other launches
    tracking_wait: float = tracking.WAIT_SECONDS  # seconds through a tracking server's outage

    def __post_init__(self) -> None:
        self.store_uri = mask_uri(self.store_uri)

    @property
    def store(self) -> tracking.Store:
        """The store, its URI's password taken from this process's environment (a worker
        inherits the launcher's; Ray's get it in their runtime_env: `cluster`)."""
        uri = unmask_uri(self.store_uri)
        if uri is None:
            raise UserError(
                f"the tracking URI {self.store_uri} holds a password this process's environment "
                "does not: give the URI in MLFLOW_TRACKING_URI or on the command line "
                "(tracking.uri=...), or the credentials in MLFLOW_TRACKING_USERNAME and "
                "MLFLOW_TRACKING_PASSWORD"
            )
        return tracking.Store(uri, self.artifact_root, self.tracking_wait)

    @property
    def folder(self) -> SweepFolder:
        return SweepFolder(self.sweep_dir)

    def save(self) -> Path:
        write_json(self.folder.plan, asdict(self))
        return self.folder.plan

    @classmethod
    def load(cls, sweep_dir: str | Path) -> Plan:
        path = SweepFolder(sweep_dir).plan
        if not path.exists():
            raise UserError(
                f"{path} is missing: multirun jobs must be launched through `ragsweep -m ...`"
            )
        return cls(**json.loads(path.read_text()))

    def label(self, value: str) -> str:
        return f"{self.factor}={value}"


@dataclass
class Draft:
    """A checked sweep before anything is created: its configurations and what they share."""

    name: str
    factor: str
    values: list[str]
    baseline: str
    fixed: list[str]
    cfgs: dict[str, DictConfig]  # value -> resolved config
    pins: dict[str, str]
    config_hashes: dict[str, str]
    dataset: Dataset
    sweep_key: dict[str, Any]  # what identifies the sweep for resume

    @property
    def baseline_cfg(self) -> DictConfig:
        return self.cfgs[self.baseline]


def _pins(
    cfgs: dict[str, DictConfig], pipes: dict[str, Pipeline], ds: Dataset
) -> tuple[dict[str, str], dict[str, str]]:
    """Check every configuration shares snapshot, labels, split (and index build unless the
    factor changes it); return (pins, value -> config hash)."""
    rows: dict[str, dict[str, str]] = {}
    hashes: dict[str, str] = {}
    for value, cfg in cfgs.items():
        check_snapshot(cfg, ds)
        _, split_hash = select_questions(cfg, ds)
        rows[value] = {
            "snapshot": ds.snapshot_hash,
            "labels": ds.labels_hash,
            "split": split_hash,
            "split_name": str(cfg.eval.split),
            "subset": str(cfg.eval.subset),
            "index_build": pipes[value].index_build_hash(ds.snapshot_hash),
        }
        hashes[value] = config_hash(cfg)
    pins: dict[str, str] = {}
    for what in ("snapshot", "labels", "split", "split_name", "subset", "index_build"):
        seen = {r[what] for r in rows.values()}
        if len(seen) == 1:
            pins[what] = seen.pop()
        elif what != "index_build":
            raise UserError(
                f"a sweep fixes the {what}, but its configurations differ in it "
                f"({', '.join(f'{v}: {r[what][:12]}' for v, r in rows.items())}); "
                "sweep a pipeline setting, not the data"
            )
    if len(set(hashes.values())) != len(hashes):
        raise UserError("two values of the sweep give the same configuration; list each once")
    return pins, hashes


def _check_factor_is_read(
    factor: str, fixed: Sequence[str], pipes: dict[str, Pipeline], snapshot: str
) -> None:
    """Refuse a factor no stage reads: every configuration would run the same pipeline."""
    keys = [p.stage_keys(snapshot) for p in pipes.values()]
    if any(k != keys[0] for k in keys[1:]):
        return
    choices = compose(fixed, hydra=True).hydra.runtime.choices
    groups = ", ".join(f"{g}={choices[g]}" for g in ("retriever", "reranker") if g in choices)
    raise UserError(
        f"sweeping {factor} would change nothing: no stage of this pipeline ({groups}) reads "
        "it; choose options whose stages use it (e.g. reranker=proximity, retriever=hybrid)"
    )


def _launcher_problem(settings: dict[str, Any]) -> str | None:
    """What Hydra's joblib launcher cannot run with `settings` (its `joblib.Parallel`
    arguments), which joblib itself reports only once the sweep has started; None: nothing."""
    from joblib import Parallel
    from joblib._utils import eval_expr  # how joblib reads pre_dispatch (`2*n_jobs`)

    n_jobs = settings.get("n_jobs")
    if n_jobs == 0:
        return "n_jobs=0 runs nothing: give the number of workers (1 or more; -1: every core)"
    timeout = settings.get("timeout")
    if timeout is not None and timeout <= 0:
        return f"timeout={timeout} stops every configuration at once: give seconds, or null"
    try:
        Parallel(**settings)  # checks backend, prefer, require, batch_size, max_nbytes, verbose
        dispatch = settings.get("pre_dispatch")
        if isinstance(dispatch, str) and dispatch != "all":
            dispatch = eval_expr(dispatch.replace("n_jobs", str(abs(n_jobs or 1))))
    except (ValueError, TypeError) as err:
        return first_line(err)
    if isinstance(dispatch, int | float) and dispatch < 1:
        return f"pre_dispatch={settings['pre_dispatch']} dispatches nothing: give 1 or more"
    return None


def check_launcher(args: Sequence[str]) -> None:
    """Refuse in one line launcher settings no sweep can run with (`hydra.launcher.n_jobs=0`),
    before anything is created."""
    from ragsweep.experiment.lifecycle import joblib_arguments

    settings = joblib_arguments(args)
    problem = None if settings is None else _launcher_problem(settings)
    if problem is not None:
        raise UserError(f"hydra.launcher: {problem}")


def draft(args: Sequence[str]) -> Draft:
    """Expand and check a multirun command line (see the module docstring)."""
    name, factor, values, baseline, fixed = expand(args)
    check_launcher(args)
    name = name or factor
    prefix = factor_prefix(args, factor)
    cfgs = {v: compose([*fixed, f"{prefix}{factor}={v}"]) for v in values}
    for cfg in cfgs.values():
        check_eval(cfg)
    # the launcher logs the parent run next: MLflow's import overlaps the dataset's load
    logs = cfgs[baseline].tracking
    store = tracking.resolve_store(logs.get("uri") or None) if logs.enabled else None
    with tracking.imported_meanwhile(store):
        return _drafted(name, factor, values, baseline, fixed, cfgs)


def _drafted(
    name: str,
    factor: str,
    values: list[str],
    baseline: str,
    fixed: list[str],
    cfgs: dict[str, DictConfig],
) -> Draft:
    dataset = load_dataset(cfgs[baseline].data.path)
    pipes: dict[str, Pipeline] = {}
    for value, cfg in cfgs.items():
        try:  # a value a stage refuses (chunker.size=8 with overlap 16) is refused now
            pipes[value] = Pipeline.from_config(cfg)
        except UserError as err:
            raise UserError(f"{value!r} cannot be run: {err}") from None
    _check_factor_is_read(factor, fixed, pipes, dataset.snapshot_hash)
    pins, hashes = _pins(cfgs, pipes, dataset)
    # what identifies the sweep for resume: not how it is run (workers, tracking, cache)
    telling = sorted(o for o in fixed if not cv.decides_nothing(o.partition("=")[0]))
    # and the stages' own keys: a user's class whose source file changed (its `source` hash,
    # `retrieval.base.stage_identity`) makes a new sweep, not a resume of the old results
    snapshot = dataset.snapshot_hash
    key = {
        "name": name,
        "factor": factor,
        "values": values,
        "baseline": baseline,
        "fixed": telling,
        "pins": pins,
        "stages": {v: key_of(p.stage_keys(snapshot)) for v, p in pipes.items()},
    }
    return Draft(name, factor, values, baseline, fixed, cfgs, pins, hashes, dataset, key)


def quote(value: str) -> str:
    """A sweep value as Hydra's override grammar reads it back unchanged."""
    return value if re.fullmatch(r"[A-Za-z0-9_.@/\-]+", value) else f"'{value}'"


def args_without_sweep(args: Sequence[str], factor: str) -> list[str]:
    """The command line minus -m and any override of the factor (the plan supplies it)."""
    out = []
    for a in args:
        if a in ("-m", "--multirun"):
            continue
        if "=" in a and a.split("=", 1)[0].lstrip("+~") == factor:
            continue
        out.append(a)
    return out
