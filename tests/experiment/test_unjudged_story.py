"""The chapter's story on the built-in sample, end to end: 256-word chunks beat the baseline's
128 on recall@5; drop the labels of the clauses only the candidate's top 5 reaches (as labels
made from the old system would lack them) and the sweep must read `needs judging`, not
`worse`, on the candidate's run, with the commands that close the gap. Those commands then
close it: pool the sweep, judge the sheet with the original labels as the judge, import,
rebaseline: the verdict comes back to `better`, on the new labels hash."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from conftest import cli_in
from ragsweep.compare.build import build_report
from ragsweep.compare.report import BETTER, NEEDS_JUDGING
from ragsweep.config import compose
from ragsweep.scoring.evaluate import evaluate

SAMPLE = Path(__file__).parents[2] / "src" / "ragsweep" / "data" / "sample"


def _clause_id(row: dict) -> str:
    return f"{row['document']}/{row['section']}@{row['version']}"


@pytest.mark.slow
def test_labels_from_the_old_system_make_the_candidate_need_judging(tmp_path: Path) -> None:
    copy = tmp_path / "sample"
    shutil.copytree(SAMPLE, copy)
    (copy / "MANIFEST.sha256").unlink()  # labels.jsonl changes below
    shutil.rmtree(copy / "review")  # review files grade only pairs labels.jsonl judges
    common = [f"data.path={copy}", "cache.dir=null"]
    cfg = compose(common)
    base, cand = evaluate(cfg), evaluate(compose([*common, "chunker.size=256"]))
    weights = dict(cfg.data.traffic_weights)
    truth = build_report(
        base.per_question, {"256": cand.per_question}, decision="recall@5", weights=weights
    )
    assert truth.decision_of("256").decision == BETTER  # on the full labels

    only_cand = set()
    for q, a, b in zip(
        base.per_question["qid"],
        base.per_question["clauses"],
        cand.per_question["clauses"],
        strict=True,
    ):
        seen = {c for covered in json.loads(a)[:5] for c in covered}
        only_cand |= {(q, c) for covered in json.loads(b)[:5] for c in covered if c not in seen}
    rows = [json.loads(line) for line in (copy / "labels.jsonl").read_text().splitlines()]
    kept = [r for r in rows if (r["qid"], _clause_id(r)) not in only_cand]
    # a question whose every relevant clause only the candidate reaches would leave the set, not
    # need judging: it keeps its labels (on the sample: a few questions)
    orphans = {r["qid"] for r in rows if r["grade"] >= 1} - {
        r["qid"] for r in kept if r["grade"] >= 1
    }
    assert len(orphans) <= 5, orphans  # the story is about the many questions that keep one
    only_cand = {(q, c) for q, c in only_cand if q not in orphans}
    kept = [r for r in rows if (r["qid"], _clause_id(r)) not in only_cand]
    assert {r["qid"] for r in kept if r["grade"] >= 1} == {r["qid"] for r in rows}
    (copy / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))

    ran = cli_in(tmp_path, "-m", f"data.path={copy}", "chunker.size=128,256").ok()
    assert "needs judging" in ran.out
    assert "ragsweep labels pool --sweep" in ran.out
    assert "ragsweep labels rebaseline" in ran.out
    decisions = {
        r.data.params.get("chunker.size"): r.data.tags.get("ragsweep.decision")
        for e in ran.store.client.search_experiments()
        for r in ran.store.client.search_runs([e.experiment_id])
        if r.data.tags.get("ragsweep.stage") == "config"
    }
    assert decisions == {"128": "baseline", "256": NEEDS_JUDGING}
    # every configuration run logs the share of its top 5 nobody judged
    cand_run = next(
        r
        for e in ran.store.client.search_experiments()
        for r in ran.store.client.search_runs([e.experiment_id])
        if r.data.params.get("chunker.size") == "256"
    )
    assert cand_run.data.metrics["unjudged_at_5/weighted"] > 0.2

    # close the gap as the report says: pool the sweep's unjudged top-5 pairs, judge them with
    # the original labels as the judge, import, re-score every configuration
    sheet = tmp_path / "sheet.csv"
    pooled = cli_in(tmp_path, "labels", "pool", "--sweep", "chunker.size", "--out", str(sheet))
    pooled.ok()
    original = {(r["qid"], _clause_id(r)): int(r["grade"]) for r in rows}
    judging = pd.read_csv(sheet, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    pairs = {
        (q, f"{d}/{sec}@{v}")
        for q, d, sec, v in zip(
            judging["qid"],
            judging["document"],
            judging["section"],
            judging["clause_version"],
            strict=True,
        )
    }
    dropped = {p for p in only_cand if p in original}
    assert dropped <= pairs  # every label dropped is on the sheet: what the candidate ranks
    from ragsweep.labelling.sheetfile import write_sheet_frame

    judging["grade"] = [
        str(original.get((q, f"{d}/{sec}@{v}"), 0))
        for q, d, sec, v in zip(
            judging["qid"],
            judging["document"],
            judging["section"],
            judging["clause_version"],
            strict=True,
        )
    ]
    write_sheet_frame(judging, sheet)
    cli_in(tmp_path, "labels", "import", str(sheet), "--data", str(copy), "--judge", "orig").ok()
    again = cli_in(tmp_path, "labels", "rebaseline", "chunker.size").ok()
    assert "256: better" in again.out, again.out
    assert "not like for like" in again.out
    rescored = {
        r.data.params.get("chunker.size"): r.data.tags.get("ragsweep.decision")
        for e in again.store.client.search_experiments()
        for r in again.store.client.search_runs([e.experiment_id])
        if r.data.tags.get("ragsweep.stage") == "rebaseline"
    }
    assert rescored == {"128": "baseline", "256": BETTER}
