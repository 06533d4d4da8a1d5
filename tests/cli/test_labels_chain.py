"""The labelled-set loop's verbs chain on a copy of the sample: `add-failure` and
`import --candidates` in any order, every text scrubbed as it joins, `data manifest` after a
corpus edit, and every labels verb refusing a malformed argument on one line (exit 2) with the
dataset byte-identical."""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from conftest import cli_in
from ragsweep.cli.labels import main
from ragsweep.data.load import sample_path
from ragsweep.experiment.tracking import DEFAULT_DIR, resolve_store
from ragsweep.labelling.sampling import question_id

SAMPLE = sample_path()


@pytest.fixture
def dataset_copy(tmp_path: Path) -> Path:
    root = tmp_path / "ds"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
    return root


def folder_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def questions(root: Path) -> pd.DataFrame:
    return pd.read_json(root / "questions.jsonl", lines=True, dtype={"qid": str})


# -- add-failure and import --candidates, in every order --------------------------------------
CANDIDATE_TEXTS = {
    "c1": "is the excess on my home claim still 350 after the renewal",
    "c2": "does my home policy pay for a hotel if the house floods",
}


def _candidates(folder: Path, name: str) -> tuple[str, Path, Path]:
    """A sampled candidate question (as `labels sample` writes it) and a sheet grading it."""
    text = CANDIDATE_TEXTS[name]
    qid = question_id(text)
    sampled = folder / f"{name}.jsonl"
    sampled.write_text(json.dumps({"id": qid, "text": text, "slice": "limits"}) + "\n")
    sheet = folder / f"{name}.csv"
    sheet.write_text(
        f"qid,document,section,clause_version,grade,judge\n{qid},home,4.4,2025,2,ann\n"
    )
    return qid, sampled, sheet


def _add_failure(data: Path, text: str) -> Any:
    """`labels add-failure` of `text` as a limits question answered by home/4.4 (2025)."""
    return cli_in(
        data.parent,
        "labels",
        "add-failure",
        "--data",
        str(data),
        "--text",
        text,
        "--slice",
        "limits",
        "--product",
        "home",
        "--version",
        "2025",
        "--clause",
        "home/4.4=2",
    ).ok()


def _failure(data: Path, text: str) -> str:
    """The qid `labels add-failure` gave `text`."""
    return _add_failure(data, text).out.split("core question ")[1].split()[0]


#: every place two failures can take among two candidate imports (c1 before c2: the two
#: candidates are alike, so swapping them tests nothing new); each takes several seconds
ORDERS = [
    pytest.param(o, id="-".join(o), marks=pytest.mark.slow)
    for o in sorted(set(itertools.permutations(("failure", "failure", "c1", "c2"))))
    if o.index("c1") < o.index("c2")
]


@pytest.mark.parametrize("order", ORDERS)
def test_add_failure_and_candidates_chain_in_any_order(dataset_copy: Path, order) -> None:
    data = dataset_copy
    before = list(questions(data)["qid"])
    numbered = [int(q[1:]) for q in before if q.startswith("q")]
    failures, joined = [], []
    for step in order:
        if step == "failure":
            failures.append(_failure(data, f"excess question number {len(failures) + 1}"))
            continue
        qid, sampled, sheet = _candidates(data.parent, step)
        ran = cli_in(
            data.parent,
            "labels",
            "import",
            str(sheet),
            "--data",
            str(data),
            "--candidates",
            str(sampled),
        ).ok()
        assert "1 sampled question(s) joined the set as rolling questions" in ran.out
        joined.append(qid)
    # the failures continue the set's numbering, whatever joined in between
    top = max(numbered)
    assert failures == [f"q{top + 1:04d}", f"q{top + 2:04d}"]
    after = questions(data)
    assert list(after["qid"]) == [*before, *[q for q in order_of(order, failures, joined)]]
    assert after["qid"].is_unique
    subset = after.set_index("qid")["subset"]
    assert [subset[q] for q in failures] == ["core", "core"]
    assert [subset[q] for q in joined] == ["rolling", "rolling"]
    assert cli_in(data.parent, "data", "check", str(data)).code == 0


def order_of(order, failures: list[str], joined: list[str]) -> list[str]:
    """The qids in the order the steps added them."""
    f, c = iter(failures), iter(joined)
    return [next(f) if step == "failure" else next(c) for step in order]


