"""A labelled set partly made by a model judge (`ragsweep.data.judge`, the `model` field of
labels.jsonl, `data.samplegen.judged`): what is audited, what the judge graded, and what stops a
correction, said with its fix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragsweep.data import load_dataset, sample_path
from ragsweep.data.judge import judge_view
from ragsweep.data.manifest import write_manifest
from ragsweep.data.samplegen.judged import JUDGE_MODEL, judged_copy
from ragsweep.errors import DatasetError


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("judged") / "set"
    judged_copy(sample_path(), out, audit_share=0.2, seed=0)
    return out


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_the_judged_copy_has_the_model_on_most_questions_and_people_on_an_audit(
    judged: Path,
) -> None:
    ds = load_dataset(judged)
    view, why = judge_view(ds)
    assert why is None and view is not None
    assert view.model == JUDGE_MODEL
    assert len(view.audited) == 80 and len(view.by_model) == 320  # 16 of each slice's 80
    for s in ds.slices:
        qids = set(ds.questions.loc[ds.questions["slice"] == s, "qid"])
        assert len(qids & view.audited) == 16
    # the labels of audited questions are the people's, unchanged; the judge's are in review/
    people = {
        (r["qid"], r["document"], r["section"], r["version"]): r["grade"]
        for r in _rows(sample_path() / "labels.jsonl")
    }
    for r in _rows(judged / "labels.jsonl"):
        key = (r["qid"], r["document"], r["section"], r["version"])
        if r["qid"] in view.audited:
            assert "model" not in r and r["grade"] == people[key]
        else:
            assert r["model"] == JUDGE_MODEL
    pre = _rows(judged / "review" / "prelabels.jsonl")
    assert {r["qid"] for r in pre} == set(view.audited)
    # the judge over-calls on exclusions: more grade 1 than people gave there
    grades = view.grades.merge(ds.questions[["qid", "slice"]], on="qid")
    exc = grades[(grades["slice"] == "exclusions") & grades["qid"].isin(view.audited)]
    mine = ds.labels.merge(exc[["qid", "clause_id"]], on=["qid", "clause_id"])
    assert (exc["grade"] == 1).sum() > 1.5 * (mine["grade"] == 1).sum()
    assert "model" in ds.labels.columns
    assert ds.labels["model"].isna().sum() == sum(1 for r in pre)


def test_a_set_people_labelled_has_no_view_and_no_model_column() -> None:
    ds = load_dataset(sample_path())
    assert judge_view(ds) == (None, None)
    assert "model" not in ds.labels.columns


def test_two_judges_stop_the_correction_with_the_fix(judged: Path, tmp_path: Path) -> None:
    copy = tmp_path / "two"
    shutil.copytree(judged, copy)
    rows = _rows(copy / "labels.jsonl")
    rows[-1]["model"] = "another-judge"
    _write(copy / "labels.jsonl", rows)
    write_manifest(copy)
    view, why = judge_view(load_dataset(copy))
    assert view is None and why is not None
    assert "2 model judges" in why and "grade them all with one" in why


def test_questions_people_labelled_that_the_judge_never_graded_stop_it(
    judged: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "unjudged"
    shutil.copytree(judged, copy)
    pre = _rows(copy / "review" / "prelabels.jsonl")
    dropped = pre[0]["qid"]
    _write(copy / "review" / "prelabels.jsonl", [r for r in pre if r["qid"] != dropped])
    write_manifest(copy)
    view, why = judge_view(load_dataset(copy))
    assert view is None
    assert f"1 question(s) people labelled ({dropped})" in why
    assert "add them to review/prelabels.jsonl" in why


def test_a_model_field_that_is_not_a_string_is_refused_in_one_line(
    judged: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "bad"
    shutil.copytree(judged, copy)
    rows = _rows(copy / "labels.jsonl")
    rows[3]["model"] = 7
    _write(copy / "labels.jsonl", rows)
    write_manifest(copy)
    with pytest.raises(DatasetError) as err:
        load_dataset(copy)
    text = str(err.value)
    assert "labels.jsonl:4: field 'model': expected a string" in text
    assert "\n" not in text


def test_data_sample_judged_writes_a_model_judged_sample_that_data_check_describes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ragsweep.cli.data_sample import main
    from ragsweep.data import check_dataset

    assert main(["--out", str(tmp_path / "s"), "--judged"]) == 0
    out = capsys.readouterr().out
    assert "model-judged: 320 of 400 questions carry the labels of" in out
    stats = check_dataset(tmp_path / "s")
    assert stats["model_judged"] == {
        "corrected": True,
        "judge": JUDGE_MODEL,
        "questions_by_model": 320,
        "questions_audited": 80,
    }
    assert "model_judged" not in check_dataset(sample_path())  # a people-made set reads as before
    # the same seed gives the same bytes
    assert main(["--out", str(tmp_path / "t"), "--judged"]) == 0
    for name in ("labels.jsonl", "review/prelabels.jsonl", "MANIFEST.sha256"):
        assert (tmp_path / "s" / name).read_bytes() == (tmp_path / "t" / name).read_bytes()
