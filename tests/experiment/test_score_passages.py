"""Situation 1, "it got worse after the release", end to end: two releases' retrieval logs as
passages run files, `ragsweep score-passages` on each, `ragsweep report --runs A B`.

The two releases are two of our own pipelines on the built-in sample (release A: BM25 alone;
release B: the default hybrid), written as texts only, so the numbers each run logs can be
checked against what `evaluate` gave those pipelines, and the report's per-slice differences
against theirs.
"""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest

from conftest import cli_in, quality
from passages_runs import chunks_by_id, write_run
from ragsweep import conventions as cv
from ragsweep.config import compose
from ragsweep.data import load_dataset
from ragsweep.scoring.evaluate import evaluate

RELEASES = {"release-a": ["retriever=bm25"], "release-b": []}


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """Each release's evaluation on the sample and its run file (texts, best first)."""
    folder = tmp_path_factory.mktemp("releases")
    ds = load_dataset(None)
    out = {}
    for name, overrides in RELEASES.items():
        cfg = compose(["cache.dir=null", *overrides])
        result = evaluate(cfg, dataset=ds)
        out[name] = (result, write_run(folder / f"{name}.jsonl", result, chunks_by_id(cfg, ds)))
    return out


@pytest.mark.slow
def test_two_releases_scored_and_compared_per_slice(workdir, store, releases) -> None:
    ids = {}
    for name, (result, path) in releases.items():
        ran = cli_in(workdir, "score-passages", "--run", str(path)).ok()  # named after the file
        assert f"ragsweep score-passages {name}: dev questions, subset all" in ran.out
        n = sum(len(ids) for ids in result.rankings.values())
        assert f"passages: {n:,} of {n:,} placed in the snapshot (100.0%): {n:,} exact;" in (
            " ".join(ran.out.split())
        )
        (run,) = [r for r in store.runs("ragsweep") if r.info.run_name == name]
        ids[name] = run.info.run_id
        tags, metrics = run.data.tags, run.data.metrics
        assert tags["ragsweep.stage"] == "external"
        assert tags["ragsweep.run_file"] == path.name
        assert tags["ragsweep.run_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        for pin in ("snapshot", "labels", "split", "split_name", "subset"):
            assert tags[f"ragsweep.{pin}"] == result.tags[f"ragsweep.{pin}"], pin
        # the numbers the pipeline gave its own chunks, every slice and measure, in its table;
        # as metrics, the measure deciding each slice, unjudged@5 and cost, as any run's
        assert quality(store.measured(run)) == result.metrics
        logged = {k: v for k, v in quality(metrics).items() if not k.startswith("passages/")}
        assert logged == cv.decision_metrics(result.metrics, 5, result.measures)
        assert logged["mrr/identifiers"] == result.metrics["mrr/identifiers"]
        assert metrics["passages/located_share"] == 1.0
        assert metrics["passages/exact"] == float(n)
        assert metrics["passages/unlocated"] == 0.0
        placed = pd.read_csv(store.download(run.info.run_id, "results/passages.csv", workdir))
        assert len(placed) == n and set(placed["how"]) == {"exact"}
    assert store.client.get_experiment_by_name("ragsweep") is not None

    # the comparison: B against A on the same questions, paired intervals, per slice
    ran = cli_in(workdir, "report", "--runs", ids["release-a"], ids["release-b"]).ok()
    text = " ".join(ran.out.split())
    assert "runs release-b against the baseline release-a" in text
    assert "Decided on recall@5, identifiers on RR" in text
    n = releases["release-a"][0].per_question["slice"].value_counts()  # dev questions per slice
    for heading in ("limits", f"(n={n['exclusions']}, guard)", f"(n={n['identifiers']}, RR)"):
        assert heading in text
    assert "weighted" in text
    report = json.loads(
        cli_in(workdir, "report", "--runs", ids["release-a"], ids["release-b"], "--format", "json")
        .ok()
        .out
    )
    assert report["like_for_like"] is True
    assert report["guard_slices"] == ["exclusions"]
    a, b = (releases[n][0].summary for n in ("release-a", "release-b"))
    cells = {(c["measure"], c["stratum"]): c for c in report["cells"]}
    for measure in ("recall@5", "RR"):
        for stratum in ("limits", "exclusions", "procedures", "definitions", "identifiers"):
            cell = cells[(measure, stratum)]
            assert cell["baseline"] == pytest.approx(a.loc[stratum, measure], abs=1e-9)
            assert cell["value"] == pytest.approx(b.loc[stratum, measure], abs=1e-9)
            assert cell["ci_low"] <= cell["delta"] <= cell["ci_high"]
    (decision,) = report["decisions"]
    assert decision["config"] == "release-b"
    headline = cells[("recall@5", "weighted")]
    assert decision["delta"] == pytest.approx(headline["delta"], abs=1e-9)
    assert headline["delta"] == pytest.approx(
        b.loc["weighted", "recall@5"] - a.loc["weighted", "recall@5"], abs=1e-9
    )


def test_bad_input_exits_2_with_one_line_and_logs_nothing(workdir, store, releases) -> None:
    _, good = releases["release-a"]
    bad = workdir / "bad.jsonl"
    lines = good.read_text().splitlines()[:3]
    broken = json.loads(lines[2])
    broken["passages"][4] = {"document": "home@2030", "text": "x"}
    bad.write_text("\n".join([*lines[:2], json.dumps(broken)]) + "\n")
    ran = cli_in(workdir, "score-passages", "--run", str(bad))
    assert ran.code == 2
    assert ran.err.strip().count("\n") == 0
    assert ran.err.startswith(
        f"ragsweep score-passages: error: {bad}:3: field 'passages[4].document': 'home@2030' is "
        "not a wording version of the snapshot"
    )
    assert not store.exists()  # not even an empty store

    ran = cli_in(workdir, "score-passages", "--run", str(workdir / "missing.jsonl"))
    assert ran.code == 2 and "missing.jsonl: no such file; give the passages run file" in ran.err
    assert not store.exists()

    # --no-log scores and prints, and logs nothing
    ran = cli_in(workdir, "score-passages", "--run", str(good), "--no-log").ok()
    assert "ragsweep score-passages release-a" in ran.out and "logged run" not in ran.out
    assert not store.exists()


def test_a_passages_run_cannot_be_reproduced_but_says_how_to_rescore(
    workdir, store, releases
) -> None:
    _, path = releases["release-a"]
    cli_in(workdir, "score-passages", "--run", str(path), "--name", "a").ok()
    run = store.only_run()
    ran = cli_in(workdir, "reproduce", run.info.run_id)
    assert ran.code == 2
    assert "scored another system's passages (ragsweep.stage=external)" in ran.err
    assert "ragsweep score-passages --run FILE" in ran.err
