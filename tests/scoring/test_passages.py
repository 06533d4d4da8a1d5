"""Scoring another system's passages (`ragsweep.scoring.passages`, docs/passages.md).

The pipeline's own rankings, written as a run file of texts only, must score exactly as the
pipeline scored them (every per-slice metric equal, bit for bit), and so must the same rankings
given as document + text or as spans. Passages reflowed on the way (white space, hyphenation at
line breaks) still place exactly; cut by 10% at the ends they place in full, and the per-slice
numbers move by the amounts measured here on the built-in sample. Bad run files are refused
with one line naming file, line, field and fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from passages_runs import chunks_by_id, reflowed, write_run
from ragsweep.config import compose
from ragsweep.data import load_dataset
from ragsweep.data.passages import read_passage_run
from ragsweep.errors import DatasetError, UserError
from ragsweep.scoring.evaluate import evaluate
from ragsweep.scoring.passages import passages_config, score_passages
from toy import TINY, TOY


@pytest.fixture(scope="module")
def sample():
    """The default configuration on the built-in sample's dev questions: (dataset, result,
    chunks by id)."""
    cfg = compose(["cache.dir=null"])
    ds = load_dataset(None)
    return ds, evaluate(cfg, dataset=ds), chunks_by_id(cfg, ds)


def score(path: Path, ds, *overrides: str, data: Path | None = None):
    run = read_passage_run(path)
    return score_passages(passages_config(run, data=data, overrides=overrides), run, dataset=ds)


def assert_same_numbers(ours, theirs) -> None:
    """Every per-slice metric equal, and every question's scores and credited clauses."""
    pd.testing.assert_frame_equal(ours.summary, theirs.summary, check_exact=True)
    assert ours.metrics == theirs.metrics
    cols = ["qid", "slice", "subset", *(str(m) for m in ours.measures), "clauses"]
    pd.testing.assert_frame_equal(ours.per_question[cols], theirs.per_question[cols])
    assert ours.clause_rankings == theirs.clause_rankings
    assert ours.qrels == theirs.qrels
    assert ours.counts == theirs.counts


# ---------------------------------------------------------------------------------------------
# our own passages, scored as someone else's


def test_own_passages_as_text_reproduce_the_pipeline_exactly(sample, tmp_path) -> None:
    ds, result, chunks = sample
    scored = score(write_run(tmp_path / "own.jsonl", result, chunks), ds)
    assert_same_numbers(result, scored.result)
    stats = scored.stats
    # 300 dev questions x 100 passages, all found word for word; 13,616 of them occur in more
    # than one place (text unchanged between 2024 and 2025): the question's version won
    assert (stats.passages, stats.by_how["exact"], stats.located_share) == (30000, 30000, 1.0)
    assert stats.ambiguous == 13616
    assert (stats.questions, stats.missing, stats.outside_split, stats.unknown) == (300, 0, 0, ())
    assert scored.result.cost["prompt_words_mean"] == result.cost["prompt_words_mean"]
    assert scored.result.tags["ragsweep.stage"] == "external"
    for pin in ("snapshot", "labels", "split", "split_name", "subset", "dataset"):
        assert scored.result.tags[f"ragsweep.{pin}"] == result.tags[f"ragsweep.{pin}"]


def test_own_passages_as_spans_or_document_and_text(sample, tmp_path) -> None:
    ds, result, chunks = sample
    spans = score(write_run(tmp_path / "spans.jsonl", result, chunks, form="span"), ds)
    assert_same_numbers(result, spans.result)
    assert spans.stats.by_how["span"] == 30000
    named = score(write_run(tmp_path / "named.jsonl", result, chunks, form="document"), ds)
    assert_same_numbers(result, named.result)
    assert named.stats.ambiguous == 0  # the document says which version


def test_an_unfiltered_pipeline_needs_the_documents_named(tmp_path) -> None:
    """Without the product filter our retriever may rank a 2024 chunk for a 2025 question. Its
    text alone is placed in the question's version when it is word for word there too; with the
    document named, the numbers are the pipeline's again."""
    cfg = compose([*TOY, "retriever.filter=false", "chunker.size=16", "chunker.overlap=4"])
    ds = load_dataset(TINY)
    result = evaluate(cfg, dataset=ds)
    chunks = chunks_by_id(cfg, ds)
    named = write_run(tmp_path / "named.jsonl", result, chunks, form="document")
    assert_same_numbers(result, score(named, ds, *TOY[2:], data=TINY).result)
    # q10 (motor 2025): the pipeline's first chunk is 2024 text, word for word the same in 2025
    texts = score(write_run(tmp_path / "t.jsonl", result, chunks), ds, *TOY[2:], data=TINY)
    ours = result.per_question.set_index("qid")["RR"]
    theirs = texts.result.per_question.set_index("qid")["RR"]
    assert (ours["q10"], theirs["q10"]) == (0.5, 1.0)
    assert result.rankings["q10"][0].startswith("motor@2024#")