def test_a_candidate_text_is_scrubbed_as_it_joins(dataset_copy: Path, tmp_path: Path) -> None:
    """The candidates file's text is scrubbed as it joins; a judge's note on its way to the
    changelog too; the sheet's question column, which a judge may edit, is never read."""
    text = "hi, Mr Peter Smith here, does my home policy cover a burst pipe? 07700 900456"
    qid = question_id(text)
    sampled = tmp_path / "hand.jsonl"
    sampled.write_text(json.dumps({"id": qid, "text": text, "slice": "limits"}) + "\n")
    sheet = tmp_path / "hand.csv"
    edited = "does my home policy cover a burst pipe? mail me at peter.smith@example.com"
    note = "customer rang from 07700 900789"
    sheet.write_text(
        "qid,question,document,section,clause_version,grade,judge,note\n"
        f"{qid},{edited},home,4.4,2025,2,a,{note}\n"
    )
    ran = cli_in(
        tmp_path,
        "labels",
        "import",
        str(sheet),
        "--data",
        str(dataset_copy),
        "--candidates",
        str(sampled),
    ).ok()
    stored = questions(dataset_copy).set_index("qid").loc[qid, "text"]
    assert stored == "hi, Mr <NAME> here, does my home policy cover a burst pipe? <PHONE>"
    assert "personal data scrubbed from the joining texts and the notes: PHONE 2, NAME 1" in ran.out
    written = b"".join(p.read_bytes() for p in dataset_copy.rglob("*") if p.is_file())
    for value in ("Peter", "peter.smith@example.com", "07700 900456", "07700 900789"):
        assert value.encode() not in written and value not in ran.out + ran.err, value
        assert value.replace(" ", "").encode() not in written, value
    log = [json.loads(line) for line in (dataset_copy / "history/labels_changelog.jsonl").open()]
    assert [r["note"] for r in log if r.get("note")] == ["customer rang from <PHONE>"]


def test_add_failure_prints_what_the_scrubber_replaced(dataset_copy: Path) -> None:
    raw = "My name is Sarah Jones, policy number 12345678, is my excess 350? Call 07700 900123"
    ran = _add_failure(dataset_copy, raw)
    assert ran.out.strip() == (
        "added the production failure as core question q0401 with 1 label(s); personal data "
        "scrubbed from its text: NAME 1, PHONE 1, POLICY_REF 1"
    )
    stored = questions(dataset_copy).set_index("qid").loc["q0401", "text"]
    assert stored == (
        "My name is <NAME>, policy number <POLICY_REF>, is my excess 350? Call <PHONE>"
    )
    written = b"".join(p.read_bytes() for p in dataset_copy.rglob("*") if p.is_file())
    for value in ("Sarah Jones", "12345678", "07700 900123", "07700900123"):
        assert value.encode() not in written and value not in ran.out + ran.err, value


def test_scrub_rules_copy_is_used_by_add_failure(dataset_copy: Path) -> None:
    """`labels scrub-rules` writes the dataset's own copy (manifest refreshed); a shape added
    to it is scrubbed by every command on the folder; a broken copy is named in one line."""
    data = str(dataset_copy)
    ran = cli_in(dataset_copy.parent, "labels", "scrub-rules", "--data", data).ok()
    assert ran.out.startswith(f"wrote {dataset_copy / 'scrub.yaml'}: a copy")
    assert f"(keep), then run `ragsweep data manifest {data}`;" in ran.out
    checked = cli_in(dataset_copy.parent, "data", "check", data).ok()
    assert f"scrub_rules               {dataset_copy / 'scrub.yaml'}" in checked.out
    rules = dataset_copy / "scrub.yaml"
    rules.write_text(rules.read_text().replace("claim_ref:", "  - '\\bHX\\d{6}\\b'\nclaim_ref:"))
    cli_in(dataset_copy.parent, "data", "manifest", data).ok()
    args = ["--text", "renewal of HX998877, is my excess 350?", "--slice", "limits"]
    args += ["--product", "home", "--version", "2025", "--clause", "home/4.4=2"]
    cli_in(dataset_copy.parent, "labels", "add-failure", "--data", data, *args).ok()
    stored = questions(dataset_copy).set_index("qid").loc["q0401", "text"]
    assert stored == "renewal of <POLICY_REF>, is my excess 350?"
    rules.write_text("keep: ['(']")
    cli_in(dataset_copy.parent, "data", "manifest", data).ok()
    bad = cli_in(dataset_copy.parent, "labels", "scrub-rules", "--data", data)
    assert bad.code == 2
    assert cli_in(dataset_copy.parent, "data", "check", data).err == bad.err.replace(
        "ragsweep labels:", "ragsweep data:"
    )
    assert bad.err.strip().endswith(
        f"{rules}: field 'keep[0]': invalid regex (missing ), unterminated subpattern at "
        "position 0); fix it"
    )


