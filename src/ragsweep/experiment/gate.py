"""The release gate (`ragsweep gate`): a candidate release against a pinned baseline on the
labelled set, pass or fail, with what flipped.

    base = read_side("ci/baseline.json")                  # or a run id, a passages or TREC run
    cand = read_side("release-b.jsonl", data=..., split=base.split)
    gate = run_gate(base, cand)                           # compare.gate.Gate: passed, failures
    write_pinned(cand, Path("ci/baseline.json"))          # pin a release as the next baseline

A side is read from a baseline file this module wrote (`write_pinned`: the per-question scores
with the pins they were scored on, kept in the repository), an MLflow run id (a configuration or
`score-passages` run), a passages run file (`.jsonl`, scored here as `score-passages` scores it,
nothing logged) or a TREC run (with `--qrels`). Two sides scored on other labels, another
snapshot, split or scoring rule are refused (not like for like) with the command that pins the
baseline again. The rule and the files are `ragsweep.compare.gate`; docs/ci.md.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from omegaconf import OmegaConf

from ragsweep import __version__
from ragsweep import conventions as cv
from ragsweep.compare.gate import Gate, decide
from ragsweep.compare.report import Report
from ragsweep.compare.runs import PIN_NAMES, RunRecord, mismatches, report_from_runs
from ragsweep.config import packaged_default
from ragsweep.data.write import replace_file
from ragsweep.errors import DatasetError, UserError

#: what a baseline file says it is (`write_pinned`, `read_pinned`)
PINNED_KIND, PINNED_VERSION = "ragsweep gate baseline", 1
#: how each kind of side is named in messages
PASSAGES, TREC, RUN, PINNED = "passages run", "TREC run", "MLflow run", "baseline file"
_RUN_ID = re.compile(r"[0-9a-f]{32}")
#: the config blocks a baseline file keeps: how its rankings were scored and compared
_KEPT_BLOCKS = ("eval", "report")


@dataclass(frozen=True)
class Side:
    """One side of the gate: its scores (`record`), what kind of source it came from and how
    to score it again (`source`: the file or run id as given; `pin_again`: the arguments of
    `ragsweep gate` that pin it again, when known)."""

    record: RunRecord
    kind: str
    source: str
    pin_again: str = ""

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def split(self) -> str | None:
        """The split's name it was scored on (`dev`, `heldout`, `all`), when known."""
        return self.record.tags.get(cv.tag("split_name")) or None

    def pin(self, name: str) -> str:
        return str(self.record.tags.get(cv.tag(name), ""))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def kind_of(spec: str, *, qrels: str | None = None, option: str = "--candidate") -> str:
    """What kind of side `spec` names (`PINNED`, `PASSAGES`, `TREC`, `RUN`), checked without
    reading it: a missing file or a TREC run without qrels is refused before any scoring."""
    path = Path(spec)
    if path.is_dir():
        raise UserError(
            f"{option} {spec}: is a folder; give a run file, a baseline file or a run id"
        )
    if path.is_file():
        if path.suffix == ".json":
            return PINNED
        if path.suffix == ".jsonl":
            return PASSAGES
        if qrels is None:
            raise UserError(
                f"{option} {spec}: a TREC run is scored against TREC qrels; give --qrels FILE "
                "(and --slices FILE for slices), or a passages run (.jsonl) for the dataset's "
                "labels"
            )
        return TREC
    if _RUN_ID.fullmatch(spec):
        return RUN
    raise UserError(
        f"{option} {spec}: no such file, and not an MLflow run id (32 hex characters); give a "
        "passages run (.jsonl), a TREC run, a baseline file (.json) or a run id"
    )


def read_side(
    spec: str,
    *,
    data: str | None = None,
    split: str | None = None,
    qrels: str | None = None,
    slices: str | None = None,
    overrides: Sequence[str] = (),
    tracking_uri: str | None = None,
    option: str = "--candidate",
) -> Side:
    """The side `spec` names (see the module docstring); `option` names it in errors."""
    kind = kind_of(spec, qrels=qrels, option=option)
    path = Path(spec)
    if kind == PINNED:
        return read_pinned(path)
    if kind == PASSAGES:
        return _passages_side(path, data=data, split=split or "dev", overrides=overrides)
    if kind == TREC:
        assert qrels is not None
        return _trec_side(path, qrels=qrels, slices=slices)
    return _run_side(spec, tracking_uri)


