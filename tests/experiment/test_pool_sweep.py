"""`ragsweep labels pool --sweep NAME | --runs ID ...`: a judging sheet of exactly the unjudged
(question, clause) pairs in the top-k of a logged sweep's configurations; judged with the
original labels, imported and re-scored by `labels rebaseline`, every configuration's scores
come back to those of the original labels. Bad input is one line, exit 2, nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from conftest import Store, cli_in, quality
from toy import TINY, TOY

#: the sweep: 16- and 32-word chunks against the default 128, deciding on recall@3; its values
#: in the sweep's order, the baseline first
K = 3
SWEEP = ["chunker.overlap=4", f"eval.k_prompt={K}", "confirm.enabled=false"]
VALUES = ("128", "16", "32")
EXPERIMENT = "sweep:chunker.size"
#: labels dropped before the sweep: each in some configuration's top 3 (checked below), each
#: question keeping a relevant clause
DROPPED = {("q02", "home/2.2@2025"), ("q08", "home/2.2@2024")}
#: explicit grade-0 labels in the top 3: judged, so never on the sheet
ZEROS = {("q03", "home/2.1@2025"), ("q04", "motor/1.1@2024")}


def _cid(row: dict) -> str:
    return f"{row['document']}/{row['section']}@{row['version']}"


def _labels(root: Path) -> dict[tuple[str, str], int]:
    rows = [json.loads(line) for line in (root / "labels.jsonl").read_text().splitlines() if line]
    return {(r["qid"], _cid(r)): int(r["grade"]) for r in rows}


def _sheet_pairs(path: Path) -> set[tuple[str, str]]:
    sheet = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    return {
        (q, f"{d}/{s}@{v}")
        for q, d, s, v in zip(
            sheet["qid"], sheet["document"], sheet["section"], sheet["clause_version"], strict=True
        )
    }


def _data_overrides(data: Path) -> list[str]:
    return [f"data.path={data}" if o.startswith("data.path=") else o for o in TOY]


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """The toy dataset without `DROPPED`'s labels, swept over chunker.size=16,32 (+128)."""
    folder = tmp_path_factory.mktemp("pool_sweep")
    data = folder / "tiny"
    shutil.copytree(TINY, data)
    shutil.rmtree(data / "review")  # its second reviewer grades the dropped pairs too
    path = data / "labels.jsonl"
    kept = [
        line
        for line in path.read_text().splitlines()
        if line and (json.loads(line)["qid"], _cid(json.loads(line))) not in DROPPED
    ]
    assert len(kept) == len(path.read_text().splitlines()) - len(DROPPED)
    path.write_text("".join(f"{line}\n" for line in kept))
    cli_in(folder, "-m", *_data_overrides(data), *SWEEP, "chunker.size=16,32").ok()
    return folder, data


def _top_k_pairs(store: Store, runs: dict, dest: Path) -> dict[str, set[tuple[str, str]]]:
    """value -> the (question, clause) pairs its run's top K passages cover, by hand from the
    run's logged per-question rows."""
    out = {}
    for value, run in runs.items():
        pq = store.per_question(run.info.run_id, dest / value)
        out[value] = {
            (str(qid), cid)
            for qid, covered in zip(pq["qid"], pq["clauses"], strict=True)
            for ids in json.loads(covered)[:K]
            for cid in ids
        }
    return out


@pytest.mark.slow
def test_bad_input_is_one_line_exit_2_and_writes_nothing(swept):
    from ragsweep.data.load import sample_path

    folder, _ = swept
    parent = Store(folder).runs(EXPERIMENT, "sweep")[0].info.run_id
    config_run = next(iter(Store(folder).by_value(EXPERIMENT).values())).info.run_id
    cases = {
        "not both": ["--sweep", "chunker.size", "--runs", config_run],
        "no sweep named 'nope'": ["--sweep", "nope"],
        "not a sweep's configuration run": ["--runs", parent],
        "deeper than configuration": ["--sweep", "chunker.size", "--depth", "11"],
        "drop --system": ["--sweep", "chunker.size", "--system", "x=retriever=bm25"],
        # the toy with all its labels: the runs were scored without DROPPED's
        f"(run {config_run}) was scored on labels": ["--runs", config_run, "--data", str(TINY)],
        # another corpus: the built-in sample
        "ranked corpus snapshot": ["--sweep", "chunker.size", "--data", str(sample_path())],
    }
    for needle, args in cases.items():
        ran = cli_in(folder, "labels", "pool", *args, "--out", "bad.csv")
        assert ran.code == 2, (needle, ran.out, ran.err)
        assert needle in ran.err and len(ran.err.strip().splitlines()) == 1, ran.err
        assert not (folder / "bad.csv").exists()


