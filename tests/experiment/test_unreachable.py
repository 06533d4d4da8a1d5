"""A tracking server that does not answer: every entry point that opens a store from a URI says
"cannot reach" in one line within seconds, exit 2 (it took about 284 s, then said the run did
not exist, or printed 118-127 lines of traceback); a server that goes away after answering is
waited for up to `tracking.wait` seconds, a run creation retried after a lost answer makes one
run, and a server given up on fails the next calls at once. The outage of a real server in the
middle of a sweep is tests/integration/test_outage.py.
"""

from __future__ import annotations

import math
import socket
import time

import pytest
import requests

from conftest import cli_in
from ragsweep.experiment import tracking
from toy import TOY

RUN, OTHER = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
#: seconds an entry point may take to refuse (284 s before; about 1 s here, imports included)
WITHIN = 20.0


@pytest.fixture
def nobody() -> str:
    """A tracking server URI, with a password inside, where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://someone:hunter2@127.0.0.1:{port}"


ENTRY_POINTS = {
    "reproduce": ["reproduce", RUN, "--uri"],
    "report --runs": ["report", "--runs", RUN, OTHER, "--tracking-uri"],
    "report SWEEP": ["report", "chunk_size", "--tracking-uri"],
    "confirm": ["confirm", "chunk_size", "--tracking-uri"],
    "labels rebaseline": ["labels", "rebaseline", "chunk_size", "--uri"],
    "labels pool": ["labels", "pool", "--sweep", "chunk_size", "--out", "pool.csv", "--uri"],
    "data export-run": ["data", "export-run", RUN, "--tracking-uri"],
    "ui": ["ui", "--uri"],
    "a single run": [*TOY, "tracking.uri="],
    "a sweep": ["-m", *TOY, "chunker.size=32,48", "tracking.uri="],
}


#: the Hydra app composes its config first (about 2.5 s): in the full suite only
SLOW = ("a single run", "a sweep")


@pytest.mark.parametrize(
    "entry", [pytest.param(e, marks=[pytest.mark.slow] if e in SLOW else []) for e in ENTRY_POINTS]
)
def test_an_unreachable_store_is_one_line_within_seconds(entry, nobody, tmp_path):
    *args, last = ENTRY_POINTS[entry]
    args += [last + nobody] if last.endswith("=") else [last, nobody]
    if entry == "ui":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            args += ["--port", str(s.getsockname()[1])]
    began = time.monotonic()
    ran = cli_in(tmp_path, *args)
    took = time.monotonic() - began
    masked = nobody.replace("hunter2", "***")
    assert ran.code == 2, ran.err
    assert ran.err.strip().splitlines() == [ran.err.strip()], ran.err
    assert f"cannot reach the tracking server at {masked} (" in ran.err
    assert "start it (`ragsweep server`" in ran.err
    assert "hunter2" not in ran.err + ran.out
    assert took < WITHIN, f"{entry} took {took:.1f} s to refuse"
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written


class Flaky:
    """An MlflowClient stand-in on a server that loses the answer to the first `lost` calls
    (the call takes effect, the caller sees the connection drop) and then answers."""

    def __init__(self, lost: int) -> None:
        self.lost = lost
        self.runs: list[dict] = []

    def _maybe_drop(self) -> None:
        if self.lost:
            self.lost -= 1
            raise requests.exceptions.ConnectionError("Connection reset by peer")

    def create_run(self, experiment_id: str, run_name: str = "", tags: dict | None = None):
        self.runs.append({"experiment_id": experiment_id, "tags": dict(tags or {})})
        self._maybe_drop()
        return self.runs[-1]

    def search_runs(self, experiment_ids: list[str], filter_string: str, max_results: int):
        key, _, value = filter_string.partition(" = ")
        tag = key.removeprefix("tags.`").removesuffix("`")
        return [r for r in self.runs if r["tags"].get(tag) == value.strip("'")]


def test_a_creation_retried_after_a_lost_answer_makes_one_run(capsys):
    mc = tracking.TimedClient(Flaky(lost=2), tracking.Store("http://127.0.0.1:9", None, 30))
    run = mc.create_run("1", run_name="x", tags={"a": "b"})
    flaky = mc._mc
    assert len(flaky.runs) == 1 and run is flaky.runs[0]
    assert run["tags"]["a"] == "b" and len(run["tags"][tracking.CREATED_TAG]) == 32
    err = capsys.readouterr().err
    assert err.count("does not answer; trying again for up to 30 s (tracking.wait)") == 1


def test_a_server_that_stays_away_ends_in_one_line_after_the_wait_then_at_once(nobody):
    store = tracking.Store(nobody, None, 0.5)
    tracking.reached_before(store)  # it answered once (a sweep's launcher, say)
    mc = tracking.client(store)
    for bound in (0.5, 0.0):  # the first call waits the bound; the next, once given up, not
        began = time.monotonic()
        with pytest.raises(tracking.StoreUnreachable) as gone:
            mc.get_run(RUN)
        assert bound <= time.monotonic() - began < bound + 5.0
        assert "\n" not in str(gone.value) and "hunter2" not in str(gone.value)
        assert "did not answer again within 0.5 s (tracking.wait)" in str(gone.value)


def test_tracking_wait_is_checked():
    from ragsweep.errors import UserError

    assert tracking.wait_seconds({"wait": 7}) == 7.0
    assert tracking.wait_seconds({}) == tracking.WAIT_SECONDS
    for bad in (-1, "soon", float("inf")):
        with pytest.raises(UserError, match=r"tracking.wait=.*a number >= 0"):
            tracking.wait_seconds({"wait": bad})


def test_a_kept_payload_reads_back_as_written(tmp_path):
    """What a configuration's run logs, kept in the sweep folder when the server is gone, is
    what a later launch logs: the same params, tags, metrics, datasets and tables."""
    import pandas as pd

    from ragsweep.experiment.single import Payload, read_payload, save_payload

    (tmp_path / "results").mkdir()
    questions = pd.DataFrame(
        {"qid": ["q1", "q2"], "slice": ["limits", "exclusions"], "recall@5": [1.0, float("nan")]}
    ).astype({"qid": object, "slice": object})
    kept = Payload(
        params={"chunker.size": "64"},
        tags={"ragsweep.snapshot": "ab" * 32},
        metrics={"recall_at_5/weighted": 0.75},
        artifacts={"results": tmp_path / "results"},
        datasets=[tracking.DataInput("toy corpus", "cd" * 32, "/data", "dev", {"questions": 2})],
        tables={"results/questions.json": questions},
        measured={"recall_at_5/weighted": 0.75, "ties/x": float("nan")},
    )
    save_payload(kept, tmp_path)
    back = read_payload(tmp_path)
    assert (back.params, back.tags, back.metrics, back.datasets) == (
        kept.params,
        kept.tags,
        kept.metrics,
        kept.datasets,
    )
    assert back.artifacts == kept.artifacts
    pd.testing.assert_frame_equal(back.tables["results/questions.json"], questions)
    assert back.measured["recall_at_5/weighted"] == 0.75 and math.isnan(back.measured["ties/x"])
