"""Held-out hygiene: distinct comparisons confirmed on one split are counted, repeats are not,
and past the limit the confirm stage warns."""

from __future__ import annotations

from types import SimpleNamespace

from ragsweep.experiment.confirm import count_confirmations


class FakeClient:
    def __init__(self, runs):
        self.runs = runs
        self.filters = []

    def search_experiments(self):
        return [SimpleNamespace(experiment_id="1"), SimpleNamespace(experiment_id="2")]

    def search_runs(self, experiment_ids, filter_string, max_results):
        self.filters.append(filter_string)
        return self.runs


def confirm_run(run_id, pair):
    return SimpleNamespace(
        info=SimpleNamespace(run_id=run_id),
        data=SimpleNamespace(tags={"ragsweep.confirm_pair": pair}),
    )


def test_distinct_pairs_are_counted_repeats_are_not():
    mc = FakeClient([confirm_run("r1", "a"), confirm_run("r2", "a"), confirm_run("r3", "b")])
    assert count_confirmations(mc, "split", "a") == 2
    assert count_confirmations(mc, "split", "c") == 3
    assert "tags.`ragsweep.split` = 'split'" in mc.filters[0]
    assert count_confirmations(FakeClient([]), "split", "a") == 1
