"""Held-out hygiene: distinct comparisons confirmed on one held-out split are counted, repeats
are neither run nor counted again (a finished sweep launched again logs nothing new), and past
`confirm.max_confirmations` the confirm stage warns that the split is being tuned on (printed,
and the tag `ragsweep.warning` on the confirm run)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from conftest import Ran, Store, cli_in
from toy import HELDOUT_WINNER

#: a second sweep with a dev winner on the same held-out split: the proximity reranker over the
#: top 10 against no reranking (a sweep file of the working folder, ./sweeps/NAME.yaml)
RERANK_SMALL = """\
# @package _global_
defaults:
  - override /reranker: proximity
sweep:
  name: rerank_small
  factor: reranker.depth
  values: [0, 10]
  baseline: 0
"""
LIMIT = "confirm.max_confirmations=1"


@dataclass
class History:
    store: Store
    first: Ran  # a fusion.k sweep: its winner is confirmed once on this split
    again: Ran  # `ragsweep confirm` of the same sweep: the same comparison, not made again
    other: Ran  # a reranker sweep: a different comparison on the same split


def confirm_runs(store: Store, experiment: str) -> list:
    runs = store.runs(experiment, "confirm")
    return sorted(runs, key=lambda r: r.info.start_time)


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> History:
    folder = tmp_path_factory.mktemp("hygiene")
    (folder / "sweeps").mkdir()
    (folder / "sweeps" / "rerank_small.yaml").write_text(RERANK_SMALL)
    first = cli_in(folder, "-m", *HELDOUT_WINNER, LIMIT, "fusion.k=1,60").ok()
    again = cli_in(folder, "confirm", "fusion.k")
    other = cli_in(folder, "-m", "sweep=rerank_small", *HELDOUT_WINNER, LIMIT).ok()
    return History(Store(folder), first, again, other)


@pytest.mark.slow
def test_the_first_confirmation_on_a_split_does_not_warn(history):
    (parent,) = history.store.runs("sweep:fusion.k", "sweep")
    assert parent.data.tags["ragsweep.confirm"].endswith(": 1")  # the winner, fusion.k=1
    first = confirm_runs(history.store, "sweep:fusion.k")[0]
    assert first.data.tags["ragsweep.winner"] == "1"
    assert first.data.tags["ragsweep.split_name"] == "heldout"
    assert first.data.tags["ragsweep.confirmations"] == "1"
    assert "ragsweep.warning" not in first.data.tags
    assert "being tuned on" not in history.first.out


@pytest.mark.slow
def test_repeating_a_confirmation_neither_logs_nor_counts_again(history):
    assert history.again.code in (0, 1), history.again.err  # confirmed or not, no error
    assert "being tuned on" not in history.again.out
    (run,) = confirm_runs(history.store, "sweep:fusion.k")  # the same comparison: not re-run
    assert run.data.tags["ragsweep.confirmations"] == "1"
    verdict = run.data.tags["ragsweep.verdict"]
    out = " ".join(history.again.out.split())
    assert f"is {verdict} on held-out questions (" in out
    assert f"as confirm run {run.info.run_id} found for this sweep" in out
    assert history.again.code == (0 if verdict == "confirmed" else 1)


@pytest.mark.slow
def test_a_second_comparison_on_the_split_counts_and_past_the_limit_warns(history):
    (parent,) = history.store.runs("sweep:rerank_small", "sweep")
    assert parent.data.tags["ragsweep.confirm"].endswith(": 10")
    (run,) = confirm_runs(history.store, "sweep:rerank_small")
    first = confirm_runs(history.store, "sweep:fusion.k")[0]
    assert run.data.tags["ragsweep.split"] == first.data.tags["ragsweep.split"]
    assert run.data.tags["ragsweep.confirm_pair"] != first.data.tags["ragsweep.confirm_pair"]
    assert run.data.tags["ragsweep.confirmations"] == "2"
    warning = run.data.tags["ragsweep.warning"]
    assert "being tuned on" in warning and "confirm.max_confirmations=1" in warning
    assert f"warning: {warning}" in " ".join(history.other.out.split())


@pytest.mark.slow
def test_launching_a_finished_sweep_again_adds_no_run(history):
    before = {r.info.run_id for r in history.store.runs("sweep:fusion.k")}
    again = cli_in(history.store.folder, "-m", *HELDOUT_WINNER, LIMIT, "fusion.k=1,60").ok()
    after = {r.info.run_id for r in history.store.runs("sweep:fusion.k")}
    assert after == before, "a relaunch of a finished sweep logged new runs"
    assert "not run again" in again.out
