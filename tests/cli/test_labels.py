"""`ragsweep labels sample | agreement | audit` on the built-in sample, as the README runs them:
what they print and write, checked against the library and scikit-learn, and no raw log text
anywhere in their output."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
import yaml
from sklearn.metrics import cohen_kappa_score

from conftest import cli_in
from ragsweep.data.load import sample_path
from ragsweep.labelling.scrub import scrub

SAMPLE = sample_path()
KEY = ["qid", "document", "section", "version"]


def raw_log_texts_with_personal_data() -> list[str]:
    """The log texts the scrubber changes: none may appear in any output."""
    texts = [json.loads(line)["text"] for line in (SAMPLE / "query_log.jsonl").open()]
    return [t for t in texts if scrub(t).text != t]


@pytest.fixture(scope="module")
def sampled(tmp_path_factory):
    folder = tmp_path_factory.mktemp("labels-sample")
    ran = cli_in(folder, "labels", "sample", "--target", "60").ok()
    return folder, ran


@pytest.mark.slow  # the sample's whole log through the scrubber (about 25 s)
def test_sample_writes_a_stratified_scrubbed_sample_and_the_traffic_shares(sampled):
    folder, ran = sampled
    rows = [json.loads(line) for line in (folder / "sampled_questions.jsonl").open()]
    by_slice = pd.Series([r["slice"] for r in rows]).value_counts().to_dict()
    assert by_slice == {
        s: 60 for s in ("limits", "exclusions", "procedures", "definitions", "identifiers")
    }
    assert len({r["id"] for r in rows}) == len(rows)
    known = set(pd.read_json(SAMPLE / "questions.jsonl", lines=True)["text"].str.lower())
    assert not any(r["text"].lower() in known for r in rows), "a labelled question was re-drawn"
    weights = {
        k: float(v)
        for k, v in (
            line.split(":")
            for line in (folder / "traffic_weights.yaml").read_text().splitlines()
            if line and not line.startswith("#")
        )
    }
    assert sum(weights.values()) == pytest.approx(1.0, abs=1e-12)
    scrubbed = next(
        line for line in ran.out.splitlines() if line.startswith("personal data scrubbed")
    )
    for kind in ("NAME", "EMAIL", "PHONE", "POLICY_REF", "VEHICLE_REG", "POSTCODE"):
        assert f"{kind} " in scrubbed, kind


@pytest.mark.slow  # the sample's whole log through the scrubber (about 25 s)
def test_sample_writes_the_duplicate_clusters_beside_the_sample_and_names_the_file(sampled):
    folder, ran = sampled
    path = folder / "sampled_questions.clusters.jsonl"
    assert "duplicate clusters in sampled_questions.clusters.jsonl: " in ran.out
    clusters = [json.loads(line) for line in path.read_text().splitlines()]
    counts = dict(re.findall(r"(exact duplicates|near-duplicates) removed +(\d+)", ran.out))
    assert sum(c["exact"] for c in clusters) == int(counts["exact duplicates"])
    assert sum(c["near"] for c in clusters) == int(counts["near-duplicates"])
    drawn = {json.loads(line)["text"] for line in (folder / "sampled_questions.jsonl").open()}
    assert {c["kept"] for c in clusters if c["fate"] == "sampled"} <= drawn


@pytest.mark.slow  # the sample's whole log through the scrubber (about 25 s)
def test_write_rules_gives_a_copy_to_edit_and_sample_reads_it(workdir):
    ran = cli_in(workdir, "labels", "sample", "--write-rules", "acme.yaml").ok()
    assert "wrote the built-in slice rules to acme.yaml" in ran.out
    rules = workdir / "acme.yaml"
    doc = yaml.safe_load(rules.read_text())
    assert [s["name"] for s in doc["slices"]][0] == "identifiers"
    doc["slices"][0]["patterns"] = [r"\bACME-\d{6}\b"]  # another insurer's ids only
    rules.write_text(yaml.safe_dump(doc))
    ran = cli_in(workdir, "labels", "sample", "--rules", "acme.yaml", "--target", "5").ok()
    assert "slices by the rules in acme.yaml" in ran.out
    assert "identifiers: 0 questions: no entry matched its rules in acme.yaml; copy the rules" in (
        ran.out
    )
    again = cli_in(workdir, "labels", "sample", "--write-rules", "acme.yaml")
    assert again.code == 2 and "acme.yaml: already exists" in again.err


@pytest.mark.slow  # the sample's whole log through the scrubber (about 25 s)
def test_no_raw_log_text_with_personal_data_reaches_any_output(sampled):
    folder, ran = sampled
    raw = raw_log_texts_with_personal_data()
    assert len(raw) > 500, "the sample log should hold personal data to scrub"
    written = (folder / "sampled_questions.jsonl").read_text() + ran.out + ran.err
    written += (folder / "sampled_questions.clusters.jsonl").read_text()
    assert [t for t in raw if t in written] == []
    assert not re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", written), "an email address got through"
    assert "<PHONE>" in written or "<EMAIL>" in written or "<NAME>" in written


def _labels(name: str) -> pd.DataFrame:
    return pd.read_json(SAMPLE / name, lines=True, dtype={"version": str, "section": str})


def test_agreement_prints_the_kappas_scikit_learn_computes():
    a, b = _labels("review/reviewer2.jsonl"), _labels("review/prelabels.jsonl")
    both = a.merge(b, on=KEY, suffixes=("_a", "_b"))
    expected = {
        "plain": cohen_kappa_score(both["grade_a"], both["grade_b"], labels=[0, 1, 2]),
        "quadratic": cohen_kappa_score(
            both["grade_a"], both["grade_b"], labels=[0, 1, 2], weights="quadratic"
        ),
    }
    ran = cli_in(SAMPLE, "labels", "agreement", "review/reviewer2.jsonl", "review/prelabels.jsonl")
    ran.ok()
    (all_row,) = [line.split() for line in ran.out.splitlines() if line.startswith("all ")]
    n, kappa, kappa_q = int(all_row[1]), float(all_row[6]), float(all_row[9])
    assert n == len(both)
    assert kappa == pytest.approx(expected["plain"], abs=5e-4)
    assert kappa_q == pytest.approx(expected["quadratic"], abs=5e-4)


def test_audit_counts_over_and_under_calls_on_the_reviewed_questions():
    model, human = _labels("review/prelabels.jsonl"), _labels("labels.jsonl")
    human = human[human["qid"].isin(set(model["qid"]))]
    both = model.merge(human, on=KEY, suffixes=("_m", "_h"))
    over = int((both["grade_m"] > both["grade_h"]).sum())
    under = int((both["grade_m"] < both["grade_h"]).sum())
    ran = cli_in(SAMPLE, "labels", "audit", "review/prelabels.jsonl", "labels.jsonl").ok()
    (all_row,) = [line.split() for line in ran.out.splitlines() if line.startswith("all ")]
    assert [int(all_row[1]), int(all_row[2]), int(all_row[4]), int(all_row[5])] == [
        len(both),
        over + under,
        over,
        under,
    ]


def test_a_missing_label_file_is_one_line_exit_2(workdir):
    ran = cli_in(workdir, "labels", "agreement", "nope.jsonl", "labels.jsonl")
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert "nope.jsonl" in line and "give its path" in line


@pytest.fixture(scope="module")
def sheet(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pool")
    ran = cli_in(folder, "labels", "pool", "--questions", "q0001,q0011,q0139", "--depth", "10")
    ran.ok()
    return folder / "judging_sheet.csv", ran


def read_sheet(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")


def test_pool_writes_a_sheet_with_every_systems_top_clauses_and_the_existing_grades(sheet):
    path, ran = sheet
    rows = read_sheet(path)
    assert sorted(set(rows["qid"])) == ["q0001", "q0011", "q0139"]
    # three systems, depth 10: each system's hits are its top-10 passages, and a passage of
    # short sections (FAQ entries, schedule rows) covers several clauses at the same rank
    for qid, group in rows.groupby("qid"):
        hits = {h for cell in group["systems"] for h in cell.replace(";", " ").split()}
        ranks = {(h.split("@")[0], int(h.split("@")[1])) for h in hits}
        assert len({name for name, _ in ranks}) == 3 and max(r for _, r in ranks) <= 10
        assert len(ranks) <= 3 * 10, qid
    assert not rows.duplicated(["qid", "document", "section", "clause_version"]).any()
    labels = _labels("labels.jsonl").astype({"grade": str})
    merged = rows.merge(
        labels.rename(columns={"version": "clause_version"}),
        on=["qid", "document", "section", "clause_version"],
        how="left",
    )
    assert (merged["existing_grade"] == merged["grade_y"].fillna("")).all()
    assert rows["grade"].eq("").all() and rows["prelabel"].eq("").all()
    assert f"{len(rows)} (question, clause) rows" in ran.out


def test_prelabel_fills_only_the_prelabel_columns_offline(sheet, tmp_path):
    path, _ = sheet
    out = tmp_path / "pre.csv"
    cli_in(tmp_path, "labels", "prelabel", str(path), "--out", str(out)).ok()
    before, after = read_sheet(path), read_sheet(out)
    same = [c for c in before.columns if not c.startswith("prelabel")]
    assert after[same].equals(before[same])
    assert set(after["prelabel"]) <= {"0", "1", "2"} and len(set(after["prelabel"])) > 1
    assert after["prelabel_source"].str.contains("lsa-similarity").all()


def test_prelabel_with_a_chat_model_on_a_local_server_never_shows_the_key(
    sheet, tmp_path, monkeypatch
):
    from labelling.chat_server import ChatServer

    path, _ = sheet
    monkeypatch.setenv("RAGSWEEP_TEST_KEY", "sk-chat-test-9f8e7d")
    with ChatServer() as server:
        args = ["--chat-url", server.url, "--chat-model", "judge-1"]
        args += ["--api-key-env", "RAGSWEEP_TEST_KEY", "--out", str(tmp_path / "chat.csv")]
        args += ["--price-in", "0.15", "--price-out", "0.6"]
        ran = cli_in(tmp_path, "labels", "prelabel", str(path), *args).ok()
        asked = len(server.requests)
    # what the run cost, from the endpoint's usage fields, in tokens and dollars
    (cost,) = [line for line in ran.out.splitlines() if line.startswith("cost: ")]
    assert f"{asked} asked)" in cost and "tokens per 1,000 pairs" in cost
    assert "at $0.15 / $0.6 per million tokens: $" in cost and "spent now" in cost
    bad = cli_in(tmp_path, "labels", "prelabel", str(path), *args[:-1], "-1")
    assert bad.code == 2 and "dollars per million tokens" in bad.err
    assert len(bad.err.strip().splitlines()) == 1
    after = read_sheet(tmp_path / "chat.csv")
    assert set(after["prelabel"]) == {"0"}  # no marker word in the sample's clauses: UMBRELA 0
    assert after["prelabel_source"].str.startswith("model judge-1@127.0.0.1").all()
    everything = ran.out + ran.err + (tmp_path / "chat.csv").read_text(encoding="utf-8-sig")
    everything += "".join(p.read_text() for p in (tmp_path / ".ragsweep_cache").rglob("*.json"))
    assert "sk-chat-test-9f8e7d" not in everything


@pytest.fixture
def dataset_copy(tmp_path):
    import shutil

    root = tmp_path / "ds"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
    return root


def folder_bytes(root) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_import_of_a_reviewers_file_keeps_the_labels_and_sends_disputes_to_adjudication(
    dataset_copy, tmp_path
):
    """The sample's labels predate the changelog: reviewer2's differing grades are disputes
    (labels kept, each grade logged, listed in adjudicate.csv); its agreeing ones confirmations.
    A 1 or 2 on a clause of another version or product than the question asks about counts as
    0 (the relevance rule; the sample's second reviewer breaks it 107 times). The adjudication
    sheet imported with --adjudicated sets the final grades, and the folder still loads."""
    review = _labels("review/reviewer2.jsonl")
    questions = pd.read_json(SAMPLE / "questions.jsonl", lines=True, dtype=str)
    review = review.merge(questions[["qid", "product"]], on="qid")
    product_of = {
        tuple(p.stem.split("@")): json.loads(p.read_text())["product"]
        for p in (SAMPLE / "corpus").glob("*.json")
    }
    doc_product = [
        product_of[(d, v)] for d, v in zip(review["document"], review["version"], strict=True)
    ]
    asked = review.merge(questions[["qid", "version"]], on="qid", suffixes=("", "_q"))
    off = (asked["version"] != asked["version_q"]) | (review["product"] != doc_product)
    broken = int((off & (review["grade"] >= 1)).sum())
    assert broken == 107
    review["grade"] = review["grade"].where(~off, 0)
    review = review[KEY + ["grade"]]
    gold = _labels("labels.jsonl")
    both = review.merge(gold, on=KEY, suffixes=("_r", "_g"))
    differ = int((both["grade_r"] != both["grade_g"]).sum())
    labels_before = (dataset_copy / "labels.jsonl").read_bytes()
    args = ("--data", str(dataset_copy))
    ran = cli_in(
        dataset_copy, "labels", "import", "review/reviewer2.jsonl", *args, "--judge", "reviewer2",
        "--adjudicate", str(tmp_path / "adjudicate.csv"),
    ).ok()  # fmt: skip
    assert f"0 added, 0 changed, {len(both)} unchanged" in ran.out
    assert f"\n{broken} grade(s) of 1 or 2 on a clause of another version or product" in ran.out
    assert f"{len(both) - differ} confirmed, {differ} disputed" in ran.out
    assert (dataset_copy / "labels.jsonl").read_bytes() == labels_before
    log = [json.loads(line) for line in (dataset_copy / "history/labels_changelog.jsonl").open()]
    assert len(log) == len(both) and {r["who"] for r in log} == {"reviewer2"}
    assert sum(r["kind"] == "dispute" for r in log) == differ
    adj = pd.read_csv(
        tmp_path / "adjudicate.csv", dtype=str, keep_default_na=False, encoding="utf-8-sig"
    )
    assert len(adj) == differ
    adj["grade"] = adj["other_grade"]  # the third judge sides with reviewer2
    adj.to_csv(tmp_path / "adjudicate.csv", index=False, encoding="utf-8-sig")
    ran = cli_in(
        tmp_path, "labels", "import", "adjudicate.csv", *args, "--adjudicated", "--judge", "cy"
    ).ok()
    assert f"0 added, {differ} changed, 0 unchanged" in ran.out
    after = pd.read_json(
        dataset_copy / "labels.jsonl", lines=True, dtype={"version": str, "section": str}
    )
    merged = review.merge(after, on=KEY, suffixes=("_r", "_a"))
    assert (merged["grade_r"] == merged["grade_a"]).all()
    assert cli_in(dataset_copy, "data", "check", str(dataset_copy)).code == 0


def test_a_refused_import_leaves_the_dataset_byte_identical(dataset_copy, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "qid,document,section,clause_version,grade,judge\n"
        "q0001,home,4.4,2024,2,ann\n"
        "q0002,home,99.9,2024,1,ann\n"
    )
    before = folder_bytes(dataset_copy)
    ran = cli_in(dataset_copy, "labels", "import", str(bad), "--data", str(dataset_copy))
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert "bad.csv:3" in line and "99.9" in line
    assert folder_bytes(dataset_copy) == before


@pytest.mark.slow  # add-failure loads the scrubber's model: about 11 s
def test_freeze_and_add_failure_grow_the_core(dataset_copy):
    ran = cli_in(dataset_copy, "labels", "freeze", "--all-rolling", "--data", str(dataset_copy))
    ran.ok()
    questions = pd.read_json(dataset_copy / "questions.jsonl", lines=True)
    assert set(questions["subset"]) == {"core"}
    ran = cli_in(
        dataset_copy,
        "labels",
        "add-failure",
        "--data",
        str(dataset_copy),
        "--text",
        "Is my excess still 350 after the renewal?",
        "--slice",
        "limits",
        "--product",
        "home",
        "--version",
        "2025",
        "--clause",
        "home/4.4=2",
    ).ok()
    after = pd.read_json(dataset_copy / "questions.jsonl", lines=True)
    (new,) = after[~after["qid"].isin(questions["qid"])].itertuples()
    assert (new.subset, new.slice, str(new.version)) == ("core", "limits", "2025")
    assert f"core question {new.qid}" in ran.out


def test_verbs_that_change_a_dataset_refuse_the_built_in_sample(workdir):
    ran = cli_in(workdir, "labels", "freeze", "--all-rolling")
    assert ran.code == 2 and "--data DIR" in ran.err


@pytest.mark.slow
def test_sampled_questions_are_pooled_judged_and_join_the_set_as_rolling(dataset_copy, tmp_path):
    data = str(dataset_copy)
    cli_in(tmp_path, "labels", "sample", "--data", data, "--target", "2").ok()
    cli_in(
        tmp_path,
        "labels",
        "pool",
        "--data",
        data,
        "--candidates",
        "sampled_questions.jsonl",
        "--depth",
        "3",
        "--limit",
        "1",
    ).ok()
    cli_in(tmp_path, "labels", "prelabel", "judging_sheet.csv", "--data", data).ok()
    sheet = read_sheet(tmp_path / "judging_sheet.csv")
    assert set(sheet["prelabel"]) <= {"0", "1", "2"} and sheet["prelabel"].ne("").all()
    qids = sorted(set(sheet["qid"]))
    assert len(qids) == 5  # one per slice
    assert sheet["existing_grade"].eq("").all()  # nobody has judged these questions yet
    # the judge: the first pooled clause answers each question but the last; it has no answer
    sheet["grade"], sheet["judge"] = "0", "ann"
    answered = [q for q in qids if q != qids[-1]]
    sheet.loc[sheet[sheet["qid"].isin(answered)].groupby("qid").head(1).index, "grade"] = "2"
    sheet.to_csv(tmp_path / "judged.csv", index=False, encoding="utf-8-sig")
    ran = cli_in(
        tmp_path,
        "labels",
        "import",
        "judged.csv",
        "--data",
        data,
        "--candidates",
        "sampled_questions.jsonl",
    ).ok()
    assert "4 sampled question(s) joined the set as rolling questions; 1 graded" in ran.out
    questions = pd.read_json(dataset_copy / "questions.jsonl", lines=True)
    new = questions[questions["qid"].isin(qids)]
    assert sorted(new["qid"]) == answered and set(new["subset"]) == {"rolling"}
    labels = pd.read_json(dataset_copy / "labels.jsonl", lines=True)
    assert labels[labels["qid"].isin(answered)].groupby("qid")["grade"].max().eq(2).all()
    assert cli_in(tmp_path, "data", "check", data).code == 0


# -- bad log input ----------------------------------------------------------------------------
SECRET = "Jane Doe 07700900123 jane@example.com"


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("log.txt", SECRET.encode(), r"log\.txt: unknown log format '\.txt'"),
        ("log.jsonl", f"text,ts\n{SECRET},2025-01-01\n".encode(), r"log\.jsonl:1: not valid JSON"),
        ("log.csv", f"{SECRET},2025-01-01\n".encode(),
         r"log\.csv:1: no column 'text' \(2 cells that are not column names: is the first line"),
        ("log.jsonl", (json.dumps({"body": SECRET, "ts": "2025-01-01"}) + "\n").encode(),
         r"log\.jsonl:1: field 'text': missing"),
        ("log.csv", f"body,ts\n{SECRET},2025-01-01\n".encode(),
         r"log\.csv:1: no column 'text' \(columns: body, ts\)"),
        ("log.jsonl", b"", r"log\.jsonl: field 'text': no entries, the log is empty"),
        ("log.jsonl", b"\n  \n", r"log\.jsonl: field 'text': no entries, the log is empty"),
        ("log.csv", b"text,ts\n", r"log\.csv: field 'text': no entries, the log is empty"),
        ("log.jsonl", b'{"text": "ok", "ts": "2025-01-01"}\n{"text": "' + SECRET.encode()
         + b' \xff\xfe", "ts": "2025-01-01"}\n', r"log\.jsonl:2: not UTF-8 text"),
    ],
    ids=["txt", "csv-in-jsonl", "csv-no-header", "jsonl-no-text", "csv-no-text", "empty",
         "blank-lines", "csv-header-only", "not-utf8"],
)  # fmt: skip
def test_bad_log_is_one_line_exit_2_with_no_output_and_no_log_text(
    tmp_path, name, content, expected
):
    (tmp_path / name).write_bytes(content)
    ran = cli_in(tmp_path, "labels", "sample", name)
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert re.search(expected, line), line
    assert sorted(p.name for p in tmp_path.iterdir()) == [name], "an output file was left"
    for part in SECRET.split():
        assert part not in ran.out + ran.err, part


def test_pool_says_how_many_clauses_a_row_of_the_same_text_stands_for(workdir):
    from toy import TINY

    (workdir / "run.txt").write_text(
        "q06 Q0 motor/4.1@2024 1 9.0 prod\nq06 Q0 motor/4.1@2025 2 8.0 prod\n"
        "q06 Q0 motor/2.1@2025 3 7.0 prod\n"
    )
    ran = cli_in(
        workdir, "labels", "pool", "--data", str(TINY), "--run", "prod=run.txt",
        "--questions", "q06", "--depth", "3", "--out", "s.csv",
    ).ok()  # fmt: skip
    assert "1 questions, 2 (question, clause) rows" in ran.out
    assert "1 more clause(s) had the very text of a row's clause for the same question" in ran.out
    sheet = pd.read_csv(workdir / "s.csv", dtype=str, keep_default_na=False, encoding="utf-8-sig")
    assert list(sheet["same_text_clauses"]) == ["motor/4.1@2024", ""]
