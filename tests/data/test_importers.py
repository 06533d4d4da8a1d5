"""Importers (`ragsweep data import`): BEIR, TREC and SMART into the dataset schema.

Tiny hand-written fixtures of each format (tests/fixtures/importers) are imported, validated
with `load_dataset` and compared with the labels worked out by hand from the fixture lines; the
real Cranfield collection (../shared/datasets/cranfield) is imported and its quirks checked
against the raw files read independently here; the BM25 pipeline on it is cross-checked with
pytrec_eval. Bad input must give one-line errors naming file and line, and leave nothing behind.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import cli_in
from ragsweep.cli import data_import as cli
from ragsweep.data import load_dataset
from ragsweep.data.importers.docids import MAX_ID, safe_document_ids
from ragsweep.data.importers.grades import CRANFIELD_RULE, THRESHOLD_RULE, parse_grade_map
from ragsweep.data.importers.reading import read_slices
from ragsweep.data.importers.smart import read_smart, read_smart_collection
from ragsweep.data.importers.trecfiles import read_trec_docs, read_trec_topics
from ragsweep.errors import DatasetError, UserError
from ragsweep.labelling.scrub import placeholder

FIX = Path(__file__).parents[1] / "fixtures" / "importers"
CRANFIELD = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "cranfield"
needs_cranfield = pytest.mark.skipif(
    not (CRANFIELD / "cran.all.1400").is_file(),
    reason=f"the Cranfield collection is not at {CRANFIELD} (../shared next to the repo)",
)


# ---------------------------------------------------------------------------------------------
# helpers


def run(*argv: Any) -> int:
    return cli.main([str(a) for a in argv])


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def labels_of(out: Path) -> list[tuple[str, str, int]]:
    """(qid, document, grade) of every label, in file order; anchors must be (doc, 1, 1)."""
    rows = jsonl(out / "labels.jsonl")
    assert all((r["section"], r["version"]) == ("1", "1") for r in rows)
    return [(r["qid"], r["document"], r["grade"]) for r in rows]


def wording(out: Path, document: str) -> dict[str, Any]:
    return json.loads((out / "corpus" / f"{document}@1.json").read_text(encoding="utf-8"))


def clause(out: Path, document: str) -> dict[str, Any]:
    parts = wording(out, document)["parts"]
    assert [(p["number"], p["kind"], len(p["clauses"])) for p in parts] == [("1", "other", 1)]
    return parts[0]["clauses"][0]


def smart_args(qrels: str = "qrels.cran", *extra: Any) -> list[Any]:
    fmt = ["--qrels-format", "cranfield"] if qrels == "qrels.cran" else []
    return [
        "--format",
        "smart",
        "--docs",
        FIX / "smart" / "docs.all",
        "--queries",
        FIX / "smart" / "queries.qry",
        "--qrels",
        FIX / "smart" / qrels,
        *fmt,
        *extra,
    ]


def all_bytes(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


# ---------------------------------------------------------------------------------------------
# BEIR


def test_beir_fixture_imports_and_validates(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "beir-ds"
    assert run("--format", "beir", "--source", FIX / "beir", "--out", out) == 0
    ds = load_dataset(out)
    # ids: kept when safe; "d 3" cleaned; "MED-10" clashes with the safe "med-10": hash suffix
    safe = safe_document_ids(["d1", "MED-10", "d 3", "4", "med-10"])
    assert safe["d1"] == "d1" and safe["d 3"] == "d_3" and safe["med-10"] == "med-10"
    assert re.fullmatch(r"med-10-[0-9a-f]{8}", safe["MED-10"])
    assert sorted(d.document for d in ds.documents) == sorted(safe.values())
    # the source id is the wording's title; heading = source title, or the id when it has none
    assert wording(out, safe["MED-10"])["title"] == "MED-10"
    assert clause(out, safe["MED-10"])["heading"] == "Theft from a locked car"
    assert clause(out, "d_3") == {
        "section": "1",
        "heading": "d 3",
        "text": "Wear and tear is not covered.",
    }
    # grades: score 2 -> 2, 3 -> 2, 1 -> 1, 0 -> 0; q3 has only a 0 (skipped), q4's "gone" is
    # not in the corpus, q9 is not a query, q5 is only in the train split
    assert labels_of(out) == [
        ("q1", "d1", 2),
        ("q1", "d_3", 0),
        ("q2", safe["MED-10"], 2),
        ("q2", "med-10", 1),
        ("q4", "4", 1),
    ]
    assert list(ds.questions["qid"]) == ["q1", "q2", "q4"]
    assert set(ds.questions["slice"]) == {"all"} and ds.slices == ("all",)
    assert set(ds.questions["subset"]) == {"core"} and set(ds.questions["added"]) == {"1970-01-01"}
    assert ds.questions["product"].isna().all() and ds.questions["version"].isna().all()
    notes = ds.meta["notes"]
    assert notes["split"] == "test" and notes["queries_outside_split"] == 1
    assert notes["skipped_questions"]["no_relevant_judgement"] == ["q3"]
    assert notes["dropped_judgements"] == {
        "unknown_query": 1,
        "unknown_document": 1,
        "dropped_by_grade_rule": 0,
    }
    assert notes["renamed_documents"] == 2
    assert ds.meta["name"] == "beir-ds"
    printed = capsys.readouterr().out
    assert "3 questions" in printed and "1 without a relevant one" in printed


def test_beir_other_split_and_unknown_split(tmp_path: Path) -> None:
    out = tmp_path / "train"
    assert run("--format", "beir", "--source", FIX / "beir", "--split", "train", "--out", out) == 0
    assert labels_of(out) == [("q5", "d1", 1)]
    with pytest.raises(
        DatasetError,
        match=r"dev\.tsv: no such file; choose --split \(splits "
        r"here: test, train\)",
    ):
        run(
            "--format",
            "beir",
            "--source",
            FIX / "beir",
            "--split",
            "dev",
            "--out",
            tmp_path / "dev",
        )


# ---------------------------------------------------------------------------------------------
# TREC


def test_trec_sgml_fixture(tmp_path: Path) -> None:
    out = tmp_path / "trec"
    assert (
        run(
            "--format",
            "trec",
            "--docs",
            FIX / "trec" / "docs.trec",
            "--topics",
            FIX / "trec" / "topics.txt",
            "--qrels",
            FIX / "trec" / "qrels.txt",
            "--out",
            out,
            "--name",
            "toy trec",
            "--added",
            "2025-01-31",
        )
        == 0
    )
    ds = load_dataset(out)
    # topic "051" is qid 51 in the qrels ("052" in the qrels is 52 in the topics); grade -1 -> 0;
    # topic 53 has only a grade-0 judgement and is skipped
    assert labels_of(out) == [
        ("51", "ft-001", 2),
        ("51", "ft-002", 0),
        ("52", "ft-002", 1),
        ("52", "ft-003", 0),
    ]
    q = ds.questions.set_index("qid")
    assert q.loc["51", "text"] == "flood damage"  # "Topic:" prefix removed, title field
    assert set(q["added"]) == {"2025-01-31"} and ds.meta["name"] == "toy trec"
    assert clause(out, "ft-001") == {
        "section": "1",
        "heading": "Flood cover & storms",
        "text": "Flood damage is covered\nwhen the river bursts its banks.\n"
        "Storm damage is covered too.",
    }
    assert clause(out, "ft-003")["text"].startswith("1991\nA document with no TEXT element")
    assert ds.meta["notes"]["skipped_questions"]["no_relevant_judgement"] == ["53"]


def test_trec_tsv_inputs_match_sgml() -> None:
    tsv = read_trec_docs(FIX / "trec" / "docs.tsv")
    sgml = read_trec_docs(FIX / "trec" / "docs.trec")
    assert [d.docid for d in tsv] == [d.docid for d in sgml] == ["FT-001", "FT-002", "FT-003"]
    assert [d.line for d in tsv] == [1, 2, 4]
    # the TSV holds the SGML title and body on one line
    assert [d.text for d in tsv] == [" ".join(f"{d.title} {d.text}".split()) for d in sgml]
    by_tsv = {q.qid: q.text for q in read_trec_topics(FIX / "trec" / "topics.tsv")}
    by_sgml = {q.qid: q.text for q in read_trec_topics(FIX / "trec" / "topics.txt")}
    assert by_tsv == by_sgml
    both = read_trec_topics(FIX / "trec" / "topics.txt", "title+desc")
    assert both[1].text == "subsidence When is subsidence excluded?"


# ---------------------------------------------------------------------------------------------
# SMART, with Cranfield's qrels conventions


def test_smart_cranfield_fixture(tmp_path: Path) -> None:
    out = tmp_path / "smart"
    assert run(*smart_args(), "--out", out) == 0
    ds = load_dataset(out)
    # qrels qid n = the n-th .I of the queries file (001, 004, 009); codes 1, 2 -> 2; 3, 4 -> 1;
    # -1 -> 0 (kept as a judged, not relevant document)
    assert labels_of(out) == [
        ("1", "1", 2),
        ("1", "2", 1),
        ("1", "3", 0),
        ("2", "2", 2),
        ("2", "1", 0),
        ("3", "4", 1),
        ("3", "2", 0),
    ]
    q = ds.questions.set_index("qid")
    assert q.loc["2", "text"] == "how is heat conducted in composite slabs ."
    assert q.loc["1", "text"] == "what is the boundary layer on a flat plate ."  # one line
    assert ds.meta["notes"]["source_query_ids"] == ["001", "004", "009"]
    # a multi-line title becomes one heading line; an empty record keeps its place
    assert clause(out, "1")["heading"] == "flow past a flat plate ."
    assert clause(out, "3") == {"section": "1", "heading": "3", "text": "3"}
    assert ds.meta["notes"]["empty_documents"] == 1


def test_smart_plain_qrels_and_the_ordinal_trap(tmp_path: Path) -> None:
    out = tmp_path / "plain"
    assert run(*smart_args("qrels.plain"), "--out", out) == 0
    # plain: qids are the .I ids without leading zeros; 'qid docid' alone means code 1
    assert labels_of(out) == [
        ("1", "1", 2),
        ("1", "2", 1),
        ("4", "2", 1),
        ("9", "4", 2),
        ("9", "2", 0),
    ]
    # Cranfield's qrels read as plain would match qid 1 and silently drop 2 and 3: refused
    with pytest.raises(
        UserError,
        match=r"number queries 1\.\.3 but the queries' \.I ids are "
        r"not 1\.\.3 \(e\.g\. 1, 4, 9\).*--qrels-format cranfield",
    ):
        run(
            "--format",
            "smart",
            "--docs",
            FIX / "smart" / "docs.all",
            "--queries",
            FIX / "smart" / "queries.qry",
            "--qrels",
            FIX / "smart" / "qrels.cran",
            "--out",
            tmp_path / "trap",
        )
    assert not (tmp_path / "trap").exists()


def test_smart_rel_layout(tmp_path: Path) -> None:
    """The `.REL` layout of CISI and CACM: `qid docid 0 0.000000`, being listed = relevant."""
    out = tmp_path / "rel"
    assert run(*smart_args("qrels.rel", "--qrels-format", "rel"), "--out", out) == 0
    ds = load_dataset(out)
    # every listed pair is code 1, graded 1 by the threshold rule; qids as plain ones (001 -> 1)
    assert labels_of(out) == [("1", "1", 1), ("1", "2", 1), ("4", "2", 1), ("9", "4", 1)]
    assert list(ds.questions["qid"]) == ["1", "4", "9"]
    assert ds.meta["notes"]["qrels_format"] == "rel"
    # CACM's qrels.text writes the placeholders as integers and pads qids with zeros
    cacm = tmp_path / "qrels.text"
    cacm.write_text("01 1  0 0\n09 4\t0\t0\n", encoding="utf-8")
    got = read_smart_collection(
        FIX / "smart" / "docs.all", FIX / "smart" / "queries.qry", cacm, "rel"
    ).judgements
    assert [(j.qid, j.docid, j.code, j.line) for j in got] == [("1", "1", 1, 1), ("9", "4", 1, 2)]


def test_smart_rel_layout_errors_name_the_format(tmp_path: Path) -> None:
    rel = FIX / "smart" / "qrels.rel"
    docs, queries = FIX / "smart" / "docs.all", FIX / "smart" / "queries.qry"
    # read as plain or trec, a .REL file is refused with a pointer to --qrels-format rel
    with pytest.raises(
        DatasetError,
        match=r"qrels\.rel:1: 4 fields where 2 or 3 are expected; .*"
        r"'qid docid 0 0\.000000' \(the \.REL layout of CISI, CACM\), pass --qrels-format rel$",
    ):
        read_smart_collection(docs, queries, rel, "plain")
    with pytest.raises(
        DatasetError,
        match=r"qrels\.rel:1: field 'grade': '0\.000000' is not an integer; .*"
        r"pass --qrels-format rel$",
    ):
        read_smart_collection(docs, queries, rel, "trec")
    # a TREC file (qid iter docid grade) read as .REL: its third column is a document id
    trec = tmp_path / "qrels.trec"
    trec.write_text("1 0 0 0\n1 0 2 1\n", encoding="utf-8")
    with pytest.raises(
        DatasetError,
        match=r"qrels\.trec:2: field 'column 3': '2' where the \.REL layout .* has 0 .*"
        r"pass --qrels-format trec$",
    ):
        read_smart_collection(docs, queries, trec, "rel")
    odd = tmp_path / "qrels.odd"
    odd.write_text("1 1 0 0.5\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"qrels\.odd:1: field 'column 4': '0\.5' where"):
        read_smart_collection(docs, queries, odd, "rel")
    short = tmp_path / "qrels.short"
    short.write_text("1 1 0\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"qrels\.short:1: 3 fields where 4 are expected"):
        read_smart_collection(docs, queries, short, "rel")
    # the ordinal trap is refused for .REL files as for plain ones
    ordinal = tmp_path / "qrels.ordinal"
    ordinal.write_text("1 1 0 0.000000\n2 2 0 0.000000\n3 4 0 0.000000\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"number queries 1\.\.3 .*--qrels-format cranfield"):
        read_smart_collection(docs, queries, ordinal, "rel")


def test_smart_records_fields_and_markers(tmp_path: Path) -> None:
    f = tmp_path / "x.all"
    f.write_text(
        ".I 7\n.T inline title\n.X\n3 5 7\n.W\nbody line\n\n  indented\n.I 8\n", encoding="utf-8"
    )
    recs = read_smart(f, "documents")
    assert [(r.ident, r.line) for r in recs] == [("7", 1), ("8", 9)]
    assert recs[0].fields == {"T": "inline title", "X": "3 5 7", "W": "body line\n\n  indented"}
    assert recs[1].fields == {}


# ---------------------------------------------------------------------------------------------
# Slices


def test_slices_file_order_and_best_code(tmp_path: Path) -> None:
    out = tmp_path / "sliced"
    assert run(*smart_args(), "--slices", FIX / "smart" / "slices.tsv", "--out", out) == 0
    ds = load_dataset(out)
    assert ds.slices == ("shock", "flow")  # first appearance in the file
    assert dict(zip(ds.questions["qid"], ds.questions["slice"], strict=True)) == {
        "1": "flow",
        "2": "flow",
        "3": "shock",
    }

    best = tmp_path / "best"
    assert run(*smart_args(), "--slice-by", "best-code", "--out", best) == 0
    ds = load_dataset(best)
    # best (lowest positive) code: q1 has 1 and 4, q2 has 2, q3 has 3
    assert ds.slices == ("complete", "high", "background")
    assert list(ds.questions["slice"]) == ["complete", "high", "background"]

    beir = tmp_path / "beir-best"
    assert (
        run("--format", "beir", "--source", FIX / "beir", "--slice-by", "best-code", "--out", beir)
        == 0
    )
    # TREC-style codes: higher is better; q1's best is 2, q2's 3, q4's 1
    assert load_dataset(beir).slices == ("code3", "code2", "code1")


def test_slices_file_errors(tmp_path: Path) -> None:
    bad = tmp_path / "slices.tsv"
    bad.write_text("1\tflow\n2\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"slices\.tsv:2: 1 fields where 2 are expected"):
        read_slices(bad)
    bad.write_text("1\tflow\n2\tflow\textra\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"slices\.tsv:2: 3 fields where 2 are expected"):
        read_slices(bad)
    bad.write_text("1\tflow\n1\tshock\n", encoding="utf-8")
    with pytest.raises(
        DatasetError,
        match=r"slices\.tsv:2: field 'qid': qid '1' is listed "
        r"twice \(first on line 1\)",
    ):
        read_slices(bad)
    bad.write_text("1\tflow\n2\tflow\n", encoding="utf-8")
    with pytest.raises(
        DatasetError,
        match=r"1 imported question\(s\) have no slice \(first: "
        r"'3'\)",
    ):
        run(*smart_args(), "--slices", bad, "--out", tmp_path / "o")
    bad.write_text("1\tflow\n2\tflow\n3\tflow\n004\tflow\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"qid '004' is not a query of the source"):
        run(*smart_args(), "--slices", bad, "--out", tmp_path / "o")


# ---------------------------------------------------------------------------------------------
# Grade rules and ids


@pytest.mark.parametrize("code", range(-3, 7))
def test_threshold_rule(code: int) -> None:
    assert THRESHOLD_RULE.grade(code) == min(max(code, 0), 2)


def test_cranfield_rule_inverts_codes() -> None:
    # code 1 complete answer .. 4 minimum interest: grade 2 for 1-2, 1 for 3-4; -1 judged 0
    assert {c: CRANFIELD_RULE.grade(c) for c in (1, 2, 3, 4, -1)} == {1: 2, 2: 2, 3: 1, 4: 1, -1: 0}
    with pytest.raises(KeyError):
        CRANFIELD_RULE.grade(5)


def test_grade_map_overrides_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "strict"
    # only complete answers relevant, -1 lines dropped: q3 (best code 3) has nothing left
    assert run(*smart_args(), "--grade-map", "1=2,2=1,3=0,4=0,-1=drop", "--out", out) == 0
    assert labels_of(out) == [("1", "1", 2), ("1", "2", 0), ("2", "2", 1)]
    notes = load_dataset(out).meta["notes"]
    assert notes["skipped_questions"]["no_relevant_judgement"] == ["3"]
    assert notes["dropped_judgements"]["dropped_by_grade_rule"] == 3
    with pytest.raises(
        DatasetError,
        match=r"qrels\.cran:6: field 'code': relevance code 2 is "
        r"not in the grade map",
    ):
        run(*smart_args(), "--grade-map", "1=2,3=1,4=1,-1=0", "--out", tmp_path / "o")
    for spec in ("1=3", "1:2", "x=1", "1=2,1=1"):
        with pytest.raises(UserError, match="--grade-map"):
            parse_grade_map(spec, THRESHOLD_RULE)


def test_qrels_listing_only_relevant_documents_are_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from ragsweep.data import check_dataset

    out = tmp_path / "relevant-only"
    # every grade-0 judgement dropped: what most TREC and BEIR qrels look like
    assert run(*smart_args(), "--grade-map", "1=2,2=1,3=1,4=0,-1=drop", "--out", out) == 0
    printed = capsys.readouterr().out
    assert printed.count("note: only relevant clauses are labelled (no grade 0;") == 0
    strict = tmp_path / "strict"
    assert run(*smart_args(), "--grade-map", "1=2,2=1,3=1,4=drop,-1=drop", "--out", strict) == 0
    printed = capsys.readouterr().out
    assert "note: only relevant clauses are labelled (no grade 0;" in printed
    assert "eval.unjudged=assume_not_relevant" in printed
    stats = check_dataset(strict)
    assert stats["labels_per_grade"]["0"] == 0 and stats["questions_with_grade_0"] == 0
    assert stats["unjudged_warning"].startswith("only relevant clauses are labelled")
    kept = check_dataset(out)
    assert kept["questions_with_grade_0"] == len({q for q, _, g in labels_of(out) if g == 0}) > 0
    assert kept["unjudged_warning"] is None
    assert "`ragsweep data check DIR` measures how much of a BM25 top k" in printed

    # `data check` on the relevant-only folder measures what that leaves unjudged: the share of
    # BM25's top k (eval.k_prompt) covering no labelled clause; the same collection with its
    # grade-0 judgements leaves less of it unjudged
    from ragsweep.cli import main
    from ragsweep.scoring.evaluate import first_stage_unjudged

    assert main(["data", "check", str(strict), "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)["first_stage_unjudged"]
    assert shown["retriever"] == "bm25" and shown["k"] == 5
    # by hand from the ranks BM25 gives: a rank is unjudged when it covers no labelled clause
    from ragsweep.config import compose
    from ragsweep.scoring.evaluate import evaluate

    cfg = compose(["data=folder", f"data.path={strict}", "retriever=bm25", "data.split.heldout=0"])
    rows = evaluate(cfg).per_question
    labelled: dict[str, set[str]] = {}
    for q, document, _ in labels_of(strict):
        labelled.setdefault(q, set()).add(f"{document}/1@1")  # clause ids: document/section@version
    shares = [
        sum(1 for covered in json.loads(ranks)[:5] if not set(covered) & labelled.get(q, set())) / 5
        for q, ranks in zip(rows["qid"], rows["clauses"], strict=True)
    ]
    assert shown["share"] == pytest.approx(sum(shares) / len(shares), abs=1e-12)
    assert 0 < shown["share"] <= 1
    assert first_stage_unjudged(out)["share"] <= shown["share"]  # grade 0s only judge more
    assert main(["data", "check", str(out), "--format", "json"]) == 0
    assert "first_stage_unjudged" not in json.loads(capsys.readouterr().out)


def test_safe_document_ids() -> None:
    long = "x" * (MAX_ID + 20)
    ids = ["184", "a.b_c-d", "Doc 1", "doc_1", "_x", "É", long]
    safe = safe_document_ids(ids)
    assert safe["184"] == "184" and safe["a.b_c-d"] == "a.b_c-d" and safe["doc_1"] == "doc_1"
    assert re.fullmatch(r"doc_1-[0-9a-f]{8}", safe["Doc 1"])  # would clash with doc_1
    assert safe["_x"] == "d_x" and safe["É"] == "d_"
    assert len(safe[long]) == MAX_ID and re.fullmatch(r"x+-[0-9a-f]{8}", safe[long])
    assert len(set(safe.values())) == len(ids)
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", s) for s in safe.values())
    assert safe_document_ids(ids[::-1]) == safe  # order does not matter


# ---------------------------------------------------------------------------------------------
# Output folder, determinism, errors


def test_output_is_deterministic(tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert run(*smart_args(), "--name", "same", "--out", tmp_path / name) == 0
    assert all_bytes(tmp_path / "a") == all_bytes(tmp_path / "b")


def test_out_folder_rules(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    assert run(*smart_args(), "--out", out) == 0
    before = all_bytes(out)
    with pytest.raises(UserError, match="already exists and is not empty; pass --force"):
        run(*smart_args(), "--out", out)
    assert run(*smart_args("qrels.plain"), "--out", out, "--force") == 0
    assert all_bytes(out) != before and load_dataset(out).questions["qid"].tolist() == [
        "1",
        "4",
        "9",
    ]
    other = tmp_path / "home"
    other.mkdir()
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(UserError, match="holds no dataset.json, so --force will not replace"):
        run(*smart_args(), "--out", other, "--force")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run(*smart_args(), "--out", empty) == 0
    # nothing temporary is left next to the outputs
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds", "empty", "home"]


def test_failed_import_leaves_nothing(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("1 1 1\n1 2 x\n", encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(DatasetError, match=r"qrels:2: field 'code': 'x' is not a whole number"):
        run(
            "--format",
            "smart",
            "--docs",
            FIX / "smart" / "docs.all",
            "--queries",
            FIX / "smart" / "queries.qry",
            "--qrels",
            qrels,
            "--qrels-format",
            "cranfield",
            "--out",
            out,
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qrels"]


@pytest.mark.parametrize(
    ("name", "content", "pattern"),
    [
        (
            "corpus.jsonl",
            '{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n',
            r"corpus\.jsonl:2: invalid JSON",
        ),
        (
            "corpus.jsonl",
            '{"_id": "a", "text": "x"}\n{"_id": "a", "text": "y"}\n',
            r"corpus\.jsonl:2: field 'docid': document id 'a' appears twice \(first at "
            r".*corpus\.jsonl:1\)",
        ),
        ("corpus.jsonl", '{"_id": "a"}\n', r"corpus\.jsonl:1: field 'text': missing"),
        (
            "queries.jsonl",
            '{"_id": "q 1", "text": "x"}\n',
            r"queries\.jsonl:1: field 'qid': query id 'q 1' is empty or holds whitespace",
        ),
        (
            "qrels/test.tsv",
            "query-id\tcorpus-id\tscore\nq1\ta\t1.5\n",
            r"test\.tsv:2: field 'score': score '1\.5' is not a whole number",
        ),
    ],
)
def test_beir_errors_name_file_and_line(
    tmp_path: Path, name: str, content: str, pattern: str
) -> None:
    src = tmp_path / "src"
    (src / "qrels").mkdir(parents=True)
    (src / "corpus.jsonl").write_text('{"_id": "a", "text": "x"}\n', encoding="utf-8")
    (src / "queries.jsonl").write_text('{"_id": "q1", "text": "x"}\n', encoding="utf-8")
    (src / "qrels" / "test.tsv").write_text("q1\ta\t1\nq 1\ta\t1\n", encoding="utf-8")
    (src / name).write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError, match=pattern):
        run("--format", "beir", "--source", src, "--out", tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        (
            "<DOC>\n<DOCNO>a</DOCNO>\n<TEXT>x</TEXT>\n<DOC>\n<DOCNO>b</DOCNO></DOC>\n",
            r"docs:1: this <DOC> is not closed before the next <DOC> \(line 4\)",
        ),
        ("<DOC>\n<TEXT>x</TEXT>\n</DOC>\n", r"docs:1: 0 <DOCNO> elements"),
        ("<DOC><DOCNO>a</DOCNO></DOC>\nstray text\n", r"docs:2: text outside <DOC>"),
        ("a\tone\nb two\n", r"docs:2: expected 'id<TAB>text'"),
        ("docid\ttext\na\tone\n", r"docs:1: looks like a header line"),
    ],
)
def test_trec_doc_errors(tmp_path: Path, content: str, pattern: str) -> None:
    docs = tmp_path / "docs"
    docs.write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError, match=pattern):
        read_trec_docs(docs)


def test_other_input_errors(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"nope\.qry: no such file"):
        read_smart_collection(
            FIX / "smart" / "docs.all",
            tmp_path / "nope.qry",
            FIX / "smart" / "qrels.cran",
            "cranfield",
        )
    text_first = tmp_path / "bad.all"
    text_first.write_text("stray\n.I 1\n.W\nx\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"bad\.all:1: text before the first '\.I <id>'"):
        read_smart(text_first, "documents")
    far = tmp_path / "far.qrels"
    far.write_text("4 1 1\n", encoding="utf-8")
    with pytest.raises(
        DatasetError,
        match=r"far\.qrels:1: field 'qid': query number 4 is "
        r"outside 1\.\.3",
    ):
        read_smart_collection(
            FIX / "smart" / "docs.all", FIX / "smart" / "queries.qry", far, "cranfield"
        )
    topics = tmp_path / "topics"
    topics.write_text("<top>\n<title> no number\n</top>\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"topics:1: field 'num': topic number ''"):
        read_trec_topics(topics)
    latin1 = tmp_path / "latin1.tsv"
    latin1.write_bytes("a\tcaf\xe9\n".encode("latin-1"))
    with pytest.raises(DatasetError, match=r"latin1\.tsv: not UTF-8 \(bad byte at offset 5\)"):
        read_trec_docs(latin1)
    nothing = tmp_path / "none.qrels"
    nothing.write_text("1 77 1\n", encoding="utf-8")
    with pytest.raises(UserError, match="no qrels document id matches a document"):
        run(*smart_args()[:-3], nothing, "--qrels-format", "cranfield", "--out", tmp_path / "o")


def test_cli_option_errors(tmp_path: Path) -> None:
    out = tmp_path / "o"
    with pytest.raises(UserError, match=r"--format trec needs --topics/--queries, --qrels"):
        run("--format", "trec", "--docs", FIX / "trec" / "docs.trec", "--out", out)
    with pytest.raises(
        UserError, match=r"--source is an option of --format beir/markdown/html/docx/pdf, not smart"
    ):
        run(*smart_args(), "--source", FIX / "beir", "--out", out)
    with pytest.raises(UserError, match=r"--qrels-format is an option of --format smart"):
        run("--format", "beir", "--source", FIX / "beir", "--qrels-format", "trec", "--out", out)
    with pytest.raises(UserError, match=r"--added '2025-02-30' is not a date"):
        run(*smart_args(), "--added", "2025-02-30", "--out", out)
    # usage errors: one line each, naming where the help is (exit 2 from the shell)
    with pytest.raises(UserError, match=r"invalid choice: 'xml'.*`ragsweep data import --help`"):
        run("--format", "xml", "--out", out)
    with pytest.raises(UserError, match="not allowed with argument"):
        run(*smart_args(), "--slices", "s.tsv", "--slice-by", "best-code", "--out", out)
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# Cranfield 1400, the real collection


@pytest.fixture(scope="module")
def cranfield(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (CRANFIELD / "cran.all.1400").is_file():
        pytest.skip(f"the Cranfield collection is not at {CRANFIELD} (../shared next to the repo)")
    out = tmp_path_factory.mktemp("cranfield") / "cranfield"
    assert (
        run(
            "--format",
            "smart",
            "--docs",
            CRANFIELD / "cran.all.1400",
            "--queries",
            CRANFIELD / "cran.qry",
            "--qrels",
            CRANFIELD / "cranqrel",
            "--qrels-format",
            "cranfield",
            "--slice-by",
            "best-code",
            "--out",
            out,
        )
        == 0
    )
    return out


def raw_cranqrel() -> list[tuple[int, str, int]]:
    """(qid, docid, code) of every non-blank line of cranqrel, read independently."""
    lines = (CRANFIELD / "cranqrel").read_text(encoding="ascii").splitlines()
    return [(int(a), b, int(c)) for a, b, c in (ln.split() for ln in lines if ln.strip())]


@needs_cranfield
def test_cranfield_counts_and_query_mapping(cranfield: Path) -> None:
    ds = load_dataset(cranfield)
    assert len(ds.documents) == 1400 and {d.document for d in ds.documents} == {
        str(i) for i in range(1, 1401)
    }
    qry = (CRANFIELD / "cran.qry").read_text(encoding="ascii")
    dot_i = re.findall(r"^\.I (\S+)", qry, flags=re.M)
    assert len(dot_i) == 225 and dot_i[:3] == ["001", "002", "004"]
    # every query has a relevant judgement (codes 1-4 are all relevant): none skipped
    assert ds.questions["qid"].tolist() == [str(i) for i in range(1, 226)]
    assert ds.meta["notes"]["skipped_questions"] == {
        "no_judgement": [],
        "no_relevant_judgement": [],
        "empty_text": [],
    }
    # qrels qid 3 is the third .I record (.I 004), not a query numbered 3
    third = qry.split(".I ")[3]
    assert third.startswith("004\n.W\n")
    text = " ".join(third.split("\n.W\n", 1)[1].split())
    assert ds.questions.set_index("qid").loc["3", "text"] == text
    assert ds.meta["notes"]["source_query_ids"] == dot_i


@needs_cranfield
def test_cranfield_grades_and_minus_one_lines(cranfield: Path) -> None:
    raw = raw_cranqrel()
    expected = [(str(q), d, {1: 2, 2: 2, 3: 1, 4: 1, -1: 0}[c]) for q, d, c in raw]
    got = labels_of(cranfield)
    assert sorted(got) == sorted(expected)
    assert len(got) == len(raw) == 1837
    # one -1 line per query, each kept as a judged grade-0 label
    minus = [(str(q), d) for q, d, c in raw if c == -1]
    assert len(minus) == len({q for q, _ in minus}) == 225
    zeros = [(q, d) for q, d, g in got if g == 0]
    assert sorted(zeros) == sorted(minus)
    # first lines of cranqrel: "1 184 2" (high) -> 2, "1 12 3" (background) -> 1
    assert ("1", "184", 2) in got and ("1", "12", 1) in got and ("1", "13", 1) in got


@needs_cranfield
def test_cranfield_empty_records_and_slices(cranfield: Path) -> None:
    # records 471 and 995 have no field text at all; 995 is still judged (query 125, code 3)
    for doc in ("471", "995"):
        assert clause(cranfield, doc) == {"section": "1", "heading": doc, "text": doc}
    assert ("125", "995", 1) in labels_of(cranfield)
    ds = load_dataset(cranfield)
    assert ds.slices == ("complete", "high", "background", "minimum")
    best: dict[str, int] = {}
    for q, _, c in raw_cranqrel():
        if c > 0:
            best[str(q)] = min(best.get(str(q), 9), c)
    names = {1: "complete", 2: "high", 3: "background", 4: "minimum"}
    assert dict(zip(ds.questions["qid"], ds.questions["slice"], strict=True)) == {
        q: names[c] for q, c in best.items()
    }


@needs_cranfield
@pytest.mark.slow
def test_cranfield_bm25_matches_pytrec_eval(cranfield: Path) -> None:
    """The pipeline on the import (one chunk per document) scores as trec_eval does."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from ragsweep.config import compose
    from ragsweep.scoring.evaluate import evaluate

    cfg = compose(
        [
            "data=folder",
            f"data.path={cranfield}",
            "chunker=section",
            "retriever=bm25",
            "retriever.filter=false",
            "data.split.heldout=0",
            "eval.traffic_weights=null",
            "eval.gain=linear",
            "eval.measures=[recall@10,nDCG@10]",
        ]
    )
    result = evaluate(cfg)
    per_q = result.per_question.set_index("qid")
    run_: dict[str, dict[str, float]] = {}
    for qid, ranked in per_q["ranked"].items():
        chunks = json.loads(ranked)
        run_[qid] = {c.split("@")[0]: float(len(chunks) - i) for i, c in enumerate(chunks)}
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in labels_of(cranfield):
        qrels.setdefault(q, {})[d] = g
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recall_10", "ndcg_cut_10"}).evaluate(run_)
    qids = sorted(theirs)
    for ours, name in (("recall@10", "recall_10"), ("nDCG@10", "ndcg_cut_10")):
        a = per_q.loc[qids, ours].to_numpy()
        b = np.array([theirs[q][name] for q in qids])
        np.testing.assert_allclose(a, b, atol=1e-12, rtol=0)
    summary = result.summary.loc["all"]
    assert 0.3 < summary["recall@10"] < 0.5 and 0.3 < summary["nDCG@10"] < 0.5


