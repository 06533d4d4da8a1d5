"""End-to-end rows of benchmarks/run.py: whole ragsweep commands against a hand-written floor.

Every measurement is a fresh child process, timed by wall clock from start to exit, whose peak
memory is its own: the kernel's peak resident set of the child (and of any descendant it waited
for, `os.wait4`), or, when it runs worker processes (a sweep), the peak of the resident sets of
the whole process tree summed, sampled every `SAMPLE_SECONDS`, whichever is larger. ragsweep
runs from the command line as a user runs it (`python -m ragsweep.cli ...`), on a corpus
benchmarks/corpus.py builds (Cranfield padded with distractors to 10k, 30k, 100k and 200k
chunks of 128 words), with a cold stage cache (a new `cache.dir`) and its own throwaway sqlite
MLflow store (`tracking.uri`; a copy of an empty, already migrated database, so the one-off
schema migration of a brand-new store is charged to nobody). The floor (benchmarks/floor.py)
does the same job with json, bm25s, scikit-learn, numpy and pytrec_eval. Both get the same
thread settings (OMP/OPENBLAS/MKL/NUMEXPR_NUM_THREADS).

Every measurement is repeated `Plan.runs` times, interleaved (the floor, ours, the floor, ours,
...), so that load from other work hits both sides of a pair alike; a row reports the median of
its per-run ratios (what `met` judges), their spread (lowest-highest), and every run with the
1-minute load average before each child started (`summarize`, `Run`).

The rows (docs/benchmarks.md): one configuration vs the floor (time and peak memory) at each
size; per stage at each size (ragsweep's `seconds/*` and `cost/index_build_seconds` numbers
against the floor's own stage timings) and each stage's growth exponent; a 4-value fusion
sweep vs one configuration; MLflow's share of sweep time; 2 workers vs 1 on a chunk-size sweep;
the confirm stage's share. A target is `<=` for times, memory and shares, `>=` for speedups.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import corpus
import numpy as np

HERE = Path(__file__).resolve().parent
FLOOR = HERE / "floor.py"
SAMPLE_SECONDS = 0.1
#: a child still running after this long is stopped (its process group killed) and reported
CHILD_TIMEOUT = 3 * 3600
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
#: the split both sides use (conf/data/folder.yaml's defaults, passed explicitly to both)
SALT, HELDOUT = "ragsweep-v1", 0.25
CHUNK_SIZE, CHUNK_OVERLAP = corpus.CHUNK_SIZE, corpus.CHUNK_OVERLAP
#: ragsweep's default pipeline (fixed 128-word windows overlapping by 16, BM25 + LSA fused by
#: RRF, no reranker) on a folder dataset, unfiltered (the benchmark corpora have no product or
#: version to filter on) and unweighted (their slices carry no traffic shares); what the floor
#: copies is spelled out, so a changed default cannot make the two sides differ (fusion.k stays
#: the default 60: the fusion sweep varies it)
PIPELINE = (
    "data=folder", f"data.split.salt={SALT}", f"data.split.heldout={HELDOUT}",
    "chunker=fixed", f"chunker.overlap={CHUNK_OVERLAP}", "embedder=lsa", "embedder.seed=0",
    "retriever=hybrid", "retriever.depth=100", "retriever.filter=false",
    "retriever.bm25.k1=1.5", "retriever.bm25.b=0.75", "fusion=rrf", "reranker=none",
    "eval.traffic_weights=null",
)  # fmt: skip
#: how a row's ratio is formed, and which way its target points
DIRECTIONS = {"time": "<=", "memory": "<=", "share": "<=", "speedup": ">=", "none": None}
E2E_COLUMNS = ("task", "ours", "peer", "peer value", "ratio", "spread", "target", "met")
#: our stage -> the floor stages that do the same work (seconds summed)
STAGE_PEERS = {
    "load": ("load",),
    "chunk": ("chunk",),
    "index_build": ("bm25_index", "dense_index"),
    "search_bm25": ("bm25_search",),
    "search_dense": ("dense_search",),
    "second_stage": ("fusion",),
    "score": ("score",),
    "other": ("other",),
}
OTHER = "other"
#: the groups of rows `--rows` selects: one configuration vs the floor with its stage rows at
#: each size; the fusion sweep vs one configuration; the chunk-size sweep on 1 and 2 workers
#: (each sweep brings its MLflow and confirm rows)
ROWS = ("single", "fusion", "workers")


@dataclass(frozen=True)
class Targets:
    """The targets of issue 32: `<=` for ratios of times, memory and shares, `>=` for the
    speedup; judged on the median of the runs. The one-configuration and stage targets apply
    at every size from `Plan.judged_from` (100k) up."""

    one_config_time: float = 1.05  # ragsweep / floor wall
    one_config_memory: float = 1.10  # ragsweep / floor peak memory
    fusion_sweep_time: float = 1.10  # 4-value fusion sweep / one configuration, wall
    fusion_sweep_memory: float = 1.15  # the same, peak memory
    mlflow_share: float = 0.03  # cost/sweep_mlflow_seconds / cost/sweep_seconds, each sweep
    workers_speedup: float = 1.6  # chunk-size sweep wall on 1 worker / on 2
    stage_score_time: float = 3.0  # seconds/score / the floor's score stage
    stage_other_time: float = 1.5  # wall outside the timed stages / the floor's

    def stage(self, name: str) -> float | None:
        """The time target of our stage `name` against its floor stages (None: no target)."""
        return {"score": self.stage_score_time, OTHER: self.stage_other_time}.get(name)


TARGETS = Targets()


@dataclass(frozen=True)
class Plan:
    """What the end-to-end part measures, in chunks of 128 words, and how often."""

    sizes: tuple[int, ...]  # one configuration vs the floor, per stage, growth exponents
    fusion_at: int  # the fusion sweep (sweep=fusion_k, 4 values)
    chunk_sweep_at: int  # the chunk-size sweep on 1 and 2 workers
    chunk_sweep_values: tuple[int, ...]
    #: the one-configuration and stage targets apply at every size >= this
    judged_from: int
    runs: int = 3  # every measurement, interleaved with its peer; rows report the median
    rows: tuple[str, ...] = ROWS  # the groups of rows measured, in ROWS order
    lsa_dim: int = 256  # embedder.dim (ragsweep's default), and the floor's --dim
    #: ours and the floor must agree on recall@5 to within this (rough: their BM25 tokenizers
    #: differ); one question moves a mean over n questions by up to 1/n
    recall_tolerance: float = 0.02

    def __post_init__(self) -> None:
        if not self.sizes or any(c < 1 for c in self.sizes):
            raise ValueError(f"sizes must be chunk counts >= 1, got {self.sizes}")
        if list(self.sizes) != sorted(set(self.sizes)):
            raise ValueError(f"sizes must be ascending without repeats, got {self.sizes}")
        if self.runs < 1:
            raise ValueError(f"runs must be >= 1, got {self.runs}")
        if not self.rows or list(self.rows) != [r for r in ROWS if r in self.rows]:
            raise ValueError(f"rows must be some of {', '.join(ROWS)} in that order: {self.rows}")


FULL_PLAN = Plan(
    sizes=(10_000, 30_000, 100_000, 200_000),
    fusion_at=100_000,
    chunk_sweep_at=30_000,
    chunk_sweep_values=(64, 128, 256),
    judged_from=100_000,
)
#: a smoke test that every row is made (its numbers are fixed costs, not throughput); one run
#: of each, to keep it short
QUICK_PLAN = Plan(
    sizes=(500, 1_000),
    fusion_at=1_000,
    chunk_sweep_at=500,
    chunk_sweep_values=(128, 256),
    judged_from=1_000,
    runs=1,
    lsa_dim=32,
    recall_tolerance=0.05,  # a few dozen questions: one of them moves recall by 0.02
)


def parse_sizes(text: str) -> tuple[int, ...]:
    """`--sizes`: comma-separated chunk counts (`100000,200000`), ascending without repeats."""
    try:
        sizes = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise ValueError(f"sizes are whole numbers of chunks, comma-separated: {text!r}") from None
    if not sizes or sizes[0] < 1:
        raise ValueError(f"sizes are chunk counts >= 1, comma-separated: {text!r}")
    return tuple(sizes)


def parse_rows(text: str) -> tuple[str, ...]:
    """`--rows`: comma-separated names from ROWS, returned in ROWS order."""
    names = {part.strip() for part in text.split(",") if part.strip()}
    if not names or names - set(ROWS):
        unknown = ", ".join(sorted(names - set(ROWS))) or "none given"
        raise ValueError(f"rows are some of {', '.join(ROWS)} (comma-separated): {unknown}")
    return tuple(r for r in ROWS if r in names)


def judge(ratio: float | None, target: float | None, direction: str | None) -> bool | None:
    """Whether `ratio` meets `target` in `direction` (`<=` or `>=`); None without either."""
    if ratio is None or target is None or direction is None:
        return None
    return ratio <= target if direction == "<=" else ratio >= target


@dataclass(frozen=True)
class Verdict:
    """Repeated ratios of one row summed up: their median (what `met` judges), their spread
    (lowest, highest; None below two ratios) and how many there were."""

    median: float | None
    spread: tuple[float, float] | None
    met: bool | None
    n: int


def summarize(
    ratios: Sequence[float | None], target: float | None, direction: str | None
) -> Verdict:
    """The median of the measured `ratios` (None ones are runs that could not be measured),
    their spread, and `met`: whether the median meets `target` in `direction`."""
    got = [r for r in ratios if r is not None]
    if not got:
        return Verdict(None, None, None, 0)
    median = statistics.median(got)
    spread = (min(got), max(got)) if len(got) >= 2 else None
    return Verdict(median, spread, judge(median, target, direction), len(got))


@dataclass(frozen=True)
class Run:
    """One of a row's repeated measurements: ours and its peer measured side by side, with
    the 1-minute load average just before each child started and when it started (epoch
    seconds; the same child on both sides for a share)."""

    ours_s: float | None
    peer_s: float | None
    ours_mib: float | None = None
    peer_mib: float | None = None
    ours_load: float | None = None
    peer_load: float | None = None
    ours_started: float | None = None
    peer_started: float | None = None


def form_ratio(kind: str, run: Run) -> float | None:
    """`run`'s ratio as `kind` forms it: `time` and `share` ours_s / peer_s, `memory` ours_mib
    / peer_mib, `speedup` peer_s / ours_s, `none` None (also when a side is missing)."""
    if kind in ("time", "share"):
        return None if run.ours_s is None or not run.peer_s else run.ours_s / run.peer_s
    if kind == "memory":
        return None if run.ours_mib is None or not run.peer_mib else run.ours_mib / run.peer_mib
    if kind == "speedup":
        return None if not run.ours_s or run.peer_s is None else run.peer_s / run.ours_s
    return None


def _median(values: Iterator[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return statistics.median(got) if got else None


@dataclass(frozen=True)
class E2ERow:
    """One end-to-end line: ours against a peer (the floor, or another ragsweep command).

    `ratio_of` says what `ratio` is: `time` ours_s / peer_s, `memory` ours_mib / peer_mib,
    `share` ours_s / peer_s (a part of a whole), `speedup` peer_s / ours_s, `none` (no ratio:
    growth exponents, whose values are in `details`). A row of repeated measurements holds
    them in `runs`: its values are then the medians of the runs' values, and its ratio the
    median of the runs' own ratios (not the ratio of the medians), with their spread."""

    task: str
    ours_s: float | None
    peer: str
    peer_s: float | None
    ours_mib: float | None = None
    peer_mib: float | None = None
    ratio_of: str = "time"
    target: float | None = None
    note: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    runs: tuple[Run, ...] = ()

    @classmethod
    def of(cls, task: str, peer: str, runs: Sequence[Run], **rest: Any) -> E2ERow:
        """The row of the repeated measurements `runs`, its values their medians."""
        return cls(
            task,
            _median(r.ours_s for r in runs),
            peer,
            _median(r.peer_s for r in runs),
            ours_mib=_median(r.ours_mib for r in runs),
            peer_mib=_median(r.peer_mib for r in runs),
            runs=tuple(runs),
            **rest,
        )

    def _ratios(self, kind: str) -> list[float | None]:
        if self.runs:
            return [form_ratio(kind, r) for r in self.runs]
        return [form_ratio(kind, Run(self.ours_s, self.peer_s, self.ours_mib, self.peer_mib))]

    @property
    def verdict(self) -> Verdict:
        """The median and spread of the row's ratios, and whether the median meets its target."""
        return summarize(self._ratios(self.ratio_of), self.target, self.direction)

    @property
    def time_ratio(self) -> float | None:
        return summarize(self._ratios("time"), None, None).median

    @property
    def memory_ratio(self) -> float | None:
        return summarize(self._ratios("memory"), None, None).median

    @property
    def direction(self) -> str | None:
        return DIRECTIONS[self.ratio_of]

    @property
    def ratio(self) -> float | None:
        return self.verdict.median

    @property
    def spread(self) -> tuple[float, float] | None:
        return self.verdict.spread

    @property
    def met(self) -> bool | None:
        return self.verdict.met

    def cells(self) -> tuple[str, ...]:
        """The row as E2E_COLUMNS' cells."""
        if self.ratio_of == "none":
            ours = _fmt(self.details.get("exponent"), "slope {:.2f}")
            theirs = _fmt(self.details.get("peer_exponent"), "slope {:.2f}")
        elif self.ratio_of == "memory":
            ours, theirs = _fmt(self.ours_mib, "{:,.0f} MiB"), _fmt(self.peer_mib, "{:,.0f} MiB")
        else:
            ours, theirs = _fmt(self.ours_s, "{:.2f} s"), _fmt(self.peer_s, "{:.2f} s")
        if self.ours_s is None and self.ratio_of != "none" and self.note:
            ours = self.note
        verdict = self.verdict
        spec = "{:.3f}" if self.ratio_of == "share" else "{:.2f}"
        ratio = _fmt(verdict.median, spec, "-")
        spread = "-" if verdict.spread is None else "-".join(map(spec.format, verdict.spread))
        target = "-" if self.target is None else f"{self.ratio_of} {self.direction} {self.target:g}"
        met = {True: "yes", False: "NO", None: "-"}[verdict.met]
        return (self.task, ours, self.peer, theirs, ratio, spread, target, met)

    def record(self) -> dict[str, Any]:
        """JSON form: the fields, every run with its ratio, the ratios (medians), the spread,
        target direction, met, and the cells as printed."""
        verdict = self.verdict
        return {
            "name": self.task,
            "group": "end-to-end",
            **asdict(self),
            "runs": [{**asdict(r), "ratio": form_ratio(self.ratio_of, r)} for r in self.runs],
            "time_ratio": self.time_ratio,
            "memory_ratio": self.memory_ratio,
            "ratio": verdict.median,
            "spread": None if verdict.spread is None else list(verdict.spread),
            "direction": self.direction,
            "met": verdict.met,
            "cells": dict(zip(E2E_COLUMNS, self.cells(), strict=True)),
        }


