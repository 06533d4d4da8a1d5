"""What flipped (`ragsweep.compare.flips`): the questions a candidate lost and gained at each
slice's deciding measure, with the question, its relevant clauses and both top k marked judged
or unjudged, in the report model, every rendering and the files."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ragsweep.compare.build import build_report
from ragsweep.compare.files import write_report
from ragsweep.compare.flips import flipped_markdown
from ragsweep.compare.html import to_html
from ragsweep.compare.markdown import to_markdown
from ragsweep.compare.text import rich_tables
from ragsweep.errors import UserError

#: labels per question: clause -> grade (c7 is judged not relevant for q2)
LABELS = {
    "q1": {"c1": 2, "c2": 1},
    "q2": {"c3": 2, "c7": 0},
    "q3": {"c5": 1},
    "q6": {"c1": 1},
    "q4": {"c9": 2},
}
SLICE = {"q1": "limits", "q2": "limits", "q3": "limits", "q6": "limits", "q4": "exclusions"}
QUESTION = {q: f"What does question {q} ask?" for q in SLICE}


def frame(
    ranks: dict[str, list[list[str]]], words: dict[str, list[str]] | None = None
) -> pd.DataFrame:
    """A per-question frame as a configuration run writes it, recall@2 computed from `ranks`
    (the relevant clauses found in the top 2 / those labelled), RR from the first relevant."""
    rows = []
    for q, ranked in ranks.items():
        relevant = {c for c, g in LABELS[q].items() if g >= 1}
        found = {c for covered in ranked[:2] for c in covered} & relevant
        first = next((i + 1 for i, cs in enumerate(ranked) if set(cs) & relevant), None)
        rows.append(
            {
                "qid": q,
                "question": QUESTION[q],
                "slice": SLICE[q],
                "recall@2": len(found) / len(relevant),
                "RR": 1 / first if first else 0.0,
                "clauses": json.dumps(ranked),
                "labels": json.dumps(LABELS[q]),
                **({"first_words": json.dumps(words.get(q, []))} if words is not None else {}),
            }
        )
    return pd.DataFrame(rows)


BASE = {
    "q1": [["c1"], ["c8"]],  # recall@2 1/2
    "q2": [["c7"], ["c8"]],  # 0
    "q3": [["c5"], ["c6"]],  # 1
    "q6": [["c1"], ["c8"]],  # 1
    "q4": [["c9"], ["c8"]],  # 1
}
CAND = {
    "q1": [["c4"], ["c6"]],  # 0: lost 0.5, its relevant clauses out of the top 2
    "q2": [["c3"], []],  # 1: gained, rank 2 covers no clause
    "q3": [["c5"], ["c6"]],  # unchanged
    "q6": [["c4"], ["c8"]],  # 0: lost 1.0, comes before q1
    "q4": [["c8"], ["c9"]],  # still 1 on recall@2
}
WORDS = {"q1": ["Excess of\n  500   for each claim", "We will not pay"], "q2": ["Limit one", "x"]}


def report(**kwargs):
    return build_report(
        frame(BASE, WORDS),
        {"new": frame(CAND, WORDS)},
        decision="recall@2",
        baseline_name="old",
        slices=["limits", "exclusions"],
        slice_decision={},
        **kwargs,
    )


def test_the_lost_and_gained_questions_with_their_clauses_and_marks():
    flips = report().flipped
    assert list(flips["qid"]) == ["q6", "q1", "q2"]  # lost, largest first, then gained
    assert list(flips["change"]) == ["lost", "lost", "gained"]
    assert list(flips["baseline"]) == [1.0, 0.5, 0.0]
    assert list(flips["candidate"]) == [0.0, 0.0, 1.0]
    q1 = flips.set_index("qid").loc["q1"]
    assert q1["measure"] == "recall@2" and q1["slice"] == "limits"
    assert q1["question"] == "What does question q1 ask?"
    assert q1["relevant"] == "c1 (2), c2 (1)"
    assert q1["baseline_top"] == (
        '1. c1 [2] "Excess of 500 for each claim"\n2. c8 [unjudged] "We will not pay"'
    )
    assert q1["candidate_top"] == (
        '1. c4 [unjudged] "Excess of 500 for each claim"\n2. c6 [unjudged] "We will not pay"'
    )
    assert q1["unjudged_in_candidate"] == 2
    q2 = flips.set_index("qid").loc["q2"]
    assert q2["relevant"] == "c3 (2)"  # grade 0 is judged, not relevant
    assert q2["baseline_top"] == '1. c7 [0] "Limit one"\n2. c8 [unjudged] "x"'
    assert q2["candidate_top"] == '1. c3 [2] "Limit one"\n2. (no clause) "x"'
    assert q2["unjudged_in_candidate"] == 0


def test_rr_decides_a_slice_and_its_lists_go_ten_deep():
    flips = build_report(
        frame(BASE),
        {"new": frame(CAND)},
        decision="recall@2",
        baseline_name="old",
        slices=["limits", "exclusions"],
        slice_decision={"exclusions": "RR"},
    ).flipped
    q4 = flips[flips["slice"] == "exclusions"].iloc[0]
    assert (q4["qid"], q4["change"], q4["measure"]) == ("q4", "lost", "RR")
    assert (q4["baseline"], q4["candidate"]) == (1.0, 0.5)
    assert q4["candidate_top"] == "1. c8 [unjudged]\n2. c9 [2]"  # no words: ids only
    assert list(flips["slice"]) == ["limits", "limits", "limits", "exclusions"]


def test_frames_without_text_or_labels_still_compare():
    old, new = frame(BASE), frame(CAND)
    bare = build_report(
        old.drop(columns=["question", "clauses", "labels"]),
        {"new": new.drop(columns=["question", "clauses", "labels"])},
        decision="recall@2",
        baseline_name="old",
        slices=["limits", "exclusions"],
        slice_decision={},
    )
    flips = bare.flipped
    assert list(flips["qid"]) == ["q6", "q1", "q2"]
    assert set(flips["question"]) == {""} and set(flips["baseline_top"]) == {""}
    assert flips["unjudged_in_candidate"].isna().all()
    assert "q6" in to_markdown(bare) and "q6" in to_html(bare)


def test_nothing_flipped_is_an_empty_table():
    same = build_report(frame(BASE), {"new": frame(BASE)}, decision="recall@2", baseline_name="old")
    assert same.flipped.empty and list(same.flipped.columns)[:4] == [
        "config",
        "slice",
        "qid",
        "change",
    ]
    assert same.to_json()["flipped"] == []
    assert "No question changed its score (recall@2)." in flipped_markdown(same, "new")
    terminal = " ".join(str(t) for t in rich_tables(same) if hasattr(t, "plain"))
    assert "new against old: limits none; exclusions none" in terminal


def test_every_rendering_shows_the_question_and_the_unjudged_mark(tmp_path):
    r = report()
    md = to_markdown(r)
    assert "## What flipped" in md and "What does question q1 ask?" in md
    assert "c4 [unjudged]" in md
    # the words of unjudged ranks, not of judged ones: the grade says what those are
    assert '| 1. c1 [2]<br>2. c8 [unjudged] "We will not pay" |' in md
    page = to_html(r)
    assert "What does question q6 ask?" in page
    assert '<span class="unjudged">1. c4 [unjudged] &quot;Excess of 500 for each claim&quot;' in (
        page
    )
    terminal = " ".join(str(t) for t in rich_tables(r) if hasattr(t, "plain"))
    assert "what flipped at the deciding measure, new against old: limits 2 lost, 1 gained; " in (
        terminal
    )
    written = write_report(r, tmp_path)
    back = pd.read_csv(written["flipped.csv"], keep_default_na=False)
    assert list(back["qid"]) == ["q6", "q1", "q2"]
    assert json.loads(written["report.json"].read_text())["flipped"][1]["relevant"] == (
        "c1 (2), c2 (1)"
    )


def test_the_pull_request_section_caps_each_slice():
    text = flipped_markdown(report(), "new", per_slice=1)
    assert text.startswith("### What flipped: new against old")
    assert "| limits | recall@2 | 2 | 1 |" in text
    assert "What does question q6 ask?" in text  # the largest loss is shown
    assert "What does question q1 ask?" not in text  # the second is counted only
    assert "| 1 more lost |" in text
    assert "What does question q2 ask?" in text


@pytest.mark.parametrize("bad", ["{not json", "[1, 2"])
def test_a_clauses_cell_that_is_not_json_is_named(bad):
    new = frame(CAND)
    new.loc[new["qid"] == "q1", "clauses"] = bad
    with pytest.raises(UserError, match="configuration .new., question .q1.: column clauses"):
        build_report(
            frame(BASE),
            {"new": new},
            decision="recall@2",
            baseline_name="old",
            unjudged="assume_not_relevant",
        )


# --- the per-question columns the flips read ---------------------------------------------------
def test_scored_rows_carry_the_question_and_each_ranks_first_words(tmp_path):
    """A configuration run's rows: the labelled question's text and, per rank, its chunk's
    first words; a passages run's: the words the run gave, an unlocated passage's too."""
    import numpy as np

    from passages_runs import chunks_by_id
    from ragsweep.config import compose
    from ragsweep.data import load_dataset
    from ragsweep.data.passages import read_passage_run
    from ragsweep.scoring.eval_config import scoring
    from ragsweep.scoring.passages import passages_config, score_passages
    from ragsweep.scoring.ranked import score_ranked
    from toy import TINY, TOY

    ds = load_dataset(TINY)
    cfg = compose([*TOY, "cache.dir=null"])
    how = scoring(cfg, ds)
    chunks = list(chunks_by_id(cfg, ds).values())
    ranked = np.tile(np.array([1, -1, 0]), (len(how.questions), 1))  # a hole at rank 2
    pq = score_ranked(ds, how, chunks, ranked).per_question.set_index("qid")
    qid = pq.index[0]
    asked = ds.questions.set_index("qid").loc[qid, "text"]
    assert pq.loc[qid, "question"] == asked

    def shown(text: str) -> str:
        words = text.split()
        return " ".join(words[:12]) + (" ..." if len(words) > 12 else "")

    top = chunks[1].text
    assert json.loads(pq.loc[qid, "first_words"]) == [shown(top), "", shown(chunks[0].text)]

    said = "Nothing like this sentence is in any wording   of the tiny snapshot at all, not once"
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps({"qid": qid, "passages": [said, top]}) + "\n")
    parsed = read_passage_run(run)
    scored = score_passages(passages_config(parsed, data=TINY, split="all"), parsed, dataset=ds)
    row = scored.result.per_question.set_index("qid").loc[qid]
    assert row["question"] == asked
    assert json.loads(row["first_words"]) == [
        "Nothing like this sentence is in any wording of the tiny snapshot ...",
        shown(top),
    ]
    ranks = json.loads(row["clauses"])
    assert ranks[0] == [] and ranks[1]  # unlocated: no clause, its words still shown
