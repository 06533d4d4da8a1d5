"""The model judge's edges: an audit sheet blind in its order too, a question people had touched
before its audit, a model's grades of questions people labelled (an audit, not labels), one
model per set, and the audit drawn right when no correction is possible yet."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from conftest import cli_in
from ragsweep.data import load_dataset, sample_path
from ragsweep.data.judge import audited_questions, judge_view
from ragsweep.data.manifest import write_manifest
from ragsweep.data.samplegen.judged import JUDGE_MODEL
from ragsweep.labelling.sheet_columns import clause_key, clause_text

AT = "2026-12-05T00:00:00Z"


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    cli_in(tmp_path, "data", "sample", "--out", "judged", "--judged").ok()
    return tmp_path / "judged"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write_rows(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _key(r: dict) -> tuple[str, str, str, str]:
    return r["qid"], r["document"], r["section"], r["version"]


def _model_sheet(folder: Path, pairs: dict, model: str | None, name: str = "m.csv") -> str:
    """A pre-labelled sheet whose pre-labels are `model`'s grades of `pairs` (key -> grade);
    `model` None: a judged sheet, the grades people's."""
    ds = load_dataset(folder)
    clauses = {c.clause_id: c for d in ds.documents for c in d.clauses}
    rows = []
    for (qid, doc, sec, ver), grade in pairs.items():
        c = clauses[f"{doc}/{sec}@{ver}"]
        rows.append(
            {
                "qid": qid,
                "document": doc,
                "section": sec,
                "clause_version": ver,
                "clause_text": clause_text(c),
                "clause_key": clause_key(c.document, c.section, c.version, clause_text(c)),
                "prelabel": str(grade) if model else "",
                "prelabel_source": f"model {model} at {AT}" if model else "",
                "grade": "" if model else str(grade),
            }
        )
    pd.DataFrame(rows).to_csv(folder.parent / name, index=False)
    return name


def _people_sheet(folder: Path, pairs: dict, name: str) -> str:
    """A judged sheet (people's grades) of `pairs` (key -> grade)."""
    return _model_sheet(folder, pairs, None, name)


def _without_prelabels(folder: Path, qids: set[str] | None = None) -> None:
    """review/prelabels.jsonl without the rows of `qids` (None: without the file)."""
    path = folder / "review" / "prelabels.jsonl"
    if qids is None:
        path.unlink()
    else:
        _write_rows(path, [r for r in _rows(path) if r["qid"] not in qids])
    write_manifest(folder)


def test_the_audit_sheet_does_not_give_the_models_grades_away_by_its_order(judged, tmp_path):
    cli_in(
        tmp_path, "labels", "audit-sheet", "--data", str(judged), "--share", "0.4", "--out", "a.csv"
    ).ok()
    sheet = pd.read_csv(tmp_path / "a.csv", dtype=str, keep_default_na=False)
    model = {_key(r): r["grade"] for r in _rows(judged / "labels.jsonl")}
    by_grade = 0
    for _, rows in sheet.groupby("qid", sort=False):
        keys = list(zip(rows["document"], rows["section"], rows["clause_version"], strict=True))
        assert keys == sorted(keys)  # by clause
        grades = [model[(q, *k)] for q, k in zip(rows["qid"], keys, strict=True)]
        by_grade += grades == sorted(grades, reverse=True) and len(set(grades)) > 1
    # labels.jsonl keeps every question's labels highest grade first; the sheet does not
    n = sheet["qid"].nunique()
    assert by_grade < n / 2, f"{by_grade} of {n} questions' rows follow the model's grades"


def test_a_question_people_touched_before_its_audit_is_audited_once_they_grade_it(judged, tmp_path):
    view = judge_view(load_dataset(judged))[0]
    qid = sorted(view.by_model)[0]
    labels = _rows(judged / "labels.jsonl")
    mine = {_key(r): r["grade"] for r in labels if r["qid"] == qid}
    # bob adds one pair to the model-labelled question: it mixes people's and the model's labels
    ds = load_dataset(judged)
    asked = ds.questions.set_index("qid").loc[qid]
    doc = next(
        d for d in ds.documents if d.version == asked["version"] and d.product == asked["product"]
    )
    extra = next(
        (qid, doc.document, c.section, doc.version)
        for c in doc.clauses
        if (qid, doc.document, c.section, doc.version) not in mine
    )
    name = _people_sheet(judged, {extra: 0}, "bob.csv")
    ran = cli_in(tmp_path, "labels", "import", name, "--data", str(judged), "--judge", "bob").ok()
    assert "1 added" in ran.out
    assert judge_view(load_dataset(judged))[1] is not None  # mixed, the model's grades nowhere
    # ann audits every pair the model labelled
    people = {_key(r): r["grade"] for r in _rows(sample_path() / "labels.jsonl")}
    name = _people_sheet(judged, {k: people.get(k, 0) for k in mine}, "ann.csv")
    ran = cli_in(tmp_path, "labels", "import", name, "--data", str(judged), "--judge", "ann").ok()
    assert "review/prelabels.jsonl" in ran.out
    view, why = judge_view(load_dataset(judged))
    assert why is None and qid in view.audited
    pre = {_key(r): r["grade"] for r in _rows(judged / "review" / "prelabels.jsonl")}
    assert {k: pre[k] for k in mine} == mine  # the model's own grades
    assert pre[extra] == 0  # bob's pair, which the model never graded


