"""The frozen core set: a production failure added as a core question (scrubbed text, the next
qid of the set's numbering, its labels and changelog rows, every bad input refused with the
folder untouched) and rolling questions frozen into the core."""

from __future__ import annotations

from pathlib import Path

import pytest
from label_folder import AT, copy_tiny, digest, jsonl, lab, log_row

from ragsweep.data import load_dataset
from ragsweep.errors import UserError
from ragsweep.labelling.core import add_failure, freeze, next_qid
from ragsweep.labelling.labelfiles import CHANGELOG_FILE

#: a production failure on home 3.1 (2025), less its text and reason
BIKE = {
    "slice": "exclusions",
    "product": "home",
    "version": "2025",
    "clauses": [("home", "3.1", 2)],
    "at": AT,
    "who": "ops",
}


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return copy_tiny(tmp_path)


def test_add_failure_adds_a_core_question(tiny: Path) -> None:
    done = add_failure(
        tiny,
        text="Is my bike in the shed covered for theft?",
        slice="exclusions",
        product="home",
        version="2025",
        clauses=[("home", "3.1", 1), ("home", "2.1", 2), ("home", "1.1", 0)],
        at=AT,
        who="ops",
        reason="incident 42: bot answered from the wrong clause",
    )
    assert (done.qid, done.scrubbed) == ("q11", {})
    assert jsonl(tiny / "questions.jsonl")[-1] == {
        "qid": "q11",
        "text": "Is my bike in the shed covered for theft?",
        "slice": "exclusions",
        "product": "home",
        "version": "2025",
        "subset": "core",
        "added": "2025-10-01",
    }
    assert jsonl(tiny / "labels.jsonl")[-3:] == [
        lab("q11", "home", "2.1", "2025", 2),
        lab("q11", "home", "3.1", "2025", 1),
        lab("q11", "home", "1.1", "2025", 0),
    ]
    reason = "incident 42: bot answered from the wrong clause"
    assert jsonl(tiny / CHANGELOG_FILE) == [
        log_row("question", "ops", "q11", None, None, None, reason, None),
        log_row("add", "ops", "q11", ("home", "3.1", "2025"), None, 1, reason, None),
        log_row("add", "ops", "q11", ("home", "2.1", "2025"), None, 2, reason, None),
        log_row("add", "ops", "q11", ("home", "1.1", "2025"), None, 0, reason, None),
    ]
    ds = load_dataset(tiny)
    assert ds.questions.set_index("qid").loc["q11", "subset"] == "core"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"slice": "limit"}, "field 'slice': unknown slice 'limit'; did you mean 'limits'?"),
        ({"version": "2026"}, "field 'version': no wording of product 'home' has version"),
        ({"text": "  "}, "field 'text': is empty"),
        ({"clauses": [("home", "9.9", 2)]}, "field 'clauses[0]': clause home/9.9@2025 is not"),
        ({"clauses": [("home", "2.1", 3)]}, "field 'clauses[0]': grade 3 is not 0, 1 or 2"),
        ({"clauses": [("home", "2.1", 0)]}, "field 'clauses': no clause has grade >= 1"),
        ({"clauses": []}, "field 'clauses': is empty"),
        ({"who": ""}, "field 'who': is empty"),
    ],
)
def test_add_failure_refuses_bad_input(tiny: Path, change: dict, says: str) -> None:
    args = {**BIKE, "text": "Is my bike covered?", "reason": "incident 42"}
    before = digest(tiny)
    with pytest.raises(UserError) as info:
        add_failure(tiny, **{**args, **change})
    assert says in str(info.value)
    assert str(info.value).startswith("add_failure: ")
    assert digest(tiny) == before


def test_add_failure_stores_the_scrubbed_text_and_says_what_was_replaced(tiny: Path) -> None:
    raw = (
        "My name is Sarah Jones, policy number 12345678: is my bike covered? "
        "Call me on 07700 900123"
    )
    done = add_failure(tiny, **{**BIKE, "text": raw, "reason": "incident 43"})
    expected = (
        "My name is <NAME>, policy number <POLICY_REF>: is my bike covered? Call me on <PHONE>"
    )
    assert done.text == expected
    assert done.scrubbed == {"NAME": 1, "POLICY_REF": 1, "PHONE": 1}
    stored = jsonl(tiny / "questions.jsonl")[-1]
    assert stored["text"] == expected
    written = ("questions.jsonl", "labels.jsonl", CHANGELOG_FILE)
    everything = b"".join((tiny / rel).read_bytes() for rel in written)
    for value in ("Sarah", "Jones", "12345678", "07700", "900123"):
        assert value.encode() not in everything, value


def test_next_qid_keeps_the_numbering() -> None:
    assert next_qid(["q0001", "q0400", "q0007"]) == "q0401"
    assert next_qid(["q98", "q99"]) == "q100"
    assert next_qid([]) == "q0001"
    assert next_qid(["s3fa12bc0de", "s9b1d2e3f4a"]) == "q0001"  # sampled ids only


def test_next_qid_follows_the_set_numbering_among_other_ids() -> None:
    # sampled questions keep their content-hash ids; hand-made ids stay as they are
    qids = ["q0001", "q0002", "s3fa12bc0de", "s3fa12bc012", "s1234567890", "a02", "q0400"]
    assert next_qid(qids) == "q0401"
    # the prefix most qids share; equally many: the shorter prefix, then alphabetical
    assert next_qid(["q01", "a02"]) == "a03"
    assert next_qid(["qa7", "q1"]) == "q2"
    assert next_qid(["x5", "x6", "q9"]) == "x7"
    # never an id the set has
    for qids in (["q0009", "q9", "q10"], ["t1-0001", "t1-0009"], ["7", "12"]):
        assert next_qid(qids) not in qids
    assert next_qid(["t1-0001", "t1-0009"]) == "t1-0010"
    assert next_qid(["7", "12"]) == "13"


def test_freeze_listed_and_all_rolling(tiny: Path) -> None:
    assert freeze(tiny, ["q02", "q01"], at=AT, who="lead") == ("q02",)  # q01 is core already
    assert freeze(tiny, "all-rolling", at=AT, who="lead", reason="2025 refresh") == (
        "q06",
        "q09",
        "q10",
    )
    subsets = {q["qid"]: q["subset"] for q in jsonl(tiny / "questions.jsonl")}
    assert set(subsets.values()) == {"core"}
    log = jsonl(tiny / CHANGELOG_FILE)
    assert [(r["kind"], r["qid"], r["who"], r["reason"]) for r in log] == [
        ("freeze", "q02", "lead", "frozen into the core set"),
        ("freeze", "q06", "lead", "2025 refresh"),
        ("freeze", "q09", "lead", "2025 refresh"),
        ("freeze", "q10", "lead", "2025 refresh"),
    ]
    assert all(r["document"] is None and r["new_grade"] is None for r in log)
    load_dataset(tiny)
    before = digest(tiny)
    assert freeze(tiny, "all-rolling", at=AT, who="lead") == ()
    with pytest.raises(UserError, match=r"no question q2 in .*; did you mean 'q02'\?"):
        freeze(tiny, ["q2"], at=AT, who="lead")
    with pytest.raises(UserError, match="neither a list of qids nor 'all-rolling'"):
        freeze(tiny, "q02", at=AT, who="lead")
    assert digest(tiny) == before
