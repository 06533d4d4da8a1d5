"""Every configuration run logs TREC run files; `ragsweep data export-run` writes them, and
trec_eval (pytrec_eval) and `ragsweep score` on them give the numbers the run logged."""

from __future__ import annotations

import json

import pytest

from ragsweep.cli import main
from toy import TOY


@pytest.fixture
def logged(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    assert main([*TOY, "chunker=section", "retriever.filter=false"]) == 0
    from mlflow.tracking import MlflowClient

    mc = MlflowClient(f"sqlite:///{tmp_path / 'mlruns' / 'mlflow.db'}")
    exp = mc.get_experiment_by_name("ragsweep")
    (run,) = mc.search_runs([exp.experiment_id])
    return tmp_path, run


def test_exported_run_scores_as_logged(logged, capsys):
    tmp_path, run = logged
    rid = run.info.run_id
    run_file, qrels_file = tmp_path / "run.txt", tmp_path / "qrels.txt"
    assert (
        main(["data", "export-run", rid, "--out", str(run_file), "--qrels", str(qrels_file)]) == 0
    )
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
    logged_metrics = run.data.metrics
    assert scored["aggregate"]["recall@5"] == pytest.approx(logged_metrics["recall_at_5/all"])
    assert scored["aggregate"]["RR"] == pytest.approx(logged_metrics["mrr/all"])
    assert scored["aggregate"]["nDCG@10"] == pytest.approx(logged_metrics["ndcg_at_10/all"])

    pytrec_eval = pytest.importorskip("pytrec_eval")
    from ragsweep.scoring.trec import read_qrels, read_run

    q, r = read_qrels(qrels_file), read_run(run_file)
    qrels: dict[str, dict[str, int]] = {}
    for qid, doc, grade in zip(q.qids, q.docids, q.grades, strict=True):
        qrels.setdefault(qid, {})[doc] = int(grade)
    runs: dict[str, dict[str, float]] = {}
    for qid, doc, score in zip(r.qids, r.docids, r.scores, strict=True):
        runs.setdefault(qid, {})[doc] = float(score)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recall_5", "recip_rank"}).evaluate(runs)
    mean = sum(v["recall_5"] for v in theirs.values()) / len(qrels)
    assert mean == pytest.approx(logged_metrics["recall_at_5/all"])


def test_chunk_level_export_and_bad_run_id(logged, capsys):
    tmp_path, run = logged
    out = tmp_path / "chunks.run"
    assert main(["data", "export-run", run.info.run_id, "--level", "chunk", "--out", str(out)]) == 0
    first = out.read_text().splitlines()[0].split()
    assert len(first) == 6 and "#" in first[2]
    assert main(["data", "export-run", "f" * 32]) == 2
    err = capsys.readouterr().err.strip()
    assert "no run" in err and len(err.splitlines()) == 1
