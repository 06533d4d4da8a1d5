"""Label upkeep: vanished and renumbered clauses, carrying labels to a newer wording version,
applying a check all or nothing, freezing rolling questions; on a modified copy of the tiny
fixture, with exact reports, files and changelog rows."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from rapidfuzz import fuzz

from ragsweep.data import load_dataset, sample_path
from ragsweep.errors import DatasetError, UserError
from ragsweep.labelling.sheets import CHANGELOG_FIELDS, CHANGELOG_FILE
from ragsweep.labelling.upkeep import (
    SAME_TEXT_MIN_RATIO,
    Blocked,
    Carry,
    CheckResult,
    Retired,
    Unanswered,
    Vanished,
    apply_check,
    check_labels,
    figure_changes,
    figures,
    freeze,
    normalise,
    text_ratio,
    version_key,
)

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "tiny"
AT = "2025-10-01T09:30:00+00:00"
#: motor 3.1 rewritten in 2025, so a 2024 label on it is not carried
REWRITTEN = "Cover applies only to drivers named in your schedule who hold a full UK licence."
MOTOR_31_2024 = (
    "We will not pay any claim arising while your vehicle is driven by a person who does not "
    "hold a valid full licence to drive it, unless they are a learner supervised as the law "
    "requires."
)
REVIEWED = (
    "question is graded in review/reviewer2.jsonl, which must keep exactly the pairs "
    "labels.jsonl judges; label it by hand or take it out of review/"
)


def digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def edit_wording(path: Path, edit) -> None:
    wording = json.loads(path.read_text(encoding="utf-8"))
    for part in wording["parts"]:
        part["clauses"] = [c for c in (edit(dict(c)) for c in part["clauses"]) if c]
    path.write_text(json.dumps(wording, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def retarget(folder: Path, versions: dict[str, str]) -> None:
    rows = jsonl(folder / "questions.jsonl")
    write_jsonl(
        folder / "questions.jsonl",
        [{**q, "version": versions.get(q["qid"], q["version"])} for q in rows],
    )


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return Path(shutil.copytree(TINY, tmp_path / "tiny"))


@pytest.fixture
def modified(tiny: Path) -> Path:
    """The tiny fixture after a new home 2025 wording: 3.2 (Unoccupied home) is gone and 2.2
    (Standard excess) is renumbered 2.3; motor 3.1 is rewritten in 2025; and q04, q05 and q08,
    labelled on 2024 clauses, now ask about 2025."""

    def home(c: dict) -> dict | None:
        if c["section"] == "3.2":
            return None
        return {**c, "section": "2.3"} if c["section"] == "2.2" else c

    edit_wording(tiny / "corpus" / "home@2025.json", home)
    edit_wording(
        tiny / "corpus" / "motor@2025.json",
        lambda c: {**c, "text": REWRITTEN} if c["section"] == "3.1" else c,
    )
    retarget(tiny, {"q04": "2025", "q05": "2025", "q08": "2025"})
    return tiny


def expected_check() -> CheckResult:
    ratio = fuzz.ratio(normalise(MOTOR_31_2024), normalise(REWRITTEN))
    assert ratio < SAME_TEXT_MIN_RATIO
    q04_motor = Blocked("q04", "motor", "3.1", "2024", "2025", 2,
                        f"text changed: ratio {ratio:.1f} < 90", target="3.1")  # fmt: skip
    q08 = (
        Blocked("q08", "home", "1.1", "2024", "2025", 2, REVIEWED),
        Blocked("q08", "home", "2.2", "2024", "2025", 1,
                "corpus/home@2025.json has no section '2.2'"),
    )  # fmt: skip
    return CheckResult(
        vanished=(
            Vanished("q02", "home", "2.2", "2025", 2, 3, "2.3", "home/2.2@2024"),
            Vanished("q03", "home", "3.2", "2025", 2, 6, None, None),
        ),
        carries=(Carry("q05", "home", "4.1", "2024", "2025", 2, 100.0),),
        blocked=(
            q04_motor,
            *q08,
        ),
        retired=(  # relevant labels on 2024 of questions that now ask about 2025
            Retired("q04", "motor", "3.1", "2024", "version 2025", 2, 8),
            Retired("q05", "home", "4.1", "2024", "version 2025", 2, 10),
            Retired("q08", "home", "1.1", "2024", "version 2025", 2, 13),
            Retired("q08", "home", "2.2", "2024", "version 2025", 1, 14),
        ),
        unanswered=(  # every relevant label of theirs removed or retired, none carried
            Unanswered("q03", 3, ("home/3.2@2025",), ()),
            Unanswered("q04", 4, ("motor/3.1@2024",), (q04_motor,)),
            Unanswered("q08", 8, ("home/1.1@2024", "home/2.2@2024"), q08),
        ),
    )  # fmt: skip


def test_check_reports_vanished_renumbered_and_carried(modified: Path) -> None:
    with pytest.raises(DatasetError, match=r"labels\.jsonl:3: field 'section'"):
        load_dataset(modified)  # why check_labels reads labels.jsonl without the anchor check
    before = digest(modified)
    result = check_labels(modified)
    assert result == expected_check()
    assert result.questions == ("q05",)
    assert result.vanished[0].clause_id == "home/2.2@2025"
    assert digest(modified) == before  # a dry run


def test_unmodified_data_has_nothing_to_do(tiny: Path) -> None:
    # every off-version label in the data is a grade-0 wrong-version rejection: none is carried
    assert check_labels(tiny) == CheckResult((), (), ())
    assert check_labels(sample_path()).clean


def test_apply_refuses_to_leave_a_question_unanswered(modified: Path) -> None:
    before = digest(modified)
    with pytest.raises(UserError) as info:
        apply_check(modified, check_labels(modified), at=AT, who="maria")
    assert str(info.value) == (
        f"{modified / 'questions.jsonl'}:3: field 'qid': question 'q03' would have no label with "
        "grade >= 1 once its label(s) home/3.2@2025 are removed (vanished) or retired (another "
        "version); label a clause of its version that answers it (--label "
        "q03:DOC/SECTION=GRADE), or retire the question (--retire-question q03)"
    )
    assert digest(modified) == before


def test_apply_leaves_no_question_with_only_another_versions_labels(modified: Path) -> None:
    """q04's only relevant label is on motor 3.1@2024, rewritten in 2025 (not carried): retiring
    it would leave q04 unanswered, so apply refuses and names the fix."""
    labels = jsonl(modified / "labels.jsonl")
    labels[6]["grade"] = 1  # a judge found q03 another answer: home/2.1@2025
    write_jsonl(modified / "labels.jsonl", labels)
    before = digest(modified)
    with pytest.raises(UserError) as info:
        apply_check(modified, check_labels(modified), at=AT, who="maria")
    assert str(info.value).endswith(
        "question 'q04' would have no label with grade >= 1 once its label(s) motor/3.1@2024 are "
        "removed (vanished) or retired (another version); carry motor/3.1 to 3.1 after reading the "
        "change (--carry q04:motor/3.1), label a clause of its version that answers it (--label "
        "q04:DOC/SECTION=GRADE), or retire the question (--retire-question q04)"
    )
    assert digest(modified) == before


def test_apply_moves_removes_carries_and_retires(modified: Path) -> None:
    labels = jsonl(modified / "labels.jsonl")
    labels[6]["grade"] = 1  # a judge found q03 another answer: home/2.1@2025
    write_jsonl(modified / "labels.jsonl", labels)
    retarget(modified, {"q04": "2024", "q08": "2024"})  # their 2024 labels stay relevant
    result = check_labels(modified)
    assert result.retired == (Retired("q05", "home", "4.1", "2024", "version 2025", 2, 10),)
    changes = apply_check(modified, result, at=AT, who="maria")
    assert [c.kind for c in changes] == ["move", "remove", "carry", "change"]
    rows = jsonl(modified / "labels.jsonl")
    cids = [(r["qid"], f"{r['document']}/{r['section']}@{r['version']}", r["grade"]) for r in rows]
    assert cids == [
        ("q01", "home/2.1@2025", 2), ("q01", "home/2.1@2024", 0),
        ("q02", "home/2.3@2025", 2), ("q02", "home/1.1@2025", 1), ("q02", "home/2.2@2024", 0),
        ("q03", "home/2.1@2025", 1),
        ("q04", "motor/3.1@2024", 2), ("q04", "motor/1.1@2024", 0),
        ("q05", "home/4.1@2025", 2), ("q05", "home/4.1@2024", 0),
        ("q06", "motor/4.1@2025", 2), ("q07", "motor/1.1@2025", 2),
        ("q08", "home/1.1@2024", 2), ("q08", "home/2.2@2024", 1),
        ("q09", "home/2.1@2024", 2), ("q10", "motor/2.1@2025", 2),
    ]  # fmt: skip
    fields = CHANGELOG_FIELDS
    assert jsonl(modified / CHANGELOG_FILE) == [
        dict(zip(fields, (AT, "move", "maria", "q02", "home", "2.3", "2025", 2, 2,
             "label upkeep: section renumbered (same text as home/2.2@2024)", "home/2.2@2025",
             None), strict=True)),
        dict(zip(fields, (AT, "remove", "maria", "q03", "home", "3.2", "2025", 2, None,
             "label upkeep: clause home/3.2@2025 vanished from the snapshot", None, None),
             strict=True)),
        dict(zip(fields, (AT, "carry", "maria", "q05", "home", "4.1", "2025", None, 2,
             "label upkeep: same clause in version 2025 (ratio 100.0)", "home/4.1@2024", None),
             strict=True)),
        dict(zip(fields, (AT, "change", "maria", "q05", "home", "4.1", "2024", 2, 0,
             "label upkeep: retired, the question asks about version 2025 and the "
             "retriever's filter never returns this clause", None, None), strict=True)),
    ]  # fmt: skip
    for name in ("reviewer2", "prelabels"):  # the review rows follow the moved pair
        review = jsonl(modified / "review" / f"{name}.jsonl")
        assert [(r["qid"], r["section"], r["version"]) for r in review[:1]] == [
            ("q02", "2.3", "2025")
        ]
    load_dataset(modified)
    after = check_labels(modified)
    assert after.clean and after.blocked == ()
    before = digest(modified)
    assert apply_check(modified, after, at=AT, who="maria") == ()  # nothing left: no write
    assert digest(modified) == before


def test_apply_refuses_a_stale_result(modified: Path) -> None:
    result = check_labels(modified)
    retarget(modified, {"q05": "2024"})
    before = digest(modified)
    with pytest.raises(UserError, match="changed since the check; run check_labels again"):
        apply_check(modified, result, at=AT, who="maria")
    assert digest(modified) == before


def test_freeze_listed_and_all_rolling(tiny: Path) -> None:
    assert freeze(tiny, ["q02", "q01"], at=AT, who="lead") == ("q02",)  # q01 is core already
    assert freeze(tiny, "all-rolling", at=AT, who="lead", reason="2025 refresh") == (
        "q06",
        "q09",
        "q10",
    )
    subsets = {q["qid"]: q["subset"] for q in jsonl(tiny / "questions.jsonl")}
    assert set(subsets.values()) == {"core"}
    log = jsonl(tiny / CHANGELOG_FILE)
    assert [(r["kind"], r["qid"], r["who"], r["reason"]) for r in log] == [
        ("freeze", "q02", "lead", "frozen into the core set"),
        ("freeze", "q06", "lead", "2025 refresh"),
        ("freeze", "q09", "lead", "2025 refresh"),
        ("freeze", "q10", "lead", "2025 refresh"),
    ]
    assert all(r["document"] is None and r["new_grade"] is None for r in log)
    load_dataset(tiny)
    before = digest(tiny)
    assert freeze(tiny, "all-rolling", at=AT, who="lead") == ()
    with pytest.raises(UserError, match=r"no question q2 in .*; did you mean 'q02'\?"):
        freeze(tiny, ["q2"], at=AT, who="lead")
    with pytest.raises(UserError, match="neither a list of qids nor 'all-rolling'"):
        freeze(tiny, "q02", at=AT, who="lead")
    assert digest(tiny) == before


def test_same_clause_rule() -> None:
    from ragsweep.data import Clause

    a = Clause("home", "2024", "2.2", "Standard  Excess", "You must pay £250.", "2", "limits")
    b = Clause("home", "2025", "2.3", "standard excess", "You  must pay £350.", "2", "limits")
    c = Clause("home", "2025", "2.2", "Excess", "You must pay £250.", "2", "limits")
    assert normalise(" You\n must  PAY ") == "you must pay"
    assert text_ratio(a, b) == fuzz.ratio("you must pay £250.", "you must pay £350.")
    assert text_ratio(a, c) is None  # heading changed
    assert sorted(["v10", "2025", "v9", "2024"], key=version_key) == ["2024", "2025", "v9", "v10"]


def test_a_changed_figure_blocks_the_carry_and_shows_the_change(modified: Path, capsys) -> None:
    """home 4.1 in 2025 now says 14 days where 2024 said 30: the texts stay above the ratio (a
    label would have been carried as 'the same'), but a duration that changed is the difference
    that matters most: not carried, shown old -> new."""
    old = "within 30 days of discovering the loss"
    edit_wording(
        modified / "corpus" / "home@2025.json",
        lambda c: (
            {**c, "text": c["text"].replace(old, old.replace("30", "14"))}
            if c["section"] == "4.1"
            else c
        ),
    )
    result = check_labels(modified)
    assert result.carries == ()
    (blocked,) = [b for b in result.blocked if (b.qid, b.section) == ("q05", "4.1")]
    assert blocked.reason.startswith("figures changed: 30 days -> 14 days;")
    from ragsweep.cli import main

    assert main(["labels", "check", "--data", str(modified)]) == 0
    out = capsys.readouterr().out
    assert "not carried: q05 home/4.1 2024 -> 2025: figures changed: 30 days -> 14 days" in out
    assert "% the same" not in out


def test_figures_and_their_changes() -> None:
    text = "Up to £1,500 per item (10% of the sum insured), 20 per cent, within 3 months of 1 May."
    assert figures(text) == ["£1,500", "10%", "20 per cent", "3 months", "1", "May"]
    assert figure_changes("an excess of £50.", "an excess of £75.") == ["£50 -> £75"]
    assert figure_changes("from 1 March", "from 1 April") == ["March -> April"]
    assert figure_changes("£50 and £100", "£100") == ["£50 -> (gone)"]
    assert figure_changes("within 48 hours", "within 48 hours or 2 days") == ["(new) -> 2 days"]
    assert figure_changes("You must pay £250.", "You  must PAY £250.") == []


def test_a_renumbered_clause_is_carried_to_its_new_number(tiny: Path, capsys) -> None:
    """home 4.1 (Reporting a claim) is 4.9 in the 2025 wording, text unchanged, and q05 now
    asks about 2025: its 2024 label is carried to 4.9, not left behind as 'no section 4.1'."""
    modified = tiny
    edit_wording(
        modified / "corpus" / "home@2025.json",
        lambda c: {**c, "section": "4.9"} if c["section"] == "4.1" else c,
    )
    retarget(modified, {"q05": "2025"})
    result = check_labels(modified)
    assert result.carries == (Carry("q05", "home", "4.1", "2024", "2025", 2, 100.0, "4.9"),)
    assert result.carries[0].target == "4.9"
    from ragsweep.cli import main

    assert main(["labels", "check", "--data", str(modified)]) == 0
    out = capsys.readouterr().out
    assert (
        "carry: q05 home/4.1 -> 4.9 (renumbered) grade 2 from 2024 to 2025 (text identical)" in out
    )
    changes = apply_check(modified, result, at=AT, who="maria")
    rows = jsonl(modified / "labels.jsonl")
    assert {"qid": "q05", "document": "home", "section": "4.9", "version": "2025", "grade": 2} in [
        {k: r[k] for k in ("qid", "document", "section", "version", "grade")} for r in rows
    ]
    (carry,) = [c for c in changes if c.kind == "carry"]
    assert carry.section == "4.9" and carry.reason.endswith("renumbered 4.1 -> 4.9")


def test_a_question_without_an_answer_is_relabelled_or_retired_as_the_refusal_says(
    tiny: Path,
) -> None:
    """q05's only relevant label set to 0 by hand: every load refuses the folder and names the
    command; `--label` gives it an answer, or `--retire-question` takes it out, all or
    nothing, and the folder loads again."""
    labels = jsonl(tiny / "labels.jsonl")
    labels[9]["grade"] = 0  # q05 home/4.1@2024
    write_jsonl(tiny / "labels.jsonl", labels)
    with pytest.raises(DatasetError) as info:
        load_dataset(tiny)
    assert str(info.value).endswith(
        "question 'q05' has no label with grade >= 1 in labels.jsonl; label the clause(s) of its "
        "version that answer it, or retire it (`ragsweep labels check --apply "
        "--retire-question q05`)"
    )
    result = check_labels(tiny)
    assert [u.qid for u in result.unanswered] == ["q05"]
    with pytest.raises(UserError, match=r"no clause home/9\.9@2024 in the snapshot"):
        apply_check(tiny, result, at=AT, who="maria", label=[("q05", "home", "9.9", 2)])
    relabelled = tiny.parent / "relabelled"
    shutil.copytree(tiny, relabelled)
    changes = apply_check(relabelled, check_labels(relabelled), at=AT, who="maria",
                          label=[("q05", "home", "4.1", 2)])  # fmt: skip
    assert [(c.kind, c.old_grade, c.new_grade) for c in changes] == [("change", 0, 2)]
    load_dataset(relabelled)
    changes = apply_check(tiny, result, at=AT, who="maria", retire_questions=["q05"])
    assert [(c.kind, c.qid) for c in changes] == [("remove", "q05"), ("retire", "q05")]
    ds = load_dataset(tiny)
    assert "q05" not in set(ds.questions["qid"]) and "q05" not in set(ds.labels["qid"])


def test_a_retired_question_leaves_no_row_in_any_review_file(tmp_path: Path) -> None:
    """The sample's review/pool.jsonl records what the judging pool showed for every question:
    a retired question's rows go with it, so `data check` (which reads the pool) still passes."""
    root = tmp_path / "sample"
    shutil.copytree(sample_path(), root, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    assert any(r["qid"] == "q0001" for r in jsonl(root / "review" / "pool.jsonl"))
    changes = apply_check(root, check_labels(root), at=AT, who="maria", retire_questions=["q0001"])
    assert [c.kind for c in changes][-1] == "retire"
    for name in ("pool", "reviewer2", "prelabels"):
        assert not any(r["qid"] == "q0001" for r in jsonl(root / "review" / f"{name}.jsonl"))
    ds = load_dataset(root, pool=True)
    assert "q0001" not in set(ds.questions["qid"])
