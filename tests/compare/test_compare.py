"""`ragsweep compare`: TREC runs from any system compared per slice; the JSON schema, run names,
values written as formulas and cross-checked against `stats`, exit codes, and no MLflow."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ragsweep.cli import main
from ragsweep.compare import stats

SLICES = {
    "limits": ["q01", "q02", "q03", "q04"],
    "exclusions": ["q05", "q06", "q07", "q08"],
    "identifiers": ["q09", "q10", "q11", "q12"],
}
QIDS = [q for qs in SLICES.values() for q in qs]
ROW_KEYS = {"run", "slice", "measure", "value", "delta", "ci_low", "ci_high", "verdict"}


def write_run(path: Path, found: set[str], at: int = 1) -> Path:
    """A run that ranks the relevant document `r<qid>` at rank `at` for the queries in `found`
    and ten irrelevant documents otherwise."""
    lines = []
    for q in QIDS:
        docs = [f"x{j}" for j in range(10)]
        if q in found:
            docs[at - 1] = f"r{q}"
        lines += [f"{q} Q0 {d} {r} {10 - r} sys" for r, d in enumerate(docs, start=1)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 r{q} 1\n" for q in QIDS))
    (tmp_path / "slices.tsv").write_text(
        "".join(f"{q}\t{s}\n" for s, qs in SLICES.items() for q in qs)
    )
    found = {"q01", "q02", *SLICES["exclusions"], "q09", "q10"}
    write_run(tmp_path / "base.txt", found)
    write_run(tmp_path / "cand.txt", found | {"q03", "q04"})  # two more limits found
    write_run(tmp_path / "lower.txt", found, at=2)  # same documents, one rank lower
    return tmp_path


def run_json(capsys, *args: str) -> dict:
    assert main(["compare", *args, "--format", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_json_schema_and_values(files, capsys):
    f = files
    out = run_json(
        capsys,
        "--qrels",
        str(f / "qrels.txt"),
        "--runs",
        str(f / "base.txt"),
        str(f / "cand.txt"),
        str(f / "lower.txt"),
        "--slices",
        str(f / "slices.tsv"),
        "--metric",
        "recall@10,RR",
    )
    assert set(out) == {
        "baseline", "correction", "level", "interval_level", "method", "weights",
        "unjudged", "notes", "decisions", "rows",
    }  # fmt: skip
    assert out["baseline"] == "base" and out["correction"] == "bonferroni"
    # two runs against the baseline: Bonferroni widens each 95% interval to 97.5%
    assert (out["level"], out["interval_level"]) == (0.95, 0.975)
    assert out["method"] == stats.METHOD and out["weights"] is None
    assert out["unjudged"] == "bounds" and out["notes"] == []
    assert all(set(r) == ROW_KEYS for r in out["rows"])
    rows = {(r["run"], r["measure"], r["slice"]): r for r in out["rows"]}
    strata = ["limits", "exclusions", "identifiers", "all"]
    assert len(rows) == len(out["rows"]) == 3 * 2 * len(strata)
    base = rows["base", "recall@10", "limits"]
    assert base["value"] == 2 / 4 and base["verdict"] == "baseline"
    assert base["delta"] is None and base["ci_low"] is None and base["ci_high"] is None
    cand = rows["cand", "recall@10", "limits"]
    assert (cand["value"], cand["delta"]) == pytest.approx((4 / 4, 2 / 4))
    assert rows["cand", "recall@10", "all"]["delta"] == pytest.approx(2 / 12)
    assert rows["cand", "recall@10", "exclusions"]["delta"] == 0.0
    lower = rows["lower", "RR", "exclusions"]  # RR 1 -> 1/2 on all four found
    # four questions each a half lower: too few to exclude 0 honestly (docs/statistics.md)
    assert lower["delta"] == pytest.approx(-1 / 2) and lower["verdict"] == "noise"
    # all twelve, eight of them a half lower, are worse beyond noise with unjudged passages as
    # not relevant; but rank 1 is now x0, which the qrels do not judge: as relevant, RR stays 1
    every = rows["lower", "RR", "all"]
    assert every["delta"] == pytest.approx(-8 * 0.5 / 12) and every["verdict"] == "needs judging"
    assert rows["lower", "recall@10", "all"]["delta"] == 0.0


def test_trec_eval_convention_on_request(files, capsys):
    f = files
    out = run_json(
        capsys,
        "--qrels",
        str(f / "qrels.txt"),
        "--runs",
        str(f / "base.txt"),
        str(f / "lower.txt"),
        "--metric",
        "RR",
        "--unjudged",
        "assume_not_relevant",
    )
    (row,) = [r for r in out["rows"] if r["run"] == "lower"]
    # RR 1 -> 1/2 on the eight found: worse, on an assumption the output states
    assert row["delta"] == pytest.approx(-8 / 2 / 12) and row["verdict"] == "worse"
    assert out["decisions"] == {"lower": "worse"}
    assert out["notes"][0].startswith("ASSUMPTION: passages nobody judged are scored as not")
    bounded = run_json(
        capsys,
        "--qrels",
        str(f / "qrels.txt"),
        "--runs",
        str(f / "base.txt"),
        str(f / "lower.txt"),
        "--metric",
        "RR",
    )
    assert bounded["decisions"] == {"lower": "needs judging"}


def test_interval_is_the_paired_comparison_of_the_per_query_scores(files, capsys):
    f = files
    out = run_json(
        capsys,
        "--qrels",
        str(f / "qrels.txt"),
        "--runs",
        str(f / "base.txt"),
        str(f / "cand.txt"),
        "--correction",
        "none",
    )
    (row,) = [r for r in out["rows"] if r["run"] == "cand"]
    base = np.array(
        [float(q in {"q01", "q02", *SLICES["exclusions"], "q09", "q10"}) for q in sorted(QIDS)]
    )
    cand = np.maximum(base, [float(q in {"q03", "q04"}) for q in sorted(QIDS)])
    (want,) = stats.paired_comparison(base, cand[None], ["all"] * 12, ["cand"], correction="none")
    assert row["slice"] == "all"  # no slices file: one slice
    assert (row["delta"], row["ci_low"], row["ci_high"]) == (want.delta, want.ci_low, want.ci_high)
    assert row["verdict"] == want.verdict


def test_weights_add_the_traffic_weighted_headline(files, capsys):
    f = files
    (f / "shares.yaml").write_text("limits: 0.5\nexclusions: 0.3\nidentifiers: 0.2\n")
    out = run_json(
        capsys,
        "--qrels",
        str(f / "qrels.txt"),
        "--runs",
        str(f / "base.txt"),
        str(f / "cand.txt"),
        "--slices",
        str(f / "slices.tsv"),
        "--weights",
        str(f / "shares.yaml"),
    )
    assert out["weights"] == {"limits": 0.5, "exclusions": 0.3, "identifiers": 0.2}
    rows = {(r["run"], r["slice"]): r for r in out["rows"] if r["measure"] == "recall@5"}
    # recall@5 (what sweeps decide on) is the default; cand finds two more of the four limits
    # questions: +0.5 there, 0 elsewhere
    assert rows["cand", "weighted"]["delta"] == pytest.approx(0.5 * 0.5)
    assert rows["base", "weighted"]["value"] == pytest.approx(0.5 * 0.5 + 0.3 * 1 + 0.2 * 0.5)
    assert rows["cand", "weighted"]["ci_low"] < rows["cand", "weighted"]["ci_high"]


def test_names_are_stems_unless_duplicated(files, capsys):
    f = files
    (f / "a").mkdir()
    (f / "b").mkdir()
    write_run(f / "a" / "run.txt", {"q01"})
    write_run(f / "b" / "run.txt", {"q01", "q02"})
    out = run_json(
        capsys,
        "--qrels",
        str(f / "qrels.txt"),
        "--runs",
        str(f / "base.txt"),
        str(f / "a" / "run.txt"),
        str(f / "b" / "run.txt"),
    )
    assert {r["run"] for r in out["rows"]} == {
        "base",
        str(f / "a" / "run.txt"),
        str(f / "b" / "run.txt"),
    }


def test_table_shows_decisions_and_guard(files, capsys):
    f = files
    code = main(
        [
            "compare",
            "--qrels",
            str(f / "qrels.txt"),
            "--runs",
            str(f / "base.txt"),
            str(f / "cand.txt"),
            "--slices",
            str(f / "slices.tsv"),
            "--metric",
            "RR",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "exclusions" in out and "guard" in out and "decision" in out
    # two of twelve queries gain: P(a resample draws neither) = (10/12)^12 = 0.11 > 0.025
    assert "cand: noise" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--runs", "base.txt"], "at least one run to compare"),
        (["--runs", "base.txt", "base.txt"], "given twice"),
        (["--runs", "base.txt", "missing.txt"], "missing.txt"),
        (["--runs", "base.txt", "cand.txt", "--metric", "recal@10"], "unknown measure"),
        (["--runs", "base.txt", "cand.txt", "--slices", "bad.tsv"], "bad.tsv:2"),
        (["--runs", "base.txt", "cand.txt", "--slices", "short.tsv"], "no slice for 4"),
        (["--runs", "base.txt", "other.txt"], "no query of the run"),
        (["--runs", "base.txt", "cand.txt", "--weights", "w.yaml"], "give the slices too"),
        (
            ["--runs", "base.txt", "cand.txt", "--slices", "slices.tsv", "--weights", "half.yaml"],
            "half.yaml sum to 0.9, not 1",
        ),
        (
            ["--runs", "base.txt", "cand.txt", "--slices", "slices.tsv", "--weights", "typo.yaml"],
            "typo.yaml names slice(s) limit that the labelled set does not have",
        ),
        (
            ["--runs", "base.txt", "cand.txt", "--slices", "slices.tsv", "--weights", "two.yaml"],
            "two.yaml has no weight for slice(s) identifiers",
        ),
        (
            ["--runs", "base.txt", "cand.txt", "--slices", "slices.tsv", "--weights", "list.yaml"],
            "list.yaml must map slice -> share",
        ),
        (
            ["--runs", "base.txt", "cand.txt", "--slices", "slices.tsv", "--weights", "no.yaml"],
            "no.yaml: no such file",
        ),
        (["--runs", "base.txt", "cand.txt", "--level", "95"], "level"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(files, capsys, monkeypatch, args, needle):
    monkeypatch.chdir(files)
    Path("bad.tsv").write_text("q01\tlimits\nq02\n")
    Path("short.tsv").write_text("".join(f"{q}\tlimits\n" for q in QIDS[:8]))
    Path("other.txt").write_text("zz Q0 d1 1 1.0 sys\n")
    Path("w.yaml").write_text("limits: 1\n")
    Path("half.yaml").write_text("limits: 0.5\nexclusions: 0.2\nidentifiers: 0.2\n")
    Path("typo.yaml").write_text("limit: 0.5\nexclusions: 0.3\nidentifiers: 0.2\n")
    Path("two.yaml").write_text("limits: 0.5\nexclusions: 0.5\n")
    Path("list.yaml").write_text("- limits\n- exclusions\n")
    assert main(["compare", "--qrels", "qrels.txt", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err


def test_a_query_in_two_slices_is_refused(files, capsys):
    f = files
    (f / "twice.tsv").write_text("q01\tlimits\nq01\texclusions\n")
    assert (
        main(
            [
                "compare",
                "--qrels",
                str(f / "qrels.txt"),
                "--runs",
                str(f / "base.txt"),
                str(f / "cand.txt"),
                "--slices",
                str(f / "twice.tsv"),
            ]
        )
        == 2
    )
    assert "twice.tsv:2" in capsys.readouterr().err


def test_compare_never_imports_mlflow(files, tmp_path):
    f = files
    code = (
        "import sys\n"
        "from ragsweep.cli import main\n"
        f"rc = main(['compare', '--qrels', {str(f / 'qrels.txt')!r}, '--runs', "
        f"{str(f / 'base.txt')!r}, {str(f / 'cand.txt')!r}, '--out', {str(tmp_path / 'o')!r}])\n"
        "assert rc == 0, rc\n"
        "assert 'mlflow' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "o" / "report.html").exists()


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("q1\tlimits\nq2 limits and deductibles\n", None),
        ("q1\tlimits\nq2\n", ":2: 1 fields"),
        ("q1\tlimits\nq1\tlimits\n", ":2: field 'qid': qid 'q1' is listed twice"),
        ("q1\tlimits\tmore\n", ":1: 3 fields"),
    ],
)
def test_compare_and_data_import_read_a_slices_file_alike(tmp_path, text, fault):
    """One reader of `qid<TAB>slice` files: `compare --slices` and `data import --slices` take
    the same files (a space where a tab should be included) and refuse the same ones, with the
    same line. Before, `compare` took `q1 limits` and `data import` refused it."""
    from ragsweep.cli import data_import
    from ragsweep.compare import run_files as compare
    from ragsweep.errors import DatasetError

    path = tmp_path / "slices.tsv"
    path.write_text(text)
    readers = {"compare": compare.read_slices, "data import": data_import.read_slices}
    for name, read in readers.items():
        if fault is None:
            got = read(path)
            assert dict(got.assign) == {"q1": "limits", "q2": "limits and deductibles"}, name
        else:
            with pytest.raises(DatasetError) as err:
                read(path)
            assert f"slices.tsv{fault}" in str(err.value), name


def test_compare_defaults_are_the_ones_a_sweep_uses():
    """`ragsweep compare` takes its defaults from the config tree a sweep composes (it copied
    them, and decided on recall@10 where sweeps decide on recall@5)."""
    from ragsweep.cli.compare import _parser
    from ragsweep.config import compose

    cfg = compose([])
    args = _parser().parse_args(["--qrels", "q", "--runs", "r"])
    assert args.metric == f"recall@{cfg.eval.k_prompt}" == "recall@5"
    assert args.gain == cfg.eval.gain and args.unjudged == cfg.eval.unjudged
    assert args.level == cfg.report.level and args.correction == cfg.report.correction
    assert args.target_gap == cfg.report.target_gap
    assert args.guard.split(",") == list(cfg.report.guard_slices)


def test_compare_runs_is_the_verb_without_printing(files, capsys):
    """A notebook's `compare_runs` gives the report the verb prints, its notes handed back."""
    from ragsweep.compare.run_files import compare_json, compare_runs

    f = files
    (f / "short.txt").write_text("q01 Q0 rq01 1 1.0 sys\n")  # eleven queries without a line
    runs = [str(f / "base.txt"), str(f / "short.txt")]
    args = ["--qrels", str(f / "qrels.txt"), "--runs", *runs, "--slices", str(f / "slices.tsv")]
    printed = run_json(capsys, *args, "--guard", "exclusions", "--metric", "recall@10")
    notes: list[str] = []
    report = compare_runs(
        f / "qrels.txt",
        runs,
        metric="recall@10",
        gain="exp",
        guard_slices=["exclusions"],
        correction="bonferroni",
        level=0.95,
        target_gap=0.05,
        unjudged="bounds",
        slices=f / "slices.tsv",
        note=notes.append,
    )
    assert capsys.readouterr() == ("", "")
    assert json.loads(json.dumps(compare_json(report))) == printed
    assert notes == [
        "note: short: 11 of 12 qrels queries have no line in the run; each scores 0 and counts "
        "in the mean"
    ]
    assert report.decisions[0].decision == "fails guard"
