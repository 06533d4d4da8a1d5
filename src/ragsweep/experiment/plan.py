"""Planning a one-factor sweep: what runs, checked before anything does.

`draft(args)` reads a multirun command line (`sweep=chunk_size`, or one key given several
values), composes every configuration and refuses the sweep (one-line `UserError`) unless
exactly one config key varies, that key is a pipeline setting some stage reads, and every
configuration shares the corpus snapshot, labelled set and split (and the index build when the
factor spares it). Which stages the factor touches comes from the stages' own keys
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

from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.config import compose
from ragsweep.data import Dataset, load_dataset, sample_path
from ragsweep.data.write import replace_file
from ragsweep.errors import UserError, first_line
from ragsweep.experiment import tracking
from ragsweep.retrieval.cache import key_of, read_pickle, write_pickle
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


def share_dataset(folder: SweepFolder, ds: Dataset) -> None:
    """Write `ds` into the sweep folder (a temporary file renamed into place)."""
    folder.root.mkdir(parents=True, exist_ok=True)
    write_pickle(folder.dataset, ds)


def shared_dataset(folder: SweepFolder, cfg: DictConfig) -> Dataset | None:
    """The dataset the launcher shared, when `cfg` reads that folder; None otherwise (or when
    the file is missing or damaged: the configuration then loads the folder itself)."""
    try:
        ds = read_pickle(folder.dataset)
    except Exception:  # missing, or damaged by a full disk: load the folder instead
        return None
    wanted = Path(cfg.data.path) if cfg.data.path is not None else sample_path()
    if not isinstance(ds, Dataset) or wanted.resolve() != Path(ds.root).resolve():
        return None
    return ds


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


def _overrides(args: Sequence[str]) -> list[str]:
    """The overrides of a command line: flags (`-m`, Hydra's `--...`) stay out of composition."""
    return [a for a in args if not a.startswith("-")]


def _default_value(fixed: Sequence[str], factor: str) -> str:
    cfg = compose(fixed, hydra=True)
    choices = cfg.hydra.runtime.choices
    if factor in choices:
        return str(choices[factor])
    absent = object()
    value = OmegaConf.select(cfg, factor, default=absent, throw_on_missing=False)
    if value is absent:
        raise UserError(
            f"sweep factor {factor!r} is not a key of the config; see `ragsweep --cfg job`"
        )
    # a key configured as null (embedder.dimensions: the model's own) has null as baseline,
    # as Hydra's grammar reads it back
    return "null" if value is None else str(value)


def _check_factor_key(factor: str) -> None:
    if cv.decides_nothing(factor):
        raise UserError(f"{factor} does not change results; sweep a pipeline setting instead")
    if cv.block_of(factor) in cv.SCORING_BLOCKS:
        raise UserError(
            f"{factor} changes the data or how results are scored, so its configurations would "
            "not be comparable; a sweep varies the retrieval pipeline (chunker, embedder, "
            "retriever, fusion, reranker)"
        )


#: what a sweep file holds under `sweep:` (sweeps/chunk_size.yaml)
SWEEP_KEYS = ("name", "factor", "values", "baseline")
#: where a sweep file written the Hydra way lists its factor's values
HYDRA_PARAMS = "hydra.sweeper.params"


def _chosen(fixed: Sequence[str]) -> str:
    """The sweep file a command line names (`sweep=NAME`), or ""."""
    return next((o.partition("=")[2] for o in fixed if o.partition("=")[0] == "sweep"), "")


def _where(fixed: Sequence[str]) -> str:
    chosen = _chosen(fixed)
    return f"sweep file {chosen or '?'} (sweeps/{chosen or '<name>'}.yaml)"


def _sweep_file(block: Any, fixed: Sequence[str]) -> tuple[str, str, list[str], str]:
    """(name, factor, values, baseline) of the sweep file a command line names, checked: each
    key present, `values` a list of at least one value; else a one-line UserError naming the
    file and the fix."""
    where = _where(fixed)
    if OmegaConf.is_dict(block) and ("sweep" in block or "hydra" in block) and "name" not in block:
        raise UserError(
            f"{where} lacks its first line `# @package _global_`: add it, so its `sweep:` block "
            f"(or {HYDRA_PARAMS}) and its overrides apply to the whole config"
        )
    absent = [k for k in SWEEP_KEYS if not OmegaConf.is_dict(block) or k not in block]
    if absent:
        raise UserError(
            f"{where} has no {', '.join(absent)} under `sweep:`; it needs name, factor (the "
            "config key it changes), values (a list) and baseline (sweeps/chunk_size.yaml)"
        )
    if not OmegaConf.is_list(block["values"]) or len(block["values"]) == 0:
        raise UserError(
            f"{where}: values must be a list of the factor's values, e.g. values: [128, 256]"
        )
    values = [str(v) for v in block["values"]]
    return str(block["name"]), str(block["factor"]), values, str(block["baseline"])


def _hydra_params(cfg: DictConfig, fixed: Sequence[str]) -> tuple[str, list[str]] | None:
    """(factor, values) of a sweep file written the Hydra way, `hydra.sweeper.params` holding
    one key and its values in Hydra's sweep syntax (`chunker.size: 64,128,256`), read as Hydra's
    basic sweeper reads it; None when the config has no such params. Anything else is a
    one-line UserError naming the file and the fix."""
    params = OmegaConf.select(cfg, HYDRA_PARAMS, default=None)
    if not params:
        return None
    where = _where(fixed)
    lines = []
    for key, value in params.items():
        if OmegaConf.is_config(value):  # Hydra would run a YAML list as one value
            raise UserError(
                f"{where}: {HYDRA_PARAMS}.{key} is a YAML list or mapping; write the values "
                f"in Hydra's sweep syntax, e.g. {key}: 64,128,256"
            )
        lines.append(f"{key}={value}")
    parsed = _parse_overrides(lines, f"{where}: cannot parse {HYDRA_PARAMS} (key: v1,v2,v3)")
    if len(parsed) > 1:
        keys = ", ".join(o.get_key_element() for o in parsed)
        raise UserError(
            f"a sweep changes one thing, but {where} varies {len(parsed)} keys in "
            f"{HYDRA_PARAMS} ({keys}): keep one, and set the others as config values in the file"
        )
    (override,) = parsed
    key = override.get_key_element()
    if key != key.lstrip("+~"):
        raise UserError(
            f"{where}: {HYDRA_PARAMS} sweeps {key}, a key the config does not hold; set its "
            f"default in the file ({key.lstrip('+~')}: ...) and sweep {key.lstrip('+~')}"
        )
    if not override.is_sweep_override():
        raise UserError(
            f"{where}: {HYDRA_PARAMS}.{key} has one value; give several ({key}: 64,128,256), "
            "or set a fixed value as a config value in the file"
        )
    return key, [str(v) for v in override.sweep_string_iterator()]


def _parse_overrides(lines: Sequence[str], what: str) -> list[Any]:
    """Hydra's parsed overrides of `lines`; a grammar error (several lines from Hydra) is a
    one-line UserError starting with `what`."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        return list(OverridesParser.create().parse_overrides(list(lines)))
    except Exception as err:
        raise UserError(f"{what}: {first_line(err)}") from None


def expand(args: Sequence[str]) -> tuple[str | None, str, list[str], str, list[str]]:
    """(sweep name, factor, values, baseline, fixed overrides) of a multirun command line.

    The factor and its values come from the sweep file `sweep=NAME` names (its `sweep:` block,
    or `hydra.sweeper.params`, whose baseline is the value the config holds), or from the one
    key the command line gives several values; command-line values replace the file's.
    Refuses (UserError) a sweep that varies no key or two or more keys, sweeping over sweep
    files themselves, and a factor that decides nothing or changes how results are scored.
    """
    overrides = _overrides(args)
    parsed = _parse_overrides(overrides, "cannot parse the overrides")
    varying = [o for o in parsed if o.is_sweep_override()]
    fixed = [o.input_line for o in parsed if not o.is_sweep_override()]
    if any(o.get_key_element().lstrip("+~") == "sweep" for o in varying):
        raise UserError("sweep one sweep file at a time: `ragsweep -m sweep=chunk_size`")
    name = baseline = factor = None
    values: list[str] = []
    cfg = compose(fixed, hydra=True)
    if cfg.get("sweep") and OmegaConf.select(cfg, HYDRA_PARAMS, default=None):
        raise UserError(
            f"{_where(fixed)} holds both a `sweep:` block and {HYDRA_PARAMS}: keep one form "
            f"(the `sweep:` block, or {HYDRA_PARAMS} with the baseline as the config's value)"
        )
    if cfg.get("sweep"):
        name, factor, values, baseline = _sweep_file(cfg.sweep, fixed)
    elif (params := _hydra_params(cfg, fixed)) is not None:
        name = _chosen(fixed) or None
        factor, values = params
    keys = sorted({o.get_key_element().lstrip("+~") for o in varying})
    if factor is not None and keys and keys != [factor]:
        extra = [k for k in keys if k != factor]
        raise UserError(
            f"a sweep changes one thing; sweep {name!r} varies {factor} and the command line also "
            f"varies {', '.join(extra)}: drop those values or run a separate sweep"
        )
    if factor is None and len(keys) > 1:
        raise UserError(
            f"a sweep changes one thing, but this one varies {len(keys)} config keys: "
            f"{', '.join(keys)}; give several values to one key only"
        )
    if factor is None and not keys:
        raise UserError(
            "nothing to sweep: name a sweep file (`ragsweep -m sweep=chunk_size`) or give one "
            "key several values (`ragsweep -m chunker.size=128,256,512`)"
        )
    for o in varying:  # command-line values replace the file's
        factor = o.get_key_element().lstrip("+~")
        values = [str(v) for v in o.sweep_string_iterator()]
    assert factor is not None
    _check_factor_key(factor)
    if baseline is None and factor_prefix(args, factor):
        # a key the config does not hold yet (`+retriever.mine.n=3,4`, a parameter of the
        # user's own class): there is no default to compare with, so the first value is it
        known = OmegaConf.select(compose(fixed), factor, default=None, throw_on_missing=False)
        baseline = str(known) if known is not None else values[0]
    if baseline is None:
        baseline = _default_value(fixed, factor)
    twice = sorted({v for v in values if values.count(v) > 1})
    if twice:
        raise UserError(
            f"the values of {factor} list {', '.join(twice)} more than once; list each value once"
        )
    if baseline not in values:
        values = [baseline, *values]
    return name, factor, values, baseline, fixed


def factor_prefix(args: Sequence[str], factor: str) -> str:
    """`+` or `++` when the command line adds the factor's key (`+retriever.mine.n=3,4`: a
    key the config does not hold), else "". Every configuration is composed, and every job
    run, with the same prefix."""
    for a in _overrides(args):
        key = a.partition("=")[0]
        if key.lstrip("+~") == factor and key.startswith("+"):
            return key[: len(key) - len(key.lstrip("+"))]
    return ""


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
