"""Judge agreement in a sweep's report: the experiment layer loads the dataset the baseline run
was scored on and notes the slices where reviewer2 and labels.jsonl agree weakly; the note
reaches the printed report and the report files, at launch and in `ragsweep report`."""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from conftest import cli_in
from ragsweep.compare.runs import RunRecord
from ragsweep.data import load_dataset
from ragsweep.errors import UserError
from ragsweep.experiment.judges import agreement_threshold, judge_notes
from toy import TINY, TOY

#: one worker process: the sweep is two toy configurations, starting a second costs more
ONE_JOB = ["hydra.launcher.n_jobs=1"]
NOTE = "judges agree weakly on limits (reviewer2 vs labels.jsonl: kappa 0.500 < 0.6 on 3 reviewed"


def _baseline(
    config: dict[str, Any], slices: list[str] | None = None, labels: str | None = None
) -> RunRecord:
    """A baseline run record: its config, the slices its per-question rows cover, its tags."""
    covered = slices or ["limits", "exclusions"]
    rows = pd.DataFrame({"qid": [f"q{i}" for i in range(len(covered))], "slice": covered})
    tags = {} if labels is None else {"ragsweep.labels": labels}
    return RunRecord("60", "rid", tags, rows, covered, config)


def _on(path: Path | str | None, **report: Any) -> dict[str, Any]:
    return {"data": {"path": None if path is None else str(path)}, "report": report}


def test_the_baseline_config_names_the_dataset_and_the_threshold() -> None:
    tiny_hash = load_dataset(TINY).labels_hash
    (note,) = judge_notes(_baseline(_on(TINY), labels=tiny_hash))
    assert note.startswith(NOTE) and note.endswith("tighten relevance.md and re-judge")
    assert judge_notes(_baseline(_on(TINY, agreement_threshold=0.4))) == []
    assert judge_notes(_baseline(_on(TINY, agreement_threshold=None))) == []  # null: off
    assert judge_notes(_baseline(_on(TINY), slices=["exclusions"])) == []  # limits not covered
    # the sample flags no slice at 0.6; its lowest is exclusions (kappa 0.631 on 708 reviewed
    # items), flagged alone at 0.64 (procedures 0.641 next)
    assert judge_notes(_baseline(_on(None), slices=list(load_dataset().slices))) == []
    at = _on(None, agreement_threshold=0.64)
    sample = judge_notes(_baseline(at, slices=["limits", "exclusions", "identifiers"]))
    assert [n.split(" (")[0] for n in sample] == ["judges agree weakly on exclusions"]
    assert judge_notes(_baseline(at, slices=["limits", "procedures", "definitions"])) == []
    assert judge_notes(_baseline({"report": {}})) == []  # no data block: no dataset to check


def test_a_dataset_without_a_second_reviewer_gives_no_note(tmp_path: Path) -> None:
    root = Path(shutil.copytree(TINY, tmp_path / "tiny"))
    shutil.rmtree(root / "review")
    assert judge_notes(_baseline(_on(root))) == []


def test_agreement_is_not_checked_on_other_labels_or_a_missing_dataset(tmp_path: Path) -> None:
    (note,) = judge_notes(_baseline(_on(TINY), labels="f" * 64))
    assert note.startswith("judge agreement not checked: the dataset at ")
    assert note.endswith("the runs were scored on ffffffffffff")
    (note,) = judge_notes(_baseline(_on(tmp_path / "gone")))
    assert note.startswith("judge agreement not checked: the dataset does not load (")
    assert "no such folder" in note


def test_the_threshold_defaults_to_0_6_and_must_be_a_number() -> None:
    assert agreement_threshold({}) == 0.6  # runs logged before the setting existed
    assert agreement_threshold({"report": {"agreement_threshold": 0.7}}) == 0.7
    assert agreement_threshold({"report": {"agreement_threshold": None}}) is None
    with pytest.raises(UserError, match=r"report\.agreement_threshold must be a number"):
        agreement_threshold({"report": {"agreement_threshold": "high"}})


def _one_line(text: str) -> str:
    return " ".join(text.split())  # the console wraps long notes


