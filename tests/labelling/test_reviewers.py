"""Two reviewers (docs/labelling.md, "Two judges"): kappa's bootstrap interval covers a known
kappa, `labels assign` draws the overlap by slice, a second judge's grades are kept as theirs
(confirm / dispute / adjudicate), agreement stored in the dataset and carried by runs, the
Label Studio round trip, and every malformed input one line, exit 2, the dataset unchanged."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from label_folder import AT, copy_tiny, digest

from conftest import cli_in
from ragsweep.data import load_dataset
from ragsweep.labelling.assign import assign
from ragsweep.labelling.kappa import kappa_from_confusion, kappa_interval
from ragsweep.labelling.labelfiles import CHANGELOG_FILE
from ragsweep.labelling.sheet_columns import SHEET_COLUMNS
from ragsweep.labelling.sheets import import_sheets


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return copy_tiny(tmp_path)


def sheet(path: Path, rows: list[tuple[str, str, str, str, str, str]]) -> Path:
    """A judging sheet of (qid, slice, document, section, clause_version, grade) rows."""
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(SHEET_COLUMNS))
        w.writeheader()
        for qid, slice_, doc, sec, ver, grade in rows:
            base = dict.fromkeys(SHEET_COLUMNS, "")
            base.update(
                qid=qid, slice=slice_, document=doc, section=sec, clause_version=ver, grade=grade
            )
            w.writerow(base)
    return path


# -- the interval -----------------------------------------------------------------------------
def test_the_interval_covers_a_known_kappa_about_95_percent() -> None:
    """200 simulated rater pairs, 40 questions of 6 items each, drawn from a joint grade
    distribution whose kappa is known: the percentile interval over questions covers it in
    about 95% of them (binomial sd at 200 is 1.5 points: 0.88..0.99 is wide and stable)."""
    joint = np.array([[0.55, 0.05, 0.02], [0.06, 0.12, 0.03], [0.01, 0.04, 0.12]])
    truth = kappa_from_confusion(joint * 1e6)
    rng = np.random.default_rng(7)
    cells = rng.choice(9, size=(200, 240), p=joint.ravel())
    qids = np.repeat([f"q{i:02d}" for i in range(40)], 6)
    covered = 0
    for trial in cells:
        low, high = kappa_interval(qids, trial // 3, trial % 3, resamples=1000, seed=trial[0])
        covered += low <= truth <= high
    assert 0.88 <= covered / 200 <= 0.99, covered
    assert (round(truth, 3), covered) == (0.613, 191)  # as docs/labelling.md quotes


def test_the_interval_resamples_questions_not_items() -> None:
    """Items of one question are one draw: a kappa whose questions disagree wholesale gets a
    wider interval than the same grades spread evenly over the questions."""
    a = np.array([0, 1, 2] * 40)
    b = a.copy()
    b[:30] = (b[:30] + 1) % 3  # 30 disagreements
    clustered = np.repeat([f"q{i}" for i in range(12)], 10)  # all in the first 3 questions
    spread = np.array([f"q{i % 12}" for i in range(120)])  # 2 or 3 in every question
    lo_c, hi_c = kappa_interval(clustered, a, b)
    lo_s, hi_s = kappa_interval(spread, a, b)
    assert hi_c - lo_c > 1.5 * (hi_s - lo_s)
    assert kappa_interval(clustered, a, b) == (lo_c, hi_c)  # seeded
    assert all(np.isnan(kappa_interval(["q1"] * 3, [0, 1, 2], [0, 1, 1])))


# -- assign -----------------------------------------------------------------------------------
def _pooled(questions_per_slice: dict[str, int]) -> pd.DataFrame:
    rows = []
    for s, n in questions_per_slice.items():
        for i in range(n):
            for sec in ("1.1", "2.1"):
                rows.append({**dict.fromkeys(SHEET_COLUMNS, ""), "qid": f"{s}{i:02d}", "slice": s,
                             "section": sec})  # fmt: skip
    return pd.DataFrame(rows)


def test_assign_draws_the_overlap_by_slice_and_splits_the_rest() -> None:
    rows = _pooled({"limits": 20, "exclusions": 10, "identifiers": 2})
    done = assign(rows, ["ann", "bob", "cy"], overlap=8, seed=0)
    assert done.overlap_by_slice == {"limits": 5, "exclusions": 2, "identifiers": 1}
    assert {q[:-2] for q in done.overlap} == {"limits", "exclusions", "identifiers"}
    own = [q for j in done.judges for q in done.own[j]]
    assert sorted(own + list(done.overlap)) == sorted(rows["qid"].unique())  # each once
    assert sorted(len(done.own[j]) for j in done.judges) == [8, 8, 8]
    for j in done.judges:
        s = done.sheets[j]
        assert set(s["judge"]) == {j}
        assert set(s["qid"]) == set(done.overlap) | set(done.own[j])
        assert len(s) == 2 * len(set(s["qid"]))  # whole questions
    again = assign(rows, ["ann", "bob", "cy"], overlap=8, seed=0)
    assert again.overlap == done.overlap and again.own == done.own
    assert assign(rows, ["ann", "bob", "cy"], overlap=8, seed=1).overlap != done.overlap


# -- a second judge ---------------------------------------------------------------------------
def _changelog(root: Path) -> list[tuple[str, str, str, int | None, int | None]]:
    rows = [json.loads(x) for x in (root / CHANGELOG_FILE).read_text().splitlines()]
    return [(r["kind"], r["who"], r["qid"], r["old_grade"], r["new_grade"]) for r in rows]


def test_a_second_judge_disputes_instead_of_overwriting(tiny: Path, tmp_path: Path) -> None:
    ann = sheet(tmp_path / "ann.csv", [("q05", "", "home", "4.1", "2024", "2")])
    bob = sheet(tmp_path / "bob.csv", [("q05", "", "home", "4.1", "2024", "1")])
    first = import_sheets(tiny, [ann], judge="ann", at=AT)
    assert (first.changed, first.confirmed, first.disputes) == (0, 1, ())
    before = (tiny / "labels.jsonl").read_bytes()
    second = import_sheets(tiny, [bob], judge="bob", at=AT)
    assert second.changed == 0 and (tiny / "labels.jsonl").read_bytes() == before
    (d,) = second.disputes
    assert (d.key, d.grade, d.judge, d.other_grade, d.other_judge) == (
        ("q05", "home", "4.1", "2024"), 2, "ann", 1, "bob"
    )  # fmt: skip
    assert import_sheets(tiny, [bob], judge="bob", at=AT).changes == ()  # logged once
    carol = sheet(tmp_path / "adj.csv", [("q05", "", "home", "4.1", "2024", "1")])
    final = import_sheets(tiny, [carol], judge="carol", at=AT, adjudicated=True)
    assert final.changed == 1
    assert _changelog(tiny) == [
        ("confirm", "ann", "q05", 2, 2),
        ("dispute", "bob", "q05", 2, 1),
        ("adjudicate", "carol", "q05", 2, 1),
    ]
    grades = load_dataset(tiny).labels.set_index("qid")["grade"]
    assert grades["q05"] == 1
    # carol now holds the label: her own later change is a change, not a dispute
    again = sheet(tmp_path / "carol2.csv", [("q05", "", "home", "4.1", "2024", "2")])
    assert import_sheets(tiny, [again], judge="carol", at=AT).changed == 1


def test_import_writes_the_adjudication_sheet(tiny: Path, tmp_path: Path) -> None:
    sheet(tmp_path / "ann.csv", [("q05", "", "home", "4.1", "2024", "2")])
    sheet(tmp_path / "bob.csv", [("q05", "", "home", "4.1", "2024", "0")])
    cli_in(tmp_path, "labels", "import", "ann.csv", "--data", str(tiny), "--judge", "ann").ok()
    ran = cli_in(tmp_path, "labels", "import", "bob.csv", "--data", str(tiny), "--judge", "bob")
    assert "1 disputed" in ran.ok().out
    adj = pd.read_csv(tmp_path / "adjudicate.csv", dtype=str, keep_default_na=False,
                      encoding="utf-8-sig")  # fmt: skip
    r = adj.iloc[0]
    assert (r.existing_grade, r.existing_judge, r.other_grade, r.other_judge, r.grade) == (
        "2", "ann", "0", "bob", ""
    )  # fmt: skip
    assert "£" in r.clause_text or len(r.clause_text) > 20  # the clause's text, for the decision


# -- stored agreement -------------------------------------------------------------------------
TWO = [
    ("q01", "", "home", "2.1", "2025", "2"),
    ("q01", "", "home", "2.1", "2024", "0"),
    ("q02", "", "home", "2.2", "2025", "2"),
    ("q02", "", "home", "1.1", "2025", "1"),
    ("q03", "", "home", "3.2", "2025", "2"),
    ("q03", "", "home", "2.1", "2025", "0"),
    ("q05", "", "home", "4.1", "2024", "2"),
]


def test_agreement_is_saved_checked_and_carried(tiny: Path, tmp_path: Path) -> None:
    from ragsweep.experiment.judges import judge_notes  # noqa: F401 (the layer reading it)
    from ragsweep.labelling.agreement import stored_notes
    from ragsweep.scoring.eval_config import pin_tags

    sheet(tmp_path / "ann.csv", TWO)
    other = [(*r[:5], "1" if r[0] == "q01" else r[5]) for r in TWO]
    sheet(tmp_path / "bob.csv", other)
    labels_before = load_dataset(tiny).labels_hash
    ran = cli_in(tmp_path, "labels", "agreement", "ann.csv", "bob.csv", "--data", str(tiny),
                 "--save")  # fmt: skip
    ran.ok()
    ds = load_dataset(tiny)
    assert ds.labels_hash == labels_before  # review/ is not part of the labelled set
    record = ds.agreement
    assert record["judges"] == ["ann", "bob"] and record["labels_hash"] == labels_before
    overall = record["slices"][-1]
    assert overall["slice"] == "all" and overall["items"] == 7 and overall["questions"] == 4
    # 5 of 7 agree; margins ann (2, 1, 4) bob (1, 3, 3): pe = (2 + 3 + 12) / 49
    assert overall["kappa"] == pytest.approx((5 / 7 - 17 / 49) / (1 - 17 / 49), abs=1e-6)
    tags = pin_tags(_cfg(), ds, _how())
    assert tags["ragsweep.kappa"].startswith(f"{overall['kappa']:.2f} [")
    assert tags["ragsweep.kappa"].endswith("n=7 (ann vs bob)")
    notes = stored_notes(record, 0.6)
    assert notes[0].startswith("judge agreement (ann vs bob, review/agreement.json of ")
    assert any(n.startswith("judges agree weakly on limits") for n in notes[1:])


def _cfg():
    from omegaconf import OmegaConf

    return OmegaConf.create({"eval": {"split": "dev", "subset": "all", "unjudged": None}})


def _how():
    from types import SimpleNamespace

    return SimpleNamespace(split_hash="s")


def test_agreement_takes_the_slice_of_sampled_candidates_from_the_sheet(
    tiny: Path, tmp_path: Path
) -> None:
    rows = [("new1", "limits", "home", "2.1", "2025", "2"), *TWO]
    sheet(tmp_path / "ann.csv", rows)
    sheet(tmp_path / "bob.csv", rows)
    ran = cli_in(tmp_path, "labels", "agreement", "ann.csv", "bob.csv", "--data", str(tiny)).ok()
    (all_row,) = [x.split() for x in ran.out.splitlines() if x.startswith("all ")]
    assert all_row[1:3] == ["8", "5"]


def test_audit_on_one_prelabelled_sheet(tiny: Path, tmp_path: Path) -> None:
    path = sheet(tmp_path / "s.csv", TWO)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    frame["prelabel"] = ["2", "1", "2", "1", "2", "0", "1"]  # over-calls on q01, under on q05
    frame.to_csv(path, index=False, encoding="utf-8-sig")
    ran = cli_in(tmp_path, "labels", "audit", "s.csv", "--data", str(tiny)).ok()
    (all_row,) = [x.split() for x in ran.out.splitlines() if x.startswith("all ")]
    assert all_row[1:6] == ["7", "2", "0.286", "1", "1"]


# -- Label Studio -----------------------------------------------------------------------------
def test_label_studio_round_trip(tiny: Path, tmp_path: Path) -> None:
    path = sheet(tmp_path / "s.csv", [(*r[:5], "") for r in TWO])
    cli_in(tmp_path, "labels", "export-ls", str(path), "--out", "tasks.json").ok()
    tasks = json.loads((tmp_path / "tasks.json").read_text())
    assert len(tasks) == 7
    assert set(tasks[0]["data"]) == {
        "qid", "question", "slice", "document", "section", "clause_version", "clause_text"
    }  # fmt: skip
    assert [t["data"]["section"] for t in tasks] == [r[3] for r in TWO]
    assert '<Choices name="grade"' in (tmp_path / "tasks.xml").read_text()
    # Label Studio's JSON export: the tasks with their id, annotations by two people
    for i, task in enumerate(tasks):
        task["id"] = i + 1
        grade = TWO[i][5]
        task["annotations"] = [
            {"id": 10 * i + k, "completed_by": {"id": k, "email": who}, "was_cancelled": False,
             "result": [{"from_name": "grade", "to_name": "clause", "type": "choices",
                         "value": {"choices": [g]}}]}
            for k, (who, g) in enumerate((("ann@x", grade),
                                          ("bob@x", "1" if i in (0, 2) else grade)))
        ]  # fmt: skip
    one = [{**t, "annotations": t["annotations"][:1]} for t in tasks]
    two = [{**t, "annotations": t["annotations"][1:]} for t in tasks]
    (tmp_path / "ann.json").write_text(json.dumps(one))
    (tmp_path / "bob.json").write_text(json.dumps(two))
    ran = cli_in(tmp_path, "labels", "agreement", "ann.json", "bob.json", "--data", str(tiny))
    assert "ann@x vs bob@x" in ran.ok().out
    both = [{**t, "annotations": t["annotations"]} for t in tasks]
    (tmp_path / "both.json").write_text(json.dumps(both))
    one_file = cli_in(tmp_path, "labels", "agreement", "both.json", "--data", str(tiny)).ok()
    assert one_file.out.splitlines()[-8:] == ran.out.splitlines()[-8:]  # the same two judges
    before = digest(tiny)
    refused = cli_in(tmp_path, "labels", "import", "both.json", "--data", str(tiny))
    assert refused.code == 2 and "graded more than once (ann@x, bob@x)" in refused.err
    assert digest(tiny) == before
    done = cli_in(tmp_path, "labels", "import", "bob.json", "--data", str(tiny)).ok()
    assert "2 disputed" in done.out  # q01's and q02's answer clauses, graded 1 by bob
    kinds = {(k, who) for k, who, *_ in _changelog(tiny)}
    assert kinds == {("confirm", "bob@x"), ("dispute", "bob@x")}


# -- malformed inputs -------------------------------------------------------------------------
BAD = {
    "empty": b"",
    "header only": (",".join(SHEET_COLUMNS) + "\r\n").encode(),
    "not UTF-8": ",".join(SHEET_COLUMNS).encode() + b"\r\nq01,\xa3\xff\r\n",
    "grade x": None,
    "missing column": b"qid,document,section\r\nq01,home,2.1\r\n",
}


def _bad(tmp_path: Path, kind: str, suffix: str = ".csv") -> Path:
    path = tmp_path / f"bad{suffix}"
    if kind == "grade x":
        sheet(path, [("q01", "", "home", "2.1", "2025", "x")])
        text = path.read_text(encoding="utf-8-sig")
        path.write_text(text.replace('"",""\r\n', '"x","x"\r\n'), encoding="utf-8-sig")
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
        frame["prelabel"] = "x"
        frame.to_csv(path, index=False, encoding="utf-8-sig")
    else:
        path.write_bytes(BAD[kind])
    return path


@pytest.mark.parametrize("kind", list(BAD))
@pytest.mark.parametrize(
    "verb",
    [
        ("agreement", "{bad}", "ok.csv"),
        ("agreement", "ok.csv", "{bad}"),
        ("audit", "{bad}"),
        ("audit", "{bad}", "ok.csv"),
        ("prelabel", "{bad}", "--out", "out.csv"),
        ("assign", "{bad}", "--judges", "a,b", "--overlap", "1"),
        ("import", "{bad}"),
    ],
)
def test_a_malformed_file_is_one_line_exit_2(tiny, tmp_path, kind, verb) -> None:
    sheet(tmp_path / "ok.csv", TWO)
    bad = _bad(tmp_path, kind)
    before = digest(tiny)
    args = [a.format(bad=bad) for a in verb]
    ran = cli_in(tmp_path, "labels", *args, "--data", str(tiny))
    assert ran.code == 2, (ran.out, ran.err)
    assert ran.err.count("\n") == 1 and "Traceback" not in ran.err, ran.err
    assert "bad.csv" in ran.err
    assert digest(tiny) == before


@pytest.mark.parametrize(
    "content",
    [b"", b"{}", b'[{"data": {"qid": "q01"}}]', b'[{"data": {"qid": "q01", "document": "home", '
     b'"section": "2.1", "clause_version": "2025"}, "annotations": [{"result": [{"value": '
     b'{"choices": ["x"]}}]}]}]', b"[1", b"\xff\xfe"],
)  # fmt: skip
def test_a_malformed_label_studio_export_is_one_line_exit_2(tiny, tmp_path, content) -> None:
    (tmp_path / "ls.json").write_bytes(content)
    sheet(tmp_path / "ok.csv", TWO)
    before = digest(tiny)
    for args in (("agreement", "ls.json", "ok.csv"), ("import", "ls.json", "--judge", "x")):
        ran = cli_in(tmp_path, "labels", *args, "--data", str(tiny))
        assert ran.code == 2 and ran.err.count("\n") == 1 and "ls.json" in ran.err, ran.err
    assert digest(tiny) == before


def test_label_studio_export_with_a_numeric_annotator(tmp_path: Path) -> None:
    """Label Studio's raw export gives `completed_by` as the user's id (task_format guide)."""
    from ragsweep.labelling.graded import read_graded

    task = {
        "id": 1,
        "data": {"qid": "q01", "document": "home", "section": "2.1", "clause_version": "2025"},
        "annotations": [
            {"id": 1001, "completed_by": 10, "was_cancelled": False,
             "result": [{"from_name": "grade", "to_name": "clause", "type": "choices",
                         "value": {"choices": ["2"]}}]},
            {"id": 1002, "completed_by": 11, "was_cancelled": True,
             "result": [{"from_name": "grade", "value": {"choices": ["0"]}}]},
        ],
    }  # fmt: skip
    (tmp_path / "e.json").write_text(json.dumps([task]))
    rows = read_graded(tmp_path / "e.json")
    assert rows[["qid", "version", "grade", "judge"]].values.tolist() == [["q01", "2025", 2, "10"]]