@pytest.mark.slow
def test_reflowed_passages_place_exactly(sample, tmp_path) -> None:
    ds, result, chunks = sample
    path = write_run(tmp_path / "reflowed.jsonl", result, chunks, change=reflowed(trim=0))
    first = json.loads(path.read_text().splitlines()[0])["passages"][0]
    assert "-\n" in first and "\t" in first  # hyphenated at a line break, re-spaced
    scored = score(path, ds)
    assert scored.stats.by_how["normalised"] == 30000
    assert_same_numbers(result, scored.result)  # the same spans, so the same numbers


def test_reflowed_and_cut_passages_place_in_full_and_drift_by_the_coverage_rule(
    sample, tmp_path
) -> None:
    """10% of each passage cut at its ends (then reflowed): every passage is still placed (as
    the shorter span it now is), and the numbers move only because the coverage rule sees
    shorter passages. Measured on the sample's dev questions (default pipeline, 256-word
    chunks): recall@5 and nDCG@10 per slice, the change from the pipeline's own numbers."""
    ds, result, chunks = sample
    path = write_run(tmp_path / "cut.jsonl", result, chunks, change=reflowed())
    scored = score(path, ds)
    assert scored.stats.located_share == 1.0
    assert scored.stats.by_how["normalised"] == 30000
    drift = scored.result.summary - result.summary
    expected = {
        "limits": (-0.007062146893, -0.003053482571),
        "exclusions": (-0.000156128025, 0.005623292522),
        "procedures": (-0.014444444444, -0.008682719212),
        "definitions": (-0.015833333333, -0.017563571410),
        "identifiers": (-0.014120370370, -0.007587478939),
        "all": (-0.010300264550, -0.006223869339),
        "weighted": (-0.009893318764, -0.005789188430),
    }
    for row, (recall5, ndcg10) in expected.items():
        assert drift.loc[row, "recall@5"] == pytest.approx(recall5, abs=1e-11), row
        assert drift.loc[row, "nDCG@10"] == pytest.approx(ndcg10, abs=1e-11), row
    assert drift.abs().max().max() == pytest.approx(0.0275)  # recall@10


# ---------------------------------------------------------------------------------------------
# questions the run misses or adds, and overrides


def test_missing_questions_score_zero_and_extra_lines_are_counted(sample, tmp_path) -> None:
    ds, result, chunks = sample
    q = result.per_question.set_index("qid")
    answered, missed = list(result.rankings)[:2]  # dev questions
    held = next(qid for qid in ds.questions["qid"] if qid not in result.rankings)
    lines = [
        {"qid": answered, "passages": [chunks[c].text for c in result.rankings[answered]]},
        {"qid": held, "passages": ["held out: not scored"]},
        {"qid": "nobody", "passages": []},
    ]
    path = tmp_path / "few.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    scored = score(path, ds)
    s = scored.stats
    assert (s.questions, s.missing, s.outside_split, s.unknown) == (300, 299, 1, ("nobody",))
    pq = scored.result.per_question.set_index("qid")
    assert pq.loc[answered, "recall@5"] == q.loc[answered, "recall@5"]
    assert pq.loc[missed, ["recall@5", "RR", "nDCG@10"]].tolist() == [0.0, 0.0, 0.0]
    assert pq.loc[missed, "passages"] == 0
    assert scored.result.summary.loc["all", "RR"] == pytest.approx(q.loc[answered, "RR"] / 300)
    assert "299 of them without a line in the run (each scores 0)" in s.describe("dev", 90)[-1]