# ---------------------------------------------------------------------------------------------
# personal data in a user's queries


def test_imported_query_texts_are_scrubbed_before_any_file_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A user's queries may come from a live log: `data import --queries` scrubs their texts
    (the scrubber `labels sample` uses) and prints the kinds it replaced, never the values."""
    planted = {"EMAIL": "jo.bloggs@example.com", "PHONE": "07700 900123"}
    topics = tmp_path / "topics.tsv"
    topics.write_text(
        f"51\tflood damage, mail me at {planted['EMAIL']}\n"
        f"52\tsubsidence, ring me on {planted['PHONE']}\n53\tearthquakes\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    trec = FIX / "trec"
    assert run("--format", "trec", "--docs", trec / "docs.tsv", "--topics", topics,
               "--qrels", trec / "qrels.txt", "--out", out) == 0  # fmt: skip
    printed = capsys.readouterr().out
    texts = {q["qid"]: q["text"] for q in jsonl(out / "questions.jsonl")}
    assert texts == {
        "51": f"flood damage, mail me at {placeholder('EMAIL')}",
        "52": f"subsidence, ring me on {placeholder('PHONE')}",
    }
    assert "personal data scrubbed from the query texts: EMAIL 1, PHONE 1" in printed
    written = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    for kind, value in planted.items():
        assert value.encode() not in written and value not in printed, kind
        assert value.replace(" ", "").encode() not in written, kind


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", r"topics\.tsv: no query found in the trec input"),
        (b"51\tJane Doe \xff flood damage\n", r"topics\.tsv: not UTF-8"),
        (b"Jane Doe flood damage\n", r"topics\.tsv:1: expected 'id<TAB>text'"),
    ],
    ids=["empty", "not-utf8", "no-id"],
)
def test_a_bad_queries_file_is_one_line_with_no_output_and_no_query_text(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    topics = tmp_path / "topics.tsv"
    topics.write_bytes(content)
    out = tmp_path / "out"
    trec = FIX / "trec"
    args = ["--format", "trec", "--docs", trec / "docs.tsv", "--topics", topics]
    args += ["--qrels", trec / "qrels.txt", "--out", out]
    ran = cli_in(tmp_path, "data", "import", *map(str, args))
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert re.search(expected, line), line
    assert "Jane" not in line and "Doe" not in line
    assert not out.exists()


@needs_cranfield
def test_scrubbing_leaves_cranfields_queries_as_they_are() -> None:
    """The import scrubs query texts; on a public collection's questions (aerodynamics, no
    personal data) that must change nothing, or the baselines docs/importing.md quotes move."""
    from ragsweep.cli.data_import import scrub_queries

    source = read_smart_collection(
        CRANFIELD / "cran.all.1400", CRANFIELD / "cran.qry", CRANFIELD / "cranqrel", "cranfield"
    )
    scrubbed, found = scrub_queries(source)
    assert len(source.queries) == 225
    assert [q.text for q in scrubbed.queries] == [q.text for q in source.queries]
    assert found == {}
