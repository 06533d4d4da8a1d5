"""The confirm stage and `reproduce` refuse data that changed since the sweep: a label, a
question or a wording edited in the dataset folder the sweep used is exit code 2 and one line
naming the hash that moved; the same folder put back confirms and reproduces again."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import Ran, Store, cli_in
from toy import HELDOUT_WINNER, TINY


@dataclass
class Swept:
    ran: Ran
    data: Path  # the sweep's own copy of the tiny fixture

    @property
    def store(self) -> Store:
        return self.ran.store


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> Swept:
    folder = tmp_path_factory.mktemp("changed")
    data = folder / "tiny"
    shutil.copytree(TINY, data)
    overrides = [f"data.path={data}" if o.startswith("data.path=") else o for o in HELDOUT_WINNER]
    ran = cli_in(folder, "-m", *overrides, "fusion.k=1,60").ok()
    (parent,) = ran.store.runs("sweep:fusion.k", "sweep")
    assert parent.data.tags["ragsweep.confirm"].endswith(": 1"), "no dev winner to confirm"
    return Swept(ran, data)


def edit_label(data: Path) -> Path:
    path = data / "labels.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["grade"] = 1  # q01's answer clause, grade 2 -> 1
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def edit_question(data: Path) -> Path:
    path = data / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[2]["text"] += " Asking for a friend."
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def edit_wording(data: Path) -> Path:
    path = data / "corpus" / "home@2025.json"
    doc = json.loads(path.read_text())
    doc["parts"][1]["clauses"][0]["text"] += " This limit is index-linked."
    path.write_text(json.dumps(doc))
    return path


#: (edit, the hash `confirm` names, what `reproduce` names)
EDITS = {
    "label": (edit_label, "labels", "labelled set"),
    "question": (edit_question, "labels", "labelled set"),
    "wording": (edit_wording, "snapshot", "corpus snapshot"),
}


@pytest.fixture(params=sorted(EDITS))
def edited(request, sweep):
    """The sweep's dataset with one edit, put back afterwards."""
    edit, confirm_names, reproduce_names = EDITS[request.param]
    backup = sweep.data.parent / "backup"
    shutil.copytree(sweep.data, backup)
    try:
        edit(sweep.data)
        yield confirm_names, reproduce_names
    finally:
        shutil.rmtree(sweep.data)
        backup.rename(sweep.data)


def one_line_error(ran: Ran) -> str:
    err = ran.err.strip()
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    return err


@pytest.mark.slow
def test_confirm_refuses_changed_data(sweep, edited):
    confirm_names, _ = edited
    before = len(sweep.store.runs("sweep:fusion.k", "confirm"))
    ran = cli_in(sweep.ran.folder, "confirm", "fusion.k")
    assert ran.code == 2, ran.out[-2000:]
    err = one_line_error(ran)
    assert err.startswith("ragsweep confirm: error:")
    assert f"the {confirm_names} hash" in err and f"ragsweep.{confirm_names}" in err
    assert len(sweep.store.runs("sweep:fusion.k", "confirm")) == before  # nothing logged


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["config", "confirm"])
def test_reproduce_refuses_changed_data(sweep, edited, stage):
    _, reproduce_names = edited
    runs = sweep.store.runs("sweep:fusion.k", stage)
    run = min(runs, key=lambda r: r.info.start_time)
    ran = cli_in(sweep.ran.folder, "reproduce", run.info.run_id, "--no-log")
    assert ran.code == 2, ran.out[-2000:]
    err = one_line_error(ran)
    assert err.startswith("ragsweep reproduce: error:")
    assert f"the {reproduce_names} differs" in err and run.info.run_id in err


@pytest.mark.slow
def test_the_data_put_back_confirms_and_reproduces(sweep):
    child = sweep.store.by_value("sweep:fusion.k")["1"]
    ran = cli_in(sweep.ran.folder, "reproduce", child.info.run_id, "--no-log")
    assert ran.code == 0, ran.err
    assert "identical" in ran.out
    ran = cli_in(sweep.ran.folder, "confirm", "fusion.k")
    assert ran.code in (0, 1), ran.err  # confirmed or not: not refused
    assert "error:" not in ran.err
