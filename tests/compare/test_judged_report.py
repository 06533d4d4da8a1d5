"""A comparison on a labelled set mostly made by a model judge (80% of questions) and audited by
people (20%): the cells are corrected by the audit, the labels alone are shown beside them, the
judge's bias and the audit advice are reported, every rendering says so, and a set that cannot be
corrected says why and what would make it so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from ragsweep.compare import ppi, stats
from ragsweep.compare.build import build_report
from ragsweep.compare.files import write_report
from ragsweep.compare.format import judge_table
from ragsweep.compare.markdown import config_description, parent_description, to_markdown
from ragsweep.compare.summary import config_metrics, summary_metrics
from ragsweep.config import compose
from ragsweep.conventions import AUDITED_COLUMN, JUDGE_PREFIX
from ragsweep.data import sample_path
from ragsweep.data.manifest import write_manifest
from ragsweep.data.samplegen.judged import judged_copy
from ragsweep.scoring.evaluate import evaluate

COMMON = ["retriever=bm25", "cache.dir=null", "eval.split=all", "data.split.heldout=0"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("judged") / "set"
    judged_copy(sample_path(), root, audit_share=0.2, seed=0)
    common = [f"data.path={root}", *COMMON]
    base = evaluate(compose(common))
    cand = evaluate(compose([*common, "chunker.size=256"]))
    return root, {"base": base, "cand": cand, "weights": dict(compose(common).data.traffic_weights)}


def test_a_run_on_the_judged_set_carries_the_audit_and_the_judges_scores(runs) -> None:
    _, r = runs
    frame = r["base"].per_question
    assert int(frame[AUDITED_COLUMN].sum()) == 80 and len(frame) == 400
    judged = frame[JUDGE_PREFIX + "recall@5"].to_numpy()
    mine = frame["recall@5"].to_numpy()
    audited = frame[AUDITED_COLUMN].to_numpy() == 1
    # where nobody audited, the labels are the judge's: the same scores
    assert np.array_equal(judged[~audited], mine[~audited])
    assert not np.array_equal(judged[audited], mine[audited])  # the judge differs from people
    assert json.loads(frame[JUDGE_PREFIX + "labels"].iloc[0])


def test_the_cells_are_the_corrected_comparison_and_the_labels_alone_are_beside_them(
    runs,
) -> None:
    _, r = runs
    base, cand = r["base"].per_question, r["cand"].per_question
    report = build_report(base, {"256": cand}, decision="recall@5", weights=r["weights"])
    assert report.judge is not None and report.judge.problem is None
    assert report.method == ppi.METHOD
    # the headline cell is ppi.paired's, recomputed here from the frames
    order = base.sort_values("qid")
    c = cand.set_index("qid").loc[order["qid"]]
    diffs, _ = ppi.paired(
        np.array([order[JUDGE_PREFIX + "recall@5"], c[JUDGE_PREFIX + "recall@5"]]),
        np.array([order["recall@5"], c["recall@5"]]),
        order[AUDITED_COLUMN].to_numpy() == 1,
        order["slice"].to_numpy(dtype=object),
        ["256"],
        weights=r["weights"],
    )
    (cell,) = [
        x
        for x in stats.compare(diffs, level=0.95, correction="bonferroni")
        if x.stratum == "weighted"
    ]
    head = report.cell("256", "recall@5", "weighted")
    assert head["delta"] == pytest.approx(cell.delta, abs=1e-12)
    assert head["ci_low"] == pytest.approx(cell.ci_low, abs=1e-12)
    # the plain comparison is the one people-labelled sets get
    plain = stats.compare(
        stats.paired_differences(
            order["recall@5"].to_numpy(),
            c["recall@5"].to_numpy()[None],
            order["slice"].to_numpy(dtype=object),
            ["256"],
            weights=r["weights"],
        )
    )
    t = report.judge.table
    row = t[(t["stratum"] == "weighted") & (t["measure"] == "recall@5")].iloc[0]
    (p,) = [x for x in plain if x.stratum == "weighted"]
    assert row["plain_delta"] == pytest.approx(p.delta)
    assert row["plain_ci_low"] == pytest.approx(p.ci_low)
    assert row["audited"] == 80 and row["questions"] == 400
    # the judge's bias on the baseline: its mean score minus people's on the audited questions
    audited = base[AUDITED_COLUMN] == 1
    exc = base[audited & (base["slice"] == "exclusions")]
    bias = t[(t["stratum"] == "exclusions") & (t["measure"] == "recall@5")].iloc[0]
    expected = (exc[JUDGE_PREFIX + "recall@5"] - exc["recall@5"]).mean()
    assert bias["baseline_bias"] == pytest.approx(expected)
    # the audit advice names slices and counts
    assert report.judge.advice and "audit" in report.judge.advice[0]

    # every rendering says so, and MLflow gets both sides
    md = to_markdown(report)
    assert "Model-judged labels: 320 of 400 questions carry a model judge's labels" in md
    assert "labels alone" in md and "audit: 256:" in md
    # the runs' descriptions in MLflow say it in their first lines
    first = parent_description(report, None).split("\n## ")[0]
    assert "Model-judged labels: 320 of 400 questions carry a model judge's labels" in first
    assert "corrected by the audited questions" in config_description(report, "256", "size")
    caption, head_row, rows = judge_table(report)
    assert len(rows) == len(report.strata)
    metrics = config_metrics(report, "256")
    assert metrics["delta/recall_at_5/weighted"] == pytest.approx(cell.delta, abs=1e-12)
    assert metrics["uncorrected/delta/recall_at_5/weighted"] == pytest.approx(p.delta)
    parent = summary_metrics(report)
    assert parent["judge/audited/exclusions"] == 16
    assert parent["judge/bias/recall_at_5/exclusions"] == pytest.approx(expected)


def test_the_report_files_hold_the_judged_table(runs, tmp_path: Path) -> None:
    _, r = runs
    report = build_report(
        r["base"].per_question,
        {"256": r["cand"].per_question},
        decision="recall@5",
        weights=r["weights"],
    )
    written = write_report(report, tmp_path / "report")
    assert "judged.csv" in written
    saved = json.loads((tmp_path / "report" / "report.json").read_text())
    assert saved["judge"]["problem"] is None and len(saved["judge"]["table"]) == len(
        report.judge.table
    )
    assert "Model-judged labels" in (tmp_path / "report" / "report.html").read_text()


def test_a_slice_nobody_audited_leaves_the_labels_alone_and_says_what_would_fix_it(
    runs, tmp_path: Path
) -> None:
    root, r = runs
    copy = tmp_path / "unaudited"
    shutil.copytree(root, copy)
    frame = r["base"].per_question
    exc = set(frame.loc[frame["slice"] == "exclusions", "qid"])
    rows = [json.loads(x) for x in (copy / "review" / "prelabels.jsonl").read_text().splitlines()]
    dropped = {x["qid"] for x in rows if x["qid"] in exc}
    kept = [x for x in rows if x["qid"] not in exc]
    (copy / "review" / "prelabels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in kept))
    labels = [json.loads(x) for x in (copy / "labels.jsonl").read_text().splitlines()]
    model = rows[0]["model"]
    labels = [{**x, "model": model} if x["qid"] in dropped else x for x in labels]
    (copy / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    write_manifest(copy)
    common = [f"data.path={copy}", *COMMON]
    base = evaluate(compose(common)).per_question
    cand = evaluate(compose([*common, "chunker.size=256"])).per_question
    report = build_report(base, {"256": cand}, decision="recall@5", weights=r["weights"])
    assert report.judge is not None and report.judge.problem is not None
    assert "exclusions have fewer than 2 audited questions" in report.judge.problem
    assert report.method == stats.METHOD  # the labels' own comparison
    note = report.judge_note()
    assert note.startswith("MODEL-JUDGED LABELS, NOT CORRECTED")
    assert "inherits the judge's bias" in note
    assert "MODEL-JUDGED LABELS, NOT CORRECTED" in to_markdown(report)
