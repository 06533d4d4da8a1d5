"""The Hydra app end to end on the tiny fixture: one run logged with params, tags, metrics and
artifacts; bad input rejected with one line and exit code 2."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from ragsweep.cli import main
from toy import TINY, TOY


def test_one_run_is_logged_with_everything_needed(workdir, store, capsys):
    assert main([*TOY, "chunker=section"]) == 0
    out = capsys.readouterr().out
    assert "weighted" in out and "identifiers" in out
    client, run = store.client, store.only_run()
    assert run.info.status == "FINISHED"
    params, tags, metrics = run.data.params, run.data.tags, run.data.metrics
    assert params["chunker._target_"] == "ragsweep.chunking.SectionChunker"
    assert params["data.path"] == str(TINY)
    assert params["fusion.k"] == "60"
    for tag in ("snapshot", "index_build", "labels", "split", "subset", "stage", "version"):
        assert tags[f"ragsweep.{tag}"], tag
    assert tags["ragsweep.stage"] == "config"
    assert tags["ragsweep.unjudged"] == params["eval.unjudged"] == "bounds"
    assert tags["ragsweep.subset"] == "all"
    from ragsweep.data import load_dataset

    ds = load_dataset(TINY)
    assert tags["ragsweep.snapshot"] == ds.snapshot_hash
    assert tags["ragsweep.labels"] == ds.labels_hash
    numbers = store.measured(run)  # every number (it logs the deciding measures as metrics)
    for key in (
        "recall_at_5/exclusions",
        "ndcg_at_10/all",
        "recall_at_5/weighted",
        "mrr/identifiers",
    ):
        assert 0.0 <= numbers[key] <= 1.0, key
    arts = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert {"config", "results", "hydra"} <= arts
    local = Path(client.download_artifacts(run.info.run_id, "results", str(workdir)))
    table = pd.read_csv(local / "per_question.csv")
    assert len(table) == len(ds.questions)
    assert {"qid", "slice", "recall@5", "nDCG@10", "ranked", "clauses"} <= set(table.columns)
    first = json.loads(table.loc[0, "ranked"])
    assert first and all("#" in c for c in first)
    # the per-slice metric equals the mean of the per-question rows of that slice
    ex = table[table["slice"] == "exclusions"]["recall@5"].mean()
    assert metrics["recall_at_5/exclusions"] == pytest.approx(ex)
    # unjudged@5, recounted from the chunks' clauses and the labels: the share of the top 5
    # whose chunk covers no clause labelled (any grade) for the question
    judged = ds.labels.groupby("qid")["clause_id"].agg(set)
    shares = [
        sum(not set(c) & judged.get(q, set()) for c in json.loads(cl)[:5]) / 5
        for q, cl in zip(table["qid"], table["clauses"], strict=True)
    ]
    table["by_hand"] = shares
    for stratum, rows in [("all", table), ("exclusions", table[table["slice"] == "exclusions"])]:
        assert metrics[f"unjudged_at_5/{stratum}"] == pytest.approx(rows["by_hand"].mean())
    assert table["unjudged@5"].to_numpy() == pytest.approx(shares)


def test_same_config_gives_the_same_numbers_bit_for_bit(workdir):
    from ragsweep.config import compose
    from ragsweep.scoring.evaluate import evaluate

    cfg = compose(TOY)
    a, b = evaluate(cfg), evaluate(cfg)
    assert a.metrics == b.metrics
    assert a.per_question.equals(b.per_question)


@pytest.mark.parametrize(
    ("overrides", "needle"),
    [
        (["data.path=/nonexistent/dataset"], "/nonexistent/dataset"),
        (["embedder=word2vec"], "embedder"),
        (["eval.measures=[recall@0]"], "recall"),
        (["eval.k_prompt=0"], "k_prompt"),
        (["chunker.size=0"], "chunker.size"),
        (["data.sha256=" + "0" * 64], "sha256"),
        (["retriever.kind=fuzzy"], "retriever.kind"),  # no such key: the stages are sub-nodes
        (["retriever.bm25._target_=collections.OrderedDict"], "has no method index, search"),
        (["data.path=???"], "data.path must be set"),
        (["tracking.uri=bogus://x"], "cannot open the tracking store 'bogus://x'"),
        (["data.split.heldout=0.25", "eval.split=heldout"], "ragsweep confirm"),
        (["chunker.sizee=64"], "chunker.sizee"),
        (["fusion.k=["], "bad override"),
        (["eval.subset=tiny"], "eval.subset must be one of"),  # refused inside the Hydra job
        (["eval.unjudged=ignore"], "eval.unjudged must be bounds or assume_not_relevant"),
    ],
)
def test_bad_input_one_line_exit_2(workdir, store, capsys, overrides, needle):
    code = main([*TOY, *overrides])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert needle in err
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    assert not store.exists()
    assert not (workdir / "outputs").exists(), "a refused run left its Hydra folder behind"


def test_snapshot_mismatch_shows_both_hashes(workdir, capsys):
    from ragsweep.data import load_dataset

    main([*TOY, "data.sha256=" + "0" * 64])
    err = capsys.readouterr().err
    assert "0" * 64 in err and load_dataset(TINY).snapshot_hash in err


def test_console_script_exit_code_and_cfg_job(workdir):
    script = Path(sys.executable).parent / "ragsweep"
    bad = subprocess.run([str(script), "embedder=nope"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1
    cfg = subprocess.run([str(script), "--cfg", "job"], capture_output=True, text=True)
    assert cfg.returncode == 0
    assert "chunker:" in cfg.stdout and "fusion:" in cfg.stdout


def test_default_config_pins_the_built_in_sample():
    from ragsweep.config import compose
    from ragsweep.data import load_dataset

    cfg = compose([])
    assert cfg.data.path is None
    assert cfg.data.sha256 == load_dataset().snapshot_hash


def test_a_key_deletion_first_is_an_override_not_a_verb(workdir, store, capsys):
    assert main(["~confirm", *TOY]) == 0, capsys.readouterr().err
    assert store.only_run().info.status == "FINISHED"


def test_a_single_run_composes_its_config_once_and_a_refusal_is_still_one_line(
    workdir, store, capsys, monkeypatch
):
    """Hydra composes a single run's config; ragsweep's own `compose` (as much again: ~0.2-0.5
    s) runs only when Hydra refuses it, for the one-line message. Hydra's own lines, held back
    while it composes, reach stderr once the job has started."""
    import ragsweep.config

    calls = []
    real = ragsweep.config.compose

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(ragsweep.config, "compose", counted)
    assert main([*TOY, "chunker=section"]) == 0, capsys.readouterr().err
    assert calls == []
    assert store.only_run().info.status == "FINISHED"
    assert not isinstance(sys.stderr, io.StringIO)  # stderr is the terminal's again
    capsys.readouterr()

    assert main([*TOY, "chunker.sizee=64"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(calls) == 1
    assert err.splitlines() == [err] and "chunker.sizee" in err and "HYDRA_FULL_ERROR" not in err
    assert not isinstance(sys.stderr, io.StringIO)
    # Hydra pickles the job function by value into a later sweep's tasks, with the globals it
    # reads: no stream may stay behind in them (pytest's CaptureIO, a terminal's stderr)
    import cloudpickle

    from ragsweep.cli import app

    assert cloudpickle.loads(cloudpickle.dumps(app._app.__wrapped__)) is not None
