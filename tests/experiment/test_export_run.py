"""Every configuration run logs TREC run files; `ragsweep data export-run` writes them, and
trec_eval (pytrec_eval) and `ragsweep score` on them give the numbers the run logged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import cli_in
from ragsweep.cli import main
from toy import TOY


@pytest.fixture
def logged(workdir, store):
    # one chunk per clause: the clause-level run is exactly what the measures credit
    cli_in(workdir, *TOY, "chunker=section", "retriever.filter=false").ok()
    return workdir, store, store.only_run()


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    return qrels


def read_run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        qid, _, doc, _rank, score, _tag = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    return run


def export(workdir: Path, run_id: str) -> tuple[Path, Path]:
    run_file, qrels_file = workdir / "run.txt", workdir / "qrels.txt"
    args = ["data", "export-run", run_id, "--out", str(run_file), "--qrels", str(qrels_file)]
    assert main(args) == 0
    return run_file, qrels_file


def test_ragsweep_score_on_the_exported_files_gives_the_logged_numbers(logged, capsys):
    workdir, store, run = logged
    run_file, qrels_file = export(workdir, run.info.run_id)
    capsys.readouterr()
    code = main(
        [
            "score",
            "--qrels",
            str(qrels_file),
            "--run",
            str(run_file),
            "--metrics",
            "recall@5,RR,nDCG@10",
            "--format",
            "json",
        ]
    )
    assert code == 0
    scored = json.loads(capsys.readouterr().out)
    logged_metrics = store.measured(run)  # every number the run measured
    assert scored["aggregate"]["recall@5"] == pytest.approx(logged_metrics["recall_at_5/all"])
    assert scored["aggregate"]["RR"] == pytest.approx(logged_metrics["mrr/all"])
    assert scored["aggregate"]["nDCG@10"] == pytest.approx(logged_metrics["ndcg_at_10/all"])


def test_trec_eval_on_the_exported_files_gives_the_logged_numbers(logged):
    """pytrec_eval (trec_eval) per question and on average. trec_eval's nDCG gain is the grade
    itself, so the qrels handed to it carry the exponential gain 2^g - 1 ragsweep uses by
    default (the same relevant set: grade 0 stays 0, 1 stays 1)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    workdir, store, run = logged
    run_file, qrels_file = export(workdir, run.info.run_id)
    qrels, ranking = read_qrels(qrels_file), read_run(run_file)
    ours = store.per_question(run.info.run_id, workdir / "dl").set_index("qid")
    assert set(qrels) == set(ours.index)

    exp_gain = {q: {d: 2**g - 1 for d, g in docs.items()} for q, docs in qrels.items()}
    theirs = pytrec_eval.RelevanceEvaluator(
        exp_gain, {"recall_5", "recip_rank", "P_5", "ndcg_cut_10"}
    ).evaluate(ranking)
    pairs = {"recall_5": "recall@5", "recip_rank": "RR", "P_5": "P@5", "ndcg_cut_10": "nDCG@10"}
    for qid in qrels:
        for t, o in pairs.items():
            # a question the run does not answer scores 0 (trec_eval leaves it out)
            value = theirs[qid][t] if qid in theirs else 0.0
            assert ours.loc[qid, o] == pytest.approx(value, abs=1e-12), (qid, t)
    keys = {"recall_5": "recall_at_5", "recip_rank": "mrr", "P_5": "precision_at_5"}
    keys["ndcg_cut_10"] = "ndcg_at_10"
    numbers = store.measured(run)
    for t, key in keys.items():
        mean = sum(theirs.get(q, {}).get(t, 0.0) for q in qrels) / len(qrels)
        assert numbers[f"{key}/all"] == pytest.approx(mean, abs=1e-12), t
    # not a vacuous match: the ranking is neither perfect nor empty
    assert 0 < numbers["ndcg_at_10/all"] < 1


def test_chunk_level_export_and_bad_run_id(logged, capsys):
    workdir, store, run = logged
    out = workdir / "chunks.run"
    assert main(["data", "export-run", run.info.run_id, "--level", "chunk", "--out", str(out)]) == 0
    ranked = read_run(out)
    table = store.per_question(run.info.run_id, workdir / "dl")
    for qid, top in zip(table["qid"], table["ranked"], strict=True):
        by_score = sorted(ranked[qid], key=lambda d: -ranked[qid][d])
        assert by_score[: len(json.loads(top))] == json.loads(top), qid  # the logged top chunks
    assert main(["data", "export-run", "f" * 32]) == 2
    err = capsys.readouterr().err.strip()
    assert "no run" in err and len(err.splitlines()) == 1
