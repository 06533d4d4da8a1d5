"""The built-in sample dataset: it is the build of seed 0, it holds what issue 15 asks for, and
the CLI writes it.

Most checks read the committed sample's JSON directly (independent of the generator's own
bookkeeping), so a generator bug and a stale committed copy both fail here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from ragsweep.cli import data_sample as sample_cli
from ragsweep.data import load_dataset
from ragsweep.data.load import statistics
from ragsweep.data.samplegen.querylog import build_query_log
from ragsweep.data.samplegen.questions import copy_runs, shares_run
from ragsweep.data.samplegen.review import cohen_kappa
from ragsweep.data.samplegen.wordings import build_corpus
from ragsweep.errors import UserError
from ragsweep.labelling import sample_build
from ragsweep.labelling.dedup import near_duplicates
from ragsweep.labelling.dedup_key import near_key
from ragsweep.labelling.scrub import scrub

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragsweep" / "data" / "sample"
SLICES = ["limits", "exclusions", "procedures", "definitions", "identifiers"]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def _cid(row: dict) -> str:
    return f"{row['document']}/{row['section']}@{row['version']}"


@pytest.fixture(scope="module")
def ds() -> dict:
    """The committed sample, read straight from its files."""
    sections = {}  # clause id -> section with its document's product and part kind
    for f in sorted((SAMPLE / "corpus").glob("*.json")):
        doc = json.loads(f.read_text(encoding="utf-8"))
        for part in doc["parts"]:
            for c in part["clauses"]:
                key = f"{doc['document']}/{c['section']}@{doc['version']}"
                sections[key] = dict(c, kind=part["kind"], product=doc["product"])
    return {
        "meta": json.loads((SAMPLE / "dataset.json").read_text(encoding="utf-8")),
        "sections": sections,
        "questions": _jsonl(SAMPLE / "questions.jsonl"),
        "labels": _jsonl(SAMPLE / "labels.jsonl"),
        "log": _jsonl(SAMPLE / "query_log.jsonl"),
        "pool": _jsonl(SAMPLE / "review" / "pool.jsonl"),
        "reviewer2": _jsonl(SAMPLE / "review" / "reviewer2.jsonl"),
        "prelabels": _jsonl(SAMPLE / "review" / "prelabels.jsonl"),
    }


@pytest.fixture(scope="module")
def grades(ds: dict) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for label in ds["labels"]:
        out[label["qid"]][_cid(label)] = label["grade"]
    return out


# --- it is the build of seed 0 -------------------------------------------------------------------


@pytest.mark.slow
def test_the_committed_sample_is_the_build_of_seed_0(ds: dict, monkeypatch) -> None:
    """Every stage but the retrievers' rankings runs again (sampling the log with `labels
    sample`, labelling by construction, grading the pool, the review files): the pool is the
    committed record, whose BM25 and LSA parts the next test re-ranks."""
    monkeypatch.setattr(sample_build, "_minilm_available", lambda: True)
    monkeypatch.setattr(sample_build, "pool_candidates", lambda *a, **k: ds["pool"])
    fresh, committed = sample_build.build_files(0), _tree(SAMPLE)
    assert sorted(fresh) == sorted(committed)
    for path in fresh:
        assert fresh[path] == committed[path], path


@pytest.mark.slow
def test_bm25_and_lsa_pools_are_what_the_record_says_and_all_judged(
    ds: dict, grades: dict, tmp_path: Path
) -> None:
    systems = {k: v for k, v in sample_build.POOL_SYSTEMS.items() if not k.startswith("minilm")}
    files = _tree(SAMPLE)
    rows = sample_build.pool_candidates(files, tmp_path, systems, lambda _m: None)
    recorded = {(r["qid"], _cid(r)): set(r["systems"]) for r in ds["pool"]}
    again = {(r["qid"], _cid(r)): set(r["systems"]) for r in rows}
    assert len(again) > 10_000
    for pair, names in again.items():
        assert recorded[pair] & set(systems) == names, pair
    for qid, cid in recorded:
        assert cid in grades[qid]  # no pooled candidate is left unjudged


def test_manifest_is_sha256sum_of_every_other_file() -> None:
    lines = (SAMPLE / "MANIFEST.sha256").read_text(encoding="utf-8").splitlines()
    files = sorted(p for p in _tree(SAMPLE) if p != "MANIFEST.sha256")
    assert [line.split("  ", 1)[1] for line in lines] == files
    for line in lines:
        digest, path = line.split("  ", 1)
        assert digest == hashlib.sha256((SAMPLE / path).read_bytes()).hexdigest()


def test_text_files_are_utf8_with_unix_newlines() -> None:
    for path, data in _tree(SAMPLE).items():
        text = data.decode("utf-8")
        assert "\r" not in text and text.endswith("\n"), path


@pytest.mark.slow
def test_sources_are_deterministic_per_seed() -> None:
    a, b, c = build_corpus(3), build_corpus(3), build_corpus(4)
    assert a.documents == b.documents and a.documents != c.documents
    la, lb = build_query_log(a, 3), build_query_log(b, 3)
    assert la.entries == lb.entries and la.entries != build_query_log(c, 4).entries


# --- what `ragsweep data check` shows ------------------------------------------------------------


def test_data_check_statistics_show_what_the_issue_asks_for() -> None:
    stats = statistics(load_dataset(SAMPLE, pool=True))
    assert stats["questions_per_slice"] == dict.fromkeys(SLICES, 80)
    assert stats["questions_per_subset"] == {"core": 240, "rolling": 160}
    assert stats["multi_relevant_questions"] >= 300
    g2 = stats["grade2_per_question"]
    assert g2["0"] == 0 and g2["2"] + g2["3"] + g2["4+"] >= 150  # several answer many questions
    assert stats["version_change_questions"]["share"] >= 0.25
    assert stats["filtered_pool"]["min"] >= 250  # several hundred passages, not about 80
    assert stats["pool_judged"]["share"] == 1.0 and stats["pool_judged"]["candidates"] > 10_000
    assert stats["relevance_rule"] is not None


# --- labels ---------------------------------------------------------------------------------------


def test_relevant_passages_are_in_the_questions_product_and_version(ds: dict) -> None:
    questions = {q["qid"]: q for q in ds["questions"]}
    for label in ds["labels"]:
        if label["grade"] >= 1:
            q, section = questions[label["qid"]], ds["sections"][_cid(label)]
            assert (section["product"], label["version"]) == (q["product"], q["version"])


def test_identical_twins_in_the_wrong_version_are_judged_0(ds: dict, grades: dict) -> None:
    questions = {q["qid"]: q for q in ds["questions"]}
    twins = 0
    for qid, judged in grades.items():
        version = questions[qid]["version"]
        for cid, grade in judged.items():
            if grade >= 1:
                continue
            doc_section, ver = cid.rsplit("@", 1)
            right = f"{doc_section}@{version}"
            if ver != version and judged.get(right, 0) >= 1:
                same = ds["sections"][cid]["text"] == ds["sections"][right]["text"]
                twins += same
    assert twins >= 200  # pooled, judged, and graded 0 by the rule


def test_limits_questions_label_their_exceptions(ds: dict, grades: dict) -> None:
    """The first error the method warns about: a limit's exclusion left unlabelled."""
    limits = [q for q in ds["questions"] if q["slice"] == "limits"]
    with_exclusion = sum(
        any(
            ds["sections"][cid]["kind"] == "exclusions" and g >= 1
            for cid, g in grades[q["qid"]].items()
        )
        for q in limits
    )
    assert with_exclusion >= 30


def test_every_question_has_a_grade_2_and_derived_documents_answer_some(
    ds: dict, grades: dict
) -> None:
    derived = 0
    for q in ds["questions"]:
        twos = [cid for cid, g in grades[q["qid"]].items() if g == 2]
        assert twos, q["qid"]
        derived += any("-" in cid.split("/")[0] for cid in twos)
    assert derived >= 100  # an FAQ answer or a schedule row answering as well as the wording


# --- questions ------------------------------------------------------------------------------------


@pytest.mark.slow  # scrubs the whole log: about 30 s
def test_questions_are_scrubbed_log_entries_without_near_duplicates(ds: dict) -> None:
    scrubbed = {scrub(e["text"]).text for e in ds["log"]}
    keys = [near_key(q["text"], mark=True) for q in ds["questions"]]
    for q in ds["questions"]:
        assert q["text"] in scrubbed, q["qid"]
        assert not re.search(r"@[a-z0-9-]+\.|\b07700 ?900", q["text"]), q["qid"]
    assert near_duplicates(keys) == [None] * len(keys)


def test_questions_read_like_the_log_not_like_templates(ds: dict) -> None:
    texts = [q["text"] for q in ds["questions"]]
    wrappers = ("Quick question about my", "(bought in 2024)", "(renewed in 2025)", "For my ")
    assert not any(w in t for t in texts for w in wrappers)
    assert sum(t[:1].islower() for t in texts) >= 60  # typed casually
    assert sum(not t.rstrip().endswith("?") for t in texts) >= 60


def test_no_question_copies_eight_words_of_the_corpus(ds: dict) -> None:
    """Questions are the policyholders' words, not the wording's (nor an FAQ heading's)."""
    runs = copy_runs(build_corpus(0))
    assert [q["qid"] for q in ds["questions"] if shares_run(q["text"], runs)] == []


def test_core_and_rolling_dates_follow_the_log(ds: dict) -> None:
    for q in ds["questions"]:
        if q["subset"] == "core":
            assert q["added"] <= "2025-07-09", q["qid"]
        else:
            assert q["added"] >= "2025-07-02", q["qid"]
    assert [q["qid"] for q in ds["questions"]] == sorted(q["qid"] for q in ds["questions"])
    assert [q["added"] for q in ds["questions"]] == sorted(q["added"] for q in ds["questions"])


# --- review files ---------------------------------------------------------------------------------


def test_review_files_grade_exactly_the_judged_pairs(ds: dict, grades: dict) -> None:
    for name in ("reviewer2", "prelabels"):
        by_q: dict[str, set[str]] = defaultdict(set)
        for row in ds[name]:
            by_q[row["qid"]].add(_cid(row))
        assert len(by_q) == 50
        for qid, cids in by_q.items():
            assert cids == set(grades[qid]), (name, qid)


def test_review_disagreement_follows_content_and_kappa_matches(ds: dict, grades: dict) -> None:
    notes = ds["meta"]["notes"]["review"]
    for name in ("reviewer2", "prelabels"):
        first = [grades[r["qid"]][_cid(r)] for r in ds[name]]
        second = [r["grade"] for r in ds[name]]
        kappa = cohen_kappa_score(first, second)
        assert cohen_kappa(first, second) == pytest.approx(kappa, abs=1e-12)
        assert notes[name]["cohen_kappa"] == round(kappa, 4)
        assert 0.4 <= kappa <= 0.8
    by_grade = notes["reviewer2"]["by_first_grade"]
    # real reviewers disagree most on the grade-1 calls, least on clear rejects
    assert by_grade["1"]["share"] > 2 * by_grade["0"]["share"]
    kinds = notes["reviewer2"]["by_kind"]
    assert kinds["identical twin"]["share"] > 4 * kinds["changed twin"]["share"]
    # the pre-labeller ignores the version: twins get the right version's grade
    questions = {q["qid"]: q for q in ds["questions"]}
    copied = total = 0
    for r in ds["prelabels"]:
        doc_section, ver = _cid(r).rsplit("@", 1)
        right = f"{doc_section}@{questions[r['qid']]['version']}"
        if ver != questions[r["qid"]]["version"] and right in grades[r["qid"]]:
            total += 1
            copied += r["grade"] == grades[r["qid"]][right]
    assert total >= 100 and copied / total >= 0.85


# --- difficulty -----------------------------------------------------------------------------------


def test_retrieval_difficulty_is_neither_trivial_nor_hopeless_and_differs_by_slice() -> None:
    from ragsweep.data.samplegen.measure import measure

    table = measure(SAMPLE, ("bm25", "bm25-codes", "lsa"), ks=(5,))[5]
    assert 0.3 <= table["bm25"]["all"] <= 0.85
    diffs = [table["bm25"][s] - table["lsa"][s] for s in SLICES]
    assert max(diffs) - min(diffs) >= 0.05  # lexical and LSA retrieval rank differently by slice


# --- CLI and writing ------------------------------------------------------------------------------


def test_cli_writes_refuses_and_forces(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "sample"
    assert sample_cli.main(["--out", str(out), "--seed", "0"]) == 0
    line = capsys.readouterr().out
    assert line.count("\n") == 1
    assert str(out) in line and "30 documents" in line and "400 questions" in line
    assert _tree(out) == _tree(SAMPLE)
    with pytest.raises(UserError, match="--force"):
        sample_cli.main(["--out", str(out)])
    assert sample_cli.main(["--out", str(out), "--force"]) == 0


def test_cli_never_replaces_a_folder_that_is_not_a_dataset(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="no dataset.json"):
        sample_cli.main(["--out", str(tmp_path), "--force"])
    # a new seed takes minutes to build: the folder is refused before any of it
    monkeypatch.setattr(sample_build, "generate", lambda *a, **k: pytest.fail("built anyway"))
    with pytest.raises(UserError, match="no dataset.json, so --force will not replace it"):
        sample_cli.main(["--out", str(tmp_path), "--force", "--seed", "3"])
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
    sample_cli.main(["--out", str(out)])
    (out / "MANIFEST.sha256").write_bytes(b"")  # an older dataset, different bytes
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
        sample_cli.main(["--out", str(out), "--force"])
    assert _tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sample"]
