"""`ragsweep labels rebaseline SWEEP`: after the labels change, every configuration of the sweep
is scored again on the current labels and logged beside the old runs (the baseline's numbers
before and after printed); nothing is logged when the labels did not change. The full round
trip (pool, judge, import, rebaseline) is tests/experiment/test_pool_sweep.py."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import cli_in
from toy import TINY, TOY


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rebaseline")
    data = folder / "tiny"
    shutil.copytree(TINY, data)
    overrides = [f"data.path={data}" if o.startswith("data.path=") else o for o in TOY]
    cli_in(folder, "-m", *overrides, "confirm.enabled=false", "fusion.k=10,60").ok()
    return folder, data


def rebaselines(store) -> list:
    return store.runs("sweep:fusion.k", "rebaseline")


@pytest.mark.slow
def test_unchanged_labels_log_nothing(swept):
    folder, _ = swept
    ran = cli_in(folder, "labels", "rebaseline", "fusion.k").ok()
    assert "nothing to re-baseline" in ran.out
    from conftest import Store

    assert rebaselines(Store(folder)) == []


@pytest.mark.slow
def test_changed_labels_give_a_new_baseline_scored_on_them(swept):
    from conftest import Store
    from ragsweep.config import compose
    from ragsweep.scoring.evaluate import evaluate

    folder, data = swept
    store = Store(folder)
    old = store.by_value("sweep:fusion.k")["60"]  # the baseline (fusion.k default 60)
    assert old.data.tags["ragsweep.baseline"] == "true"
    path = data / "labels.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["grade"] = 1  # q01's answer clause, 2 -> 1
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    ran = cli_in(folder, "labels", "rebaseline", "fusion.k").ok()
    found = rebaselines(store)
    assert sorted(r.data.tags["ragsweep.value"] for r in found) == ["10", "60"]
    (new,) = [r for r in found if r.data.tags["ragsweep.baseline"] == "true"]
    assert new.data.tags["ragsweep.rebaselines"] == old.info.run_id
    assert new.data.tags["ragsweep.labels_before"] == old.data.tags["ragsweep.labels"]
    assert new.data.tags["ragsweep.labels"] != old.data.tags["ragsweep.labels"]
    # its numbers are the baseline configuration's on the current labels, scored independently
    overrides = [f"data.path={data}" if o.startswith("data.path=") else o for o in TOY]
    expected = evaluate(compose([*overrides, "cache.dir=null"]))
    numbers = store.measured(new)  # every number it measured (it logs the deciding few)
    for key in ("recall_at_5/all", "recall_at_5/weighted", "mrr/all", "ndcg_at_10/all"):
        assert numbers[key] == expected.metrics[key], key
    assert f"logged as run {new.info.run_id}" in ran.out
    (row,) = [  # the before/after table's `all` row (the report's table by part has two more)
        line
        for line in ran.out.splitlines()
        if line.strip("│ ").startswith("all ") and not {"core", "rolling"} & set(line.split())
    ]
    cells = [c.strip() for c in row.strip().strip("│").split("│")]
    before, after = old.data.metrics["recall_at_5/all"], expected.metrics["recall_at_5/all"]
    assert cells == ["all", f"{before:.3f}", f"{after:.3f}", f"{after - before:+.3f}"]
