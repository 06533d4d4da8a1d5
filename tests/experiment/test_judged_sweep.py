"""A sweep on a set 80% labelled by a model judge and 20% audited by people, from the shell: the
printed report, the report files on the parent run and the MLflow metrics carry the corrected
intervals beside the labels' own, and `ragsweep report` rebuilds the same from the logged runs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from conftest import cli_in
from ragsweep.experiment import tracking
from ragsweep.experiment.logged import report_sweep


@pytest.mark.slow
def test_a_sweep_on_a_model_judged_set_is_corrected_everywhere_a_user_looks(
    tmp_path: Path,
) -> None:
    cli_in(tmp_path, "data", "sample", "--out", "judged", "--judged").ok()
    ran = cli_in(
        tmp_path,
        "-m",
        "data=folder",
        f"data.path={tmp_path / 'judged'}",
        "retriever=bm25",
        "chunker.size=128,256",
        "confirm.enabled=false",
        "hydra.launcher.n_jobs=1",
    ).ok()
    assert "Model-judged labels: 239 of 303 questions carry a model judge's labels" in ran.out
    assert "audit: 256: audit" in ran.out

    store = tracking.resolve_store(workdir=tmp_path)
    mc = tracking.client(store)
    exp = mc.get_experiment_by_name("sweep:chunker.size")
    runs = mc.search_runs([exp.experiment_id])
    (parent,) = [r for r in runs if r.data.tags.get("ragsweep.stage") == "sweep"]
    (cand,) = [r for r in runs if r.data.params.get("chunker.size") == "256"]
    files = Path(mc.download_artifacts(parent.info.run_id, "report", str(tmp_path / "dl")))
    judged = pd.read_csv(files / "judged.csv")
    row = judged[(judged["stratum"] == "weighted") & (judged["measure"] == "recall@5")].iloc[0]
    m = cand.data.metrics
    assert m["delta/recall_at_5/weighted"] == pytest.approx(row["delta"])
    assert m["ci_low/recall_at_5/weighted"] == pytest.approx(row["ci_low"])
    assert m["uncorrected/delta/recall_at_5/weighted"] == pytest.approx(row["plain_delta"])
    assert row["audited"] == 64 and row["questions"] == 303
    bias = judged[(judged["stratum"] == "exclusions") & (judged["measure"] == "recall@5")]
    assert parent.data.metrics["judge/audited/exclusions"] == bias["audited"].iloc[0] == 14
    assert parent.data.metrics["judge/bias/recall_at_5/exclusions"] == pytest.approx(
        bias["baseline_bias"].iloc[0]
    )
    assert "Model-judged labels" in (files / "report.md").read_text(encoding="utf-8")
    # `ragsweep report` rebuilds the corrected comparison from the logged per-question rows
    again = report_sweep("chunker.size", store=store, print_table=False)
    cell = again.cell("256", "recall@5", "weighted")
    assert cell["delta"] == pytest.approx(row["delta"], abs=1e-12)
    assert again.judge is not None and again.judge.problem is None
