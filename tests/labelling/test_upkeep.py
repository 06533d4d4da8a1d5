"""Label upkeep: vanished and renumbered clauses, carrying labels to a newer wording version,
applying a check all or nothing, freezing rolling questions; on a modified copy of the tiny
fixture, with exact reports, files and changelog rows."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from label_folder import AT, copy_tiny, digest, jsonl
from rapidfuzz import fuzz

from ragsweep.data import load_dataset, sample_path
from ragsweep.errors import DatasetError, UserError
from ragsweep.labelling.labelfiles import CHANGELOG_FIELDS, CHANGELOG_FILE
from ragsweep.labelling.sameclause import SAME_TEXT_MIN_RATIO, normalise
from ragsweep.labelling.upkeep import (
    Blocked,
    Carry,
    CheckResult,
    Retired,
    Unanswered,
    Vanished,
    check_labels,
)
from ragsweep.labelling.upkeep_apply import apply_check

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
    return copy_tiny(tmp_path)


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