def _passages_side(path: Path, *, data: str | None, split: str, overrides: Sequence[str]) -> Side:
    from ragsweep.data.passages import read_passage_run
    from ragsweep.scoring.passages import passages_config, score_passages

    run = read_passage_run(path)
    cfg = passages_config(run, data=data, split=split, overrides=overrides)
    result = score_passages(cfg, run).result
    slices = [s for s in result.summary.index if s not in (cv.ALL, cv.WEIGHTED)]
    record = RunRecord(
        name=path.stem,
        run_id="",
        tags={**result.tags, cv.tag("run_file"): path.name},
        per_question=result.per_question,
        slices=slices,
        config={b: result.config[b] for b in _KEPT_BLOCKS},
    )
    again = f"--candidate {path}" + (f" --data {data}" if data else "") + f" --split {split}"
    return Side(record, PASSAGES, str(path), pin_again=again)


def _trec_side(path: Path, *, qrels: str, slices: str | None) -> Side:
    from ragsweep.data.importers.reading import read_slices
    from ragsweep.scoring.run_files import score_runs

    ev, rep = packaged_default("eval"), packaged_default("report")
    decision, shown = cv.sweep_measures(int(ev.k_prompt), None)
    measures = tuple(dict.fromkeys([decision, *shown, *cv.SLICE_DECISION.values()]))
    assign = dict(read_slices(slices).assign) if slices else None
    (frame,) = score_runs(qrels, [path], measures, str(ev.gain), assign).values()
    order = list(dict.fromkeys(assign.values())) if assign else [cv.ALL]
    config = {
        "eval": {
            **OmegaConf.to_container(ev, resolve=True),  # type: ignore[dict-item]
            "split": "all",
            "subset": "all",
            "traffic_weights": None,
        },
        "report": OmegaConf.to_container(rep, resolve=True),
    }
    tags = {
        cv.tag("labels"): _sha256(Path(qrels)),
        cv.tag("snapshot"): "",
        cv.tag("split"): _sha256(Path(slices)) if slices else "",
        cv.tag("split_name"): "all",
        cv.tag("run_file"): path.name,
    }
    record = RunRecord(path.name, "", tags, frame, order, config)
    again = f"--candidate {path} --qrels {qrels}" + (f" --slices {slices}" if slices else "")
    return Side(record, TREC, str(path), pin_again=again)


def _run_side(run_id: str, tracking_uri: str | None) -> Side:
    from ragsweep.experiment import tracking
    from ragsweep.experiment.logged import get_run, load_logged_run, store_client

    store = tracking.resolve_store(tracking_uri) if tracking_uri else None
    store, mc = store_client(store)
    run = get_run(mc, run_id)
    if run is None:
        raise UserError(f"no run with id {run_id} in this MLflow store ({store.uri})")
    with tempfile.TemporaryDirectory(prefix="ragsweep-gate-") as folder:
        record = load_logged_run(mc, run, run.info.run_name or run_id, Path(folder))
    again = f"--candidate {run_id}"
    return Side(record, RUN, run_id, pin_again=again)


# ----------------------------------------------------------------------------- baseline files


def _plain(frame: pd.DataFrame) -> dict[str, list[Any]]:
    """A frame as JSON-ready columns: NaN as null, numpy scalars as Python numbers."""
    out: dict[str, list[Any]] = {}
    for col in frame.columns:
        values = frame[col].tolist()
        out[str(col)] = [
            None if isinstance(v, float) and np.isnan(v) else v.item() if hasattr(v, "item") else v
            for v in values
        ]
    return out


def write_pinned(side: Side, path: Path) -> None:
    """Write `side` as a baseline file at `path` (whole or not at all): its per-question scores,
    the pins they were scored on, the eval and report settings, and where it came from."""
    r = side.record
    body = {
        "kind": PINNED_KIND,
        "version": PINNED_VERSION,
        "ragsweep": __version__,
        "name": r.name,
        "source": {"kind": side.kind, "given": side.source, "pin_again": side.pin_again},
        "tags": {k: v for k, v in sorted(r.tags.items()) if k.startswith(cv.TAG_PREFIX)},
        "config": {b: r.config.get(b) for b in _KEPT_BLOCKS},
        "slices": list(r.slices),
        "per_question": _plain(r.per_question),
    }
    text = json.dumps(body, indent=1, ensure_ascii=False, allow_nan=False)
    replace_file(path, text + "\n")