# -- the manifest after a corpus edit ---------------------------------------------------------
@pytest.mark.slow
def test_data_manifest_blesses_a_corpus_edit_and_check_apply_then_works(
    dataset_copy: Path,
) -> None:
    data = str(dataset_copy)
    # the reissued wording renumbers section 4.4 to 4.40, text unchanged
    wording = dataset_copy / "corpus" / "home@2025.json"
    doc = json.loads(wording.read_text())
    for part in doc["parts"]:
        for clause in part["clauses"]:
            if clause["section"] == "4.4":
                clause["section"] = "4.40"
    wording.write_text(json.dumps(doc, ensure_ascii=False, indent=1))
    labels = pd.read_json(dataset_copy / "labels.jsonl", lines=True, dtype=str)
    on_it = labels[(labels["document"] == "home") & (labels["section"] == "4.4")]
    moved = int((on_it["version"] == "2025").sum())
    assert moved > 0
    assert cli_in(dataset_copy.parent, "data", "check", data).code == 2
    dry = cli_in(dataset_copy.parent, "labels", "check", "--data", data).ok()
    assert dry.out.count("moves to section 4.40") == moved
    # check --apply meets the stale manifest and names the command that writes it again
    before = folder_hash(dataset_copy)
    apply = cli_in(dataset_copy.parent, "labels", "check", "--data", data, "--apply")
    assert apply.code == 2
    (line,) = apply.err.strip().splitlines()
    assert "home@2025.json does not match" in line
    assert line.endswith(f"run `ragsweep data manifest {data}`")
    assert folder_hash(dataset_copy) == before
    wrote = cli_in(dataset_copy.parent, "data", "manifest", data).ok()
    files = sum(1 for p in dataset_copy.rglob("*") if p.is_file()) - 1
    assert wrote.out.strip() == (
        f"wrote {dataset_copy / 'MANIFEST.sha256'}: {files} files with their sha256"
    )
    again = cli_in(dataset_copy.parent, "data", "manifest", data).ok()
    assert "nothing written" in again.out
    applied = cli_in(dataset_copy.parent, "labels", "check", "--data", data, "--apply").ok()
    assert f"applied: {moved} change(s)" in applied.out
    after = pd.read_json(dataset_copy / "labels.jsonl", lines=True, dtype=str)
    assert int(((after["section"] == "4.40") & (after["version"] == "2025")).sum()) == moved
    assert cli_in(dataset_copy.parent, "data", "check", data).code == 0


def test_data_manifest_refuses_a_folder_that_is_not_a_dataset(tmp_path: Path) -> None:
    ran = cli_in(tmp_path, "data", "manifest", str(tmp_path))
    assert ran.code == 2 and "dataset.json" in ran.err
    assert not (tmp_path / "MANIFEST.sha256").exists()


# -- freeze says why --------------------------------------------------------------------------
def test_freeze_says_why_nothing_was_frozen(dataset_copy: Path) -> None:
    data = str(dataset_copy)
    q = questions(dataset_copy)
    core = q[q["subset"] == "core"]["qid"].iloc[0]
    rolling = q[q["subset"] == "rolling"]["qid"].iloc[0]
    before = folder_hash(dataset_copy)
    ran = cli_in(dataset_copy.parent, "labels", "freeze", core, "--data", data).ok()
    assert ran.out.splitlines() == [
        f"{core} is already in the core",
        "nothing to freeze: every question named is in the core already",
    ]
    assert folder_hash(dataset_copy) == before
    ran = cli_in(dataset_copy.parent, "labels", "freeze", core, rolling, "--data", data).ok()
    assert ran.out.splitlines() == [
        f"{core} is already in the core",
        f"froze 1 question(s) into the core set: {rolling}",
    ]
    cli_in(dataset_copy.parent, "labels", "freeze", "--all-rolling", "--data", data).ok()
    ran = cli_in(dataset_copy.parent, "labels", "freeze", "--all-rolling", "--data", data).ok()
    assert ran.out.strip() == "nothing to freeze: the set has no rolling question"