def test_a_models_grades_of_questions_people_labelled_are_their_audit(tmp_path):
    folder = tmp_path / "s"
    cli_in(tmp_path, "data", "sample", "--out", "s").ok()
    labels = _rows(folder / "labels.jsonl")
    q1, q2 = sorted({r["qid"] for r in labels})[:2]
    _without_prelabels(folder)  # a simulated pre-labeller's grades: another model's
    before = (folder / "labels.jsonl").read_bytes()
    mine = {_key(r): r["grade"] for r in labels if r["qid"] in (q1, q2)}
    graded = dict(list(mine.items())[1:])  # the model did not grade the first pair
    name = _model_sheet(folder, graded, "judge-x")
    ran = cli_in(tmp_path, "labels", "import", name, "--data", str(folder), "--model").ok()
    assert "2 question(s) people had labelled" in ran.out
    assert (folder / "labels.jsonl").read_bytes() == before  # people's labels, untouched
    pre = {
        _key(r): (r["grade"], r["model"])
        for r in _rows(folder / "review" / "prelabels.jsonl")
        if r["qid"] in (q1, q2)
    }
    first = next(iter(mine))
    assert pre == {k: (graded.get(k, 0), "judge-x") for k in mine} and pre[first][0] == 0
    assert {q1, q2} <= audited_questions(load_dataset(folder))
    # the same sheet again writes nothing
    cli_in(tmp_path, "labels", "import", name, "--data", str(folder), "--model").ok()
    assert {
        _key(r): (r["grade"], r["model"])
        for r in _rows(folder / "review" / "prelabels.jsonl")
        if r["qid"] in (q1, q2)
    } == pre


def test_one_model_per_set_across_sheets_labels_and_prelabels(judged, tmp_path):
    labels = _rows(judged / "labels.jsonl")
    model_q = sorted({r["qid"] for r in labels if r.get("model")})[:2]
    pairs = [{_key(r): r["grade"] for r in labels if r["qid"] == q} for q in model_q]
    before = {p: p.read_bytes() for p in judged.rglob("*") if p.is_file()}

    def refused(*names: str, says: str) -> None:
        bad = cli_in(tmp_path, "labels", "import", *names, "--data", str(judged), "--model")
        assert bad.code == 2 and says in bad.err
        assert len(bad.err.strip().splitlines()) == 1
        assert {p: p.read_bytes() for p in judged.rglob("*") if p.is_file()} == before

    a = _model_sheet(judged, pairs[0], JUDGE_MODEL, "a.csv")
    b = _model_sheet(judged, pairs[1], "another-judge", "b.csv")
    refused(a, b, says="beside model")  # two sheets, two models
    refused(b, says=f"holds the grades of model {JUDGE_MODEL!r}")  # another than the set's
    # the built-in sample's prelabels are a simulated pre-labeller's: another model too
    plain = tmp_path / "plain"
    cli_in(tmp_path, "data", "sample", "--out", "plain").ok()
    name = _model_sheet(plain, pairs[0], "judge-x", "x.csv")
    bad = cli_in(tmp_path, "labels", "import", name, "--data", str(plain), "--model")
    assert bad.code == 2 and "review/prelabels.jsonl holds the grades of model" in bad.err
    # said of the sheet the user gave, at its line, never of a file of the import's own
    assert f"error: {name}:2: field 'prelabel_source'" in bad.err


def test_the_audit_counts_what_is_audited_when_no_correction_is_possible_yet(judged, tmp_path):
    ds = load_dataset(judged)
    audited = sorted(judge_view(ds)[0].audited)
    lost = audited[0]  # a question that counts as audited no more ...
    other = next(  # ... and a people's question the judge never graded: no correction
        q for q in audited if q != lost
    )
    _without_prelabels(judged, {other})
    ran = cli_in(
        tmp_path, "labels", "audit-sheet", "--data", str(judged), "--share", "0.4", "--out", "a.csv"
    ).ok()
    assert "no comparison on the set can be corrected yet" in ran.out
    counted = sum(
        int(line.split(", ")[1].split()[0]) for line in ran.out.splitlines() if " audited, " in line
    )
    assert counted == len(audited) - 1  # every audit but the one whose grades went