@pytest.mark.slow
def test_a_sweep_on_the_toy_data_notes_the_weak_slice(tmp_path: Path) -> None:
    from ragsweep.experiment import tracking
    from ragsweep.experiment.logged import report_sweep

    ran = cli_in(tmp_path, "-m", *TOY, "fusion.k=10,60", "confirm.enabled=false", *ONE_JOB).ok()
    assert f"note: {NOTE}" in _one_line(ran.out)
    store = tracking.resolve_store(workdir=tmp_path)
    mc = tracking.client(store)
    exp = mc.get_experiment_by_name("sweep:fusion.k")
    (parent,) = [
        r
        for r in mc.search_runs([exp.experiment_id])
        if r.data.tags.get("ragsweep.stage") == "sweep"
    ]
    files = Path(mc.download_artifacts(parent.info.run_id, "report", str(tmp_path / "dl")))
    assert f"- {NOTE}" in (files / "report.md").read_text(encoding="utf-8")
    assert f"<li>{html.escape(NOTE)}" in (files / "report.html").read_text(encoding="utf-8")
    logged = json.loads((files / "report.json").read_text(encoding="utf-8"))["notes"]
    assert [n for n in logged if n.startswith("judges agree")] == [logged[0]]
    # `ragsweep report` rebuilds it from the logged runs, with the note once
    again = report_sweep("fusion.k", store=store, print_table=False)
    assert [n for n in again.notes if n.startswith("judges agree")] == [logged[0]]


def test_a_stored_agreement_replaces_the_reviewer_check(tmp_path: Path) -> None:
    """review/agreement.json (labels agreement --save): the overall kappa with its interval,
    then the covered slices below the threshold, from the record, not from reviewer2."""
    root = Path(shutil.copytree(TINY, tmp_path / "tiny"))
    rows = [
        {"slice": "limits", "items": 9, "questions": 3, "kappa": 0.41, "low": 0.1, "high": 0.7,
         "status": "below"},
        {"slice": "exclusions", "items": 8, "questions": 3, "kappa": 0.9, "low": 0.8,
         "high": 1.0, "status": "ok"},
        {"slice": "all", "items": 17, "questions": 6, "kappa": 0.66, "low": 0.45, "high": 0.85,
         "status": "ok"},
    ]  # fmt: skip
    record = {
        "judges": ["ann", "bob"], "files": ["a.csv", "b.csv"], "at": "2026-01-05",
        "labels_hash": "x", "threshold": 0.6, "interval": {}, "slices": rows,
    }  # fmt: skip
    (root / "review" / "agreement.json").write_text(json.dumps(record))
    notes = judge_notes(_baseline(_on(root)))
    assert notes == [
        "judge agreement (ann vs bob, review/agreement.json of 2026-01-05): kappa 0.660 "
        "[0.45, 0.85] on 17 items of 6 questions (95% bootstrap interval over questions)",
        "judges agree weakly on limits (ann vs bob: kappa 0.410 [0.10, 0.70] < 0.6 on 9 items): "
        "differences on this slice measure the labels as much as the retriever; tighten "
        "relevance.md and re-judge",
    ]
    assert len(judge_notes(_baseline(_on(root), slices=["exclusions"]))) == 1  # limits not covered


def test_given_the_dataset_the_notes_read_no_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragsweep.experiment import judges

    ds = load_dataset(TINY)

    def no_load(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the folder was loaded again")

    monkeypatch.setattr(judges, "load_dataset", no_load)
    (note,) = judge_notes(_baseline(_on(TINY), labels=ds.labels_hash), ds)
    assert note.startswith(NOTE)


def test_a_sweeps_finish_notes_from_the_dataset_it_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finish step takes the dataset the sweep shared with its configurations (kept in the
    launcher), not the folder loaded, read and hashed whole, once more."""
    from ragsweep.experiment import judges

    def no_load(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the finish step loaded the dataset folder again")

    monkeypatch.setattr(judges, "load_dataset", no_load)
    ran = cli_in(tmp_path, "-m", *TOY, "fusion.k=10,60", "confirm.enabled=false").ok()
    assert f"note: {NOTE}" in _one_line(ran.out)