def test_overrides_of_the_scoring_blocks_only(sample, tmp_path) -> None:
    ds, result, chunks = sample
    path = write_run(tmp_path / "own.jsonl", result, chunks, depth=10)
    scored = score(path, ds, "eval.k_prompt=6")
    assert "recall_at_6/weighted" in scored.result.metrics
    run = read_passage_run(path)
    with pytest.raises(UserError, match=r"override 'chunker.size=64' is not KEY=VALUE of the"):
        passages_config(run, overrides=["chunker.size=64"])
    with pytest.raises(UserError, match=r"--split must be one of dev, heldout, all"):
        passages_config(run, split="test")


# ---------------------------------------------------------------------------------------------
# bad input: one line naming file, line, field and fix


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        ("", r"run\.jsonl: holds no line; write one"),
        ('{"qid": "q1", "passages": []}\n\n', r"run\.jsonl:2: blank line"),
        ('{"qid": "q1"}\n', r"run\.jsonl:1: field 'passages': missing; add it"),
        ('{"qid": "q1", "passages": [], "k": 1}\n', r":1: field 'k': unknown field"),
        ('{"qid": "q 1", "passages": []}\n', r":1: field 'qid': 'q 1' is not a question id"),
        (
            '{"qid": "q1", "passages": []}\n{"qid": "q1", "passages": []}\n',
            r"run\.jsonl:2: field 'qid': question 'q1' already has line 1; give each question "
            r"one line",
        ),
        ('{"qid": "q1", "passages": ["a", " "]}\n', r":1: field 'passages\[1\]': is empty"),
        ('{"qid": "q1", "passages": [3]}\n', r":1: field 'passages\[0\]': expected a passage"),
        (
            '{"qid": "q1", "passages": [{"text": "a", "score": 2}]}\n',
            r":1: field 'passages\[0\]\.score': unknown field; allowed: text, document, start, "
            r"end \(the order of the list is the rank",
        ),
        (
            '{"qid": "q1", "passages": [{"document": "home@2025"}]}\n',
            r":1: field 'passages\[0\]': has the fields document; a passage is a string",
        ),
        (
            '{"qid": "q1", "passages": [{"document": "home 2025", "text": "a"}]}\n',
            r"field 'passages\[0\]\.document': 'home 2025' is not a wording version; write it as "
            r"<document>@<version>",
        ),
        (
            '{"qid": "q1", "passages": [{"document": "home@2025", "start": 9, "end": 9}]}\n',
            r"field 'passages\[0\]\.end': span \[9, 9\) is empty or negative",
        ),
        (
            '{"qid": "q1", "passages": [{"document": "home@2025", "start": "0", "end": 9}]}\n',
            r"field 'passages\[0\]\.start': expected a whole number, got a string",
        ),
    ],
)
def test_run_file_errors(tmp_path, content: str, pattern: str) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError, match=pattern) as err:
        read_passage_run(path)
    assert "\n" not in str(err.value)


def test_errors_against_the_snapshot(sample, tmp_path) -> None:
    ds, result, _ = sample
    text = next(d for d in ds.documents if (d.document, d.version) == ("home", "2025")).text
    dev = next(iter(result.rankings))

    def refused(passage: object, pattern: str, qid: str = dev) -> None:
        path = tmp_path / "run.jsonl"
        path.write_text(json.dumps({"qid": qid, "passages": [passage]}) + "\n")
        with pytest.raises(UserError, match=pattern) as err:
            score(path, ds)
        assert "\n" not in str(err.value)

    refused(
        {"document": "home@2026", "text": "x"},
        r"run\.jsonl:1: field 'passages\[0\]\.document': 'home@2026' is not a wording version "
        r"of the snapshot .*did you mean 'home@2025'\?",
    )
    refused(
        {"document": "home@2025", "start": 10, "end": len(text) + 1},
        rf"run\.jsonl:1: field 'passages\[0\]\.end': span \[10, {len(text) + 1}\) ends after "
        rf"home@2025's rendered text \({len(text)} characters\); spans are code-point offsets",
    )
    refused(
        {"document": "home@2025", "start": 0, "end": 5, "text": "Other"},
        r"field 'passages\[0\]\.text': is not the rendered text of home@2025 \[0, 5\) .* drop "
        r"start and end to locate the text instead",
    )
    refused("a passage", r"run\.jsonl: no line is about a dev question of .*; use the qids", "Q1")
    refused(
        "Policy wording for a lighthouse keeper's boat, nothing like this is insured here.",
        r"run\.jsonl: none of its 1 passages of dev questions is found in the snapshot .* "
        r"pass --data for the dataset it answers",
    )