@pytest.mark.slow
def test_pool_judge_import_rebaseline_gives_back_the_original_scores(swept, tmp_path):
    from ragsweep.config import compose
    from ragsweep.data import load_dataset
    from ragsweep.scoring.evaluate import evaluate

    folder, data = swept
    store = Store(folder)
    runs = store.by_value(EXPERIMENT)
    assert sorted(runs) == sorted(VALUES)
    original = _labels(TINY)
    tops = _top_k_pairs(store, runs, tmp_path)
    union = set().union(*tops.values())
    assert DROPPED <= union and ZEROS <= union  # the test exercises what it claims to
    judged = set(_labels(data))
    expected = union - judged

    ran = cli_in(folder, "labels", "pool", "--sweep", "chunker.size", "--out", "sheet.csv").ok()
    sheet = folder / "sheet.csv"
    assert _sheet_pairs(sheet) == expected
    assert DROPPED <= _sheet_pairs(sheet) and not ZEROS & _sheet_pairs(sheet)
    rows = pd.read_csv(sheet, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    assert len(rows) == len(expected)  # de-duplicated across configurations
    assert (rows["existing_grade"] == "").all() and (rows["clause_text"] != "").all()
    per_config = ", ".join(f"{v} {len(tops[v] - judged)}" for v in VALUES)
    assert f"(before de-duplication): {per_config}" in ran.out, ran.out
    slices = dict(zip(rows["qid"], rows["slice"], strict=True))
    ds = load_dataset(data)
    per_slice = {s: sum(1 for q, _ in expected if slices[q] == s) for s in ds.slices}
    line = ", ".join(f"{s} {n}" for s, n in per_slice.items() if n)
    assert f"per slice: {line}" in ran.out and f"{len(expected)} unjudged" in ran.out
    assert str(sheet) in ran.out

    # the same configurations named by run id give the same sheet
    ids = [runs[v].info.run_id for v in VALUES]
    cli_in(folder, "labels", "pool", "--runs", *ids, "--out", "by_id.csv").ok()
    assert _sheet_pairs(folder / "by_id.csv") == expected

    # judged with the original labels as the judge (pairs they never graded stay blank)
    from ragsweep.labelling.sheetfile import write_sheet_frame

    rows["grade"] = [
        str(original[(q, f"{d}/{s}@{v}")]) if (q, f"{d}/{s}@{v}") in original else ""
        for q, d, s, v in zip(
            rows["qid"], rows["document"], rows["section"], rows["clause_version"], strict=True
        )
    ]
    write_sheet_frame(rows, sheet)
    cli_in(folder, "labels", "import", str(sheet), "--data", str(data), "--judge", "orig").ok()
    assert _labels(data) == original
    labels_now = load_dataset(data).labels_hash

    # the sweep's runs are on the old labels now: pooling it is refused until it is re-scored
    stale = cli_in(folder, "labels", "pool", "--sweep", "chunker.size", "--out", "stale.csv")
    assert stale.code == 2 and "labels rebaseline chunker.size" in stale.err
    assert not (folder / "stale.csv").exists()

    again = cli_in(folder, "labels", "rebaseline", "chunker.size").ok()
    rescored = {r.data.tags["ragsweep.value"]: r for r in store.runs(EXPERIMENT, "rebaseline")}
    assert sorted(rescored) == sorted(VALUES)
    for value, run in rescored.items():
        assert run.data.tags["ragsweep.labels"] == labels_now
        assert run.data.tags["ragsweep.rebaselines"] == runs[value].info.run_id
        assert run.data.tags["mlflow.parentRunId"] == runs[value].data.tags["mlflow.parentRunId"]
        size = [] if value == "128" else [f"chunker.size={value}"]
        truth = evaluate(compose([*TOY, *SWEEP, *size, "cache.dir=null"]))  # original labels
        got = quality(store.measured(run))  # every number (it logs the deciding ones)
        for key in ("recall_at_3/all", "recall_at_3/weighted", "ndcg_at_10/all", "mrr/all"):
            assert got[key] == truth.metrics[key], (value, key)
        # compared with the re-scored baseline, as a launch compares configuration runs
        decision = run.data.tags["ragsweep.decision"]
        assert (decision == "baseline") == (value == VALUES[0]), (value, decision)
        assert run.data.metrics["delta/recall_at_3/all"] == pytest.approx(
            got["recall_at_3/all"] - store.measured(rescored[VALUES[0]])["recall_at_3/all"]
        )
    assert f"verdicts on labels {labels_now[:12]}" in again.out
    assert "not like for like with the sweep's earlier run" in again.out

    # pooled again, the sweep lists only what the original labels never graded
    cli_in(folder, "labels", "pool", "--sweep", "chunker.size", "--out", "after.csv").ok()
    assert _sheet_pairs(folder / "after.csv") == union - set(original)
