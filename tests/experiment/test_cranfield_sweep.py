"""Real data nobody here wrote: Cranfield imported from ../shared and swept end to end from the
command line (skipped with a reason when ../shared is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragsweep.cli import main

CRANFIELD = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "cranfield"


@pytest.mark.slow
def test_import_cranfield_and_sweep_two_values(workdir, store, capsys):
    if not (CRANFIELD / "cran.all.1400").is_file():
        pytest.skip(f"the Cranfield collection is not at {CRANFIELD} (../shared next to the repo)")
    out = workdir / "cranfield"
    args = [
        "data", "import", "--format", "smart",
        "--docs", str(CRANFIELD / "cran.all.1400"),
        "--queries", str(CRANFIELD / "cran.qry"),
        "--qrels", str(CRANFIELD / "cranqrel"),
        "--qrels-format", "cranfield", "--slice-by", "best-code", "--out", str(out),
    ]  # fmt: skip
    assert main(args) == 0
    assert main(["data", "check", str(out)]) == 0
    capsys.readouterr()
    sweep = [
        "-m", "data=folder", f"data.path={out}", "chunker=section", "retriever=bm25",
        "retriever.filter=false", "eval.traffic_weights=null", "retriever.bm25.k1=0.9,1.5",
    ]  # fmt: skip
    assert main(sweep) == 0, capsys.readouterr().err
    text = capsys.readouterr().out
    assert "complete" in text and "high" in text  # the best-code slices reach the report
    runs = store.runs("sweep:retriever.bm25.k1", "config")
    assert sorted(r.data.tags["ragsweep.value"] for r in runs) == ["0.9", "1.5"]
    for r in runs:
        assert r.info.status == "FINISHED"
        assert 0.2 < store.measured(r)["recall_at_10/all"] < 0.7  # BM25 on Cranfield, dev split
