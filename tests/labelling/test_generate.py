"""`labels generate`, offline: questions drafted from the corpus in every slice, each anchored to
its source clause at grade 2, the same for a seed, never a duplicate of the set or of each other,
kept apart from the real questions when scored, and written all or nothing."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from label_folder import AT, copy_tiny, digest, jsonl

from conftest import cli_in
from ragsweep.config import compose
from ragsweep.data import admits, load_dataset
from ragsweep.data.load import sample_path
from ragsweep.data.manifest import write_manifest
from ragsweep.labelling.dedup import same_question
from ragsweep.labelling.dedup_key import near_key, normalise
from ragsweep.labelling.generate import Generated, generate
from ragsweep.scoring.evaluate import evaluate

FAST = {"overrides": ["cache.dir=null"], "systems": {"bm25": ["retriever=bm25"]}}
TOY = ["data.split.heldout=0", "eval.traffic_weights=null", "cache.dir=null"]
CODE = re.compile(r"\b(?:END|EXC|ENDT|CL)-[A-Z]{2}-\d{1,3}\b")


@pytest.fixture(scope="module")
def on_sample() -> Generated:
    return generate(sample_path(), per_slice=4, seed=0, at=AT, **FAST)


def test_every_slice_of_the_sample_gets_its_questions_without_writing_anything(on_sample):
    before = digest(sample_path())
    again = generate(sample_path(), per_slice=4, seed=0, at=AT, **FAST)
    assert digest(sample_path()) == before and not again.applied
    assert on_sample.counts() == {s: 4 for s in load_dataset(sample_path()).slices}
    assert on_sample.short == {}


def test_each_question_asks_about_its_source_clause_and_it_is_graded_2(on_sample):
    ds = load_dataset(sample_path())
    product = {(d.document, d.version): d.product for d in ds.documents}
    grades = {
        (r["qid"], r["document"], r["section"], r["version"]): r["grade"] for r in on_sample.labels
    }
    for q in on_sample.questions:
        src = q.source
        assert grades[(q.qid, src.document, src.section, src.version)] == 2
        assert (q.product, q.version) == (product[(src.document, src.version)], src.version)
        assert q.qid.startswith("g") and len(q.qid) == 11
    kinds = {q.slice: set() for q in on_sample.questions}
    for q in on_sample.questions:
        kinds[q.slice].add(q.source.kind)
    assert kinds["limits"] == {"limits"} and kinds["exclusions"] == {"exclusions"}
    assert kinds["definitions"] == {"definitions"}
    assert kinds["procedures"] <= {"claims", "conditions"}
    for q in on_sample.questions:
        if q.slice == "identifiers":  # names the code the clause prints, or its number
            code = CODE.search(f"{q.source.heading}\n{q.source.text}")
            assert code is not None
            assert code.group(0) in q.text or f"clause {q.source.section}" in q.text


def test_pooled_labels_follow_the_relevance_rule_and_are_counted(on_sample):
    ds = load_dataset(sample_path())
    product = {(d.document, d.version): d.product for d in ds.documents}
    asked = {q.qid: (q.product, q.version) for q in on_sample.questions}
    for r in on_sample.labels:
        if r["grade"] >= 1:
            assert admits(*asked[r["qid"]], product[(r["document"], r["version"])], r["version"])
    keys = [(r["qid"], r["document"], r["section"], r["version"]) for r in on_sample.labels]
    assert len(keys) == len(set(keys))
    assert sum(on_sample.grades().values()) == len(on_sample.labels)
    assert on_sample.grades()[2] >= len(on_sample.questions)
    adds = [c for c in on_sample.changes if c.kind == "add"]
    assert len(adds) == len(on_sample.labels)
    assert [c.kind for c in on_sample.changes].count("question") == len(on_sample.questions)


def test_the_same_seed_gives_the_same_questions_and_another_seed_others(on_sample):
    again = generate(sample_path(), per_slice=4, seed=0, at=AT, **FAST)
    assert again.questions == on_sample.questions and again.labels == on_sample.labels
    other = generate(sample_path(), per_slice=4, seed=1, at=AT, **FAST)
    assert {q.text for q in other.questions} != {q.text for q in on_sample.questions}


def test_drafts_are_no_duplicates_of_the_set_or_of_each_other(on_sample):
    ds = load_dataset(sample_path())
    texts = [q.text for q in on_sample.questions]
    assert len({normalise(t) for t in texts}) == len(texts)
    keys = [near_key(t, mark=True) for t in texts]
    assert not any(same_question(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :])
    assert not {normalise(t) for t in texts} & {normalise(t) for t in ds.questions["text"]}


def test_a_draft_near_a_question_of_the_set_is_dropped_for_the_next_clause(tmp_path):
    tiny = copy_tiny(tmp_path)
    first = generate(tiny, per_slice=2, seed=0, at=AT, **FAST)
    taken = first.questions[0]
    variant = taken.text.lower().rstrip("?") + " pls"  # the same question, typed otherwise
    src = taken.source
    rows = jsonl(tiny / "questions.jsonl")
    rows.append(
        {
            "qid": "q99",
            "text": variant,
            "slice": taken.slice,
            "product": taken.product,
            "version": taken.version,
            "subset": "core",
            "added": "2025-01-01",
        }
    )
    (tiny / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with (tiny / "labels.jsonl").open("a") as fh:
        fh.write(
            json.dumps(
                {
                    "qid": "q99",
                    "document": src.document,
                    "section": src.section,
                    "version": src.version,
                    "grade": 2,
                }
            )
            + "\n"
        )
    second = generate(tiny, per_slice=2, seed=0, at=AT, **FAST)
    assert taken.text not in {q.text for q in second.questions}
    assert second.duplicates == first.duplicates + 1


def test_apply_writes_synthetic_questions_scored_only_apart(tmp_path):
    tiny = copy_tiny(tmp_path)
    pristine = evaluate(compose(["data=folder", f"data.path={tiny}", *TOY]))
    done = generate(tiny, per_slice=2, seed=0, at=AT, apply=True, **FAST)
    assert done.applied and len(done.questions) == 8  # tiny prints no code: no identifier
    assert done.short["identifiers"].startswith("0 of 2")
    made = {q.qid for q in done.questions}
    rows = jsonl(tiny / "questions.jsonl")
    assert {r["qid"] for r in rows if r["subset"] == "synthetic"} == made
    assert {r["added"] for r in rows if r["qid"] in made} == {AT[:10]}
    real = evaluate(compose(["data=folder", f"data.path={tiny}", *TOY]))
    pd.testing.assert_frame_equal(real.summary, pristine.summary)
    assert not made & set(real.per_question["qid"])
    synthetic = evaluate(
        compose(["data=folder", f"data.path={tiny}", *TOY, "eval.subset=synthetic"])
    )
    assert set(synthetic.per_question["qid"]) == made
    assert set(synthetic.per_question["subset"]) == {"synthetic"}


def test_apply_logs_who_drafted_and_who_judged_and_refreshes_the_manifest(tmp_path):
    tiny = copy_tiny(tmp_path)
    write_manifest(tiny)
    done = generate(tiny, per_slice=1, seed=0, at=AT, apply=True, **FAST)
    load_dataset(tiny)  # the manifest lists the files as written
    log = jsonl(tiny / "history" / "labels_changelog.jsonl")
    assert {r["at"] for r in log} == {AT}
    questions = [r for r in log if r["kind"] == "question"]
    assert [r["qid"] for r in questions] == [q.qid for q in done.questions]
    assert {r["who"] for r in questions} == {done.generator}
    assert done.generator.startswith("templates ") and "seed=0" in done.generator
    sources = {
        (q.qid, q.source.document, q.source.section, q.source.version) for q in done.questions
    }
    adds = [r for r in log if r["kind"] == "add"]
    for r in adds:
        key = (r["qid"], r["document"], r["section"], r["version"])
        if key in sources:
            assert (r["who"], r["new_grade"]) == (done.generator, 2)
        else:
            assert r["who"] == done.judge and r["source"].startswith("pool bm25@")
    assert len(adds) == len(done.labels) and len(sources) == len(done.questions)
    assert done.judge.startswith("lsa-similarity(")


def test_generated_questions_can_never_be_frozen_into_the_core(tmp_path):
    tiny = copy_tiny(tmp_path)
    done = generate(tiny, per_slice=1, seed=0, at=AT, apply=True, **FAST)
    before = digest(tiny)
    ran = cli_in(tiny, "labels", "freeze", done.questions[0].qid, "--data", str(tiny))
    assert ran.code == 2 and len(ran.err.strip().splitlines()) == 1
    assert digest(tiny) == before


def test_the_cli_previews_then_writes_with_apply(tmp_path):
    tiny = copy_tiny(tmp_path)
    before = digest(tiny)
    ran = cli_in(tmp_path, "labels", "generate", "--data", str(tiny), "--per-slice", "2").ok()
    assert digest(tiny) == before
    assert "limits 2, exclusions 2, procedures 2, definitions 2, identifiers 0" in ran.out
    assert "preview only" in ran.out
    ran = cli_in(
        tmp_path, "labels", "generate", "--data", str(tiny), "--per-slice", "2", "--apply"
    ).ok()
    rows = jsonl(tiny / "questions.jsonl")
    assert sum(r["subset"] == "synthetic" for r in rows) == 8
    assert "wrote 8 question(s) (subset synthetic)" in ran.out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--per-slice", "0"], "--per-slice"),
        (["--seed", "-1"], "--seed"),
        (["--chat-url", "http://127.0.0.1:9/v1"], "--chat-model"),
        (["--templates", "nope.yaml"], "nope.yaml"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, args, says):
    tiny = copy_tiny(tmp_path)
    before = digest(tiny)
    ran = cli_in(tmp_path, "labels", "generate", "--data", str(tiny), "--apply", *args)
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert says in line
    assert digest(tiny) == before


def test_apply_needs_a_named_dataset(tmp_path):
    ran = cli_in(tmp_path, "labels", "generate", "--apply")
    assert ran.code == 2 and "--data DIR" in ran.err


def test_a_templates_file_naming_an_unknown_term_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "mine.yaml"
    builtin = (Path(__file__).parents[2] / "src/ragsweep/labelling/generate.yaml").read_text()
    bad.write_text(builtin.replace("What does {code} mean?", "What does {kode} mean?"))
    ran = cli_in(tmp_path, "labels", "generate", "--templates", str(bad))
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert "mine.yaml" in line and "{kode}" in line and "slices.identifiers.templates[0]" in line


def test_a_topic_is_its_heading_once_an_acronym_kept_as_written():
    from ragsweep.labelling.generate_spec import load_spec

    ds, spec = load_dataset(sample_path()), load_spec()
    seen = 0
    for doc in ds.documents:
        for clause in doc.clauses:
            heading, topic = clause.heading.strip(), spec.terms_of(doc, clause)["topic"]
            first = heading.split(" ", 1)[0]
            if first.isupper() and len(first) > 1:
                assert topic == heading
                seen += 1
            else:
                assert topic == heading[:1].lower() + heading[1:]
    assert seen  # the sample has headings such as "END-MT-09 Driving other cars withdrawn"


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("What does {code} mean?", "What does {code mean?", "slices.identifiers.templates[0]"),
        ("What does {code} mean?", "What does {code}} mean?", "slices.identifiers.templates[0]"),
    ],
)
def test_a_templates_file_with_an_unbalanced_brace_is_one_line(tmp_path, old, new, field):
    bad = tmp_path / "mine.yaml"
    builtin = (Path(__file__).parents[2] / "src/ragsweep/labelling/generate.yaml").read_text()
    bad.write_text(builtin.replace(old, new))
    ran = cli_in(tmp_path, "labels", "generate", "--templates", str(bad))
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert "mine.yaml" in line and field in line and "{{" in line


def test_a_term_whose_optional_group_matched_nothing_is_no_term(tmp_path):
    from ragsweep.labelling.generate_spec import load_spec

    mine = tmp_path / "mine.yaml"
    builtin = (Path(__file__).parents[2] / "src/ragsweep/labelling/generate.yaml").read_text()
    # matched with the group empty in 176 clauses of the sample ("within 24 hours"), filled in 42
    mine.write_text(
        builtin.replace("terms:\n", "terms:\n  span: '(?:within|after) (\\d+ days)?'\n", 1)
    )
    spec = load_spec(mine)
    ds = load_dataset(sample_path())
    terms = [spec.terms_of(d, c) for d in ds.documents for c in d.clauses]
    assert any("span" in t for t in terms) and any("span" not in t for t in terms)
    assert all(t["span"].endswith("days") for t in terms if "span" in t)


def test_offline_judging_on_labels_of_one_grade_is_refused_before_any_draft(tmp_path):
    tiny = copy_tiny(tmp_path)
    rows = jsonl(tiny / "labels.jsonl")
    kept = [r for r in rows if r["grade"] == 2]
    assert 0 < len(kept) < len(rows)
    shutil.rmtree(tiny / "review")  # its grades would name pairs no longer labelled
    (tiny / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    write_manifest(tiny)
    before = digest(tiny)
    ran = cli_in(tmp_path, "labels", "generate", "--data", str(tiny), "--apply")
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert "labels.jsonl" in line and "field 'grade'" in line and "--chat-url" in line
    assert digest(tiny) == before
