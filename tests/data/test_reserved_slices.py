"""Slice names `all` and `weighted` are the report's summary rows: `weighted` is refused as a
slice, `all` only allowed as the only slice (imported data without slices), and then counted."""

from __future__ import annotations

import json
import shutil

from ragsweep.cli import main
from toy import TINY, TOY


def one_slice_copy(tmp_path, name: str):
    copy = tmp_path / "tiny"
    shutil.copytree(TINY, copy)
    meta = json.loads((copy / "dataset.json").read_text())
    meta["slices"] = [name]
    (copy / "dataset.json").write_text(json.dumps(meta))
    rows = [json.loads(line) for line in (copy / "questions.jsonl").read_text().splitlines()]
    for r in rows:
        r["slice"] = name
    (copy / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return copy


def test_a_single_slice_named_all_is_counted(tmp_path):
    from ragsweep.config import compose
    from ragsweep.scoring.evaluate import evaluate

    copy = one_slice_copy(tmp_path, "all")
    overrides = [o for o in TOY if not o.startswith("data.path=")] + [f"data.path={copy}"]
    result = evaluate(compose([*overrides, "tracking.enabled=false"]))
    assert result.counts == {"all": 10}
    assert list(result.summary.index) == ["all", "weighted"]
    assert "recall_at_5/all" in result.metrics


def test_weighted_is_not_a_slice_name(tmp_path, capsys):
    copy = one_slice_copy(tmp_path, "weighted")
    assert main(["data", "check", str(copy)]) == 2
    err = capsys.readouterr().err
    assert "reserved" in err and "slices[0]" in err