def test_rebaseline_help_names_the_store_a_sweep_logs_to(workdir: Path) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["rebaseline", "--help"])
    text = " ".join(out.getvalue().split())
    default = resolve_store(None, workdir).uri.replace(str(workdir.resolve()), "<cwd>")
    assert default == f"sqlite:///<cwd>/{DEFAULT_DIR}/mlflow.db"
    assert f"else {default}" in text and "$MLFLOW_TRACKING_URI" in text


# -- every labels verb on malformed arguments -------------------------------------------------
MALFORMED = {
    "sample --target 0": ["sample", "--target", "0"],
    "sample --target -3": ["sample", "--target", "-3"],
    "sample --target x": ["sample", "--target", "x"],
    "sample --seed -1": ["sample", "--seed", "-1"],
    "sample --since": ["sample", "--since", "last tuesday"],
    "pool --depth 0": ["pool", "--depth", "0"],
    "pool --limit -1": ["pool", "--limit", "-1"],
    "pool --system": ["pool", "--system", "bm25"],
    "prelabel --concurrency 0": ["prelabel", "sheet.csv", "--concurrency", "0"],
    "prelabel missing sheet": ["prelabel", "no-such-sheet.csv"],
    "import --limit -2": ["import", "sheet.csv", "--limit", "-2"],
    "import missing sheet": ["import", "no-such-sheet.csv", "--judge", "ann"],
    "add-failure --clause": [
        *("add-failure", "--text", "q?", "--slice", "limits", "--product", "home"),
        *("--version", "2025", "--clause", "home-4.4"),
    ],
    "add-failure --slice": [
        *("add-failure", "--text", "q?", "--slice", "limit", "--product", "home"),
        *("--version", "2025", "--clause", "home/4.4=2"),
    ],
    "add-failure no --text": [
        *("add-failure", "--slice", "limits", "--product", "home", "--version", "2025"),
        *("--clause", "home/4.4=2"),
    ],
    "check --unknown": ["check", "--aply"],
    "freeze unknown qid": ["freeze", "q9999"],
    "freeze both": ["freeze", "q0001", "--all-rolling"],
    "agreement --threshold 7": [
        *("agreement", "review/reviewer2.jsonl", "review/prelabels.jsonl"),
        *("--threshold", "7"),
    ],
    "agreement --threshold -1.5": [
        *("agreement", "review/reviewer2.jsonl", "review/prelabels.jsonl"),
        *("--threshold", "-1.5"),
    ],
    "agreement --show -1": [
        *("agreement", "review/reviewer2.jsonl", "review/prelabels.jsonl"),
        *("--show", "-1"),
    ],
    "audit one file": ["audit", "review/prelabels.jsonl"],
    "rebaseline no sweep": ["rebaseline"],
    "unknown verb": ["relabel"],
}


@pytest.mark.parametrize("argv", MALFORMED.values(), ids=MALFORMED.keys())
def test_every_labels_verb_refuses_malformed_arguments_on_one_line(
    dataset_copy: Path, argv: list[str]
) -> None:
    (dataset_copy.parent / "sheet.csv").write_text("qid,document,section,clause_version,grade\n")
    data = [] if argv[0] in ("rebaseline", "relabel") else ["--data", str(dataset_copy)]
    before = folder_hash(dataset_copy)
    ran = cli_in(dataset_copy.parent, "labels", *argv, *data)
    assert ran.code == 2, ran.out + ran.err
    lines = ran.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ragsweep labels: error: "), ran.err
    assert "error: ragsweep labels" not in lines[0]  # said once
    assert ran.out == ""
    assert folder_hash(dataset_copy) == before


def test_the_checked_options_still_take_their_edge_values(dataset_copy: Path) -> None:
    data = str(dataset_copy)
    ran = cli_in(
        dataset_copy.parent,
        "labels",
        "agreement",
        "review/reviewer2.jsonl",
        "review/prelabels.jsonl",
        "--data",
        data,
        "--threshold",
        "-1",
        "--show",
        "0",
    )
    assert ran.code == 0, ran.err
