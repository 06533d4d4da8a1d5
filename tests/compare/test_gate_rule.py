"""The release gate's rule on hand-made per-question scores: which strata fail, which warn, and
what the Markdown summary and the JUnit XML say."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from ragsweep.compare.build import build_report
from ragsweep.compare.gate import FAIL, PASS, WARN, decide, gate_junit, gate_markdown
from ragsweep.errors import UserError

SLICES = ("limits", "exclusions")
N = 30  # questions per slice


def frame(drop: dict[str, int], labels: bool = False) -> pd.DataFrame:
    """recall@5 per question: 1 for every question, 0 for the first `drop[slice]` of a slice."""
    rows = []
    for s in SLICES:
        for i in range(N):
            rows.append(
                {"qid": f"{s}-{i:02d}", "slice": s, "recall@5": 0.0 if i < drop.get(s, 0) else 1.0}
            )
    out = pd.DataFrame(rows)
    if labels:  # what the bounds read: each rank's clauses and the labels they need
        out["clauses"] = [json.dumps([["c1"]]) for _ in rows]
        out["labels"] = [json.dumps({"c1": 1}) for _ in rows]
    return out


def report(cand: pd.DataFrame, base: pd.DataFrame | None = None, **kw):
    return build_report(
        frame({}) if base is None else base,
        {"release-b": cand},
        decision="recall@5",
        baseline_name="release-a",
        slices=list(SLICES),
        guard_slices=["exclusions"],
        slice_decision={},
        **kw,
    )


def statuses(gate) -> dict[str, str]:
    return {c.stratum: c.status for c in gate.checks}


def test_a_guard_slice_worse_beyond_noise_fails_and_names_the_slice():
    gate = decide(report(frame({"exclusions": 12})))
    assert not gate.passed
    assert statuses(gate) == {"limits": PASS, "exclusions": FAIL, "all": FAIL}
    (why_guard, why_all) = gate.failures
    assert why_guard.startswith("the guard slice exclusions: recall@5 -0.400 [")
    assert why_guard.endswith("over 30 questions: worse beyond noise")
    assert why_all.startswith("the headline all: recall@5 -0.200 [")


def test_another_slice_worse_beyond_noise_only_warns():
    weights = {"limits": 0.1, "exclusions": 0.9}
    gate = decide(report(frame({"limits": 12}), weights=weights))
    assert gate.passed
    # the two that decide are not worse beyond noise; 30 questions cannot rule out a small drop
    assert statuses(gate) == {"limits": WARN, "exclusions": WARN, "all": WARN, "weighted": WARN}
    limits, exclusions, unweighted, weighted = gate.warnings
    assert limits.endswith("worse beyond noise (it does not decide)")
    assert unweighted.startswith("all questions, unweighted,: recall@5 -0.200")
    assert weighted.startswith("the headline weighted: recall@5 -0.040 [")
    assert "not worse beyond noise, but a drop as large as" in weighted
    assert "not worse beyond noise, but a drop as large as" in exclusions


def test_a_guard_slice_whose_interval_cannot_rule_out_a_drop_warns_with_the_questions_needed():
    gate = decide(report(frame({"exclusions": 2}), base=frame({"exclusions": 0})))
    guard = [c for c in gate.checks if c.stratum == "exclusions"][0]
    assert guard.verdict == "noise" and guard.status == WARN
    cell = gate.report.cell("release-b", "recall@5", "exclusions")
    assert f"about {int(cell['questions_needed'])} questions in this stratum" in guard.why
    assert int(cell["questions_needed"]) > N


def test_needs_judging_on_a_guard_slice_fails_or_warns_by_option():
    # the baseline found c1 everywhere; the candidate ranks an unjudged document on 12 questions
    base = frame({}, labels=True)
    cand = frame({"exclusions": 12}, labels=True)
    lost = cand["recall@5"] == 0.0
    cand.loc[lost, "clauses"] = json.dumps([["x9"]])
    cand.loc[lost, "labels"] = json.dumps({"c1": 1})
    r = report(cand, base=base)
    assert r.cell("release-b", "recall@5", "exclusions")["verdict"] == "needs judging"
    assert statuses(decide(r, "fail"))["exclusions"] == FAIL
    assert statuses(decide(r, "warn"))["exclusions"] == WARN
    with pytest.raises(UserError, match="--needs-judging must be one of fail, warn"):
        decide(r, "maybe")


def test_the_summary_and_the_junit_xml_say_the_same_thing():
    gate = decide(report(frame({"exclusions": 12})))
    md = gate_markdown(gate, "### What flipped\nq1 lost")
    assert md.startswith("## ragsweep gate: FAIL: release-b against release-a\n")
    row = [line for line in md.splitlines() if line.startswith("| exclusions (guard) |")]
    assert row == [
        "| exclusions (guard) | 30 | recall@5 | 1.000 | 0.600 | "
        f"{_interval(gate, 'exclusions')} | worse | fail |"
    ]
    assert md.rstrip().endswith("### What flipped\nq1 lost")
    root = ET.fromstring(gate_junit(gate, "q1 lost"))
    suite = root.find("testsuite")
    assert (root.get("tests"), root.get("failures")) == ("3", "2")
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["exclusions (guard)", "all (headline)"]
    assert suite.find("system-out").text == "q1 lost"


def _interval(gate, stratum: str) -> str:
    (c,) = [c for c in gate.checks if c.stratum == stratum]
    return f"{c.delta:+.3f} [{c.ci_low:+.3f}, {c.ci_high:+.3f}]"


def test_a_passing_gate_says_which_slices_it_guarded():
    gate = decide(report(frame({})))
    assert gate.passed and not gate.failures
    assert "neither the headline nor a guard slice (exclusions) is worse beyond noise" in (
        gate_markdown(gate)
    )
    assert np.isclose([c.delta for c in gate.checks], 0.0).all()
