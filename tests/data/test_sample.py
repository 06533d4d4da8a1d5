"""The built-in sample dataset: reproducibility, the content the issue asks for, and the CLI.

Most checks read the committed sample's JSON directly (independent of the generator's own
bookkeeping), so a generator bug and a stale committed copy both fail here.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import json
import re
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from ragsweep.cli import data_sample as sample_cli
from ragsweep.data.samplegen import GENERATOR_VERSION, build_files, generate
from ragsweep.data.samplegen.review import cohen_kappa
from ragsweep.errors import UserError

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragsweep" / "data" / "sample"
SLICES = ["limits", "exclusions", "procedures", "definitions", "identifiers"]
KINDS = {"definitions", "cover", "limits", "exclusions", "claims", "conditions"}


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _similarity(a: str, b: str) -> float:
    """Word-level difflib ratio (no autojunk, which misjudges long near-identical strings)."""
    return difflib.SequenceMatcher(None, a.split(), b.split(), autojunk=False).ratio()


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def ds() -> dict:
    """The committed sample, read straight from its files."""
    wordings = {}
    for f in sorted((SAMPLE / "corpus").glob("*.json")):
        wordings[f.stem] = json.loads(f.read_text(encoding="utf-8"))
    clauses = {}  # (document, section, version) -> clause with its part kind
    for w in wordings.values():
        for part in w["parts"]:
            for c in part["clauses"]:
                clauses[(w["document"], c["section"], w["version"])] = dict(c, kind=part["kind"])
    return {
        "meta": json.loads((SAMPLE / "dataset.json").read_text(encoding="utf-8")),
        "wordings": wordings,
        "clauses": clauses,
        "questions": _jsonl(SAMPLE / "questions.jsonl"),
        "labels": _jsonl(SAMPLE / "labels.jsonl"),
        "log": _jsonl(SAMPLE / "query_log.jsonl"),
        "reviewer2": _jsonl(SAMPLE / "review" / "reviewer2.jsonl"),
        "prelabels": _jsonl(SAMPLE / "review" / "prelabels.jsonl"),
    }


@pytest.fixture(scope="module")
def relevant(ds: dict) -> dict[str, list[dict]]:
    out = defaultdict(list)
    for label in ds["labels"]:
        if label["grade"] >= 1:
            out[label["qid"]].append(label)
    return out


# --- reproducibility ---------------------------------------------------------------------------


def test_regenerating_gives_the_committed_bytes(tmp_path: Path) -> None:
    start = time.perf_counter()
    generate(tmp_path / "sample", seed=0)
    assert time.perf_counter() - start < 10
    fresh, committed = _tree(tmp_path / "sample"), _tree(SAMPLE)
    assert fresh["MANIFEST.sha256"] == committed["MANIFEST.sha256"]
    assert sorted(fresh) == sorted(committed)
    for path in fresh:
        assert fresh[path] == committed[path], path
    assert list(tmp_path.iterdir()) == [tmp_path / "sample"]  # no temporary folder left behind


def test_manifest_is_sha256sum_of_every_other_file() -> None:
    lines = (SAMPLE / "MANIFEST.sha256").read_text(encoding="utf-8").splitlines()
    files = sorted(p for p in _tree(SAMPLE) if p != "MANIFEST.sha256")
    assert [line.split("  ", 1)[1] for line in lines] == files
    for line in lines:
        digest, path = line.split("  ", 1)
        assert digest == hashlib.sha256((SAMPLE / path).read_bytes()).hexdigest()


def test_same_seed_same_bytes_other_seed_differs() -> None:
    a, b, c = build_files(3), build_files(3), build_files(4)
    assert a == b
    assert a["questions.jsonl"] != c["questions.jsonl"]
    assert a["corpus/home@2025.json"] != c["corpus/home@2025.json"]
    assert a["query_log.jsonl"] != c["query_log.jsonl"]


def test_text_files_are_utf8_with_unix_newlines() -> None:
    for path, data in _tree(SAMPLE).items():
        text = data.decode("utf-8")
        assert "\r" not in text and text.endswith("\n"), path
        if path.endswith(".jsonl"):
            assert "\n\n" not in text, path


# --- dataset.json --------------------------------------------------------------------------------


def test_dataset_json(ds: dict) -> None:
    meta = ds["meta"]
    assert list(meta) == ["schema_version", "name", "description", "slices", "generator", "notes"]
    assert meta["schema_version"] == 1 and meta["name"] == "ragsweep-sample"
    assert meta["slices"] == SLICES
    assert meta["generator"] == {"name": "ragsweep.sample", "version": GENERATOR_VERSION, "seed": 0}
    log_notes = meta["notes"]["query_log"]
    assert sum(log_notes["slice_shares_target"].values()) == pytest.approx(1.0)
    assert log_notes["entries"] == len(ds["log"])


# --- corpus --------------------------------------------------------------------------------------


def test_corpus_documents_versions_and_size(ds: dict) -> None:
    assert sorted(ds["wordings"]) == [
        f"{p}@{v}" for p in ("home", "motor", "travel") for v in ("2024", "2025")
    ]
    for stem, w in ds["wordings"].items():
        assert stem == f"{w['document']}@{w['version']}"
        assert w["product"] == w["document"]
        code = {"home": "HM", "motor": "MT", "travel": "TR"}[w["document"]]
        assert re.fullmatch(rf"{code}-PW-{w['version']}/0\d", w["form_code"])
        assert KINDS <= {p["kind"] for p in w["parts"]}
        sections = [c["section"] for p in w["parts"] for c in p["clauses"]]
        assert len(sections) == len(set(sections))
        for part in w["parts"]:  # stable numbering: clause i of part n is n.i
            for i, c in enumerate(part["clauses"], start=1):
                assert c["section"] == f"{part['number']}.{i}"
    words = sum(len(c["text"].split()) + len(c["heading"].split()) for c in ds["clauses"].values())
    assert len(ds["clauses"]) >= 300
    assert words >= 100_000
    assert sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file()) < 5_000_000


def test_versions_differ_in_limits_excesses_and_exclusions_but_mostly_match(ds: dict) -> None:
    changed: Counter[str] = Counter()
    identical = 0
    for (doc, section, version), c in ds["clauses"].items():
        if version != "2024" or (doc, section, "2025") not in ds["clauses"]:
            continue
        new = ds["clauses"][(doc, section, "2025")]["text"]
        if new == c["text"]:
            identical += 1
        else:
            changed[c["kind"]] += 1
            assert _similarity(c["text"], new) > 0.8, (doc, section)
    assert changed["limits"] >= 20 and changed["exclusions"] >= 5
    assert identical > sum(changed.values())
    water = {v: ds["clauses"][("home", "4.12", v)]["text"] for v in ("2024", "2025")}
    assert "£350" in water["2024"] and "£500" in water["2025"]
    assert "excess" in water["2024"].lower()


def test_general_conditions_are_near_identical_across_products(ds: dict) -> None:
    for section in ("7.1", "7.4", "7.6"):
        texts = [
            ds["clauses"][(doc, section, "2025")]["text"] for doc in ("home", "motor", "travel")
        ]
        for a, b in zip(texts, texts[1:], strict=False):
            assert a != b  # the product noun differs ...
            assert _similarity(a, b) > 0.9  # ... and little else


def test_cross_references_point_at_existing_clauses(ds: dict) -> None:
    refs = 0
    for (doc, _, version), c in ds["clauses"].items():
        for section in re.findall(r"\bclauses? (\d+\.\d+)", c["text"]):
            refs += 1
            assert (doc, section, version) in ds["clauses"], (doc, section, version)
    assert refs >= 150
    assert sum("section 5" in c["text"] for c in ds["clauses"].values()) >= 20


def test_codes_are_printed_in_clause_texts(ds: dict) -> None:
    texts = " ".join(c["text"] for c in ds["clauses"].values())
    for code in ("HM", "MT", "TR"):
        assert len(set(re.findall(rf"\bEXC-{code}-\d\d\b", texts))) >= 10
        assert len(set(re.findall(rf"\bEND-{code}-\d\d\b", texts))) >= 4


def test_prose_is_varied(ds: dict) -> None:
    sentences = Counter(
        s for c in ds["clauses"].values() for s in re.split(r"(?<=[.?])\s+", c["text"])
    )
    assert len(sentences) >= 1_000
    # the most repeated sentence is boilerplate, but no sentence is in most clauses
    assert sentences.most_common(1)[0][1] < len(ds["clauses"]) / 5


# --- questions and labels ------------------------------------------------------------------------


def test_questions_ids_slices_products_subsets_dates(ds: dict) -> None:
    qs = ds["questions"]
    assert [q["qid"] for q in qs] == [f"q{i:04d}" for i in range(1, 401)]
    assert all(
        list(q) == ["qid", "text", "slice", "product", "version", "subset", "added"] for q in qs
    )
    assert Counter(q["slice"] for q in qs) == {s: 80 for s in SLICES}
    for q in qs:
        assert f"{q['product']}@{q['version']}" in ds["wordings"]
    subsets = Counter(q["subset"] for q in qs)
    assert subsets == {"core": 240, "rolling": 160}
    added = {
        s: [dt.date.fromisoformat(q["added"]) for q in qs if q["subset"] == s] for s in subsets
    }
    every = added["core"] + added["rolling"]
    assert min(every) >= dt.date(2024, 1, 1) and max(every) <= dt.date(2025, 12, 31)
    assert {d.year for d in added["core"]} == {2024, 2025}
    assert min(added["rolling"]) > max(added["core"])  # rolling questions came later
    assert [q["added"] for q in qs] == sorted(q["added"] for q in qs)  # qids follow date added


def test_every_label_anchor_exists_and_grades_are_valid(ds: dict, relevant: dict) -> None:
    questions = {q["qid"]: q for q in ds["questions"]}
    seen = set()
    for label in ds["labels"]:
        assert list(label) == ["qid", "document", "section", "version", "grade"]
        assert label["qid"] in questions and label["grade"] in (0, 1, 2)
        key = (label["qid"], label["document"], label["section"], label["version"])
        assert key not in seen
        seen.add(key)
        assert key[1:] in ds["clauses"], key
    for qid in questions:
        assert any(lab["grade"] == 2 for lab in relevant[qid]), qid


def test_relevant_clauses_are_in_the_questions_version_and_product(ds: dict, relevant: dict):
    for q in ds["questions"]:
        for label in relevant[q["qid"]]:
            assert (label["document"], label["version"]) == (q["product"], q["version"])


def test_a_quarter_of_questions_have_two_or_more_relevant_clauses(ds: dict, relevant: dict):
    multi = sum(len(relevant[q["qid"]]) >= 2 for q in ds["questions"])
    assert multi >= 100
    assert multi == ds["meta"]["notes"]["questions"]["with_2plus_relevant"]


def _words(text: str) -> list[str]:
    return re.sub(r"[^\w\s£]", " ", text.lower()).split()


def test_no_question_copies_eight_words_of_any_clause(ds: dict) -> None:
    runs = set()
    for c in ds["clauses"].values():
        words = _words(f"{c['heading']} {c['text']}")
        runs.update(tuple(words[i : i + 8]) for i in range(len(words) - 7))
    for q in ds["questions"]:
        words = _words(q["text"])
        copied = [
            words[i : i + 8] for i in range(len(words) - 7) if tuple(words[i : i + 8]) in runs
        ]
        assert not copied, (q["qid"], copied)


def test_questions_use_policyholder_words(ds: dict) -> None:
    text = " ".join(q["text"].lower() for q in ds["questions"])
    for lay in ("deductible", "my stuff", "bike", "car", "luggage", "burst pipe", "written off"):
        assert lay in text, lay
    assert len({q["text"] for q in ds["questions"]}) == 400


def test_identifier_questions_quote_codes_printed_in_their_clause(ds: dict, relevant: dict):
    kinds: Counter[str] = Counter()
    for q in ds["questions"]:
        if q["slice"] != "identifiers":
            continue
        target = next(lab for lab in relevant[q["qid"]] if lab["grade"] == 2)
        clause = ds["clauses"][(target["document"], target["section"], target["version"])]
        code = re.search(r"\b(?:EXC|END)-[A-Z]{2}-\d\d\b|\b[A-Z]{2}-PW-\d{4}/\d\d\b", q["text"])
        number = re.search(r"\bclause (\d+\.\d+)\b", q["text"])
        assert code or number, q["text"]
        if code:
            kinds["form" if "-PW-" in code.group() else code.group()[:3]] += 1
            assert code.group() in clause["text"], q["qid"]
        else:
            kinds["clause"] += 1
            assert number.group(1) == target["section"]
    assert set(kinds) == {"EXC", "END", "form", "clause"}


# --- review sample -------------------------------------------------------------------------------


def test_review_files_grade_exactly_the_judged_pairs(ds: dict) -> None:
    questions = {q["qid"]: q for q in ds["questions"]}
    zero_qids = {lab["qid"] for lab in ds["labels"] if lab["grade"] == 0}
    assert len(zero_qids) == 50
    assert Counter(questions[q]["slice"] for q in zero_qids) == {s: 10 for s in SLICES}
    judged = [lab for lab in ds["labels"] if lab["qid"] in zero_qids]

    def pair(row: dict) -> tuple:
        return (row["qid"], row["document"], row["section"], row["version"])

    for rows in (ds["reviewer2"], ds["prelabels"]):
        assert [pair(r) for r in rows] == [pair(r) for r in judged]
    assert all(
        list(r) == ["qid", "document", "section", "version", "grade"] for r in ds["reviewer2"]
    )
    assert all(r["model"] and list(r)[-1] == "model" for r in ds["prelabels"])
    by_qid = defaultdict(list)
    for lab in judged:
        by_qid[lab["qid"]].append(lab)
    for qid, labs in by_qid.items():  # 3-6 pooled rejects, the wrong-version twin first
        zeros = [lab for lab in labs if lab["grade"] == 0]
        assert 3 <= len(zeros) <= 6
        target = next(lab for lab in labs if lab["grade"] == 2)
        twin = (
            target["document"],
            target["section"],
            "2025" if target["version"] == "2024" else "2024",
        )
        if twin in ds["clauses"]:
            assert (zeros[0]["document"], zeros[0]["section"], zeros[0]["version"]) == twin, qid


def test_review_disagreement_shares_and_kappa_match_notes(ds: dict) -> None:
    from sklearn.metrics import cohen_kappa_score

    judged = {
        (r["qid"], r["document"], r["section"], r["version"]): r["grade"] for r in ds["labels"]
    }
    notes = ds["meta"]["notes"]["review"]
    for name, target in (("reviewer2", 0.15), ("prelabels", 0.25)):
        first = [judged[(r["qid"], r["document"], r["section"], r["version"])] for r in ds[name]]
        second = [r["grade"] for r in ds[name]]
        n_dis = sum(a != b for a, b in zip(first, second, strict=True))
        assert notes[name]["disagreements"] == n_dis
        assert notes[name]["share"] == round(n_dis / len(first), 4)
        assert abs(n_dis / len(first) - target) <= 1 / len(first)
        assert notes[name]["cohen_kappa"] == round(cohen_kappa_score(first, second), 4)
        assert cohen_kappa(first, second) == pytest.approx(cohen_kappa_score(first, second))


def test_cohen_kappa_formula() -> None:
    # 2x2 table [[20, 5], [10, 15]]: p_o = 35/50, p_e = (25*30 + 25*20) / 50^2 = 0.5
    a = [1] * 25 + [0] * 25
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert cohen_kappa(a, b) == pytest.approx((35 / 50 - 0.5) / (1 - 0.5))
    assert cohen_kappa([2, 2], [2, 2]) == 1.0


# --- query log -----------------------------------------------------------------------------------


def test_query_log_shape_and_order(ds: dict) -> None:
    log = ds["log"]
    assert len(log) >= 5_000
    assert all(list(e) == ["ts", "session", "text"] for e in log)
    stamps = [e["ts"] for e in log]
    assert stamps == sorted(stamps)
    assert all(re.fullmatch(r"2025-\d\d-\d\dT\d\d:\d\d:\d\dZ", s) for s in stamps)
    assert {s[5:7] for s in stamps} == {f"{m:02d}" for m in range(1, 13)}
    assert len({e["session"] for e in log}) >= 1_000


def test_query_log_has_duplicates_near_duplicates_and_personal_data(ds: dict) -> None:
    texts = [e["text"] for e in ds["log"]]
    counts = Counter(texts)
    assert sum(n - 1 for n in counts.values()) >= 250  # exact duplicates
    distinct = sorted(counts)
    near = sum(  # neighbours in sorted order that differ by one or two characters
        1
        for a, b in zip(distinct, distinct[1:], strict=False)
        if a != b and len(a) > 20 and difflib.SequenceMatcher(None, a, b).ratio() > 0.97
    )
    assert near >= 50
    patterns = {
        "email": r"\b[\w.]+@example\.(?:com|co\.uk|org|net)\b",
        "phone": r"(?:\+44 7700|07700) 900\d{3}|\b0(?:20 7946|161 496|113 496) 0\d{3}\b",
        "policy": r"\bPOL-\d{8}\b",
        "postcode": r"\b[A-Z]{1,2}\d{1,2} \d[A-Z]{2}\b",
        "name": r"(?:I'm|is|name is) [A-Z][a-z]+ [A-Z][a-z']+",
    }
    for kind, pattern in patterns.items():
        assert sum(bool(re.search(pattern, t)) for t in texts) >= 100, kind
    notes = ds["meta"]["notes"]["query_log"]
    assert 0.10 <= notes["entries_with_personal_data"] / len(texts) <= 0.20
    assert notes["slice_shares_realised"]["limits"] > notes["slice_shares_realised"]["identifiers"]


# --- difficulty ----------------------------------------------------------------------------------


def test_retrieval_difficulty_is_neither_trivial_nor_hopeless_and_differs_by_slice() -> None:
    from ragsweep.data.samplegen.measure import measure

    table = measure(SAMPLE, ("bm25", "bm25-codes", "lsa"), ks=(5,))[5]
    assert 0.4 <= table["bm25"]["all"] <= 0.85
    # quoting codes makes exact matching matter: BM25 that keeps codes whole wins identifiers
    assert table["bm25-codes"]["identifiers"] - table["lsa"]["identifiers"] >= 0.15
    diffs = [table["bm25"][s] - table["lsa"][s] for s in SLICES]
    assert max(diffs) - min(diffs) >= 0.1  # lexical and LSA retrieval rank differently by slice


# --- CLI and writing -----------------------------------------------------------------------------


def test_cli_writes_refuses_and_forces(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "sample"
    assert sample_cli.main(["--out", str(out), "--seed", "0"]) == 0
    line = capsys.readouterr().out
    assert line.count("\n") == 1
    assert str(out) in line and "6 documents" in line and "400 questions" in line
    assert (out / "MANIFEST.sha256").read_bytes() == (SAMPLE / "MANIFEST.sha256").read_bytes()
    with pytest.raises(UserError, match="--force"):
        sample_cli.main(["--out", str(out)])
    assert sample_cli.main(["--out", str(out), "--seed", "1", "--force"]) == 0
    assert json.loads((out / "dataset.json").read_text())["generator"]["seed"] == 1


def test_cli_never_replaces_a_folder_that_is_not_a_dataset(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="no dataset.json"):
        sample_cli.main(["--out", str(tmp_path), "--force"])
    assert (tmp_path / "notes.txt").read_text() == "mine"
    (tmp_path / "file").write_text("x")
    with pytest.raises(UserError, match="not a folder"):
        sample_cli.main(["--out", str(tmp_path / "file"), "--force"])


def test_top_level_cli_runs_data_sample(tmp_path: Path) -> None:
    from ragsweep.cli import main

    assert main(["data", "sample", "--out", str(tmp_path / "s")]) == 0
    assert main(["data", "sample", "--out", str(tmp_path / "s")]) == 2  # exists: one-line error


def test_a_crash_while_writing_leaves_the_old_dataset(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "sample"
    generate(out, seed=1)
    before = _tree(out)
    calls = {"n": 0}
    real = Path.write_bytes

    def flaky(self: Path, data: bytes) -> int:
        calls["n"] += 1
        if calls["n"] == 5:
            raise OSError("disk full")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", flaky)
    with pytest.raises(OSError, match="disk full"):
        generate(out, seed=0)
    assert _tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sample"]


def test_loader_accepts_the_sample() -> None:
    dataset = pytest.importorskip("ragsweep.data")
    if not hasattr(dataset, "load_dataset"):
        pytest.skip("ragsweep.data.load_dataset not available yet")
    loaded = dataset.load_dataset(SAMPLE)
    assert len(loaded.questions) == 400
