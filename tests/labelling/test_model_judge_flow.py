"""A model judge's labels and their audit, from the shell: `labels import --model` (a pre-labelled
sheet's grades as model-made labels, people's labels kept), `labels audit-sheet` (a random, blind
share of each slice for people), and `labels import --judge` over model-made labels (people's
grades replace the model's, whose grades move to review/prelabels.jsonl: audited)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from conftest import cli_in
from ragsweep.data import load_dataset, sample_path
from ragsweep.data.judge import judge_view
from ragsweep.data.samplegen.judged import JUDGE_MODEL


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    cli_in(tmp_path, "data", "sample", "--out", "judged", "--judged").ok()
    return tmp_path / "judged"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _sheet(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")


def test_people_audit_a_blind_random_share_and_their_grades_replace_the_models(
    judged: Path, tmp_path: Path
) -> None:
    before = judge_view(load_dataset(judged))[0]
    ran = cli_in(
        tmp_path, "labels", "audit-sheet", "--data", str(judged), "--share", "0.3", "--out", "a.csv"
    ).ok()
    assert "limits: 80 questions, 16 audited, 8 drawn now" in ran.out
    sheet = _sheet(tmp_path / "a.csv")
    drawn = set(sheet["qid"])
    assert len(drawn) == 40 and not drawn & before.audited and drawn <= before.by_model
    assert (sheet["existing_grade"] == "").all() and (sheet["prelabel"] == "").all()  # blind
    # people grade it: the sample's own (people's) labels stand in for them
    people = {
        (r["qid"], r["document"], r["section"], r["version"]): r["grade"]
        for r in _rows(sample_path() / "labels.jsonl")
    }
    model = {
        (r["qid"], r["document"], r["section"], r["version"]): r["grade"]
        for r in _rows(judged / "labels.jsonl")
    }
    keys = list(
        zip(sheet["qid"], sheet["document"], sheet["section"], sheet["clause_version"], strict=True)
    )
    sheet["grade"] = [str(people[k]) for k in keys]
    sheet.to_csv(tmp_path / "a.csv", index=False)
    ran = cli_in(
        tmp_path, "labels", "import", "a.csv", "--data", str(judged), "--judge", "alice"
    ).ok()
    assert f"{len(sheet)} model-made label(s) audited" in ran.out

    ds = load_dataset(judged)
    view, why = judge_view(ds)
    assert why is None and view.audited == before.audited | drawn
    after = {
        (r["qid"], r["document"], r["section"], r["version"]): r
        for r in _rows(judged / "labels.jsonl")
    }
    pre = {
        (r["qid"], r["document"], r["section"], r["version"]): r
        for r in _rows(judged / "review" / "prelabels.jsonl")
    }
    for k in keys:
        assert after[k]["grade"] == people[k] and "model" not in after[k]
        assert pre[k]["grade"] == model[k] and pre[k]["model"] == JUDGE_MODEL
    # the changelog says who graded what, and that it was an audit of the model's label
    log = _rows(judged / "history" / "labels_changelog.jsonl")
    assert sum(r["who"] == "alice" for r in log) == len(keys)
    mine = [r for r in log if r["who"] == "alice"]
    # a change, at the same grade too: alice is the label's judge from now on
    assert all(r["kind"] == "change" for r in mine)
    assert all(r["note"].startswith(f"audit of {JUDGE_MODEL}") for r in mine)
    same = [r["note"].endswith("the same grade") for r in mine]
    assert same == [r["old_grade"] == r["new_grade"] for r in mine] and any(same)
    # nothing left to draw at that share
    again = cli_in(
        tmp_path, "labels", "audit-sheet", "--data", str(judged), "--share", "0.3", "--out", "b.csv"
    ).ok()
    assert "no sheet written" in again.out and not (tmp_path / "b.csv").exists()


def test_a_models_grades_become_labels_and_peoples_labels_stay(
    judged: Path, tmp_path: Path
) -> None:
    view = judge_view(load_dataset(judged))[0]
    by_model, audited = sorted(view.by_model)[0], sorted(view.audited)[0]
    labels = [r for r in _rows(judged / "labels.jsonl") if r["qid"] in (by_model, audited)]
    ds = load_dataset(judged)
    clauses = {c.clause_id: c for d in ds.documents for c in d.clauses}
    from ragsweep.labelling.sheet_columns import clause_key, clause_text

    rows = []
    for r in labels:
        c = clauses[f"{r['document']}/{r['section']}@{r['version']}"]
        rows.append(
            {
                "qid": r["qid"],
                "document": r["document"],
                "section": r["section"],
                "clause_version": r["version"],
                "clause_text": clause_text(c),
                "clause_key": clause_key(c.document, c.section, c.version, clause_text(c)),
                "prelabel": str(1 - r["grade"] if r["grade"] < 2 else 2),  # flip the 0s and 1s
                "prelabel_source": f"model {JUDGE_MODEL} at 2026-12-05T00:00:00Z",
                "grade": "",
            }
        )
    pd.DataFrame(rows).to_csv(tmp_path / "m.csv", index=False)
    ran = cli_in(tmp_path, "labels", "import", "m.csv", "--data", str(judged), "--model").ok()
    mine = [r for r in labels if r["qid"] == audited]
    assert f"{len(mine)} pair(s) people had labelled kept their people's grade" in ran.out
    now = {
        (r["qid"], r["document"], r["section"], r["version"]): r
        for r in _rows(judged / "labels.jsonl")
    }
    for r in labels:
        got = now[(r["qid"], r["document"], r["section"], r["version"])]
        if r["qid"] == audited:
            assert got == r  # people's label untouched
        else:
            assert got["model"] == JUDGE_MODEL
            assert got["grade"] == (1 - r["grade"] if r["grade"] < 2 else 2) or (
                got["grade"] == 0 and r["grade"] == 0  # the relevance rule keeps some at 0
            )

    # a sheet mixing two models is refused in one line, nothing written
    rows[0]["prelabel_source"] = "model another-judge at 2026-12-05T00:00:00Z"
    pd.DataFrame(rows).to_csv(tmp_path / "two.csv", index=False)
    before = (judged / "labels.jsonl").read_bytes()
    bad = cli_in(tmp_path, "labels", "import", "two.csv", "--data", str(judged), "--model")
    assert bad.code == 2 and "pre-labels from 2 models" in bad.err
    assert len(bad.err.strip().splitlines()) == 1
    assert (judged / "labels.jsonl").read_bytes() == before


def test_a_question_audited_in_two_sittings_counts_once_people_graded_all_of_it(
    judged: Path, tmp_path: Path
) -> None:
    cli_in(
        tmp_path,
        "labels",
        "audit-sheet",
        "--data",
        str(judged),
        "--share",
        "0.22",
        "--out",
        "a.csv",
    ).ok()
    sheet = _sheet(tmp_path / "a.csv")
    qid = sorted(set(sheet["qid"]))[0]
    mine = sheet[sheet["qid"] == qid].copy()
    people = {
        (r["qid"], r["document"], r["section"], r["version"]): r["grade"]
        for r in _rows(sample_path() / "labels.jsonl")
    }
    keys = list(
        zip(mine["qid"], mine["document"], mine["section"], mine["clause_version"], strict=True)
    )
    mine["grade"] = [str(people[k]) for k in keys]
    half = len(mine) // 2
    mine.iloc[:half].to_csv(tmp_path / "first.csv", index=False)
    mine.iloc[half:].to_csv(tmp_path / "second.csv", index=False)
    cli_in(tmp_path, "labels", "import", "first.csv", "--data", str(judged), "--judge", "ann").ok()
    view, why = judge_view(load_dataset(judged))
    assert why is None and qid not in view.audited and qid in view.by_model  # half done
    pre = [r for r in _rows(judged / "review" / "prelabels.jsonl") if r["qid"] == qid]
    assert len(pre) == len(mine)  # the model's grades of every pair, kept at the first sitting
    cli_in(tmp_path, "labels", "import", "second.csv", "--data", str(judged), "--judge", "ann").ok()
    view, why = judge_view(load_dataset(judged))
    assert why is None and qid in view.audited
    again = [r for r in _rows(judged / "review" / "prelabels.jsonl") if r["qid"] == qid]
    assert again == pre  # not written twice
