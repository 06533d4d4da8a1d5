"""The gate's sides: TREC runs with qrels, a baseline file written and read back, and the
like-for-like check (fast: small TREC files, no dataset scored)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from conftest import cli_in
from ragsweep.conventions import tag
from ragsweep.errors import UserError
from ragsweep.experiment import gate as g

N = 20  # questions per slice


@pytest.fixture
def trec(tmp_path: Path) -> Path:
    """qrels, slices and three runs: `base` finds d1 first everywhere, `worse` loses it on 10
    exclusions questions, `same` is `base` again."""
    qids = [(f"{s[0]}{i:02d}", s) for s in ("limits", "exclusions") for i in range(N)]
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 d1 2\n{q} 0 d2 0\n" for q, _ in qids))
    (tmp_path / "slices.tsv").write_text("".join(f"{q}\t{s}\n" for q, s in qids))

    def run(name: str, lost: int) -> None:
        lines = []
        for q, s in qids:
            first = "d2" if s == "exclusions" and int(q[1:]) < lost else "d1"
            lines += [f"{q} Q0 {first} 1 2.0 {name}\n", f"{q} Q0 d9 2 1.0 {name}\n"]
        (tmp_path / f"{name}.txt").write_text("".join(lines))

    run("base", 0)
    run("worse", 10)
    run("same", 0)
    return tmp_path


def gate_args(*extra: str) -> list[str]:
    return ["gate", "--qrels", "qrels.txt", "--slices", "slices.tsv", *extra]


def test_a_trec_run_that_loses_the_exclusions_fails_and_one_that_does_not_passes(trec):
    ran = cli_in(trec, *gate_args("--baseline", "base.txt", "--candidate", "worse.txt"))
    assert ran.code == 1, ran.err
    assert "- the guard slice exclusions: recall@5 -0.500 [" in ran.out
    ran = cli_in(trec, *gate_args("--baseline", "base.txt", "--candidate", "same.txt"))
    assert ran.code == 0, ran.err
    assert "## ragsweep gate: PASS: same.txt against base.txt" in ran.out


def test_a_pinned_trec_baseline_reads_back_the_same_scores(trec):
    ran = cli_in(trec, *gate_args("--candidate", "base.txt", "--pin", "baseline.json"))
    assert ran.code == 0, ran.err
    written = g.read_side(
        str(trec / "base.txt"), qrels=str(trec / "qrels.txt"), slices=str(trec / "slices.tsv")
    )
    pinned = g.read_pinned(trec / "baseline.json")
    assert pinned.record.tags == {k: v for k, v in written.record.tags.items()}
    pd.testing.assert_frame_equal(pinned.record.per_question, written.record.per_question)
    assert pinned.record.slices == ["limits", "exclusions"]
    ran = cli_in(trec, *gate_args("--baseline", "baseline.json", "--candidate", "worse.txt"))
    assert ran.code == 1 and "the guard slice exclusions" in ran.out


def test_sides_on_other_labels_split_or_scoring_rule_are_refused(trec):
    q, s = str(trec / "qrels.txt"), str(trec / "slices.tsv")
    base = g.read_side(str(trec / "base.txt"), qrels=q, slices=s, option="--baseline")
    cand = g.read_side(str(trec / "same.txt"), qrels=q, slices=s)
    g.check_like_for_like(base, cand)  # the same files: like for like

    def with_tag(name: str, value: str) -> g.Side:
        tags = {**cand.record.tags, tag(name): value}
        return replace(cand, record=replace(cand.record, tags=tags))

    with pytest.raises(UserError, match=r"labelled set 000000000000, the baseline base.txt "):
        g.check_like_for_like(base, with_tag("labels", "0" * 64))
    with pytest.raises(UserError, match=r"score the candidate on the baseline's split"):
        g.check_like_for_like(base, with_tag("split", "1" * 64))
    linear = {**cand.record.config, "eval": {**cand.record.config["eval"], "gain": "linear"}}
    with pytest.raises(
        UserError, match=r"eval.gain=linear, the baseline base.txt with eval.gain=exp"
    ):
        g.check_like_for_like(base, replace(cand, record=replace(cand.record, config=linear)))


def test_a_summary_too_long_for_a_pull_request_comment_shows_fewer_flipped_questions(
    trec, monkeypatch
):
    import ragsweep.cli.gate as cli_gate

    args = gate_args("--baseline", "base.txt", "--candidate", "worse.txt", "--summary", "g.md")
    full = cli_in(trec, *args)
    assert full.code == 1 and full.out.count("| lost 1.000 → 0.000 |") == 3
    monkeypatch.setattr(cli_gate, "COMMENT_LIMIT", len(full.out) - 1)
    short = cli_in(trec, *args)
    assert short.code == 1 and short.out.count("| lost 1.000 → 0.000 |") == 2
    assert short.out.rstrip().endswith(
        f"(what flipped shows 2 question(s) per slice, not 3: more would pass GitHub's "
        f"{len(full.out) - 1}-character comment; --out DIR writes every one to flipped.csv)"
    )
    assert (trec / "g.md").read_text(encoding="utf-8") == short.out


def test_passages_runs_on_both_sides_answer_the_dataset_given(tmp_path):
    """--data reaches the baseline too: two passages runs of the tiny fixture (scored against
    the built-in sample, the baseline would match none of its questions: exit 2)."""
    from ragsweep.data import load_dataset
    from toy import TINY

    ds = load_dataset(TINY)
    (doc,) = [d for d in ds.documents if d.doc_id == ds.documents[0].doc_id]
    texts = [doc.text[s:e] for s, e in doc.spans[:3]]
    lines = [json.dumps({"qid": q, "passages": texts}) for q in ds.questions["qid"]]
    for name in ("a", "b"):
        (tmp_path / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    args = ["gate", "--baseline", "a.jsonl", "--candidate", "b.jsonl", "--data", str(TINY)]
    ran = cli_in(tmp_path, *args, "--split", "all", "--flipped", "0")
    assert ran.code == 0, ran.err
    assert "## ragsweep gate: PASS: b against a" in ran.out
    (all_row,) = [r for r in ran.out.splitlines() if r.startswith("| all ")]
    assert all_row.split(" | ")[1] == str(len(ds.questions))  # every fixture question scored
