"""Comparing configuration runs' results, wherever they were stored: read a run's folder, check
the runs are like for like, take the report settings from the baseline's config, build the
report (what each run records of it: `ragsweep.compare.summary`).

    records = [load_run_folder(path, name, run_id, tags) for ...]   # baseline first
    report = report_from_runs(records, factor="fusion.k", title="...", allow_mismatch=False)
    report = sweep_report({value: record, ...}, values=..., baseline="60", name=..., factor=...)

No MLflow here: `ragsweep.experiment.logged` downloads the folders and logs the results.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import OmegaConf

from ragsweep.compare.build import build_report
from ragsweep.compare.report import Report
from ragsweep.conventions import (
    ALL,
    UNJUDGED_BOUNDS,
    WEIGHTED,
    sweep_measures,
    tag,
    unjudged_rule,
)
from ragsweep.data.csvfile import read_csv_exact
from ragsweep.errors import UserError

#: config keys that change how a ranking is scored (not the ranking itself)
SCORING_KEYS = ("eval.gain", "eval.min_overlap", "eval.split", "eval.subset", "eval.unjudged")


@dataclass(frozen=True)
class RunRecord:
    """What a configuration run brings to a report."""

    name: str
    run_id: str
    tags: dict[str, str]
    per_question: pd.DataFrame
    slices: list[str]  # from its summary.csv: the dataset's slices in report order
    config: dict[str, Any]


def load_run_folder(
    folder: str | Path, name: str, run_id: str, tags: Mapping[str, str]
) -> RunRecord:
    """Read a folder laid out like a configuration run's artifacts: `results/per_question.csv`
    (required), `results/summary.csv` (the slices' order) and `config/config.yaml`."""
    root = Path(folder)
    pq = root / "results" / "per_question.csv"
    if not pq.exists():
        raise UserError(
            f"run {run_id} ({name}) has no results/per_question.csv artifact; is it a "
            "ragsweep configuration run?"
        )
    config = root / "config" / "config.yaml"
    if not config.exists():
        raise UserError(
            f"run {run_id} ({name}) has no config/config.yaml artifact; is it a ragsweep "
            "configuration run?"
        )
    frame = read_csv_exact(
        pq,
        dtype={"qid": str, "slice": str, "subset": str},
        keep_default_na=False,
        na_values=[""],
    )
    summary = root / "results" / "summary.csv"
    slices: list[str] = []
    if summary.exists():
        rows = pd.read_csv(summary, dtype={"slice": str}, keep_default_na=False)["slice"]
        slices = [s for s in rows if s not in (ALL, WEIGHTED)]
    cfg = OmegaConf.to_container(OmegaConf.load(config), resolve=False)
    return RunRecord(name, run_id, dict(tags), frame, slices, cfg if isinstance(cfg, dict) else {})


def report_defaults() -> dict[str, Any]:
    """The `report` config group's defaults (conf/report/default.yaml), used for settings a
    logged run's config lacks (runs logged before the group existed)."""
    text = files("ragsweep.conf").joinpath("report", "default.yaml").read_text(encoding="utf-8")
    loaded = OmegaConf.to_container(OmegaConf.create(text))
    return dict(loaded) if isinstance(loaded, dict) else {}


def _settings(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Report settings from a resolved config: the `report` block (defaults where missing),
    eval.k_prompt and eval.traffic_weights."""
    block = {**report_defaults(), **dict(cfg.get("report") or {})}
    ev = dict(cfg.get("eval") or {})
    if "k_prompt" not in ev:
        raise UserError(
            "the baseline run's config/config.yaml has no eval.k_prompt; it was not "
            "logged by ragsweep"
        )
    block["k_prompt"] = int(ev["k_prompt"])
    block["traffic_weights"] = ev.get("traffic_weights")
    block["unjudged"] = unjudged_rule(ev.get("unjudged"))
    block["gain"] = str(ev.get("gain", "exp"))
    block["guard_slices"] = [str(s) for s in (block["guard_slices"] or [])]
    return block


def _select(config: Mapping[str, Any], dotted: str) -> Any:
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


#: what a scoring key meant in runs logged before it existed
_BEFORE_THE_KEY = {"eval.unjudged": UNJUDGED_BOUNDS}


def _scoring_value(config: Mapping[str, Any], key: str) -> Any:
    value = _select(config, key)
    return _BEFORE_THE_KEY.get(key) if value is None else value


#: what each pin of a configuration run holds fixed (tag `ragsweep.<pin>`)
PIN_NAMES = {"labels": "labelled set", "snapshot": "corpus snapshot", "split": "split"}


@dataclass(frozen=True)
class Mismatch:
    """What makes `run` not like for like with the baseline: a pin (`labels`, `snapshot`,
    `split`: `key` is the pin's name) or a scoring key (`eval.gain`, ...) with another value."""

    key: str
    mine: Any
    theirs: Any

    @property
    def pin(self) -> bool:
        return self.key in PIN_NAMES

    @property
    def what(self) -> str:
        return PIN_NAMES.get(self.key, self.key)


def mismatches(
    base: RunRecord, run: RunRecord, pins: Sequence[str] = ("labels", "snapshot")
) -> list[Mismatch]:
    """Each way `run` was scored unlike `base`: the `pins` first, then `SCORING_KEYS`."""
    found = [
        Mismatch(pin, run.tags.get(tag(pin)), base.tags.get(tag(pin)))
        for pin in pins
        if run.tags.get(tag(pin)) != base.tags.get(tag(pin))
    ]
    for key in SCORING_KEYS:  # the same ranking scored by another rule is another number
        mine, theirs = _scoring_value(run.config, key), _scoring_value(base.config, key)
        if mine != theirs:
            found.append(Mismatch(key, mine, theirs))
    return found


def _like_for_like(runs: Sequence[RunRecord], allow_mismatch: bool) -> tuple[bool, list[str]]:
    """Refuse (or, with `allow_mismatch`, note) runs on another labelled set or snapshot."""
    base, notes = runs[0], []
    for run in runs[1:]:
        for m in mismatches(base, run):
            if m.pin:
                text = (
                    f"{run.name} (run {run.run_id}) was scored on {m.what} {str(m.mine)[:12]}, "
                    f"the baseline {base.name} on {str(m.theirs)[:12]}"
                )
                fix = f"re-run the baseline on the same {m.what}"
            else:
                text = (
                    f"{run.name} (run {run.run_id}) was scored with {m.key}={m.mine}, the "
                    f"baseline {base.name} with {m.key}={m.theirs}"
                )
                fix = "score both the same way"
            if not allow_mismatch:
                raise UserError(
                    f"{text}: not like for like; {fix}, or pass --allow-mismatch to compare anyway"
                )
            notes.append(f"not like for like: {text}")
    return not notes, notes


def report_from_runs(
    runs: Sequence[RunRecord],
    *,
    factor: str | None,
    title: str,
    allow_mismatch: bool,
    notes: Sequence[str] = (),
) -> Report:
    """The report of `runs` (the first is the baseline) against it, with the settings of the
    baseline's config (`report.*`, `eval.k_prompt`, `eval.traffic_weights`: equal weights when
    null, as the runs' own `weighted` rows) and the measures the decision rule picks for
    `factor`. Runs not like for like are refused unless `allow_mismatch` (then noted)."""
    like, mismatch = _like_for_like(runs, allow_mismatch)
    base = runs[0]
    s = _settings(base.config)
    decision, shown = sweep_measures(s["k_prompt"], factor)
    present = list(dict.fromkeys(base.per_question["slice"].astype(str)))
    weights = s["traffic_weights"]
    if weights is None:  # equal weights, as the runs' own `weighted` rows
        weights = {sl: 1.0 for sl in present}
    return build_report(
        base.per_question,
        {r.name: r.per_question for r in runs[1:]},
        decision=decision,
        baseline_name=base.name,
        measures=shown,
        slices=base.slices or None,
        weights=weights,
        guard_slices=s["guard_slices"],
        correction=str(s["correction"]),
        level=float(s["level"]),
        target_gap=float(s["target_gap"]),
        factor=factor,
        title=title,
        notes=[*mismatch, *notes],
        like_for_like=like,
        unjudged=s["unjudged"],
        gain=s["gain"],
        subset=None if (part := _select(base.config, "eval.subset")) is None else str(part),
    )


def with_run_ids(report: Report, runs: Sequence[RunRecord]) -> Report:
    """`report` naming each run's id (`Report.run_ids`), so a later stage can fetch it again."""
    return replace(report, run_ids={r.name: r.run_id for r in runs})


def _label(factor: str | None, value: str) -> str:
    return f"{factor}={value}" if factor else value


def sweep_values(
    available: Iterable[str],
    *,
    values: Sequence[str],
    baseline: str,
    name: str,
    factor: str | None,
) -> tuple[list[str], list[str]]:
    """(the values a sweep's report compares, baseline first; notes): every value with a
    finished run in `available`, in the sweep's order `values` (others after, sorted). Refuses
    a sweep whose baseline has no finished run or that has nothing else to compare."""
    done = set(available)
    order = [*values, *sorted(v for v in done if v not in values)]
    label = _label(factor, baseline)
    if baseline not in done:
        raise UserError(
            f"the baseline {label} of sweep {name!r} has no FINISHED run to compare "
            "with; launch the sweep again to finish it"
        )
    missing = [v for v in order if v not in done]
    notes = [f"left out, no FINISHED run: {', '.join(missing)}"] if missing else []
    chosen = [baseline, *(v for v in order if v in done and v != baseline)]
    if len(chosen) < 2:
        raise UserError(
            f"sweep {name!r} has no FINISHED configuration besides the baseline "
            f"{label}: nothing to compare"
        )
    return chosen, notes


def sweep_report(
    records: Mapping[str, RunRecord],
    *,
    values: Sequence[str],
    baseline: str,
    name: str,
    factor: str | None,
    allow_mismatch: bool = False,
    notes: Sequence[str] = (),
    launch: str | None = None,
) -> Report:
    """The report of sweep `name` over `factor`: each finished value's run in `records`
    (value -> run) against the `baseline` value's (see `sweep_values`), naming the run ids.
    `launch` (the parent run's name, `chunk_size #2`) titles it when given."""
    chosen, left_out = sweep_values(
        records, values=values, baseline=baseline, name=name, factor=factor
    )
    runs = [records[v] for v in chosen]
    report = report_from_runs(
        runs,
        factor=factor,
        title=(
            f"sweep {launch or name}: {factor or 'configurations'} against the baseline "
            f"{_label(factor, baseline)}"
        ),
        allow_mismatch=allow_mismatch,
        notes=[*notes, *left_out],
    )
    return replace(with_run_ids(report, runs), sweep=name)