def _fmt(value: float | None, spec: str, missing: str = "-") -> str:
    return missing if value is None else spec.format(value)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_average() -> float | None:
    """The 1-minute load average (None where unsupported): other work competing for the
    cores, read before each child starts so that a noisy measurement can be spotted."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


# --- measuring a child process ------------------------------------------------------------
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _children(pid: int) -> list[int]:
    """Direct children of `pid` (every thread's: workers may be spawned from any thread)."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        with contextlib.suppress(OSError):
            out += [int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
    return out


def _rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def tree_pids(root: int) -> set[int]:
    """`root` and all its descendants (only `root` off Linux)."""
    todo, seen = [root], set()
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            todo += _children(pid)
    return seen


def hwm_bytes(pid: int) -> int:
    """The peak resident bytes of `pid` itself since it started its program (`VmHWM`; 0 when
    unreadable: off Linux, or the process has exited)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return 0


def tree_rss(root: int) -> int:
    """Resident bytes of `root` and all its descendants, summed (0 off Linux)."""
    return sum(_rss_bytes(pid) for pid in tree_pids(root))


class TreeSampler(threading.Thread):
    """Samples `tree_rss(pid)` every `every` seconds until stopped; `peak` is the largest, and
    `root_hwm` the largest `hwm_bytes(pid)` seen (the root's own peak, between samples too)."""

    def __init__(self, pid: int, every: float = SAMPLE_SECONDS) -> None:
        super().__init__(daemon=True)
        self.pid, self.every, self.peak, self.root_hwm = pid, every, 0, 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.peak = max(self.peak, tree_rss(self.pid))
            self.root_hwm = max(self.root_hwm, hwm_bytes(self.pid))
            self._stop_event.wait(self.every)

    def stop(self) -> int:
        self._stop_event.set()
        self.join()
        return self.peak


@dataclass(frozen=True)
class Measured:
    """One child process: wall seconds, peak memory (MiB), exit code, its output files, when it
    started (epoch seconds) and the 1-minute load average just before."""

    seconds: float
    peak_mib: float | None
    returncode: int
    stdout: Path
    stderr: Path
    started: float
    load_1min: float | None

    def tail(self, lines: int = 15) -> str:
        text = self.stderr.read_text(errors="replace").strip().splitlines()
        return "\n".join(text[-lines:])


def _maxrss_mib(usage: Any) -> float:
    # ru_maxrss is KiB on Linux, bytes on macOS
    return usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)


def _kill_group(pid: int) -> None:
    """SIGKILL the process group a child of ours leads (`start_new_session`): it and its
    workers."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def run_child(argv: Sequence[str], cwd: Path, env: dict[str, str], name: str) -> Measured:
    """Run `argv` in `cwd` to completion (stopped after CHILD_TIMEOUT) in its own process
    group; output to `<cwd>/<name>.out` and `.err`."""
    out, err = cwd / f"{name}.out", cwd / f"{name}.err"
    with open(out, "wb") as o, open(err, "wb") as e:
        load, started = load_average(), time.time()
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(argv), cwd=cwd, env=env, stdout=o, stderr=e, start_new_session=True
        )
        sampler = TreeSampler(proc.pid)
        sampler.start()
        timer = threading.Timer(CHILD_TIMEOUT, _kill_group, (proc.pid,))
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:  # interrupted: stop the child's process group, not just the child
            _kill_group(proc.pid)
            os.wait4(proc.pid, 0)
            raise
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        sampled = max(sampler.stop(), sampler.root_hwm) / 2**20
    # ru_maxrss is no measure of a child on Linux: it starts from the forked copy of this
    # process, so a child that allocates nothing reported the benchmark's own peak (750 MiB)
    peak = sampled if sampled > 0 else _maxrss_mib(usage)
    return Measured(seconds, peak, proc.returncode, out, err, started, load)


# --- workspace: environments, stores, folders ---------------------------------------------
def ragsweep_root() -> Path:
    """The folder the ragsweep this process imports lives in (its `src/` or site-packages)."""
    import ragsweep

    return Path(ragsweep.__file__).resolve().parents[1]


def child_env(threads: int) -> dict[str, str]:
    """This environment, running the same ragsweep as this process (PYTHONPATH first), with
    `threads` BLAS/OpenMP threads, no MLflow URI inherited and no live progress view."""
    env = dict(os.environ)
    path = [str(ragsweep_root()), *filter(None, [env.get("PYTHONPATH")])]
    env["PYTHONPATH"] = os.pathsep.join(path)
    env.update({var: str(threads) for var in THREAD_VARS})
    env.pop("MLFLOW_TRACKING_URI", None)
    env["CI"] = "1"
    env["HYDRA_FULL_ERROR"] = "1"
    return env


class Workspace:
    """A temporary folder holding one subfolder per measurement, each with its own copy of an
    empty, migrated sqlite MLflow store and its own (empty) stage cache."""

    def __init__(self, env: dict[str, str], keep: bool = False) -> None:
        self.env, self.keep = env, keep
        self.root = Path(tempfile.mkdtemp(prefix="ragsweep-e2e-"))
        self.template = self.root / "template.db"
        self._count = 0
        code = "import sys, mlflow; mlflow.MlflowClient(sys.argv[1]).search_experiments()"
        done = subprocess.run(
            [sys.executable, "-c", code, f"sqlite:///{self.template}"],
            env=env, capture_output=True, text=True, cwd=self.root,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"could not create an MLflow store: {done.stderr.strip()}")

    def fresh(self, name: str) -> Path:
        self._count += 1
        folder = self.root / f"{self._count:02d}-{name}"
        folder.mkdir()
        shutil.copyfile(self.template, folder / "mlflow.db")
        return folder

    def close(self) -> None:
        if self.keep:
            log(f"kept the end-to-end work folder {self.root}")
        else:
            shutil.rmtree(self.root, ignore_errors=True)


def store_uri(folder: Path) -> str:
    return f"sqlite:///{folder / 'mlflow.db'}"


def ragsweep_argv(
    dataset: Path, folder: Path, lsa_dim: int, *overrides: str, multirun: bool = False
) -> list[str]:
    """`python -m ragsweep.cli [-m] <PIPELINE on dataset> <overrides>` with the (new) stage
    cache and MLflow store of `folder`."""
    return [
        sys.executable, "-m", "ragsweep.cli", *(["-m"] if multirun else []),
        *PIPELINE, f"embedder.dim={lsa_dim}", f"data.path={dataset}", *overrides,
        f"cache.dir={folder / 'cache'}", f"tracking.uri={store_uri(folder)}",
    ]  # fmt: skip


def floor_argv(dataset: Path, folder: Path, lsa_dim: int) -> list[str]:
    """benchmarks/floor.py on `dataset` with PIPELINE's settings, its result to floor.json."""
    return [
        sys.executable, str(FLOOR), str(dataset), "--json", str(folder / "floor.json"),
        "--size", str(CHUNK_SIZE), "--overlap", str(CHUNK_OVERLAP), "--depth", "100",
        "--k", "60", "--dim", str(lsa_dim), "--seed", "0", "--salt", SALT,
        "--heldout", str(HELDOUT),
    ]  # fmt: skip


@dataclass
class Logged:
    """What a finished ragsweep command left in its MLflow store."""

    configs: list[Any]  # configuration runs (tag ragsweep.stage = config)
    parents: list[Any]  # sweep parent runs
    confirms: list[Any]  # confirm runs


def read_store(folder: Path) -> Logged:
    """The runs of `folder`'s store, by stage (MlflowClient)."""
    import logging

    logging.getLogger("mlflow").setLevel(logging.ERROR)
    from mlflow import MlflowClient

    client = MlflowClient(store_uri(folder))
    experiments = [e.experiment_id for e in client.search_experiments()]
    runs = client.search_runs(experiments, max_results=5000)

    def stage(name: str) -> list[Any]:
        return [r for r in runs if r.data.tags.get("ragsweep.stage") == name]

    return Logged(stage("config"), stage("sweep"), stage("confirm"))


def measured(folder: Path, run: Any) -> dict[str, float]:
    """Every number a configuration run of `folder`'s store measured: its results/metrics.csv
    (`key`, `value`; the run logs only a few of them as MLflow metrics)."""
    import csv

    from mlflow import MlflowClient

    with tempfile.TemporaryDirectory(prefix="e2e-metrics-") as tmp:
        path = MlflowClient(store_uri(folder)).download_artifacts(
            run.info.run_id, "results/metrics.csv", tmp
        )
        with open(path, encoding="utf-8", newline="") as handle:
            return {row["key"]: float(row["value"]) for row in csv.DictReader(handle)}


class Failed(RuntimeError):
    """A ragsweep command or the floor exited non-zero: the message holds its error."""


# --- the measurements ---------------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    """One configuration (ours) on the corpus of `chunks` chunks, and every number it measured
    (`measured`)."""

    chunks: int
    measured: Measured
    metrics: dict[str, float]


@dataclass(frozen=True)
class FloorRun:
    """The floor on the corpus of `chunks` chunks, and its JSON."""

    chunks: int
    measured: Measured
    result: dict[str, Any]


@dataclass(frozen=True)
class Single:
    """One configuration (ours) and the floor on the corpus of `chunks` chunks, one run."""

    chunks: int
    ours: Measured
    floor: Measured
    metrics: dict[str, float]  # every number the configuration run measured (`measured`)
    result: dict[str, Any]  # the floor's JSON


@dataclass(frozen=True)
class Sweep:
    """One `ragsweep -m` command and what it logged."""

    label: str
    values: int  # configurations it should have run
    measured: Measured
    logged: Logged
    said_confirm: str  # its printed `confirm...` lines

    def problem(self) -> str | None:
        """What is wrong with what it logged (not one FINISHED run per value), or None."""
        done = [r for r in self.logged.configs if r.info.status == "FINISHED"]
        if len(done) == self.values:
            return None
        statuses = sorted(r.info.status for r in self.logged.configs)
        return f"{self.label}: {len(done)} of {self.values} configuration runs FINISHED {statuses}"


class Bench:
    """The end-to-end measurements: corpora, child processes, their stores. Commands that fail
    and outputs that disagree are collected (`failures`, `disagreements`), not raised, so
    every other row is still measured; every child is listed in `measurements`."""

    def __init__(
        self,
        plan: Plan,
        threads: int,
        corpora: Path,
        seed: int = 0,
        source: str = "auto",
        cranfield: Path | None = None,
        keep: bool = False,
    ) -> None:
        self.plan, self.threads, self.seed = plan, threads, seed
        self.corpora, self.source, self.cranfield = corpora, source, cranfield
        self.env = child_env(threads)
        self.work = Workspace(self.env, keep)
        self.disagreements: list[str] = []
        self.failures: list[str] = []
        self.measurements: list[dict[str, Any]] = []
        self.corpus_info: dict[int, dict[str, Any]] = {}
        self._datasets: dict[int, Path] = {}

    def close(self) -> None:
        self.work.close()

    def dataset(self, chunks: int) -> Path:
        """The benchmark corpus of `chunks` chunks (built once, then from the cache)."""
        if chunks not in self._datasets:
            begun = time.perf_counter()
            built = corpus.build(
                chunks, self.seed, self.corpora, self.source, self.cranfield, self.env
            )
            self.corpus_info[chunks] = {**asdict(built), "path": str(built.path)}
            log(f"  corpus {built.path.name} ready in {time.perf_counter() - begun:.1f} s")
            self._datasets[chunks] = built.path
        return self._datasets[chunks]

    def child(self, what: str, argv: list[str], folder: Path, name: str) -> Measured:
        """`argv` measured (`run_child`), listed in `measurements` and on the progress lines
        with the load average before it started; Failed when it exits non-zero."""
        log(f"  {what}...")
        got = run_child(argv, folder, self.env, name)
        load = _fmt(got.load_1min, "{:.2f}", "?")
        log(f"    {got.seconds:.1f} s, {_fmt(got.peak_mib, '{:,.0f}')} MiB, load {load} at start")
        self.measurements.append({
            "what": what, "seconds": got.seconds, "peak_mib": got.peak_mib,
            "returncode": got.returncode, "started": got.started, "load_1min": got.load_1min,
        })  # fmt: skip
        if got.returncode != 0:
            raise Failed(f"{what} failed (exit {got.returncode}): {' '.join(argv)}\n{got.tail()}")
        return got

    def config(self, chunks: int, run: str) -> Config | None:
        """One configuration at chunk size 128 in a fresh process, cold cache (None: failed)."""
        try:
            data = self.dataset(chunks)
            folder = self.work.fresh(f"config-{chunks}")
            argv = ragsweep_argv(data, folder, self.plan.lsa_dim, f"chunker.size={CHUNK_SIZE}")
            what = f"one configuration at {chunks:,} chunks, {run}"
            got = self.child(what, argv, folder, "ragsweep")
            logged = read_store(folder)
            if len(logged.configs) != 1:
                raise Failed(f"{what} logged {len(logged.configs)} runs")
        except Failed as err:
            return self._failed(err)
        return Config(chunks, got, measured(folder, logged.configs[0]))

    def floor(self, chunks: int, run: str) -> FloorRun | None:
        """The floor in a fresh process (None: failed)."""
        try:
            data = self.dataset(chunks)
            folder = self.work.fresh(f"floor-{chunks}")
            argv = floor_argv(data, folder, self.plan.lsa_dim)
            got = self.child(f"the floor at {chunks:,} chunks, {run}", argv, folder, "floor")
        except Failed as err:
            return self._failed(err)
        result = json.loads((folder / "floor.json").read_text(encoding="utf-8"))
        return FloorRun(chunks, got, result)

    def single(self, ours: Config, floor: FloorRun) -> Single:
        """One run of ours and the floor side by side, checked to have done the same job."""
        found = disagreements(ours.chunks, ours.metrics, floor.result, self.plan.recall_tolerance)
        self.disagreements += [d for d in found if d not in self.disagreements]
        return Single(ours.chunks, ours.measured, floor.measured, ours.metrics, floor.result)

    def sweep(
        self, label: str, run: str, chunks: int, values: int, overrides: Sequence[str]
    ) -> Sweep | None:
        """`ragsweep -m ... <overrides>` on the corpus of `chunks` chunks, cold cache."""
        what = f"{label}, {run}"
        try:
            data = self.dataset(chunks)
            folder = self.work.fresh(slug(what))
            argv = ragsweep_argv(data, folder, self.plan.lsa_dim, *overrides, multirun=True)
            got = self.child(what, argv, folder, "ragsweep")
        except Failed as err:
            return self._failed(err)
        printed = got.stdout.read_text(errors="replace").splitlines()
        said = " ".join(line for line in printed if line.startswith("confirm"))
        done = Sweep(what, values, got, read_store(folder), said)
        if (problem := done.problem()) is not None:
            self.failures.append(problem)
        return done

    def _failed(self, err: Failed) -> None:
        self.failures.append(str(err))
        log(str(err))
        return None


def disagreements(
    chunks: int, ours: dict[str, float], floor: dict[str, Any], tolerance: float
) -> list[str]:
    """Where ours and the floor did not do the same job: other chunk or question counts, or
    recall@5 further apart than `tolerance` (a ratio between them would mean nothing)."""
    where = f"{chunks:,} chunks"
    out = []
    made = ours.get("cost/chunks")
    if made != floor["chunks"] or floor["chunks"] != chunks:
        out.append(
            f"{where}: ragsweep made {made} chunks, the floor {floor['chunks']}, the corpus was "
            f"built for {chunks}"
        )
    questions = sum(v for k, v in ours.items() if k.startswith("questions/"))
    if questions != floor["questions"]:
        out.append(
            f"{where}: ragsweep scored {questions:.0f} questions, the floor {floor['questions']}"
        )
    mine, theirs = ours.get("recall_at_5/all"), floor["recall@5"]
    if mine is None or abs(mine - theirs) > tolerance:
        out.append(
            f"{where}: recall@5 ragsweep {mine} vs floor {theirs:.4f} (tolerance {tolerance})"
        )
    return out


def slug(label: str) -> str:
    """`label` as a folder name that Hydra's override parser accepts inside a path."""
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in label).strip("-")[:60]


# --- rows ---------------------------------------------------------------------------------
FLOOR_NAME = "hand-written floor (benchmarks/floor.py)"


def paired(ours: Measured, peer: Measured, **values: float | None) -> Run:
    """One run of `ours` against `peer`: their wall seconds and peak memory unless `values` say
    otherwise (a stage's seconds, the parts of a share), with their loads and start times."""
    return Run(**{
        "ours_s": ours.seconds, "peer_s": peer.seconds,
        "ours_mib": ours.peak_mib, "peer_mib": peer.peak_mib,
        "ours_load": ours.load_1min, "peer_load": peer.load_1min,
        "ours_started": ours.started, "peer_started": peer.started, **values,
    })  # fmt: skip


def single_rows(singles: dict[int, list[Single]], judged_from: int) -> list[E2ERow]:
    """Wall time and peak memory of one configuration vs the floor at each size, over its runs;
    the targets apply from `judged_from` chunks up."""
    rows = []
    for chunks, done in singles.items():
        first = done[0]  # the same job every run (each run is checked: `disagreements`)
        details = {
            "chunks": chunks,
            "questions": first.result["questions"],
            "recall@5": {
                "ours": first.metrics.get("recall_at_5/all"),
                "floor": first.result["recall@5"],
            },
            "recall@10": {
                "ours": first.metrics.get("recall_at_10/all"),
                "floor": first.result["recall@10"],
            },
            "floor_evaluator": first.result["evaluator"],
        }
        runs = [paired(s.ours, s.floor) for s in done]
        judged = chunks >= judged_from
        head = f"one configuration, {chunks:,} chunks"
        time_target = TARGETS.one_config_time if judged else None
        memory_target = TARGETS.one_config_memory if judged else None
        rows.append(
            E2ERow.of(f"{head}: wall time", FLOOR_NAME, runs, target=time_target, details=details)
        )
        rows.append(
            E2ERow.of(f"{head}: peak memory", FLOOR_NAME, runs, ratio_of="memory",
                      target=memory_target, details=details)
        )  # fmt: skip
    return rows


def ours_stages(metrics: dict[str, float], wall: float) -> dict[str, float]:
    """ragsweep's timed stages: each `seconds/<stage>` metric, `index_build` from
    `cost/index_build_seconds`, and `other`: the wall time outside all of them."""
    stages = {k.split("/", 1)[1]: v for k, v in metrics.items() if k.startswith("seconds/")}
    if "cost/index_build_seconds" in metrics:
        stages["index_build"] = metrics["cost/index_build_seconds"]
    stages[OTHER] = wall - sum(stages.values())
    return stages


def floor_stages(result: dict[str, Any], wall: float) -> dict[str, float]:
    """The floor's stage seconds and `other`: its wall time outside them (start-up, imports)."""
    stages = dict(result["seconds"])
    stages[OTHER] = wall - sum(stages.values())
    return stages


def peers_of(stage: str) -> tuple[str, ...]:
    """The floor stages doing the work of our `stage` (`loading` matches `load`, ...)."""
    if stage in STAGE_PEERS:
        return STAGE_PEERS[stage]
    return next((v for k, v in STAGE_PEERS.items() if stage.startswith(k)), ())


def growth_exponent(chunks: Sequence[int], seconds: Sequence[float | None]) -> float | None:
    """Least-squares slope of log(seconds) against log(chunks), over the sizes with a positive
    time (None below two): 1 is linear growth, 0 a fixed cost."""
    pairs = [(c, t) for c, t in zip(chunks, seconds, strict=True) if t is not None and t > 0]
    if len(pairs) < 2:
        return None
    return float(np.polyfit(np.log([c for c, _ in pairs]), np.log([t for _, t in pairs]), 1)[0])


def _summed(stages: dict[str, float], names: Sequence[str]) -> float | None:
    """The seconds of `names` summed, None unless every one of them was timed."""
    return sum(stages[n] for n in names) if names and all(n in stages for n in names) else None


def stage_rows(singles: dict[int, list[Single]], judged_from: int) -> list[E2ERow]:
    """Per stage and size, ours vs the floor's stages doing the same work over the runs (the
    `score` and `other` targets apply from `judged_from` chunks up), and per stage its growth
    exponent over the sizes' medians (two sizes or more); then the floor's stages that
    ragsweep logs no time for."""
    ours = {c: [ours_stages(s.metrics, s.ours.seconds) for s in done]
            for c, done in singles.items()}  # fmt: skip
    theirs = {c: [floor_stages(s.result, s.floor.seconds) for s in done]
              for c, done in singles.items()}  # fmt: skip
    chunks = list(singles)
    names = [*dict.fromkeys(k for each in ours.values() for st in each for k in st if k != OTHER),
             OTHER]  # fmt: skip
    rows: list[E2ERow] = []
    matched: set[str] = set()
    no_memory = {"ours_mib": None, "peer_mib": None}
    for name in names:
        peers = peers_of(name)
        matched.update(peers)
        peer = "floor: " + " + ".join(peers) if peers else "no floor counterpart"
        source = {OTHER: "wall - timed stages", "index_build": "cost/index_build_seconds"}
        label = source.get(name, f"seconds/{name}")
        by_size = []
        for c, done in singles.items():
            runs = [paired(s.ours, s.floor, ours_s=mine.get(name), peer_s=_summed(other, peers),
                           **no_memory)
                    for s, mine, other in zip(done, ours[c], theirs[c], strict=True)]  # fmt: skip
            target = TARGETS.stage(name) if c >= judged_from else None
            by_size.append(
                E2ERow.of(f"stage {name} ({label}), {c:,} chunks", peer, runs, target=target,
                          details={"chunks": c, "stage": name})
            )  # fmt: skip
        rows += by_size
        if len(chunks) < 2:
            continue  # no growth over one size
        mine, other = [r.ours_s for r in by_size], [r.peer_s for r in by_size]
        rows.append(
            E2ERow(
                f"stage {name}: growth exponent, {chunks[0]:,} to {chunks[-1]:,} chunks",
                mine[-1],
                peer,
                other[-1],
                ratio_of="none",
                details={
                    "stage": name,
                    "chunks": chunks,
                    "seconds": mine,  # medians of the runs at each size
                    "peer_seconds": other,
                    "exponent": growth_exponent(chunks, mine),
                    "peer_exponent": growth_exponent(chunks, other),
                },
            )
        )
    floor_only = dict.fromkeys(k for each in theirs.values() for st in each for k in st
                               if k not in matched)  # fmt: skip
    for name in floor_only:
        for c, done in singles.items():
            runs = [paired(s.ours, s.floor, ours_s=None, peer_s=st.get(name), **no_memory)
                    for s, st in zip(done, theirs[c], strict=True)]  # fmt: skip
            rows.append(
                E2ERow.of(f"stage {name} (floor only), {c:,} chunks", f"floor: {name}", runs,
                          note="ragsweep logs no seconds/ metric for it",
                          details={"chunks": c, "stage": name})
            )  # fmt: skip
    return rows


FAILED = "failed (see problems)"


def versus_rows(label: str, pairs: Sequence[tuple[Measured, Measured]], peer: str,
                time_target: float, memory_target: float) -> list[E2ERow]:  # fmt: skip
    """Wall time and peak memory of one command against another, over the runs in which both
    were measured (none: both failed, see problems)."""
    runs = [paired(ours, theirs) for ours, theirs in pairs]
    note = "" if runs else FAILED
    return [
        E2ERow.of(f"{label}: wall time", peer, runs, target=time_target, note=note),
        E2ERow.of(f"{label}: peak memory", peer, runs, ratio_of="memory", target=memory_target,
                  note=note),
    ]  # fmt: skip


def workers_row(label: str, pairs: Sequence[tuple[Sweep, Sweep]]) -> E2ERow:
    """The speedup of 2 workers over 1, wall(1) / wall(2), over the runs of (1 worker, 2)."""
    runs = [paired(two.measured, one.measured) for one, two in pairs]
    return E2ERow.of(
        f"{label}: 2 workers vs 1",
        "the same sweep on 1 worker (hydra.launcher.n_jobs=1)",
        runs,
        ratio_of="speedup",
        target=TARGETS.workers_speedup,
        note="" if runs else FAILED,
    )


def mlflow_row(label: str, sweeps: Sequence[Sweep]) -> E2ERow:
    """MLflow's share of each run of the sweep's time: the parent run's
    `cost/sweep_mlflow_seconds` (time the launcher and workers spent in MLflow calls) over its
    `cost/sweep_seconds`."""
    task = f"MLflow share of sweep time: {label}"
    peer = "the sweep's wall (cost/sweep_seconds)"
    runs, unmeasured = [], []
    for sweep in sweeps:
        if len(sweep.logged.parents) != 1:
            unmeasured.append(f"not measured: {len(sweep.logged.parents)} parent runs in the store")
            continue
        metrics = sweep.logged.parents[0].data.metrics
        spent, total = metrics.get("cost/sweep_mlflow_seconds"), metrics.get("cost/sweep_seconds")
        if spent is None:
            unmeasured.append("not measured: parent run lacks cost/sweep_mlflow_seconds")
        elif total is None:
            unmeasured.append("not measured: parent run lacks cost/sweep_seconds")
        else:
            m = sweep.measured
            runs.append(paired(m, m, ours_s=spent, peer_s=total, ours_mib=None, peer_mib=None))
    note = "" if runs else (unmeasured[0] if unmeasured else FAILED)
    details = {"measured_wall_s": [s.measured.seconds for s in sweeps], "unmeasured": unmeasured}
    return E2ERow.of(task, peer, runs, ratio_of="share", target=TARGETS.mlflow_share, note=note,
                     details=details)  # fmt: skip


#: a parent-run metric timing the confirm stage, read when the launcher logs one
CONFIRM_METRIC = "cost/sweep_confirm_seconds"


def confirm_seconds(sweep: Sweep) -> tuple[float | None, dict[str, Any]]:
    """The confirm stage's seconds in `sweep` (None when it confirmed nothing) and how they
    were had: the parent run's `CONFIRM_METRIC` when logged, else the span from the last
    configuration run's end to the confirm run's end (the comparison report, then re-scoring
    the winner and the baseline on held-out questions, then logging: the confirm run itself is
    only opened to log, at the end); and whether it ran after every configuration run ended."""
    if not sweep.logged.confirms:
        return None, {"confirm_ran": False, "printed": sweep.said_confirm}
    run = sweep.logged.confirms[0].info
    ends = [r.info.end_time for r in sweep.logged.configs if r.info.end_time]
    parent = sweep.logged.parents[0].data.metrics if len(sweep.logged.parents) == 1 else {}
    if CONFIRM_METRIC in parent:
        seconds, how = parent[CONFIRM_METRIC], CONFIRM_METRIC
    elif ends:
        seconds = (run.end_time - max(ends)) / 1000
        how = "last configuration run's end to the confirm run's end (includes the report)"
    else:
        seconds, how = None, "no configuration run ended"
    return seconds, {
        "confirm_ran": True,
        "after_workers": bool(ends) and run.start_time >= max(ends),
        "measured_as": how,
        "printed": sweep.said_confirm,
    }


def confirm_row(label: str, sweeps: Sequence[Sweep]) -> E2ERow:
    """The confirm stage's share of the sweep's measured wall time, over its runs
    (`confirm_seconds`)."""
    task = f"confirm stage share of sweep wall: {label}"
    found = [confirm_seconds(s) for s in sweeps]
    runs = [paired(s.measured, s.measured, ours_s=seconds, ours_mib=None, peer_mib=None)
            for s, (seconds, _) in zip(sweeps, found, strict=True)]  # fmt: skip
    each = [how for _, how in found]
    ran = [how for how in each if how["confirm_ran"]]
    details = {
        "confirm_ran": bool(ran),
        "after_workers": bool(ran) and all(how["after_workers"] for how in ran),
        "measured_as": ran[0]["measured_as"] if ran else None,
        "printed": each[0]["printed"] if each else "",
        "runs": each,
    }
    note = "" if ran else (each[0]["printed"] or "no confirm run logged") if each else FAILED
    return E2ERow.of(task, "the sweep's wall (measured)", runs, ratio_of="share", note=note,
                     details=details)  # fmt: skip


def run_e2e(bench: Bench) -> list[E2ERow]:
    """Every end-to-end measurement `bench.plan` selects, `plan.runs` times, in table order.

    Size by size, each run measures the floor, then one configuration, then (at `fusion_at`)
    the fusion sweep, so that a configuration sits beside both its peers; the chunk-size sweep
    runs on 1 worker, then on 2, run after run."""
    plan = bench.plan
    single, fusion, workers = (name in plan.rows for name in ROWS)
    singles: dict[int, list[Single]] = {}
    fusion_label = f"fusion sweep (sweep=fusion_k, 4 values), {plan.fusion_at:,} chunks"
    fusions: list[tuple[Config | None, Sweep | None]] = []
    sizes = sorted({*(plan.sizes if single else ()), *((plan.fusion_at,) if fusion else ())})
    for chunks in sizes:
        with_floor = single and chunks in plan.sizes
        with_fusion = fusion and chunks == plan.fusion_at
        for i in range(1, plan.runs + 1):
            run = f"run {i}/{plan.runs}"
            log(f"end-to-end: {chunks:,} chunks, {run}...")
            theirs = bench.floor(chunks, run) if with_floor else None
            ours = bench.config(chunks, run)
            if theirs is not None and ours is not None:
                singles.setdefault(chunks, []).append(bench.single(ours, theirs))
            if with_fusion:
                overrides = ["sweep=fusion_k", f"chunker.size={CHUNK_SIZE}"]
                fusions.append((ours, bench.sweep(fusion_label, run, chunks, 4, overrides)))
    rows: list[E2ERow] = []
    if single:
        measured_sizes = {c: singles[c] for c in plan.sizes if singles.get(c)}
        rows += single_rows(measured_sizes, plan.judged_from)
        rows += stage_rows(measured_sizes, plan.judged_from) if measured_sizes else []
    sweeps: list[tuple[str, list[Sweep]]] = []
    if fusion:
        pairs = [(s.measured, c.measured) for c, s in fusions if c is not None and s is not None]
        rows += versus_rows(
            fusion_label,
            pairs,
            f"one configuration, {plan.fusion_at:,} chunks",
            TARGETS.fusion_sweep_time,
            TARGETS.fusion_sweep_memory,
        )
        sweeps.append((fusion_label, [s for _, s in fusions if s is not None]))
    if workers:
        values = ",".join(str(v) for v in plan.chunk_sweep_values)
        label = f"chunk-size sweep (chunker.size={values}), {plan.chunk_sweep_at:,} chunks"
        by_workers: dict[int, list[Sweep | None]] = {1: [], 2: []}
        for i in range(1, plan.runs + 1):
            run = f"run {i}/{plan.runs}"
            log(f"end-to-end: {label}, {run}...")
            for n_jobs in (1, 2):
                by_workers[n_jobs].append(
                    bench.sweep(
                        f"{label}, {n_jobs} worker(s)",
                        run,
                        plan.chunk_sweep_at,
                        len(plan.chunk_sweep_values),
                        [f"chunker.size={values}", f"hydra.launcher.n_jobs={n_jobs}"],
                    )
                )
        both = [(one, two) for one, two in zip(by_workers[1], by_workers[2], strict=True)
                if one is not None and two is not None]  # fmt: skip
        rows.append(workers_row(label, both))
        for n_jobs, done in by_workers.items():
            sweeps.append((f"{label}, {n_jobs} worker(s)", [s for s in done if s is not None]))
    return rows + [mlflow_row(*s) for s in sweeps] + [confirm_row(*s) for s in sweeps]


def environment(bench: Bench) -> dict[str, Any]:
    """What the end-to-end numbers depend on, for the JSON record: the plan as measured (sizes,
    rows and runs selected), settings, corpora, targets, and every child measured in order with
    its load average at start."""
    return {
        "plan": asdict(bench.plan),
        "threads": bench.threads,
        "thread_variables": list(THREAD_VARS),
        "corpora": {str(k): v for k, v in sorted(bench.corpus_info.items())},
        "seed": bench.seed,
        "targets": asdict(TARGETS),
        "directions": {k: v for k, v in DIRECTIONS.items() if v},
        "memory_measure": (
            "peak resident set of the child's process tree: the larger of the child's own "
            f"VmHWM and the tree's summed RSS, sampled every {SAMPLE_SECONDS} s (not ru_maxrss, "
            "which a child inherits from the forked benchmark)"
        ),
        "pipeline": [*PIPELINE, f"embedder.dim={bench.plan.lsa_dim}"],
        "ragsweep_root": str(ragsweep_root()),
        "disagreements": bench.disagreements,
        "failures": bench.failures,
        "measurements": bench.measurements,
    }


@contextlib.contextmanager
def bench_session(**kwargs: Any) -> Iterator[Bench]:
    """A `Bench` whose work folder is removed (unless kept) when the block ends."""
    bench = Bench(**kwargs)
    try:
        yield bench
    finally:
        bench.close()
