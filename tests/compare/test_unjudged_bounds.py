"""Bounds before verdicts: a candidate whose top k is full of passages nobody judged reads
`needs judging`, never `worse`; with every passage judged the verdicts are those of today; the
trec_eval convention (`assume_not_relevant`) is printed as the assumption it is."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from ragsweep.compare.build import build_report
from ragsweep.compare.html import to_html
from ragsweep.compare.markdown import to_markdown
from ragsweep.compare.report import NEEDS_JUDGING, WORSE
from ragsweep.compare.runs import RunRecord, report_from_runs, sweep_report
from ragsweep.compare.summary import decision_tag
from ragsweep.errors import UserError
from ragsweep.measures import parse_measures
from ragsweep.scoring.bounds import if_relevant, labels_needed

SLICES = {
    "limits": [f"l{i:02d}" for i in range(20)],
    "exclusions": [f"e{i:02d}" for i in range(20)],
}
WEIGHTS = {"limits": 0.5, "exclusions": 0.5}


def frame(limits_top: str) -> pd.DataFrame:
    """Per-question rows as a configuration run writes them. Every question labels its clause
    `good` 2 and `bad` 0. The baseline (`limits_top="judged"`) ranks good, bad; so does every
    configuration on exclusions. On limits, `unjudged` ranks five clauses nobody judged and
    `bad` ranks only the judged-irrelevant one."""
    rows = []
    for s, qids in SLICES.items():
        for q in qids:
            top = "judged" if s == "exclusions" else limits_top
            ranks = {
                "judged": [[f"{q}/good"], [f"{q}/bad"]],
                "unjudged": [[f"{q}/new{i}"] for i in range(5)],
                "bad": [[f"{q}/bad"]],
            }[top]
            recall = 1.0 if [f"{q}/good"] in ranks else 0.0
            share = {"judged": 0.0, "unjudged": 1.0, "bad": 0.0}[top]
            labels = json.dumps({f"{q}/bad": 0, f"{q}/good": 2}, sort_keys=True)
            rows.append((q, s, recall, share, json.dumps(ranks), labels))
    columns = ["qid", "slice", "recall@5", "unjudged@5", "clauses", "labels"]
    return pd.DataFrame(rows, columns=columns)


def report(candidates: dict[str, pd.DataFrame], **kwargs):
    return build_report(
        frame("judged"),
        candidates,
        decision="recall@5",
        baseline_name="base",
        slice_decision={},
        weights=WEIGHTS,
        **kwargs,
    )


def test_optimistic_scores_by_hand() -> None:
    # q: labels a 2, b 0; base ranks a, b, x; cand ranks y, a, z. At k = 2 the unjudged pool is
    # {y} (the candidate's top 2; x is only at rank 3): a 2, b 0, y 1, so two relevant clauses.
    labels = json.dumps({"a": 2, "b": 0})
    base = pd.DataFrame(
        {"qid": ["q"], "slice": ["s"], "clauses": [json.dumps([["a"], ["b"], ["x"]])]}
    ).assign(labels=labels)
    cand = pd.DataFrame(
        {"qid": ["q"], "slice": ["s"], "clauses": [json.dumps([["y"], ["a"], ["z"]])]}
    ).assign(labels=labels)
    out = if_relevant({"base": base, "cand": cand}, parse_measures("recall@2,P@2,RR"))
    # base: a found of {a, y}: recall 1/2, P@2 1/2, RR 1; cand: y and a: 1, 2/2, RR 1
    np.testing.assert_allclose(out["base"][["recall@2", "P@2", "RR"]].to_numpy(), [[0.5, 0.5, 1]])
    np.testing.assert_allclose(out["cand"][["recall@2", "P@2", "RR"]].to_numpy(), [[1, 1, 1]])
    # RR looks as deep as the lists go: the pool then holds x, y and z too, still 1 for both


def test_each_frame_keeps_the_labels_its_ranks_meet_and_the_pool_reads_them_all() -> None:
    judged = {"a": 2, "b": 0, "c": 0}
    assert labels_needed(judged, [["b"], ["x"]]) == {"a": 2, "b": 0}  # c: nobody ranks it
    base = pd.DataFrame({"qid": ["q"], "slice": ["s"], "clauses": [json.dumps([["a"], ["x"]])]})
    cand = pd.DataFrame({"qid": ["q"], "slice": ["s"], "clauses": [json.dumps([["b"], ["a"]])]})
    base["labels"] = json.dumps(labels_needed(judged, [["a"], ["x"]]))  # {a: 2}
    cand["labels"] = json.dumps(labels_needed(judged, [["b"], ["a"]]))  # {a: 2, b: 0}
    out = if_relevant({"base": base, "cand": cand}, parse_measures("P@2"))
    # b is judged (the candidate's row says so): only x joins the pool
    assert out["base"]["P@2"].tolist() == [1.0] and out["cand"]["P@2"].tolist() == [0.5]


def test_a_top_k_nobody_judged_needs_judging_not_worse() -> None:
    r = report({"unjudged": frame("unjudged"), "bad": frame("bad")})
    assert r.bounded
    head = r.cell("unjudged", "recall@5", "weighted")
    # as not relevant: limits 0 vs 1 on every question, exclusions equal: -0.5 weighted, worse;
    # as relevant: six relevant clauses per limits question, the baseline finds 1, it finds 5
    assert head["delta"] == pytest.approx(-0.5)
    assert head["verdict_if_not_relevant"] == "worse"
    assert head["delta_if_relevant"] == pytest.approx(0.5 * (5 / 6 - 1 / 6))
    assert head["verdict_if_relevant"] == "better"
    assert head["verdict"] == NEEDS_JUDGING
    assert r.decision_of("unjudged").decision == NEEDS_JUDGING
    assert decision_tag(r, "unjudged") == "needs judging"
    # the share beside each cell: every limits passage unjudged, none on exclusions
    assert r.cell("unjudged", "recall@5", "limits")["unjudged"] == 1.0
    assert r.cell("unjudged", "recall@5", "exclusions")["unjudged"] == 0.0
    assert head["unjudged"] == pytest.approx(0.5)
    assert head["baseline_unjudged"] == 0.0
    # every passage of `bad` was judged: worse both ways (the pool's new clauses lower both)
    bad = r.cell("bad", "recall@5", "weighted")
    assert (bad["verdict"], bad["verdict_if_relevant"]) == ("worse", "worse")
    assert r.decision_of("bad").decision == WORSE
    # the report prints the commands that close the gap
    text = to_markdown(r)
    assert "ragsweep labels pool --runs RUN_ID ... --out judging_sheet.csv" in text
    swept = to_markdown(replace(r, sweep="chunk_size"))
    assert "ragsweep labels pool --sweep chunk_size --out judging_sheet.csv" in swept
    assert "ragsweep labels rebaseline chunk_size" in swept
    assert "d-needs-judging" in to_html(r)


def test_with_every_passage_judged_the_verdicts_are_unchanged() -> None:
    bounded = report({"bad": frame("bad")})
    plain = report({"bad": frame("bad").drop(columns=["clauses", "labels"])})
    assert bounded.bounded and not plain.bounded
    pd.testing.assert_series_equal(bounded.cells["verdict"], plain.cells["verdict"])
    np.testing.assert_allclose(bounded.cells["delta_if_relevant"], bounded.cells["delta"])
    assert [d.decision for d in bounded.decisions] == [d.decision for d in plain.decisions]
    assert "no bounds" in to_markdown(plain) and "no bounds" not in to_markdown(bounded)


def test_trec_eval_convention_is_printed_as_an_assumption() -> None:
    r = report({"unjudged": frame("unjudged")}, unjudged="assume_not_relevant")
    assert not r.bounded
    assert r.decision_of("unjudged").decision == WORSE
    assert r.cell("unjudged", "recall@5", "limits")["unjudged"] == 1.0
    for rendered in (to_markdown(r), to_html(r)):
        assert "ASSUMPTION: passages nobody judged are scored as not relevant" in rendered
        assert "needs judging" not in rendered.replace("d-needs-judging", "")
    assert r.to_json()["unjudged"] == "assume_not_relevant"


def test_an_unknown_rule_is_refused_with_the_choices() -> None:
    with pytest.raises(UserError, match="eval.unjudged must be bounds or assume_not_relevant"):
        report({"bad": frame("bad")}, unjudged="ignore")


def test_bounds_columns_that_are_not_json_are_one_line() -> None:
    broken = frame("bad")
    broken.loc[3, "labels"] = "{not json"
    with pytest.raises(UserError, match=r"configuration 'bad', question 'l03': columns clauses"):
        report({"bad": broken})


def _run(name: str, rows: pd.DataFrame, rule: str | None) -> RunRecord:
    ev = {"k_prompt": 5, "traffic_weights": WEIGHTS, **({} if rule is None else {"unjudged": rule})}
    return RunRecord(name, f"id-{name}", {}, rows, list(SLICES), {"eval": ev})


def test_runs_carry_their_rule_and_a_sweep_names_its_commands() -> None:
    base, cand = frame("judged"), frame("unjudged")
    assumed = report_from_runs(
        [_run("128", base, "assume_not_relevant"), _run("256", cand, "assume_not_relevant")],
        factor=None,
        title="t",
        allow_mismatch=False,
    )
    assert (assumed.unjudged, assumed.decision_of("256").decision) == ("assume_not_relevant", WORSE)
    with pytest.raises(UserError, match=r"scored with eval.unjudged=bounds, the baseline 128"):
        report_from_runs(
            [_run("128", base, "assume_not_relevant"), _run("256", cand, "bounds")],
            factor=None,
            title="t",
            allow_mismatch=False,
        )
    swept = sweep_report(
        {"128": _run("128", base, None), "256": _run("256", cand, "bounds")},  # None: bounds
        values=["128", "256"],
        baseline="128",
        name="chunk_size",
        factor="chunker.size",
    )
    assert swept.decision_of("256").decision == NEEDS_JUDGING
    assert swept.judging_commands()[0] == (
        "ragsweep labels pool --sweep chunk_size --out judging_sheet.csv"
    )
    assert swept.to_json()["judging_commands"][-1] == "ragsweep labels rebaseline chunk_size"