def read_pinned(path: Path) -> Side:
    """A baseline file `write_pinned` wrote; anything else is one line naming the file."""
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DatasetError(
            path, f"not a baseline file ({err}); write one with `ragsweep gate --pin`"
        ) from None
    if not isinstance(body, dict) or body.get("kind") != PINNED_KIND:
        raise DatasetError(
            path,
            f'not a ragsweep baseline file (no "kind": "{PINNED_KIND}"); write one with '
            "`ragsweep gate --candidate RUN --pin FILE`",
        )
    if body.get("version") != PINNED_VERSION:
        raise DatasetError(
            path,
            f"baseline file version {body.get('version')!r}, this ragsweep reads version "
            f"{PINNED_VERSION}; pin the baseline again with this ragsweep",
            field="version",
        )
    try:
        frame = pd.DataFrame(body["per_question"])
        for col in ("qid", "slice", "subset"):
            if col in frame:
                frame[col] = frame[col].astype(str)
        source = body["source"]
        record = RunRecord(
            name=str(body["name"]),
            run_id="",
            tags={str(k): str(v) for k, v in body["tags"].items()},
            per_question=frame,
            slices=[str(s) for s in body["slices"]],
            config=dict(body["config"]),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise DatasetError(
            path, f"a baseline file lacks or garbles {err}; pin the baseline again"
        ) from None
    return Side(record, PINNED, str(path), pin_again=str(source.get("pin_again", "")))


# ----------------------------------------------------------------------------- the gate


def _rebaseline(base: Side) -> str:
    """How to pin `base` again on the current labels."""
    if base.kind == PINNED and base.pin_again:
        again = f"ragsweep gate {base.pin_again} --pin {base.source}"
        return f"pin the baseline again on these labels: {again}"
    if base.kind == RUN:
        return (
            "score the baseline again on these labels (`ragsweep labels rebaseline SWEEP` for a "
            "sweep's configuration, `ragsweep score-passages --run FILE` for a release) and gate "
            "against that run"
        )
    return "score both on the same labels"


def check_like_for_like(base: Side, cand: Side) -> None:
    """Refuse two sides scored on other labels, snapshot, split or scoring rule."""
    for m in mismatches(base.record, cand.record, pins=tuple(PIN_NAMES)):
        if not m.pin:
            if None in (m.mine, m.theirs):  # a TREC side has no such key
                continue
            raise UserError(
                f"{cand.name} was scored with {m.key}={m.mine}, the baseline {base.name} with "
                f"{m.key}={m.theirs}: not like for like; score both the same way"
            )
        if m.key == "labels":
            fix = _rebaseline(base)
        elif m.key == "snapshot":
            fix = (
                "the two runs answer different datasets; pass --data for the dataset the "
                f"baseline answers ({base.record.tags.get(cv.tag('dataset'), 'see its tags')})"
            )
        else:
            fix = f"score the candidate on the baseline's split (--split {base.split or 'dev'})"
        raise UserError(
            f"{cand.name} was scored on {m.what} {str(m.mine or '(none)')[:12]}, the baseline "
            f"{base.name} ({base.kind} {base.source}) on {str(m.theirs or '(none)')[:12]}: "
            f"not like for like; {fix}"
        )


def compare_sides(base: Side, cand: Side) -> Report:
    """The candidate against the baseline, after `check_like_for_like`."""
    check_like_for_like(base, cand)
    if cand.name == base.name:
        cand = replace(cand, record=replace(cand.record, name=f"{cand.name} (candidate)"))
    return report_from_runs(
        [base.record, cand.record],
        factor=None,
        title=f"{cand.name} against the baseline {base.name}",
        allow_mismatch=True,  # checked above, with the gate's own messages
    )


def run_gate(base: Side, cand: Side, needs_judging: str = "fail") -> Gate:
    """Gate `cand` against `base` (`compare.gate.decide`)."""
    return decide(compare_sides(base, cand), needs_judging=needs_judging)
