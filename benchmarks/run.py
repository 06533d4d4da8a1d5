"""Speed and memory of ragsweep against peer libraries, as ratios measured in the same run.

    python benchmarks/run.py [--quick] [--json FILE] [--repeats N] [--threads N] [--no-numba]
                             [--runs N] [--sizes N,N] [--rows single,fusion,workers]

Each row times one ragsweep operation ("ours") and one peer doing the same job on the same
inputs, in this one process: one untimed warm-up call each (JIT compilers, caches, thread
pools), then the minimum wall time over rounds that call ours and the peers in turn (at least
N rounds, more for short calls). Before anything is timed, the outputs are checked to agree; a
disagreement stops the script (exit 1), because a ratio between two programs computing
different things means nothing. Peak memory is the growth of the process's resident set (RSS)
during one call above the RSS at its start (Linux: `/proc/self/status` VmHWM, reset through
`/proc/self/clear_refs`; garbage collected and `malloc_trim`-ed first), so native allocations
(C++, numba) count as much as numpy's; the minimum over the rounds is reported.

Ratios are ours / peer: below 1 means ragsweep is faster (or leaner). A peer that is not
installed gets a row saying so instead of a failure. `--quick` shrinks every size so that the
whole script runs in seconds (a smoke test of the script itself; its numbers mean little).
What is measured and how to read the table: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import functools
import gc
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import corpus
import e2e
import numpy as np

#: Memory ratios are shown only when both peaks reach this size (smaller deltas are page noise).
MIN_MIB = 1.0
#: Short calls get extra timed rounds while a task's rounds took under this many seconds (full
#: sizes; --quick gives none), at most MAX_ROUNDS.
ROUND_BUDGET = 2.0
MAX_ROUNDS = 25
COLUMNS = ("task", "ours (s)", "peer", "peer (s)", "time ratio", "memory ratio")
NOT_INSTALLED = "not installed"
#: Peers that compile with numba on first use (tens of seconds on a cold cache), which
#: `--no-numba` leaves out: modules as named in `Peer`.
NUMBA_PEERS = frozenset({"ranx", "numba"})
#: Distributions whose versions go into the JSON record.
DISTRIBUTIONS = (
    "ragsweep", "numpy", "scipy", "scikit-learn", "bm25s", "PyStemmer", "pytrec-eval-terrier",
    "ranx", "numba",
)  # fmt: skip


@dataclass(frozen=True)
class Sizes:
    """Every size the benchmarks use; `FULL` is the documented run, `QUICK` the smoke test."""

    score_queries: int  # queries scored
    score_depth: int  # ranked documents per query
    pair_per_stratum: int  # questions per stratum (paired comparison)
    pair_strata: int
    pair_candidates: int
    chunk_size: int  # words per chunk (FixedTokenChunker)
    chunk_overlap: int
    max_chunks: int | None  # keep only the first chunks of the sample (None: all)
    retrieval_queries: int  # the sample's questions repeated to this many
    retrieval_depth: int
    lsa_dim: int


FULL = Sizes(
    score_queries=10_000, score_depth=100, pair_per_stratum=80, pair_strata=5, pair_candidates=8,
    chunk_size=128, chunk_overlap=16, max_chunks=None,
    retrieval_queries=2_000, retrieval_depth=100, lsa_dim=256,
)  # fmt: skip
QUICK = Sizes(
    score_queries=300, score_depth=20, pair_per_stratum=20, pair_strata=5, pair_candidates=2,
    chunk_size=128, chunk_overlap=16, max_chunks=200,
    retrieval_queries=100, retrieval_depth=20, lsa_dim=32,
)  # fmt: skip


# --- measuring ----------------------------------------------------------------------------
_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_kib(field: str) -> int | None:
    """A `/proc/self/status` field in KiB (VmRSS, VmHWM), or None where there is no procfs."""
    try:
        match = re.search(rf"^{field}:\s+(\d+) kB", _STATUS.read_text(), re.MULTILINE)
    except OSError:
        return None
    return int(match.group(1)) if match else None


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False when not possible here."""
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim` (returns freed heap memory to the system), or None (e.g. musl)."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


@dataclass(frozen=True)
class Measured:
    """Minimum wall time (s) and minimum peak RSS growth (MiB, None: not measurable) of N calls."""

    seconds: float
    peak_mib: float | None


def _call_measured(fn: Callable[[], Any]) -> tuple[float, float | None]:
    """Wall time (s) of one call of `fn`, and its peak RSS growth (MiB; None: not measurable).

    Before the call, `gc.collect()` and `malloc_trim(0)` hand freed memory back and VmHWM is
    reset to the current RSS; the peak after the call minus the RSS before it is its growth.
    """
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
    can_peak = _reset_peak()
    before = _status_kib("VmRSS")
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    peak = _status_kib("VmHWM")
    del result
    if can_peak and before is not None and peak is not None:
        return seconds, (peak - before) / 1024
    return seconds, None


def measure(
    calls: Sequence[Callable[[], Any]], repeats: int, budget: float = ROUND_BUDGET
) -> list[Measured]:
    """Minimum time and peak memory of each call over interleaved rounds.

    Each call runs once untimed first (warm-up: JIT compilers, caches, thread pools). Then every
    round calls each of them once in turn, so that a burst of load from elsewhere on the machine
    hits ours and the peers alike. At least `repeats` rounds; more while the rounds so far took
    under `budget` seconds (short calls), at most MAX_ROUNDS. Garbage collection stays
    enabled during the timed call, as in real use.
    """
    for fn in calls:
        fn()
    seconds: list[list[float]] = [[] for _ in calls]
    peaks: list[list[float]] = [[] for _ in calls]
    start = time.perf_counter()
    rounds = 0
    while rounds < repeats or (rounds < MAX_ROUNDS and time.perf_counter() - start < budget):
        rounds += 1
        for i, fn in enumerate(calls):
            took, peak = _call_measured(fn)
            seconds[i].append(took)
            if peak is not None:
                peaks[i].append(peak)
    return [Measured(min(t), min(m) if m else None) for t, m in zip(seconds, peaks, strict=True)]


@dataclass(frozen=True)
class Row:
    """One line of the table: ours against one peer on the same inputs; ratios are ours / peer."""

    task: str
    ours_s: float
    peer: str
    peer_s: float | None  # None: the peer is not installed, or skipped
    ours_mib: float | None
    peer_mib: float | None
    note: str = ""

    @property
    def time_ratio(self) -> float | None:
        if self.peer_s is None or self.peer_s <= 0:
            return None
        return self.ours_s / self.peer_s

    @property
    def memory_ratio(self) -> float | None:
        """ours / peer peak RSS growth; None unless both reach MIN_MIB (else noise)."""
        if self.ours_mib is None or self.peer_mib is None:
            return None
        if self.ours_mib < MIN_MIB or self.peer_mib < MIN_MIB:
            return None
        return self.ours_mib / self.peer_mib

    def cells(self) -> tuple[str, str, str, str, str, str]:
        """The row as the table's six cells (COLUMNS)."""
        if self.peer_s is None:
            return (self.task, f"{self.ours_s:.4f}", self.peer, self.note, "-", "-")
        if self.memory_ratio is not None:
            memory = f"{self.memory_ratio:.2f} ({self.ours_mib:.0f}/{self.peer_mib:.0f} MiB)"
        elif self.ours_mib is None or self.peer_mib is None:
            memory = "n/a"
        else:
            memory = f"n/a (< {MIN_MIB:.0f} MiB)"
        ratio = self.time_ratio
        return (
            self.task,
            f"{self.ours_s:.4f}",
            self.peer,
            f"{self.peer_s:.4f}",
            "-" if ratio is None else f"{ratio:.2f}",
            memory,
        )

    def record(self) -> dict[str, Any]:
        """JSON form: the fields, the ratios, and the cells as printed; `name`, `ratio` (the
        time ratio, lower is better: `direction` <=), `target` and `met` as every row of the
        record has them (microbenchmarks carry no target: met is null)."""
        return {
            "name": self.task,
            "group": "microbenchmark",
            **asdict(self),
            "time_ratio": self.time_ratio,
            "memory_ratio": self.memory_ratio,
            "ratio": self.time_ratio,
            "ratio_of": "time",
            "target": None,
            "direction": "<=",
            "met": None,
            "cells": dict(zip(COLUMNS, self.cells(), strict=True)),
        }


def installed(module: str) -> bool:
    """Whether `module` can be imported (without importing it)."""
    return importlib.util.find_spec(module) is not None


#: A peer: (name shown, module that must be installed, factory). The factory prepares the peer's
#: inputs, checks that its output agrees with ours (raising `Disagreement` if not) and returns
#: the call to time.
Peer = tuple[str, str, Callable[[], Callable[[], Any]]]


@dataclass(frozen=True)
class Settings:
    """One run's choices: sizes, timed rounds (at least `repeats`; more for short calls while
    under `round_budget` seconds per task), peer modules to leave out."""

    sizes: Sizes
    repeats: int
    round_budget: float = ROUND_BUDGET
    skip: frozenset[str] = frozenset()
    threads: int | None = None  # cap on BLAS/OpenMP/numba threads; None: libraries' defaults


def run_task(
    ours: Sequence[tuple[str, Callable[[], Any]]], peers: Sequence[Peer], settings: Settings
) -> list[Row]:
    """Check every peer against ours, then time all of them together: one row per (ours, peer).

    `ours` lists (task label, call) variants of ragsweep's side. A peer whose module is missing
    gets a row saying "not installed"; one left out by `settings.skip` a row saying "skipped".
    """
    notes = {
        name: NOT_INSTALLED if not installed(module) else "skipped"
        for name, module, _ in peers
        if module in settings.skip or not installed(module)
    }
    calls = {name: factory() for name, _, factory in peers if name not in notes}
    measured = measure(
        [fn for _, fn in ours] + list(calls.values()), settings.repeats, settings.round_budget
    )
    theirs = dict(zip(calls, measured[len(ours) :], strict=True))
    rows = []
    for (task, _), mine in zip(ours, measured[: len(ours)], strict=True):
        for name, _module, _factory in peers:
            got = theirs.get(name)
            rows.append(
                Row(
                    task,
                    mine.seconds,
                    name,
                    None if got is None else got.seconds,
                    mine.peak_mib,
                    None if got is None else got.peak_mib,
                    notes.get(name, ""),
                )
            )
    return rows


class Disagreement(RuntimeError):
    """Ours and a peer computed different numbers: timing them against each other is void."""


def check_close(what: str, ours: np.ndarray, peer: np.ndarray, atol: float) -> None:
    """Raise `Disagreement` naming `what` unless |ours - peer| <= atol everywhere."""
    ours = np.asarray(ours, dtype=np.float64)
    peer = np.asarray(peer, dtype=np.float64)
    if ours.shape != peer.shape:
        raise Disagreement(f"{what}: shapes differ, ours {ours.shape} vs peer {peer.shape}")
    gap = np.abs(ours - peer)
    if not (gap <= atol).all():
        i = np.unravel_index(int(np.argmax(gap)), gap.shape)
        at = tuple(int(x) for x in i)
        raise Disagreement(
            f"{what}: ours {float(ours[i])!r} vs peer {float(peer[i])!r} at {at} (tolerance {atol})"
        )


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the table."""
    print(message, file=sys.stderr, flush=True)


# --- 1. scoring ---------------------------------------------------------------------------
#: Documents in the synthetic collection (a prime: an affine map per query lists distinct ids).
_POOL = 100_003
_EXTRA = 10  # labelled documents per query that the run does not retrieve, at most


@dataclass(frozen=True)
class ScoringInputs:
    """A synthetic run and graded qrels (grades 0/1/2, at least one >= 1 per query)."""

    qids: list[str]  # q00000, ... (string order = numeric order)
    run_docs: np.ndarray  # (nq, depth) int document number at each rank
    run_scores: np.ndarray  # (nq, depth) float, strictly decreasing along a row
    label_docs: list[np.ndarray]  # per query: labelled document numbers
    label_grades: list[np.ndarray]  # per query: their grades


def scoring_inputs(n_queries: int, depth: int, seed: int = 0) -> ScoringInputs:
    """Each query ranks `depth` distinct documents; 1-8 of the first depth + 10 are labelled,
    drawn with a bias toward the top ranks (so recall@10 and RR are often nonzero)."""
    rng = np.random.default_rng(seed)
    width = depth + _EXTRA
    a = rng.integers(1, _POOL, size=(n_queries, 1))
    c = rng.integers(0, _POOL, size=(n_queries, 1))
    docs = (a * np.arange(width) + c) % _POOL  # distinct within a row: a is invertible mod _POOL
    scores = np.broadcast_to(np.arange(depth, 0, -1, dtype=np.float64), (n_queries, depth))
    key = rng.exponential(size=(n_queries, width)) * (1.0 + np.arange(width) / 10.0)
    order = np.argsort(key, axis=1)
    n_labels = rng.integers(1, 9, size=n_queries)
    grades = rng.choice(np.array([0, 1, 2]), size=(n_queries, 8), p=[0.2, 0.4, 0.4])
    grades[:, 0] = np.maximum(grades[:, 0], 1)
    label_docs = [docs[q, order[q, : n_labels[q]]] for q in range(n_queries)]
    label_grades = [grades[q, : n_labels[q]] for q in range(n_queries)]
    return ScoringInputs(
        qids=[f"q{i:05d}" for i in range(n_queries)],
        run_docs=docs[:, :depth],
        run_scores=np.ascontiguousarray(scores),
        label_docs=label_docs,
        label_grades=label_grades,
    )


def _encoded(names_of: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
    """Distinct document numbers as names `d<n>` and the code of each element."""
    distinct, codes = np.unique(names_of, return_inverse=True)
    return tuple(f"d{n}" for n in distinct.tolist()), codes.astype(np.int64)


def bench_scoring(settings: Settings) -> list[Row]:
    """`trec.gain_arrays` + `metrics.score_gains` (and `score_gains` alone) vs pytrec_eval and
    ranx on recall@10, nDCG@10 (linear gain, trec_eval's) and RR, per query.

    Every side starts from its library's own in-memory run and qrels (built untimed): ragsweep's
    dictionary-encoded `Run`/`Qrels`, pytrec_eval's evaluator over a qrels dict (built once,
    as it is meant to be reused) and a run dict, ranx's `Qrels`/`Run`.
    """
    from ragsweep.measures import Measure
    from ragsweep.scoring.metrics import score_gains
    from ragsweep.scoring.trec import Qrels, Run, gain_arrays

    sizes = settings.sizes
    nq, depth = sizes.score_queries, sizes.score_depth
    data = scoring_inputs(nq, depth)
    measures = (Measure("recall", 10), Measure("nDCG", 10), Measure("RR"))
    task = f"scoring {nq:,} q x {depth} docs (recall@10, nDCG@10, RR)"

    run_names, run_codes = _encoded(data.run_docs.ravel())
    run = Run(
        qid_names=tuple(data.qids),
        doc_names=run_names,
        qid_codes=np.repeat(np.arange(nq, dtype=np.int64), depth),
        doc_codes=run_codes,
        scores=data.run_scores.ravel().copy(),
    )
    qrel_names, qrel_codes = _encoded(np.concatenate(data.label_docs))
    qrels = Qrels(
        qid_names=tuple(data.qids),
        doc_names=qrel_names,
        qid_codes=np.repeat(np.arange(nq, dtype=np.int64), [d.size for d in data.label_docs]),
        doc_codes=qrel_codes,
        grades=np.concatenate(data.label_grades).astype(np.int64),
    )
    # Full depth (not depth=10): RR looks at the whole list, as the peers' RR does.
    arrays = gain_arrays(qrels, run)
    if arrays.qids != tuple(data.qids):
        raise Disagreement("scoring: gain_arrays did not keep the queries in qid order")

    def ours_core() -> np.ndarray:
        return score_gains(
            arrays.gains, arrays.new_rel, arrays.n_rel, arrays.ideal, measures, gain="linear"
        )

    def ours_full() -> np.ndarray:
        a = gain_arrays(qrels, run)
        return score_gains(a.gains, a.new_rel, a.n_rel, a.ideal, measures, gain="linear")

    ours = ours_full()
    check_close("scoring: score_gains alone vs with gain_arrays", ours_core(), ours, 0.0)

    run_dict = {
        qid: dict(
            zip(
                [f"d{n}" for n in data.run_docs[i].tolist()],
                data.run_scores[i].tolist(),
                strict=True,
            )
        )
        for i, qid in enumerate(data.qids)
    }
    qrels_dict = {
        qid: dict(
            zip(
                [f"d{n}" for n in data.label_docs[i].tolist()],
                data.label_grades[i].tolist(),
                strict=True,
            )
        )
        for i, qid in enumerate(data.qids)
    }

    def pytrec_eval_peer() -> Callable[[], Any]:
        import pytrec_eval

        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels_dict, {"recall.10", "ndcg_cut.10", "recip_rank"}
        )
        got = evaluator.evaluate(run_dict)
        keys = ("recall_10", "ndcg_cut_10", "recip_rank")
        check_close(
            "scoring vs pytrec_eval", ours, [[got[q][k] for k in keys] for q in data.qids], 1e-9
        )
        return lambda: evaluator.evaluate(run_dict)

    def ranx_peer() -> Callable[[], Any]:
        import ranx

        log("  ranx: the first calls compile with numba (cached on disk afterwards)")
        ranx_qrels = ranx.Qrels.from_dict(qrels_dict)
        ranx_run = ranx.Run.from_dict(run_dict)
        names = ["recall@10", "ndcg@10", "mrr"]

        def call() -> dict[str, np.ndarray]:
            return ranx.evaluate(
                ranx_qrels, ranx_run, names, return_mean=False, save_results_in_run=False
            )

        got = call()
        position = {q: i for i, q in enumerate(ranx_run.get_query_ids())}
        rows = [position[q] for q in data.qids]
        check_close("scoring vs ranx", ours, np.column_stack([got[m][rows] for m in names]), 1e-9)
        return call

    peers: list[Peer] = [
        ("pytrec_eval", "pytrec_eval", pytrec_eval_peer),
        ("ranx (warm)", "ranx", ranx_peer),
    ]
    return run_task(
        [
            (f"{task}: gain_arrays + score_gains", ours_full),
            (f"{task}: score_gains alone", ours_core),
        ],
        peers,
        settings,
    )


# --- 2. paired comparison ------------------------------------------------------------------
#: Ours adds two pseudo-questions per row (the Agresti-Min floor, docs/statistics.md): its interval
#: ends differ from plain Student-t's by a few percent of the width (the centre is shrunk by
#: n / (n + 2)); the worst seen was 0.054 at the --quick sizes (20 a stratum), 0.015 at the full.
PAIRED_TOLERANCE = 0.1


def paired_inputs(
    per_stratum: int, n_strata: int, n_candidates: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Continuous per-question scores in [0, 1] (baseline, candidates), strata s0.. in blocks."""
    rng = np.random.default_rng(seed)
    n = per_stratum * n_strata
    base = rng.beta(4, 2, size=n)
    cands = np.clip(base + rng.normal(0.01, 0.1, size=(n_candidates, n)), 0.0, 1.0)
    strata = np.repeat([f"s{i}" for i in range(n_strata)], per_stratum)
    return base, cands, strata, [f"c{j}" for j in range(n_candidates)]


def bench_paired(settings: Settings) -> list[Row]:
    """`stats.paired_comparison` (no correction) vs `scipy.stats.ttest_rel(...)
    .confidence_interval(0.95)` once per candidate and stratum: the same paired Student-t
    intervals up to ragsweep's floor.

    Ours also returns the `all` and `weighted` rows (stratified, Welch) and p-values, which
    scipy's per-stratum calls cannot give; the comparison is of the candidates x strata
    intervals both produce.
    """
    from ragsweep.compare.stats import paired_comparison

    sizes = settings.sizes
    base, cands, strata, names = paired_inputs(
        sizes.pair_per_stratum, sizes.pair_strata, sizes.pair_candidates
    )
    task = f"paired intervals {base.size} q x {sizes.pair_strata} strata x {len(names)} candidates"
    labels = list(dict.fromkeys(strata.tolist()))
    weights = {s: 1.0 for s in labels}

    def ours() -> list[Any]:
        return paired_comparison(base, cands, strata, names, weights=weights, correction="none")

    cells = [(j, s) for j in range(len(names)) for s in labels]

    def scipy_peer() -> Callable[[], Any]:
        from scipy.stats import ttest_rel

        def call() -> list[tuple[float, float]]:
            out = []
            for j, s in cells:
                rows = strata == s
                ci = ttest_rel(cands[j, rows], base[rows]).confidence_interval(0.95)
                out.append((ci.low, ci.high))
            return out

        by_cell = {(r.candidate, r.stratum): r for r in ours()}
        mine = [by_cell[names[j], s] for j, s in cells]
        ends = np.array([(r.ci_low, r.ci_high) for r in mine])
        width = ends[:, 1] - ends[:, 0]
        shift = (ends - np.array(call())) / width[:, None]
        check_close("paired interval vs scipy (share of width)", shift, 0 * shift, PAIRED_TOLERANCE)
        point = [(cands[j, strata == s] - base[strata == s]).mean() for j, s in cells]
        check_close("paired delta vs direct mean", [r.delta for r in mine], point, 1e-12)
        return call

    return run_task(
        [(task, ours)],
        [("scipy.stats.ttest_rel per candidate x stratum", "scipy", scipy_peer)],
        settings,
    )


# --- dataset validation ------------------------------------------------------------------
def bench_validation(settings: Settings) -> list[Row]:
    """`data.check_dataset` on the built-in sample (400 questions, 1,704 clauses, 7,602 log
    entries: every check the loader makes, the snapshot hash and the statistics) vs reading the
    same files and nothing more (json for the wordings, pandas for the JSON-lines files): the
    floor any validation stands on. This row replaced a wall-clock assert in the test suite.
    """
    from ragsweep.data.load import check_dataset, sample_path

    folder = sample_path()
    task = "validating the built-in sample (check_dataset)"

    def ours() -> dict[str, Any]:
        return check_dataset(folder)

    def read_peer() -> Callable[[], Any]:
        import pandas as pd

        def call() -> dict[str, int]:
            wordings = [json.loads(p.read_text()) for p in sorted((folder / "corpus").iterdir())]
            tables = {
                name: pd.read_json(folder / f"{name}.jsonl", lines=True)
                for name in ("questions", "labels", "query_log")
            }
            return {"wordings": len(wordings), **{k: len(v) for k, v in tables.items()}}

        got, stats = call(), ours()
        if (got["questions"], got["query_log"]) != (stats["questions"], stats["log_entries"]):
            raise Disagreement(f"validation: the files hold {got}, check_dataset counted {stats}")
        return call

    return run_task(
        [(task, ours)], [("reading the files (json + pandas)", "pandas", read_peer)], settings
    )


# --- 3. retrieval -------------------------------------------------------------------------
def retrieval_inputs(sizes: Sizes) -> tuple[list[str], list[str]]:
    """The built-in sample chunked at `chunk_size` words, and its questions repeated."""
    from ragsweep.chunking.chunkers import FixedTokenChunker, chunk_corpus
    from ragsweep.data import load_dataset

    ds = load_dataset()
    chunks = chunk_corpus(ds.documents, FixedTokenChunker(sizes.chunk_size, sizes.chunk_overlap))
    texts = [c.text for c in chunks][: sizes.max_chunks]
    questions = ds.questions["text"].tolist()
    reps = -(-sizes.retrieval_queries // len(questions))
    return texts, (questions * reps)[: sizes.retrieval_queries]


def check_bm25_scoring(texts: list[str], queries: list[str], depth: int) -> None:
    """ragsweep's BM25 top-`depth` scores equal bm25s' own retrieval fed the same tokens.

    The timed peer tokenizes its own way (so its lists differ); this check shows that the
    scoring being timed is the same BM25, and that ragsweep's sparse product and top-k keep it.
    """
    import bm25s

    from ragsweep.retrieval.bm25 import BM25Retriever

    ours = BM25Retriever()
    ours.index(texts)
    got = ours.search(queries, depth)
    tokens = [ours.tokenizer(t) for t in texts]
    vocab = {tok: i for i, tok in enumerate(sorted({t for doc in tokens for t in doc}))}
    model = bm25s.BM25(dtype="float64")
    model.index(
        ([[vocab[t] for t in doc] for doc in tokens], vocab),
        show_progress=False,
        create_empty_token=False,
    )
    query_ids = [[vocab[t] for t in ours.tokenizer(q) if t in vocab] for q in queries]
    kept = [i for i, ids in enumerate(query_ids) if ids]
    _, scores = model.retrieve(
        [query_ids[i] for i in kept],
        k=min(depth, len(texts)),
        show_progress=False,
        backend_selection="numpy",
    )
    mine = got.scores[kept, : scores.shape[1]]
    # bm25s lists texts holding no query token at score 0, where ragsweep pads with -inf
    check_close("BM25 top scores vs bm25s", np.where(np.isfinite(mine), mine, 0.0), scores, 1e-9)


def bench_retrieval(settings: Settings) -> list[Row]:
    """BM25 index and search vs plain bm25s; dense search vs sklearn NearestNeighbors."""
    from ragsweep.retrieval.bm25 import BM25Retriever
    from ragsweep.retrieval.dense import DenseRetriever, LSAEmbedder

    sizes = settings.sizes
    texts, queries = retrieval_inputs(sizes)
    depth = sizes.retrieval_depth
    n_t, n_q = len(texts), len(queries)
    k = min(depth, n_t)
    check_bm25_scoring(texts, queries, depth)

    def ours_index() -> BM25Retriever:
        r = BM25Retriever()
        r.index(texts)
        return r

    def bm25s_index(backend: str) -> Callable[[], Any]:
        import bm25s
        import Stemmer

        stemmer = Stemmer.Stemmer("english")

        def call() -> Any:
            tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
            model = bm25s.BM25(backend=backend)
            model.index(tokens, show_progress=False)
            return model

        return call

    rows = run_task(
        [(f"BM25 index {n_t:,} chunks of {sizes.chunk_size} words (tokenize + index)", ours_index)],
        [("bm25s + PyStemmer", "bm25s", lambda: bm25s_index("numpy"))],
        settings,
    )

    ours_bm25 = ours_index()

    def bm25s_search(backend: str) -> Callable[[], Callable[[], Any]]:
        def factory() -> Callable[[], Any]:
            import bm25s
            import Stemmer

            stemmer = Stemmer.Stemmer("english")
            model = bm25s_index(backend)()
            if backend == "numba":
                log("  bm25s numba backend: the first call compiles")

            def call() -> Any:
                tokens = bm25s.tokenize(
                    queries, stopwords="en", stemmer=stemmer, show_progress=False
                )
                return model.retrieve(tokens, k=k, show_progress=False)

            return call

        return factory

    rows += run_task(
        [
            (
                f"BM25 search {n_q:,} queries top-{depth} (tokenize + score + top-k)",
                lambda: ours_bm25.search(queries, depth),
            )
        ],
        [
            ("bm25s numpy backend", "bm25s", bm25s_search("numpy")),
            ("bm25s numba backend (warm)", "numba", bm25s_search("numba")),
        ],
        settings,
    )

    embedder = LSAEmbedder(dim=sizes.lsa_dim)
    embedder.fit(texts)
    text_vectors = embedder.encode(texts)
    query_vectors = embedder.encode(queries)
    # LSA gives a query with no known term the zero vector, which has no cosine: leave it out
    query_vectors = query_vectors[query_vectors.any(axis=1)]

    def ours_dense() -> Any:
        r = DenseRetriever(embedder)
        r.index_embeddings(text_vectors)
        return r.search_embeddings(query_vectors, depth)

    def sklearn_peer() -> Callable[[], Any]:
        from sklearn.neighbors import NearestNeighbors

        def call() -> Any:
            nn = NearestNeighbors(n_neighbors=k, metric="cosine", algorithm="brute")
            nn.fit(text_vectors)
            return nn.kneighbors(query_vectors)

        distances, _ = call()
        cosines = ours_dense().scores[:, :k]
        check_close("dense cosines vs sklearn", cosines, 1.0 - distances, 1e-5)
        return call

    rows += run_task(
        [
            (
                f"dense search {len(query_vectors):,} queries top-{depth} over {n_t:,} "
                f"LSA-{sizes.lsa_dim} vectors (index + search)",
                ours_dense,
            )
        ],
        [("sklearn NearestNeighbors brute cosine", "sklearn", sklearn_peer)],
        settings,
    )
    return rows


# --- output -------------------------------------------------------------------------------
def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def environment(settings: Settings, quick: bool, load_start: float | None) -> dict[str, Any]:
    """What the numbers depend on: machine, load, versions, sizes, repeats, peers left out."""
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average_1min": {"start": load_start, "end": e2e.load_average()},
        "quick": quick,
        "repeats": settings.repeats,
        "round_budget_s": settings.round_budget,
        "max_rounds": MAX_ROUNDS,
        "skipped_peer_modules": sorted(settings.skip),
        "threads": settings.threads,
        "sizes": asdict(settings.sizes),
        "versions": {d: _version(d) for d in DISTRIBUTIONS},
        "memory_measure": "peak RSS growth during one call (VmHWM reset via clear_refs)"
        if _status_kib("VmHWM") is not None
        else "unavailable (no /proc)",
    }


def render(rows: Sequence[Any], columns: Sequence[str], title: str) -> None:
    """Print a table of `rows` (each with `cells()` in `columns` order) on stdout (rich when
    available, else plain pipes)."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(title)
        print(" | ".join(columns))
        for row in rows:
            print(" | ".join(row.cells()))
        return
    table = Table(title=title)
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i in (0, 2) else "right", overflow="fold")
    for row in rows:
        table.add_row(*row.cells())
    Console(width=None if sys.stdout.isatty() else 200).print(table)


def run_all(settings: Settings) -> list[Row]:
    """Every benchmark in table order, under the thread cap when one is set."""
    rows: list[Row] = []
    with contextlib.ExitStack() as stack:
        if settings.threads is not None:
            from threadpoolctl import threadpool_limits

            stack.enter_context(threadpool_limits(limits=settings.threads))
            if installed("numba"):
                import numba

                numba.set_num_threads(min(settings.threads, numba.config.NUMBA_NUM_THREADS))
        for name, bench in (
            ("scoring", bench_scoring),
            ("paired comparison", bench_paired),
            ("dataset validation", bench_validation),
            ("retrieval", bench_retrieval),
        ):
            log(f"{name}...")
            begun = time.perf_counter()
            rows += bench(settings)
            log(f"{name}: {time.perf_counter() - begun:.1f} s")
    return rows


def git_commit(folder: Path) -> str | None:
    """The commit checked out where `folder` lives (with `+dirty` for uncommitted changes to
    tracked files), or None outside a git checkout."""
    try:
        head = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--short=12", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "-C", str(folder), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


def _option(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """`parse` as an argparse type: its ValueError's message becomes the usage error."""

    def parsed(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    return parsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also save the rows as JSON")
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="timed rounds per microbenchmark, at least (5; --quick 2); short calls get more",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="cap BLAS/OpenMP and numba threads at N for ours and peers alike (default: each "
        "library's own, as users get them; the end-to-end children get N, default the core "
        "count, through OMP/OPENBLAS/MKL/NUMEXPR_NUM_THREADS)",
    )
    parser.add_argument(
        "--no-numba",
        action="store_true",
        help="leave out the peers that compile with numba on first use (ranx, bm25s' numba "
        "backend); their rows say 'skipped'",
    )
    part = parser.add_mutually_exclusive_group()
    part.add_argument("--no-e2e", action="store_true", help="only the microbenchmarks")
    part.add_argument("--e2e-only", action="store_true", help="only the end-to-end rows")
    parser.add_argument(
        "--corpora",
        type=Path,
        default=corpus.DEFAULT_CACHE,
        help="where built benchmark corpora are cached (default benchmarks/.corpora/)",
    )
    parser.add_argument(
        "--source",
        choices=corpus.SOURCES,
        default="auto",
        help="the labelled collection padded to each size: cranfield, the built-in sample, or "
        "auto (Cranfield when found, else the sample)",
    )
    parser.add_argument(
        "--cranfield",
        type=Path,
        default=None,
        help="the folder of cran.all.1400, cran.qry and cranqrel (default: the first "
        "shared/datasets/cranfield above this script)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the distractors' random stream")
    parser.add_argument(
        "--runs",
        type=int,
        default=None,
        metavar="N",
        help="end-to-end: run every measurement N times, interleaved with its peer (the floor, "
        "ours, the floor, ours ...); each row reports the median of the per-run ratios, judged "
        "against its target, and their spread (default 3; --quick 1, to keep the smoke test "
        "short)",
    )
    parser.add_argument(
        "--sizes",
        type=_option(e2e.parse_sizes),
        default=None,
        metavar="N,N",
        help="end-to-end: the corpus sizes of the one-configuration and stage rows, in chunks, "
        "comma-separated (default 10000,30000,100000,200000; --quick 500,1000); e.g. "
        "--sizes 1000000 --rows single --runs 1 for the 1M-chunk probe",
    )
    parser.add_argument(
        "--rows",
        type=_option(e2e.parse_rows),
        default=None,
        metavar="NAME,NAME",
        help="end-to-end: which rows to measure, comma-separated from single (one "
        "configuration vs the floor, and its stages, at each size), fusion (the fusion sweep "
        "vs one configuration) and workers (the chunk-size sweep on 1 and 2 workers); each "
        "sweep brings its MLflow and confirm rows (default all three)",
    )
    parser.add_argument(
        "--keep-work",
        action="store_true",
        help="keep the end-to-end work folder (each command's output, store and cache)",
    )
    args = parser.parse_args(argv)
    repeats = args.repeats if args.repeats is not None else (2 if args.quick else 5)
    if repeats < 1:
        parser.error(f"--repeats must be >= 1, got {repeats}")
    if args.threads is not None and args.threads < 1:
        parser.error(f"--threads must be >= 1, got {args.threads}")
    if args.runs is not None and args.runs < 1:
        parser.error(f"--runs must be >= 1, got {args.runs}")
    chosen = {"sizes": args.sizes, "rows": args.rows, "runs": args.runs}
    if args.no_e2e and any(v is not None for v in chosen.values()):
        parser.error("--runs, --sizes and --rows choose end-to-end rows: drop --no-e2e")
    base = e2e.QUICK_PLAN if args.quick else e2e.FULL_PLAN
    plan = replace(base, **{k: v for k, v in chosen.items() if v is not None})
    settings = Settings(
        sizes=QUICK if args.quick else FULL,
        repeats=repeats,
        round_budget=0.0 if args.quick else ROUND_BUDGET,
        skip=NUMBA_PEERS if args.no_numba else frozenset(),
        threads=args.threads,
    )
    started = time.perf_counter()
    load_start = e2e.load_average()
    rows: list[Row] = []
    if not args.e2e_only:
        try:
            rows = run_all(settings)
        except Disagreement as err:
            print(f"benchmark stopped, outputs disagree: {err}", file=sys.stderr)
            return 1
    micro_seconds = time.perf_counter() - started
    e2e_rows: list[e2e.E2ERow] = []
    e2e_record: dict[str, Any] | None = None
    problems: list[str] = []
    if not args.no_e2e:
        threads = args.threads or os.cpu_count() or 1
        with e2e.bench_session(
            plan=plan,
            threads=threads,
            corpora=args.corpora,
            seed=args.seed,
            source=args.source,
            cranfield=args.cranfield,
            keep=args.keep_work,
        ) as bench:
            e2e_rows = e2e.run_e2e(bench)
            e2e_record = e2e.environment(bench)
            e2e_record["seconds"] = time.perf_counter() - started - micro_seconds
            e2e_record["selection"] = {
                **{k: list(v) if isinstance(v, tuple) else v for k, v in chosen.items()},
                "whole_plan": (plan.sizes, plan.rows) == (base.sizes, base.rows),
            }
        problems = [f"disagreement: {d}" for d in bench.disagreements]
        problems += [f"failed: {f}" for f in bench.failures]
    total = time.perf_counter() - started
    size = "quick" if args.quick else "full"
    if rows:
        render(
            rows,
            COLUMNS,
            f"ragsweep vs peers ({size} sizes, min of >= {repeats} rounds; "
            "ratio = ours / peer, < 1 is better)",
        )
    if e2e_rows:
        runs = "one run each" if plan.runs == 1 else f"{plan.runs} interleaved runs each"
        render(
            e2e_rows,
            e2e.E2E_COLUMNS,
            f"end to end ({size} sizes, {runs}; ratio = ours / peer for times, memory and "
            "shares, peer / ours for the speedup, the median of the runs' ratios, spread = "
            "their lowest-highest; target <= or >=, judged on the median)",
        )
    for problem in problems:
        log(problem)
    loads = " -> ".join("?" if x is None else f"{x:.2f}" for x in (load_start, e2e.load_average()))
    log(f"benchmark took {total:.0f} s; 1-minute load average {loads} (cores: {os.cpu_count()})")
    if args.json is not None:
        record = {
            "environment": {
                **environment(settings, args.quick, load_start),
                "commit": git_commit(e2e.ragsweep_root()),
                "benchmark_commit": git_commit(Path(__file__).resolve().parent),
            },
            "seconds_total": total,
            "seconds_microbenchmarks": micro_seconds,
            "columns": list(COLUMNS),
            "e2e_columns": list(e2e.E2E_COLUMNS),
            "end_to_end": e2e_record,
            "problems": problems,
            "rows": [r.record() for r in rows] + [r.record() for r in e2e_rows],
        }
        args.json.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
