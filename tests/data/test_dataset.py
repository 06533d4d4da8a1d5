"""Dataset loader, validator and `ragsweep data check` (docs/schema.md).

The tiny fixture (tests/fixtures/tiny) must load; every error kind is produced by copying it to a
temporary folder and breaking one thing, then checking the one-line message names the file, the
line and the field, through the real CLI entry point and through `load_dataset`.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import json
import shutil
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ragsweep.data
from ragsweep import cli
from ragsweep.cli import data as data_cmd
from ragsweep.data import (
    check_dataset,
    clause_id,
    labels_hash,
    load_dataset,
    render,
    sample_path,
    snapshot_hash,
)
from ragsweep.errors import DatasetError

TINY = Path(__file__).parents[1] / "fixtures" / "tiny"


# ---------------------------------------------------------------------------------------------
# helpers


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def edit_line(
    rel: str, line: int, change: Callable[[dict[str, Any]], None]
) -> Callable[[Path], None]:
    """A breaker that applies `change` to the object on 1-based `line` of a JSONL file."""

    def breaker(root: Path) -> None:
        rows = read_jsonl(root / rel)
        change(rows[line - 1])
        write_jsonl(root / rel, rows)

    return breaker


def set_line(rel: str, line: int, raw: str) -> Callable[[Path], None]:
    """A breaker that replaces 1-based `line` of a text file with `raw`."""

    def breaker(root: Path) -> None:
        lines = (root / rel).read_text(encoding="utf-8").split("\n")
        lines[line - 1] = raw
        (root / rel).write_text("\n".join(lines), encoding="utf-8")

    return breaker


def append_line(rel: str, raw: str) -> Callable[[Path], None]:
    def breaker(root: Path) -> None:
        with (root / rel).open("a", encoding="utf-8") as f:
            f.write(raw + "\n")

    return breaker


def edit_json(rel: str, change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def breaker(root: Path) -> None:
        obj = json.loads((root / rel).read_text(encoding="utf-8"))
        change(obj)
        (root / rel).write_text(json.dumps(obj, indent=2), encoding="utf-8")

    return breaker


def remove(rel: str) -> Callable[[Path], None]:
    def breaker(root: Path) -> None:
        target = root / rel
        shutil.rmtree(target) if target.is_dir() else target.unlink()

    return breaker


def write_file(rel: str, content: bytes) -> Callable[[Path], None]:
    def breaker(root: Path) -> None:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(content)

    return breaker


def write_manifest(root: Path) -> None:
    """MANIFEST.sha256 in sha256sum format, computed independently of the loader."""
    files = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.name != "MANIFEST.sha256"
    )
    lines = [f"{hashlib.sha256((root / f).read_bytes()).hexdigest()}  {f}\n" for f in files]
    (root / "MANIFEST.sha256").write_text("".join(lines), encoding="utf-8")


def first_line(root: Path) -> str:
    """The first line of the folder's MANIFEST.sha256."""
    return (root / "MANIFEST.sha256").read_text(encoding="utf-8").split("\n", 1)[0]


def to_lines(
    target: str,
    *wordings: str,
    line: int = 1,
    change: Callable[[dict[str, Any]], None] = lambda d: None,
    keep: bool = False,
) -> Callable[[Path], None]:
    """A breaker that writes the corpus files `wordings` as the lines of corpus/`target` (a
    file of many wordings), in that order, applying `change` to the object on 1-based `line`;
    the files themselves are removed unless `keep`."""

    def breaker(root: Path) -> None:
        rows = [json.loads((root / "corpus" / w).read_text(encoding="utf-8")) for w in wordings]
        change(rows[line - 1])
        write_jsonl(root / "corpus" / target, rows)
        for w in set(wordings) if not keep else ():
            (root / "corpus" / w).unlink()

    return breaker


def then(*breakers: Callable[[Path], None]) -> Callable[[Path], None]:
    def breaker(root: Path) -> None:
        for b in breakers:
            b(root)

    return breaker


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    shutil.copytree(TINY, root)
    return root


# ---------------------------------------------------------------------------------------------
# the valid fixture


def test_tiny_loads_with_the_values_in_its_files() -> None:
    ds = load_dataset(TINY)
    meta = json.loads((TINY / "dataset.json").read_text(encoding="utf-8"))
    questions = read_jsonl(TINY / "questions.jsonl")
    labels = read_jsonl(TINY / "labels.jsonl")

    assert ds.slices == tuple(meta["slices"])
    assert [d.doc_id for d in ds.documents] == [
        "home@2024",
        "home@2025",
        "motor@2024",
        "motor@2025",
    ]
    assert list(ds.questions["qid"]) == [q["qid"] for q in questions]  # file order
    assert list(ds.labels["clause_id"]) == [
        f"{lab['document']}/{lab['section']}@{lab['version']}" for lab in labels
    ]
    assert ds.labels["grade"].dtype == "int64"
    assert list(ds.labels["grade"]) == [lab["grade"] for lab in labels]
    assert ds.log_entries == 20  # counted; the raw texts stay in their file
    assert list(ds.reviews) == ["reviewer2", "prelabels"]
    assert list(ds.reviews["prelabels"]["model"].unique()) == ["prelabeller-v1"]


def test_documents_hold_every_clause_of_their_file_in_order() -> None:
    ds = load_dataset(TINY)
    for doc in ds.documents:
        raw = json.loads((TINY / "corpus" / f"{doc.doc_id}.json").read_text(encoding="utf-8"))
        expected = [
            (c["section"], c["heading"], c["text"], p["number"], p["kind"])
            for p in raw["parts"]
            for c in p["clauses"]
        ]
        got = [(c.section, c.heading, c.text, c.part, c.kind) for c in doc.clauses]
        assert got == expected
        assert doc.product == raw["product"] and doc.form_code == raw["form_code"]
        assert all(c.clause_id == f"{doc.document}/{c.section}@{doc.version}" for c in doc.clauses)


def test_home_2025_adds_one_clause() -> None:
    ds = load_dataset(TINY)
    by_id = {d.doc_id: d for d in ds.documents}
    ids_2024 = {c.section for c in by_id["home@2024"].clauses}
    ids_2025 = {c.section for c in by_id["home@2025"].clauses}
    assert ids_2025 - ids_2024 == {"3.2"}


def test_clause_id_form() -> None:
    assert clause_id("home", "5.3", "2025") == "home/5.3@2025"


# ---------------------------------------------------------------------------------------------
# rendering and spans


