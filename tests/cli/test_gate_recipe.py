"""`ragsweep gate` on the built-in sample's three releases (`ragsweep data releases`): the shell
recipe of docs/ci.md as written, the baseline file, and bad input (one line, exit 2)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import cli_in
from ragsweep.data.load import sample_path
from ragsweep.data.manifest import write_manifest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "ci.md"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def releases(tmp_path_factory) -> Path:
    """A folder with the three releases and `ci/baseline.json` pinned from release A."""
    root = tmp_path_factory.mktemp("gate")
    ran = cli_in(root, "data", "releases", "--out", "releases")
    assert ran.code == 0, ran.err
    ran = cli_in(
        root, "gate", "--candidate", "releases/release-a.jsonl", "--pin", "ci/baseline.json"
    )
    assert ran.code == 0, ran.err
    return root


def shell_recipe() -> str:
    """The `sh` block of docs/ci.md's "plain shell version", as written there."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## The plain shell version") :]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


def run_recipe(folder: Path, release: str) -> subprocess.CompletedProcess[str]:
    script = folder / "ci" / "gate.sh"
    script.write_text(shell_recipe(), encoding="utf-8")
    (folder / "gate.md").write_text("a summary from an earlier run\n")  # the recipe removes it
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run(
        ["sh", "ci/gate.sh", "ci/baseline.json", f"releases/{release}.jsonl"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_shell_recipe_fails_the_release_that_lost_the_exclusions(releases):
    ran = run_recipe(releases, "release-b")
    assert ran.returncode == 1, ran.stderr
    assert ran.stdout == (
        "retrieval gate: releases/release-b.jsonl FAILS against ci/baseline.json; see gate.md\n"
    )
    summary = (releases / "gate.md").read_text(encoding="utf-8")
    assert summary.startswith("## ragsweep gate: FAIL: release-b against release-a\n")
    failures = summary.split("release-b fails:\n")[1].split("\n\n")[0].splitlines()
    assert [f.split(":")[0] for f in failures] == [
        "- the guard slice exclusions",
        "- the headline weighted",
    ]
    row = [line for line in summary.splitlines() if line.startswith("| exclusions (guard) |")][0]
    assert row.endswith("| worse | fail |")
    # what flipped: the exclusions questions lost, each with both top 5 lists
    flipped = summary.split("### What flipped: release-b against release-a\n")[1]
    assert "| exclusions | recall@5 | 16 | 2 |" in flipped
    lost = flipped.split("**exclusions** (recall@5): 16 lost, 2 gained")[1].splitlines()[4]
    assert lost.startswith("| lost 1.000 → 0.000 | `q0203` quick question, are we covered if a")
    assert "| home/5.13@2024 (2) | 1. home-summary/5.1@2024" in lost
    assert "<br>2. home/5.13@2024 [2]<br>" in lost  # release A had it at rank 2; B lost it
    suite = ET.parse(releases / "gate.xml").getroot().find("testsuite")
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["exclusions (guard)", "weighted (headline)"]
    assert (releases / "gate-report" / "report.html").is_file()


def test_the_shell_recipe_passes_the_release_that_changed_nothing_the_prompt_sees(releases):
    ran = run_recipe(releases, "release-c")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == (
        "retrieval gate: releases/release-c.jsonl passes against ci/baseline.json\n"
    )
    summary = (releases / "gate.md").read_text(encoding="utf-8")
    assert summary.startswith("## ragsweep gate: PASS: release-c against release-a\n")
    suite = ET.parse(releases / "gate.xml").getroot().find("testsuite")
    assert suite.get("failures") == "0"


def test_the_shell_recipe_says_the_gate_could_not_run_on_bad_input(releases):
    ran = run_recipe(releases, "release-missing")
    assert ran.returncode == 2
    assert ran.stdout == "retrieval gate: could not run (the error above says what to fix)\n"
    assert "--candidate releases/release-missing.jsonl: no such file" in ran.stderr
    assert not (releases / "gate.md").exists()


def test_the_baseline_file_holds_the_scores_the_release_gets_now(releases, monkeypatch):
    step = releases / "step-summary.md"
    step.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    ran = cli_in(
        releases,
        "gate",
        "--baseline",
        "ci/baseline.json",
        "--candidate",
        "releases/release-a.jsonl",
    )
    assert ran.code == 0, ran.err
    body = json.loads((releases / "ci" / "baseline.json").read_text(encoding="utf-8"))
    assert body["kind"] == "ragsweep gate baseline" and body["name"] == "release-a"
    rows = [line for line in ran.out.splitlines() if line.startswith("| ")][2:]
    # every stratum: the same mean on both sides, a change of exactly 0
    assert rows and all(re.search(r"\| \+0\.000 \[", line) for line in rows), rows
    assert step.read_text(encoding="utf-8") == "earlier step\n" + ran.out + "\n"


def changed_copy(tmp_path: Path, what: str) -> Path:
    """The sample with one label's grade changed (`labels`) or one clause's words (`corpus`)."""
    copy = Path(shutil.copytree(sample_path(), tmp_path / "changed"))
    if what == "labels":
        path = copy / "labels.jsonl"
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        rows[0]["grade"] = 1 if rows[0]["grade"] == 2 else 2
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        path = copy / "corpus" / "home@2025.json"
        path.write_text(
            path.read_text(encoding="utf-8").replace("sets out the terms", "gives the terms", 1),
            encoding="utf-8",
        )
    write_manifest(copy)
    return copy


@pytest.mark.parametrize(
    "what, needle",
    [
        (
            "labels",
            "release-a was scored on labelled set {new}, the baseline release-a (baseline file "
            "ci/baseline.json) on 56c6e70b9810: not like for like; pin the baseline again on "
            "these labels: ragsweep gate --candidate releases/release-a.jsonl --split dev --pin "
            "ci/baseline.json",
        ),
        ("corpus", "not like for like; the two runs answer different datasets; pass --data"),
    ],
)
def test_a_baseline_on_other_labels_or_another_dataset_is_refused(releases, tmp_path, what, needle):
    copy = changed_copy(tmp_path, what)
    ran = cli_in(
        releases,
        "gate",
        "--baseline",
        "ci/baseline.json",
        "--candidate",
        "releases/release-a.jsonl",
        "--data",
        str(copy),
        "--summary",
        "refused.md",
    )
    assert ran.code == 2
    (line,) = ran.err.splitlines()
    if what == "labels":
        from ragsweep.data import load_dataset

        needle = needle.format(new=load_dataset(copy).labels_hash[:12])
    assert needle in line
    assert not (releases / "refused.md").exists()


@pytest.mark.parametrize(
    "args, needle",
    [
        (
            ["--baseline", "ci/missing.json", "--candidate", "releases/release-b.jsonl"],
            "--baseline ci/missing.json: no such file, and not an MLflow run id",
        ),
        (
            ["--baseline", "releases/release-a.jsonl", "--candidate", "ci/other.json"],
            "--candidate ci/other.json: no such file",
        ),
        (
            ["--baseline", "ci/not-a-baseline.json", "--candidate", "releases/release-b.jsonl"],
            'not a ragsweep baseline file (no "kind": "ragsweep gate baseline")',
        ),
        (
            [
                "--baseline",
                "ci/baseline.json",
                "--candidate",
                "releases/release-b.jsonl",
                "--pin",
                "x.json",
            ],
            "--pin writes a baseline file from the candidate; give no --baseline",
        ),
        (["--candidate", "releases/release-b.jsonl"], "give --baseline SOURCE"),
        (
            ["--baseline", "ci/baseline.json", "--candidate", "releases/run.txt"],
            "a TREC run is scored against TREC qrels; give --qrels FILE",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(releases, args, needle):
    (releases / "ci" / "not-a-baseline.json").write_text('{"runs": []}', encoding="utf-8")
    (releases / "releases" / "run.txt").write_text("q1 Q0 d1 1 1.0 x\n", encoding="utf-8")
    ran = cli_in(releases, "gate", *args)
    assert ran.code == 2
    (line,) = ran.err.splitlines()
    assert line.startswith("ragsweep gate: error: ") and needle in line, line


def test_a_logged_run_is_a_baseline_too(releases):
    ran = cli_in(releases, "score-passages", "--run", "releases/release-a.jsonl")
    assert ran.code == 0, ran.err
    (run_id,) = re.findall(r"logged run ([0-9a-f]{32})", ran.out)
    ran = cli_in(
        releases,
        "gate",
        "--baseline",
        run_id,
        "--candidate",
        "releases/release-b.jsonl",
        "--flipped",
        "0",
    )
    assert ran.code == 1, ran.err
    assert ran.out.startswith("## ragsweep gate: FAIL: release-b against release-a\n")
    assert "- the guard slice exclusions: recall@5 -0.112 [" in ran.out