def test_render_layout_and_spans() -> None:
    parts = [
        {
            "number": "1",
            "title": "Cover",
            "clauses": [
                {"section": "1.1", "heading": "Fire", "text": "We pay for fire."},
                {"section": "1.2", "heading": "Flood", "text": "We pay for flood.\nNot storms."},
            ],
        },
        {"number": "2", "title": "Empty part", "clauses": []},
        {
            "number": "3",
            "title": "Claims",
            "clauses": [
                {"section": "3.1", "heading": "Call", "text": "Call us."},
            ],
        },
    ]
    text, spans = render("T", parts)
    assert text == (
        "T\n\n"
        "1. Cover\n\n"
        "1.1 Fire\nWe pay for fire.\n\n"
        "1.2 Flood\nWe pay for flood.\nNot storms.\n\n"
        "2. Empty part\n\n"
        "3. Claims\n\n"
        "3.1 Call\nCall us.\n\n"
    )
    start = len("T\n\n1. Cover\n\n")
    first = "1.1 Fire\nWe pay for fire."
    assert spans[0] == (start, start + len(first))
    assert [text[s:e] for s, e in spans] == [
        "1.1 Fire\nWe pay for fire.",
        "1.2 Flood\nWe pay for flood.\nNot storms.",
        "3.1 Call\nCall us.",
    ]


def test_render_spans_count_code_points_not_bytes() -> None:
    text, spans = render(
        "Ü",
        [
            {
                "number": "1",
                "title": "É",
                "clauses": [{"section": "1.1", "heading": "£", "text": "€5"}],
            }
        ],
    )
    ((s, e),) = spans
    assert text[s:e] == "1.1 £\n€5"
    assert s == len("Ü\n\n1. É\n\n")


def test_loaded_spans_cut_each_clause_out_of_the_text() -> None:
    for doc in load_dataset(TINY).documents:
        assert len(doc.spans) == len(doc.clauses)
        for c, (s, e) in zip(doc.clauses, doc.spans, strict=True):
            assert doc.text[s:e] == f"{c.section} {c.heading}\n{c.text}"
            assert doc.text[e : e + 2] == "\n\n"  # the blank line is outside the span
        starts = [s for s, _ in doc.spans]
        assert starts == sorted(starts)
        assert all(e1 < s2 for (_, e1), (s2, _) in zip(doc.spans[:-1], doc.spans[1:], strict=True))


# ---------------------------------------------------------------------------------------------
# hashes


def test_snapshot_hash_formula(tiny: Path) -> None:
    corpus = tiny / "corpus"
    names = sorted(p.name for p in corpus.iterdir())
    listing = "".join(
        f"{n}\t{hashlib.sha256((corpus / n).read_bytes()).hexdigest()}\n" for n in names
    )
    expected = hashlib.sha256(listing.encode()).hexdigest()
    assert snapshot_hash(corpus) == expected
    assert load_dataset(tiny).snapshot_hash == expected


def test_snapshot_hash_moves_with_any_byte_or_file(tiny: Path) -> None:
    corpus = tiny / "corpus"
    before = snapshot_hash(corpus)
    path = corpus / "home@2024.json"
    path.write_bytes(path.read_bytes().replace(b"1,500", b"1,600"))
    changed = snapshot_hash(corpus)
    assert changed != before
    shutil.copy(corpus / "motor@2025.json", corpus / "motor@2026.json")
    assert snapshot_hash(corpus) not in (before, changed)


def test_labels_hash_formula(tiny: Path) -> None:
    q = (tiny / "questions.jsonl").read_bytes()
    lab = (tiny / "labels.jsonl").read_bytes()
    expected = hashlib.sha256(b"questions.jsonl\n" + q + b"labels.jsonl\n" + lab).hexdigest()
    assert labels_hash(q, lab) == expected
    assert load_dataset(tiny).labels_hash == expected
    # the corpus is not part of it
    (tiny / "corpus" / "home@2024.json").write_text(
        (tiny / "corpus" / "home@2024.json").read_text(encoding="utf-8").replace("1,500", "1,600"),
        encoding="utf-8",
    )
    assert load_dataset(tiny).labels_hash == expected


# ---------------------------------------------------------------------------------------------
# statistics


def test_statistics_match_an_independent_count() -> None:
    stats = check_dataset(TINY)
    questions = read_jsonl(TINY / "questions.jsonl")
    labels = read_jsonl(TINY / "labels.jsonl")
    wordings = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(TINY.glob("corpus/*"))]
    clauses = [c for w in wordings for p in w["parts"] for c in p["clauses"]]
    relevant_per_q: dict[str, int] = {}
    for lab in labels:
        relevant_per_q[lab["qid"]] = relevant_per_q.get(lab["qid"], 0) + (lab["grade"] >= 1)

    assert stats["documents"] == len({w["document"] for w in wordings}) == 2
    assert stats["document_versions"] == len(wordings) == 4
    assert stats["clauses"] == len(clauses) == 19
    assert stats["words"] == sum(
        len(c["heading"].split()) + len(c["text"].split()) for c in clauses
    )
    assert stats["versions"] == ["2024", "2025"]
    assert stats["products"] == ["home", "motor"]
    assert stats["questions"] == len(questions) == 10
    assert stats["questions_per_slice"] == {
        s: sum(q["slice"] == s for q in questions)
        for s in ("limits", "exclusions", "procedures", "definitions", "identifiers")
    }
    assert list(stats["questions_per_slice"]) == list(load_dataset(TINY).slices)  # report order
    assert stats["questions_per_subset"] == {
        s: sum(q["subset"] == s for q in questions) for s in ("core", "rolling")
    }  # `synthetic` is listed only when the set has some
    assert stats["multi_relevant_questions"] == sum(n >= 2 for n in relevant_per_q.values()) == 2
    assert stats["labels_per_grade"] == {
        str(g): sum(lab["grade"] == g for lab in labels) for g in (0, 1, 2)
    }
    assert set(stats["labels_per_grade"].values()) != {0} and stats["labels_per_grade"]["0"] > 0
    assert stats["log_entries"] == 20
    assert stats["review_questions"] == {"reviewer2": 3, "prelabels": 3}


def test_optional_files_may_be_absent(tiny: Path) -> None:
    remove("query_log.jsonl")(tiny)
    remove("review")(tiny)
    ds = load_dataset(tiny)
    assert ds.log_entries is None and dict(ds.reviews) == {}
    stats = check_dataset(tiny)
    assert stats["log_entries"] is None and stats["review_questions"] == {}


def test_extra_non_json_files_at_the_top_are_allowed(tiny: Path) -> None:
    (tiny / "README.md").write_text("notes\n", encoding="utf-8")
    assert check_dataset(tiny)["questions"] == 10


def test_notes_are_optional_and_free_form(tiny: Path) -> None:
    edit_json("dataset.json", lambda m: m.update(notes={"anything": [1, {"x": None}]}))(tiny)
    assert load_dataset(tiny).meta["notes"] == {"anything": [1, {"x": None}]}
    edit_json("dataset.json", lambda m: m.pop("notes"))(tiny)
    assert "notes" not in load_dataset(tiny).meta


def test_a_correct_manifest_passes(tiny: Path) -> None:
    write_manifest(tiny)
    assert check_dataset(tiny)["questions"] == 10


# ---------------------------------------------------------------------------------------------
# `ragsweep data check` output


def test_check_json_is_one_object_equal_to_the_statistics(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["data", "check", str(TINY), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert json.loads(out) == check_dataset(TINY)


def test_check_table_lists_every_statistic(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["data", "check", str(TINY)]) == 0
    out = capsys.readouterr().out
    stats = check_dataset(TINY)
    rows = dict(
        line.split(None, 1) if " " in line.strip() else (line.strip(), "")
        for line in out.splitlines()
    )
    top = [line.split(None, 1)[0] for line in out.splitlines() if not line.startswith(" ")]
    assert top == list(stats)
    assert rows["questions"] == "10"
    assert rows["versions"] == "2024, 2025"
    assert rows["snapshot_hash"] == stats["snapshot_hash"]
    assert rows["limits"] == str(stats["questions_per_slice"]["limits"])
    assert rows["log_entries"] == "20"


def test_table_shows_absent_log_as_dash() -> None:
    table = data_cmd.format_table({"log_entries": None, "review_questions": {}, "versions": []})
    assert table.splitlines() == [
        "log_entries       -",
        "review_questions  -",
        "versions          -",
    ]


def test_data_without_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["data"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()  # one line, no usage block
    assert "ragsweep data: error:" in line and "see `ragsweep data --help`" in line


def test_sample_is_delegated_with_all_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []

    class FakeModule:
        @staticmethod
        def main(argv: list[str]) -> int:
            seen.append(argv)
            return 0

    real_import = data_cmd.importlib.import_module

    def fake_import(name: str) -> Any:
        return FakeModule if name == "ragsweep.cli.data_sample" else real_import(name)

    monkeypatch.setattr(data_cmd.importlib, "import_module", fake_import)
    assert cli.main(["data", "sample", "--out", "x", "--seed", "3", "--help"]) == 0
    assert seen == [["--out", "x", "--seed", "3", "--help"]]


def test_missing_sample_generator_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_import = data_cmd.importlib.import_module

    def missing(name: str) -> Any:
        if name == "ragsweep.cli.data_sample":
            raise ModuleNotFoundError(
                "No module named 'ragsweep.cli.data_sample'", name="ragsweep.cli.data_sample"
            )
        return real_import(name)

    monkeypatch.setattr(data_cmd.importlib, "import_module", missing)
    assert cli.main(["data", "sample"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ragsweep.cli.data_sample" in err and "Traceback" not in err


# ---------------------------------------------------------------------------------------------
# every error kind: (id, breaker, file, line, field, words the message must hold)

Case = tuple[str, Callable[[Path], None], str, int | None, str | None, str]
#: a valid review/pool.jsonl row for the tiny fixture
POOLED = {
    "qid": "q02", "document": "home", "section": "2.2", "version": "2025", "systems": ["bm25"]
}  # fmt: skip

#: a valid review/agreement.json for the tiny fixture
AGREED: dict[str, Any] = {
    "judges": ["ann", "bob"],
    "files": ["ann.csv", "bob.csv"],
    "at": "2026-01-05",
    "labels_hash": "0" * 64,
    "threshold": 0.6,
    "interval": {"method": "percentile bootstrap over questions"},
    "slices": [
        {"slice": "limits", "items": 4, "questions": 2, "kappa": 0.5, "low": 0.1, "high": 0.9,
         "status": "below"},
        {"slice": "all", "items": 4, "questions": 2, "kappa": 0.5, "low": None, "high": None,
         "status": "below"},
    ],
}  # fmt: skip


def agreed(**change: Any) -> Callable[[Path], None]:
    """A breaker writing review/agreement.json: AGREED with `change` (None: key removed)."""
    record = {k: v for k, v in {**AGREED, **change}.items() if v is not None}
    return write_file("review/agreement.json", json.dumps(record).encode())


ERRORS: list[Case] = [
    # files and folders
    ("missing dataset.json", remove("dataset.json"), "dataset.json", None, None, "is missing"),
    ("missing corpus", remove("corpus"), "corpus", None, None, "is missing"),
    (
        "empty corpus",
        then(remove("corpus"), lambda root: (root / "corpus").mkdir()),
        "corpus",
        None,
        None,
        "holds no wording",
    ),
    ("missing questions", remove("questions.jsonl"), "questions.jsonl", None, None, "is missing"),
    ("missing labels", remove("labels.jsonl"), "labels.jsonl", None, None, "is missing"),
    (
        "required file is a folder",
        then(remove("questions.jsonl"), lambda root: (root / "questions.jsonl").mkdir()),
        "questions.jsonl",
        None,
        None,
        "is not a file; a dataset folder needs it (the questions of the labelled set)",
    ),
    (
        "optional file is a folder",
        then(remove("query_log.jsonl"), lambda root: (root / "query_log.jsonl").mkdir()),
        "query_log.jsonl",
        None,
        None,
        "is not a file; remove it",
    ),
    (
        "corpus is a file",
        then(remove("corpus"), write_file("corpus", b"")),
        "corpus",
        None,
        None,
        "is not a folder",
    ),
    (
        "review is a file",
        then(remove("review"), write_file("review", b"")),
        "review",
        None,
        None,
        "is not a folder",
    ),
    (
        "misnamed labels",
        lambda root: (root / "labels.jsonl").rename(root / "label.jsonl"),
        "labels.jsonl",
        None,
        None,
        "is missing; a dataset folder needs it (the graded labels); "
        "rename 'label.jsonl' if that is it",
    ),
    (
        "stray corpus file",
        write_file("corpus/notes.txt", b"x"),
        "corpus/notes.txt",
        None,
        None,
        "<document>@<version>.json",
    ),
    (
        "corpus subfolder",
        write_file("corpus/old/home@2023.json", b"{}"),
        "corpus/old",
        None,
        None,
        "is a folder",
    ),
    (
        "misnamed top file",
        write_file("label.jsonl", b""),
        "label.jsonl",
        None,
        None,
        "did you mean 'labels.jsonl'",
    ),
    (
        "unknown review file",
        write_file("review/reviewer3.jsonl", b""),
        "review/reviewer3.jsonl",
        None,
        None,
        "review/ holds only",
    ),
    # JSON syntax
    (
        "invalid JSON line",
        set_line("labels.jsonl", 3, '{"qid": "q02",'),
        "labels.jsonl",
        3,
        None,
        "invalid JSON",
    ),
    (
        "invalid JSON file",
        write_file("dataset.json", b'{\n  "name": "x",\n}\n'),
        "dataset.json",
        None,
        None,
        "invalid JSON at line 3",
    ),
    (
        "blank line",
        set_line("questions.jsonl", 11, "\n"),
        "questions.jsonl",
        11,
        None,
        "blank line",
    ),
    (
        "not an object",
        set_line("labels.jsonl", 2, "[1, 2]"),
        "labels.jsonl",
        2,
        None,
        "expected one JSON object per line",
    ),
    (
        "duplicate key",
        set_line(
            "labels.jsonl",
            1,
            '{"qid": "q01", "qid": "q02", "document": '
            '"home", "section": "2.1", "version": "2025", "grade": 2}',
        ),
        "labels.jsonl",
        1,
        None,
        "'qid' appears twice",
    ),
    (
        "NaN",
        set_line(
            "labels.jsonl",
            1,
            '{"qid": "q01", "document": "home", "section": "2.1", "version": "2025", "grade": NaN}',
        ),
        "labels.jsonl",
        1,
        None,
        "NaN",
    ),
    (
        "not UTF-8",
        write_file("questions.jsonl", b'{"qid": "q\xe901"}\n'),
        "questions.jsonl",
        None,
        None,
        "not UTF-8",
    ),
    # fields
    (
        "missing field",
        edit_line("questions.jsonl", 4, lambda q: q.pop("subset")),
        "questions.jsonl",
        4,
        "subset",
        "missing",
    ),
    (
        "unknown field",
        edit_line("labels.jsonl", 2, lambda r: r.update(grdae=1)),
        "labels.jsonl",
        2,
        "grdae",
        "did you mean 'grade'",
    ),
    (
        "ill-typed field",
        edit_line("questions.jsonl", 1, lambda q: q.update(product=5)),
        "questions.jsonl",
        1,
        "product",
        "expected a string or null, got a number (5)",
    ),
    (
        "null not allowed",
        edit_line("questions.jsonl", 1, lambda q: q.update(text=None)),
        "questions.jsonl",
        1,
        "text",
        "expected a string, got null",
    ),
    (
        "empty question text",
        edit_line("questions.jsonl", 2, lambda q: q.update(text="  ")),
        "questions.jsonl",
        2,
        "text",
        "is empty",
    ),
    (
        "qid with space",
        edit_line("questions.jsonl", 2, lambda q: q.update(qid="q 02")),
        "questions.jsonl",
        2,
        "qid",
        "not a valid question id",
    ),
    # dataset.json
    (
        "dataset.json not an object",
        write_file("dataset.json", b"[]\n"),
        "dataset.json",
        None,
        None,
        "expected a JSON object, got a list",
    ),
    (
        "unknown schema_version",
        edit_json("dataset.json", lambda m: m.update(schema_version=2)),
        "dataset.json",
        None,
        "schema_version",
        "unknown schema version 2",
    ),
    (
        "schema_version missing",
        edit_json("dataset.json", lambda m: m.pop("schema_version")),
        "dataset.json",
        None,
        "schema_version",
        "missing",
    ),
    (
        "dataset.json unknown field",
        edit_json("dataset.json", lambda m: m.update(slice=[])),
        "dataset.json",
        None,
        "slice",
        "did you mean 'slices'",
    ),
    (
        "empty name",
        edit_json("dataset.json", lambda m: m.update(name=" ")),
        "dataset.json",
        None,
        "name",
        "is empty",
    ),
    (
        "no slices",
        edit_json("dataset.json", lambda m: m.update(slices=[])),
        "dataset.json",
        None,
        "slices",
        "list at least one slice",
    ),
    (
        "blank slice",
        edit_json("dataset.json", lambda m: m["slices"].insert(1, " ")),
        "dataset.json",
        None,
        "slices[1]",
        "expected a non-empty string, got a string (' ')",
    ),
    (
        "traffic weight for a slice the set lacks",
        edit_json("dataset.json", lambda m: m.update(traffic_weights={"limits": 1, "claims": 1})),
        "dataset.json",
        None,
        "traffic_weights.claims",
        "names no slice of this set (its slices: limits, exclusions",
    ),
    (
        "negative traffic weight",
        edit_json("dataset.json", lambda m: m.update(traffic_weights={"limits": -0.5})),
        "dataset.json",
        None,
        "traffic_weights.limits",
        "expected a share >= 0, got a number (-0.5)",
    ),
    (
        "traffic weights all zero",
        edit_json("dataset.json", lambda m: m.update(traffic_weights={"limits": 0})),
        "dataset.json",
        None,
        "traffic_weights",
        "gives no slice a share > 0",
    ),
    (
        "slice not a string",
        edit_json("dataset.json", lambda m: m["slices"].insert(1, 3)),
        "dataset.json",
        None,
        "slices[1]",
        "expected a non-empty string, got a number (3)",
    ),
    (
        "slice named weighted",
        edit_json("dataset.json", lambda m: m["slices"].append("weighted")),
        "dataset.json",
        None,
        "slices[5]",
        "slice name 'weighted' is reserved for the report's summary rows; rename the slice",
    ),
    (
        "all beside other slices",
        edit_json("dataset.json", lambda m: m["slices"].insert(0, "all")),
        "dataset.json",
        None,
        "slices[0]",
        "slice name 'all' is reserved for the report's summary rows (allowed only as the only "
        "slice); rename the slice",
    ),
    (
        "duplicate slice",
        edit_json("dataset.json", lambda m: m["slices"].append("limits")),
        "dataset.json",
        None,
        "slices[5]",
        "listed twice",
    ),
    (
        "generator without seed",
        edit_json("dataset.json", lambda m: m.update(generator={"name": "g", "version": "1"})),
        "dataset.json",
        None,
        "generator.seed",
        "missing",
    ),
    # corpus
    (
        "wording not an object",
        write_file("corpus/home@2025.json", b'"x"'),
        "corpus/home@2025.json",
        None,
        None,
        "expected a JSON object, got a string ('x')",
    ),
    (
        "part not an object",
        edit_json("corpus/home@2025.json", lambda d: d["parts"].insert(1, 3)),
        "corpus/home@2025.json",
        None,
        "parts[1]",
        "expected an object, got a number (3)",
    ),
    (
        "clause not an object",
        edit_json("corpus/home@2025.json", lambda d: d["parts"][0]["clauses"].insert(0, None)),
        "corpus/home@2025.json",
        None,
        "parts[0].clauses[0]",
        "expected an object, got null",
    ),
    (
        "heading on two lines",
        edit_json(
            "corpus/home@2025.json", lambda d: d["parts"][0]["clauses"][0].update(heading="a\nb")
        ),
        "corpus/home@2025.json",
        None,
        "parts[0].clauses[0].heading",
        "must be one non-empty line",
    ),
    (
        "document vs file name",
        edit_json("corpus/home@2025.json", lambda d: d.update(document="house")),
        "corpus/home@2025.json",
        None,
        "document",
        "does not match the file name home@2025.json",
    ),
    (
        "version vs file name",
        edit_json("corpus/home@2025.json", lambda d: d.update(version="2026")),
        "corpus/home@2025.json",
        None,
        "version",
        "does not match",
    ),
    (
        "duplicate section",
        edit_json(
            "corpus/home@2025.json", lambda d: d["parts"][2]["clauses"][1].update(section="3.1")
        ),
        "corpus/home@2025.json",
        None,
        "parts[2].clauses[1].section",
        "section '3.1' appears twice (first at parts[2].clauses[0])",
    ),
    (
        "unknown part kind",
        edit_json("corpus/motor@2024.json", lambda d: d["parts"][2].update(kind="exclusion")),
        "corpus/motor@2024.json",
        None,
        "parts[2].kind",
        "did you mean 'exclusions'",
    ),
    (
        "clause missing text",
        edit_json("corpus/motor@2024.json", lambda d: d["parts"][0]["clauses"][0].pop("text")),
        "corpus/motor@2024.json",
        None,
        "parts[0].clauses[0].text",
        "missing",
    ),
    (
        "section with space",
        edit_json(
            "corpus/motor@2024.json", lambda d: d["parts"][0]["clauses"][0].update(section="1 1")
        ),
        "corpus/motor@2024.json",
        None,
        "parts[0].clauses[0].section",
        "not a valid section",
    ),
    (
        "wording in a file and a line",
        to_lines("extra.jsonl", "home@2025.json", keep=True),
        "corpus/home@2025.json",
        None,
        None,
        "wording home@2025 is already in corpus/extra.jsonl line 1; keep one of them",
    ),
    (
        "wording on two lines",
        to_lines("all.jsonl", "home@2024.json", "home@2025.json", "home@2024.json"),
        "corpus/all.jsonl",
        3,
        "document",
        "wording home@2024 is already in corpus/all.jsonl line 1",
    ),
    (
        "bad part kind on a line",
        to_lines(
            "all.jsonl",
            "home@2024.json",
            "motor@2024.json",
            line=2,
            change=lambda d: d["parts"][2].update(kind="exclusion"),
        ),
        "corpus/all.jsonl",
        2,
        "parts[2].kind",
        "did you mean 'exclusions'",
    ),
    (
        "bad document id on a line",
        to_lines("all.jsonl", "home@2024.json", change=lambda d: d.update(document="Home")),
        "corpus/all.jsonl",
        1,
        "document",
        "'Home' is not a valid document id",
    ),
    # questions
    (
        "no questions",
        write_file("questions.jsonl", b""),
        "questions.jsonl",
        None,
        None,
        "holds no question",
    ),
    (
        "duplicate qid",
        edit_line("questions.jsonl", 2, lambda q: q.update(qid="q01")),
        "questions.jsonl",
        2,
        "qid",
        "duplicate qid 'q01' (first on line 1)",
    ),
    (
        "unknown slice",
        edit_line("questions.jsonl", 3, lambda q: q.update(slice="exclusion")),
        "questions.jsonl",
        3,
        "slice",
        "unknown slice 'exclusion'; did you mean 'exclusions'",
    ),
    (
        "question version missing",
        edit_line("questions.jsonl", 5, lambda q: q.update(version="2023")),
        "questions.jsonl",
        5,
        "version",
        "no wording of product 'home' has version '2023'",
    ),
    (
        "question product unknown",
        edit_line("questions.jsonl", 5, lambda q: q.update(product="hme")),
        "questions.jsonl",
        5,
        "product",
        "did you mean 'home'",
    ),
    (
        "bad subset",
        edit_line("questions.jsonl", 6, lambda q: q.update(subset="frozen")),
        "questions.jsonl",
        6,
        "subset",
        "use 'core'",
    ),
    (
        "bad date",
        edit_line("questions.jsonl", 7, lambda q: q.update(added="2025-13-01")),
        "questions.jsonl",
        7,
        "added",
        "YYYY-MM-DD",
    ),
    (
        "date in other format",
        edit_line("questions.jsonl", 7, lambda q: q.update(added="31/12/2025")),
        "questions.jsonl",
        7,
        "added",
        "YYYY-MM-DD",
    ),
    # labels
    (
        "grade 3",
        edit_line("labels.jsonl", 4, lambda r: r.update(grade=3)),
        "labels.jsonl",
        4,
        "grade",
        "grade 3 is outside {0, 1, 2}",
    ),
    (
        "grade -1",
        edit_line("labels.jsonl", 4, lambda r: r.update(grade=-1)),
        "labels.jsonl",
        4,
        "grade",
        "outside {0, 1, 2}",
    ),
    (
        "grade 1.5",
        edit_line("labels.jsonl", 4, lambda r: r.update(grade=1.5)),
        "labels.jsonl",
        4,
        "grade",
        "expected a whole number, got a number (1.5)",
    ),
    (
        "grade 2.0",
        edit_line("labels.jsonl", 4, lambda r: r.update(grade=2.0)),
        "labels.jsonl",
        4,
        "grade",
        "expected a whole number",
    ),
    (
        "grade true",
        edit_line("labels.jsonl", 4, lambda r: r.update(grade=True)),
        "labels.jsonl",
        4,
        "grade",
        "got true",
    ),
    (
        "grade string",
        edit_line("labels.jsonl", 4, lambda r: r.update(grade="2")),
        "labels.jsonl",
        4,
        "grade",
        "got a string ('2')",
    ),
    (
        "label section missing",
        edit_line("labels.jsonl", 6, lambda r: r.update(section="9.9")),
        "labels.jsonl",
        6,
        "section",
        "clause home/9.9@2025 is not in the corpus snapshot: corpus/home@2025.json has no section",
    ),
    (
        "label section in other version only",
        edit_line("labels.jsonl", 6, lambda r: r.update(version="2024")),
        "labels.jsonl",
        6,
        "section",
        "clause home/3.2@2024 is not in the corpus snapshot: corpus/home@2024.json has no section "
        "'3.2'; section '3.2' exists only in version(s) 2025",
    ),
    (
        "label document missing",
        edit_line("labels.jsonl", 6, lambda r: r.update(document="hom")),
        "labels.jsonl",
        6,
        "document",
        "clause hom/3.2@2025 is not in the corpus snapshot: there is no document 'hom' at all",
    ),
    (
        "label version missing",
        edit_line("labels.jsonl", 6, lambda r: r.update(version="2023")),
        "labels.jsonl",
        6,
        "version",
        "document 'home' has no version '2023'; versions: 2024, 2025",
    ),
    (
        "duplicate label",
        append_line(
            "labels.jsonl",
            '{"qid": "q01", "document": "home", "section": "2.1", "version": "2025", "grade": 1}',
        ),
        "labels.jsonl",
        17,
        "qid",
        "duplicate label for question 'q01' and clause home/2.1@2025 (first on line 1)",
    ),
    (
        "label for unknown qid",
        edit_line("labels.jsonl", 1, lambda r: r.update(qid="q99")),
        "labels.jsonl",
        1,
        "qid",
        "unknown qid 'q99'",
    ),
    (
        "question without relevant label",
        edit_line("labels.jsonl", 10, lambda r: r.update(grade=0)),
        "questions.jsonl",
        5,
        "qid",
        "question 'q05' has no label with grade >= 1",
    ),
    (
        "relevant label on another version",
        edit_line("labels.jsonl", 2, lambda r: r.update(grade=1)),
        "labels.jsonl",
        2,
        "grade",
        "grade 1 on clause home/2.1@2024 of version '2024', and the question asks about "
        "version '2025': the retriever's filter never returns it and the relevance rule grades "
        "it 0; run `ragsweep labels check --apply`",
    ),
    (
        "relevant label on another product",
        append_line(
            "labels.jsonl",
            '{"qid": "q01", "document": "motor", "section": "1.1", "version": "2025", "grade": 2}',
        ),
        "labels.jsonl",
        17,
        "grade",
        "grade 2 on clause motor/1.1@2025 of product 'motor', and the question asks about "
        "product 'home'",
    ),
    # relevance rule
    (
        "blank relevance rule",
        write_file("relevance.md", b"\n  \n"),
        "relevance.md",
        None,
        None,
        "is empty; write the rule judges apply",
    ),
    # query log
    (
        "log bad ts",
        edit_line("query_log.jsonl", 9, lambda e: e.update(ts="yesterday")),
        "query_log.jsonl",
        9,
        "ts",
        "not an ISO timestamp",
    ),
    (
        "log unknown field",
        edit_line("query_log.jsonl", 2, lambda e: e.update(user="x")),
        "query_log.jsonl",
        2,
        "user",
        "unknown field",
    ),
    # review files
    (
        "review pair not judged",
        append_line(
            "review/reviewer2.jsonl",
            '{"qid": "q02", "document": "home", "section": "3.1", "version": "2025", "grade": 0}',
        ),
        "review/reviewer2.jsonl",
        8,
        "qid",
        "question 'q02' and clause home/3.1@2025 are not judged in labels.jsonl",
    ),
    (
        "review misses a judged pair",
        lambda root: write_jsonl(
            root / "review/reviewer2.jsonl", read_jsonl(root / "review/reviewer2.jsonl")[1:]
        ),
        "review/reviewer2.jsonl",
        1,
        "qid",
        "missing: home/2.2@2025",
    ),
    (
        "review clause missing",
        edit_line("review/reviewer2.jsonl", 1, lambda r: r.update(section="7.7")),
        "review/reviewer2.jsonl",
        1,
        "section",
        "has no section '7.7'",
    ),
    (
        "prelabel without model",
        edit_line("review/prelabels.jsonl", 3, lambda r: r.pop("model")),
        "review/prelabels.jsonl",
        3,
        "model",
        "missing",
    ),
    (
        "reviewer2 with model",
        edit_line("review/reviewer2.jsonl", 3, lambda r: r.update(model="m")),
        "review/reviewer2.jsonl",
        3,
        "model",
        "unknown field",
    ),
    (
        "review grade outside",
        edit_line("review/prelabels.jsonl", 2, lambda r: r.update(grade=5)),
        "review/prelabels.jsonl",
        2,
        "grade",
        "outside {0, 1, 2}",
    ),
    # review/pool.jsonl
    (
        "pool question unknown",
        lambda root: write_jsonl(root / "review/pool.jsonl", [POOLED, dict(POOLED, qid="q99")]),
        "review/pool.jsonl",
        2,
        "qid",
        "question 'q99' is not in questions.jsonl",
    ),
    (
        "pool clause missing",
        lambda root: write_jsonl(root / "review/pool.jsonl", [dict(POOLED, section="9.9")]),
        "review/pool.jsonl",
        1,
        "section",
        "clause home/9.9@2025 is not in the corpus snapshot",
    ),
    (
        "pool pair twice",
        lambda root: write_jsonl(root / "review/pool.jsonl", [POOLED, POOLED]),
        "review/pool.jsonl",
        2,
        "qid",
        "are pooled twice",
    ),
    (
        "pool without systems",
        lambda root: write_jsonl(root / "review/pool.jsonl", [dict(POOLED, systems=[])]),
        "review/pool.jsonl",
        1,
        "systems",
        "must list the names of the systems",
    ),
    # review/agreement.json
    (
        "agreement unknown field",
        agreed(extra=1),
        "review/agreement.json",
        None,
        "extra",
        "unknown field",
    ),
    (
        "agreement missing field",
        agreed(at=None),
        "review/agreement.json",
        None,
        "at",
        "missing field",
    ),
    (
        "agreement wrong type",
        agreed(threshold="high"),
        "review/agreement.json",
        None,
        "threshold",
        "expected number",
    ),
    (
        "agreement one judge",
        agreed(judges=["ann"]),
        "review/agreement.json",
        None,
        "judges",
        "must name the two judges",
    ),
    (
        "agreement slice not an object",
        agreed(slices=[1]),
        "review/agreement.json",
        None,
        "slices",
        "each entry must be an object",
    ),
    (
        "agreement unknown slice",
        agreed(slices=[{**AGREED["slices"][0], "slice": "limitz"}, AGREED["slices"][1]]),
        "review/agreement.json",
        None,
        "slices[0].slice",
        "is not a slice of dataset.json",
    ),
    (
        "agreement without overall row",
        agreed(slices=[AGREED["slices"][0]]),
        "review/agreement.json",
        None,
        "slices",
        "has no overall row",
    ),
    # manifest (checked last, so a content error above is never masked by it)
    (
        "manifest hash mismatch",
        then(write_manifest, edit_line("query_log.jsonl", 1, lambda e: e.update(text="changed"))),
        "MANIFEST.sha256",
        7,
        None,
        "sha256 of query_log.jsonl does not match",
    ),
    (
        "manifest lists a missing file",
        then(write_manifest, remove("review/prelabels.jsonl")),
        "MANIFEST.sha256",
        9,
        None,
        "lists review/prelabels.jsonl, which is missing",
    ),
    (
        "manifest misses a file",
        then(write_manifest, write_file("README.md", b"hello\n")),
        "MANIFEST.sha256",
        None,
        None,
        "README.md is not listed",
    ),
    (
        "manifest bad line",
        then(write_manifest, append_line("MANIFEST.sha256", "abc x")),
        "MANIFEST.sha256",
        11,
        None,
        "sha256sum format",
    ),
    (
        "manifest escapes the folder",
        then(write_manifest, append_line("MANIFEST.sha256", "0" * 64 + "  ../outside.txt")),
        "MANIFEST.sha256",
        11,
        None,
        "not a relative path inside the dataset folder",
    ),
    (
        "manifest lists a file twice",
        then(write_manifest, lambda root: append_line("MANIFEST.sha256", first_line(root))(root)),
        "MANIFEST.sha256",
        11,
        None,
        "'corpus/home@2024.json' is listed twice (first on line 1)",
    ),
]


PRIVATE = "call Jane Doe on 07700 900123"


@pytest.mark.parametrize(
    "edit",
    [
        {"ts": PRIVATE},  # not a timestamp
        {"text": 5, "session": PRIVATE},  # wrong type beside a private value
        {"session": 7, "text": PRIVATE},
        {"ts": ["2025"], "text": PRIVATE},
    ],
)
def test_a_malformed_log_entry_is_never_echoed(tiny, capsys, edit):
    edit_line("query_log.jsonl", 3, lambda e: e.update(edit))(tiny)
    assert cli.main(["data", "check", str(tiny)]) == 2
    out, err = capsys.readouterr()
    assert "query_log.jsonl:3" in err and len(err.strip().splitlines()) == 1, err
    assert "Jane" not in out + err and "07700" not in out + err
    if isinstance(edit.get("ts"), str):
        assert "(not shown" in err or "not an ISO timestamp" in err


@pytest.mark.parametrize(
    ("breaker", "rel", "line", "field", "words"),
    [pytest.param(*case[1:], id=case[0]) for case in ERRORS],
)
def test_each_error_is_one_line_naming_file_line_and_field(
    tiny: Path,
    capsys: pytest.CaptureFixture[str],
    breaker: Callable[[Path], None],
    rel: str,
    line: int | None,
    field: str | None,
    words: str,
) -> None:
    breaker(tiny)
    with pytest.raises(DatasetError) as caught:
        load_dataset(tiny, pool=True)
    err = caught.value
    assert (err.path, err.line, err.field) == (str(tiny / rel), line, field)
    assert words in err.detail

    assert cli.main(["data", "check", str(tiny)]) == 2
    out, stderr = capsys.readouterr()
    assert out == ""
    assert stderr.count("\n") == 1 and stderr.endswith("\n")
    assert "Traceback" not in stderr
    where = f"{tiny / rel}:{line}: " if line is not None else f"{tiny / rel}: "
    assert stderr.startswith(f"ragsweep data: error: {where}")
    assert (f"field '{field}': " in stderr) == (field is not None)
    assert words in stderr


def unreadable_error(tmp: Path) -> DatasetError:
    """The error for a labels.jsonl that exists but cannot be read (simulated: chmod does not
    stop root, who may run the tests). Both ways the loader reads a file refuse it: `open`
    (the one pass over the folder) and `Path.read_bytes` (a file read on its own)."""
    root = tmp / "tiny"
    shutil.copytree(TINY, root)
    real_read_bytes, real_open = Path.read_bytes, builtins.open

    def refused(path: object) -> bool:
        return Path(str(path)).name == "labels.jsonl"

    def read_bytes(path: Path) -> bytes:
        if refused(path):
            raise PermissionError(13, "Permission denied")
        return real_read_bytes(path)

    def open_(file: object, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, str | Path) and refused(file):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp, pytest.raises(DatasetError) as caught:
        mp.setattr(Path, "read_bytes", read_bytes)
        mp.setattr(builtins, "open", open_)
        load_dataset(root)
    return caught.value


def test_the_pool_record_is_read_by_data_check_not_by_runs(tmp_path: Path) -> None:
    """review/pool.jsonl is bookkeeping no run reads: a sweep's load skips it, `data check`
    (and `load_dataset(..., pool=True)`) reads and checks it."""
    root = Path(shutil.copytree(TINY, tmp_path / "tiny"))
    write_jsonl(root / "review/pool.jsonl", [POOLED])
    assert load_dataset(root).pool is None
    assert load_dataset(root, pool=True).pool["clause_id"].tolist() == ["home/2.2@2025"]
    assert check_dataset(root)["pool_judged"]["candidates"] == 1
    write_jsonl(root / "review/pool.jsonl", [dict(POOLED, qid="q99")])
    assert load_dataset(root).pool is None  # not read, so not refused
    with pytest.raises(DatasetError, match="q99"):
        check_dataset(root)


def test_a_dataset_loaded_twice_is_validated_again_when_a_file_changes(tmp_path: Path) -> None:
    root = Path(shutil.copytree(TINY, tmp_path / "tiny"))
    first = load_dataset(root)
    again = load_dataset(root)
    assert again is not first and again.labels is not first.labels  # copies, not shared
    again.labels.loc[0, "grade"] = 0  # a caller's change stays its own
    assert load_dataset(root).labels.equals(first.labels)
    rows = read_jsonl(root / "labels.jsonl")
    rows[0]["grade"] = 7  # same size, same folder, different bytes
    write_jsonl(root / "labels.jsonl", rows)
    with pytest.raises(DatasetError, match="grade 7 is outside"):
        load_dataset(root)


def test_an_unreadable_file_is_named(tmp_path: Path) -> None:
    err = unreadable_error(tmp_path)
    assert (err.path, err.line, err.field) == (str(tmp_path / "tiny" / "labels.jsonl"), None, None)
    assert err.detail == "cannot be read (Permission denied); check its permissions"


@pytest.fixture(scope="module")
def raised(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, DatasetError]]:
    """Each error case's error and its message with the folder's path cut out, by case id."""
    out = {}
    for name, breaker, *_ in ERRORS:
        root = tmp_path_factory.mktemp("case") / "tiny"
        shutil.copytree(TINY, root)
        breaker(root)
        with pytest.raises(DatasetError) as caught:
            load_dataset(root, pool=True)
        out[name] = (str(caught.value).replace(str(root), ""), caught.value)
    tmp = tmp_path_factory.mktemp("case")
    err = unreadable_error(tmp)
    out["unreadable file"] = (str(err).replace(str(tmp / "tiny"), ""), err)
    return out


def test_error_cases_are_distinct(raised: dict[str, tuple[str, DatasetError]]) -> None:
    """No two cases test the same thing: their ids and their whole messages all differ."""
    assert len(raised) == len(ERRORS) + 1  # no id given twice
    by_message: dict[str, list[str]] = {}
    for name, (message, _) in raised.items():
        by_message.setdefault(message, []).append(name)
    assert [names for names in by_message.values() if len(names) > 1] == []


def fail_calls() -> set[tuple[str, int, int]]:
    """Every `.fail(...)` call in the loader modules (the modules of ragsweep/data that use
    `DataFile`): (file name, first line, last line)."""
    calls = set()
    for path in sorted(Path(ragsweep.data.__file__).parent.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "DataFile" not in source or path.name == "passages.py":
            continue  # passages.py reads a run file, not the dataset folder: its errors are
            # reached in tests/scoring/test_passages.py and tests/experiment/test_score_passages.py
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "fail":
                    calls.add((path.name, node.lineno, node.end_lineno or node.lineno))
    return calls


def test_error_cases_reach_every_check(raised: dict[str, tuple[str, DatasetError]]) -> None:
    """Every error a loader can raise (each `fail` call) is produced by some case, so a new
    check without a case, or a case that no longer reaches its check, fails here. (The folder
    itself missing or being a file have their own tests below.)"""
    calls = fail_calls()
    assert len(calls) > 40, "the scan found no loader"
    reached = set()
    for _, err in raised.values():
        *_, caller, raiser = traceback.extract_tb(err.__traceback__)
        assert raiser.name == "fail"
        name, line = Path(caller.filename).name, caller.lineno or 0
        reached |= {c for c in calls if c[0] == name and c[1] <= line <= c[2]}
    assert sorted(f"{name}:{first}" for name, first, _ in calls - reached) == []


#: one break per file, in the order the loaders check the files
IN_ORDER: list[tuple[str, Callable[[Path], None]]] = [
    ("dataset.json", edit_json("dataset.json", lambda m: m.update(slice=[]))),
    (
        "corpus/motor@2024.json",
        edit_json("corpus/motor@2024.json", lambda d: d["parts"][2].update(kind="exclusion")),
    ),
    ("questions.jsonl", edit_line("questions.jsonl", 6, lambda q: q.update(subset="frozen"))),
    ("labels.jsonl", edit_line("labels.jsonl", 4, lambda r: r.update(grade=3))),
    ("query_log.jsonl", edit_line("query_log.jsonl", 9, lambda e: e.update(ts="yesterday"))),
    ("review/prelabels.jsonl", edit_line("review/prelabels.jsonl", 2, lambda r: r.pop("model"))),
    ("label.json", write_file("label.json", b"{}")),
    (
        "MANIFEST.sha256",
        then(write_manifest, edit_line("query_log.jsonl", 1, lambda e: e.update(text="x"))),
    ),
]


@pytest.mark.parametrize("first", range(len(IN_ORDER)), ids=[rel for rel, _ in IN_ORDER])
def test_files_are_checked_in_order(tiny: Path, first: int) -> None:
    """With every file from `first` on broken, the first of them is the one reported: a later
    file's problem never masks an earlier file's."""
    for _, breaker in IN_ORDER[first:]:
        breaker(tiny)
    with pytest.raises(DatasetError) as caught:
        load_dataset(tiny)
    assert caught.value.path == str(tiny / IN_ORDER[first][0])


def test_a_missing_file_is_reported_before_another_files_content(tiny: Path) -> None:
    """Both questions.jsonl and labels.jsonl are read before either is checked."""
    edit_line("questions.jsonl", 6, lambda q: q.update(subset="frozen"))(tiny)
    remove("labels.jsonl")(tiny)
    with pytest.raises(DatasetError) as caught:
        load_dataset(tiny)
    assert caught.value.path == str(tiny / "labels.jsonl")


def test_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope"
    assert cli.main(["data", "check", str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"ragsweep data: error: {missing}: no such folder; give the path of a dataset folder "
        "(the one holding dataset.json)\n"
    )


def test_a_file_instead_of_a_folder(tiny: Path) -> None:
    with pytest.raises(DatasetError, match="is a file, not a folder"):
        load_dataset(tiny / "dataset.json")


def test_the_first_error_in_file_order_is_reported(tiny: Path) -> None:
    edit_line("labels.jsonl", 9, lambda r: r.update(grade=7))(tiny)
    edit_line("labels.jsonl", 3, lambda r: r.update(grade=9))(tiny)
    with pytest.raises(DatasetError) as caught:
        load_dataset(tiny)
    assert caught.value.line == 3


# ---------------------------------------------------------------------------------------------
# the real console script and the built-in sample


def test_console_script(tiny: Path) -> None:
    script = Path(sys.executable).parent / "ragsweep"
    if not script.exists():
        pytest.skip(f"console script not installed next to {sys.executable}")
    ok = subprocess.run(
        [str(script), "data", "check", str(TINY), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["questions"] == 10

    edit_line("labels.jsonl", 4, lambda r: r.update(grade=3))(tiny)
    bad = subprocess.run(
        [str(script), "data", "check", str(tiny)], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.splitlines() == [
        f"ragsweep data: error: {tiny / 'labels.jsonl'}:4: field 'grade': grade 3 is outside "
        "{0, 1, 2} (2 answers fully, 1 supports, 0 judged not relevant)"
    ]


def test_builtin_sample_loads() -> None:
    root = sample_path()
    if not (root / "dataset.json").is_file():
        pytest.skip(f"the built-in sample is not generated yet ({root})")
    stats = check_dataset()
    assert stats["path"] == str(root)
    assert stats["questions"] == sum(stats["questions_per_slice"].values()) > 0
    assert stats["clauses"] > 0 and stats["log_entries"]


@pytest.mark.slow
def test_a_generated_sample_passes_the_validator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ragsweep data sample` (ragsweep.cli.data_sample) writes what `check` accepts. The pool
    is BM25's alone (the committed sample's six systems, MiniLM among them, are checked by
    tests/data/test_sample.py): every other stage of a new seed's build runs."""
    from ragsweep.labelling import sample_build

    monkeypatch.setattr(sample_build, "POOL_SYSTEMS", {"bm25": ["retriever=bm25"]})
    out = tmp_path / "sample"
    assert cli.main(["data", "sample", "--out", str(out), "--seed", "1"]) == 0
    capsys.readouterr()
    assert cli.main(["data", "check", str(out), "--format", "json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["questions"] == sum(stats["questions_per_slice"].values()) > 0
    assert (out / "MANIFEST.sha256").is_file()


# ---------------------------------------------------------------------------------------------
# speed at the size of the built-in sample


def _big_dataset(
    root: Path, n_docs: int = 6, n_clauses: int = 60, n_questions: int = 400, n_log: int = 5000
) -> None:
    """A valid dataset of the sample's size: 6 wordings x 60 clauses of ~200 words, 400 questions
    with 3 labels each, 5,000 log entries, 50 reviewed questions."""
    slices = ["limits", "exclusions", "procedures", "definitions", "identifiers"]
    (root / "corpus").mkdir(parents=True)
    (root / "review").mkdir()
    meta = {
        "schema_version": 1,
        "name": "big",
        "description": "",
        "slices": slices,
        "generator": {"name": "test", "version": "0", "seed": 0},
    }
    (root / "dataset.json").write_text(json.dumps(meta), encoding="utf-8")
    words = " ".join(f"word{i}" for i in range(200))
    docs = [(f"p{d // 2}", str(2024 + d % 2)) for d in range(n_docs)]
    for doc, ver in docs:
        parts = [
            {
                "number": str(p),
                "title": f"Part {p}",
                "kind": "other",
                "clauses": [
                    {"section": f"{p}.{c}", "heading": f"Heading {c}", "text": words}
                    for c in range(n_clauses // 6)
                ],
            }
            for p in range(6)
        ]
        body = {
            "document": doc,
            "version": ver,
            "product": doc,
            "form_code": None,
            "title": f"{doc} {ver}",
            "parts": parts,
        }
        (root / "corpus" / f"{doc}@{ver}.json").write_text(json.dumps(body), encoding="utf-8")
    questions, labels = [], []
    for i in range(n_questions):
        doc, ver = docs[i % n_docs]
        qid = f"q{i:04d}"
        questions.append(
            {
                "qid": qid,
                "text": f"question {i}",
                "slice": slices[i % 5],
                "product": doc,
                "version": ver,
                "subset": "core",
                "added": "2025-01-01",
            }
        )
        for j, g in enumerate((2, 1, 0)):
            labels.append(
                {
                    "qid": qid,
                    "document": doc,
                    "section": f"{j}.{i % 10}",
                    "version": ver,
                    "grade": g,
                }
            )
    write_jsonl(root / "questions.jsonl", questions)
    write_jsonl(root / "labels.jsonl", labels)
    write_jsonl(root / "review" / "reviewer2.jsonl", labels[: 50 * 3])
    write_jsonl(root / "review" / "prelabels.jsonl", [{**r, "model": "m"} for r in labels[:150]])
    write_jsonl(
        root / "query_log.jsonl",
        [
            {
                "ts": f"2025-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z",
                "session": f"s{i}",
                "text": "how much is my excess",
            }
            for i in range(n_log)
        ],
    )
    write_manifest(root)


def test_a_sample_sized_dataset_validates_with_its_counts(tmp_path: Path) -> None:
    # its speed is a row of benchmarks/run.py ("validating the built-in sample")
    _big_dataset(tmp_path / "big")
    stats = check_dataset(tmp_path / "big")
    assert (stats["questions"], stats["clauses"], stats["log_entries"]) == (400, 360, 5000)
