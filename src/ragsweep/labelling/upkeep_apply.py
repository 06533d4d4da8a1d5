"""Label upkeep, applied: `apply_check` writes what `ragsweep.labelling.upkeep.check_labels`
found, all or nothing, with a person's decisions (carry a blocked label all the same, grade a
clause, retire a question), each change logged to the label changelog (docs/labelling.md,
"4. Keep the set alive"). The review files follow: their rows on a moved pair are re-anchored,
on a removed pair dropped; review/pool.jsonl's pairs follow a move or are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragsweep.data import Document, clause_id
from ragsweep.data.corpus import load_corpus
from ragsweep.data.manifest import check_manifest
from ragsweep.data.reader import DataFile, hint
from ragsweep.data.schema import GRADES, LABELS_FILE, POOL_FILE, QUESTIONS_FILE, REVIEW_FILES
from ragsweep.errors import UserError
from ragsweep.labelling.labelfiles import (
    Change,
    check_stamp,
    jsonl_bytes,
    label_key,
    order_labels,
    read_rows,
    write_dataset_files,
)
from ragsweep.labelling.upkeep import (
    Carry,
    CheckResult,
    Decision,
    check_labels,
    questions_after,
    unanswered_fix,
)


def apply_check(
    dataset_dir: str | Path,
    result: CheckResult,
    *,
    at: str,
    who: str,
    reason: str = "label upkeep",
    confirm: Sequence[tuple[str, str, str]] = (),
    retire_questions: Sequence[str] = (),
    label: Sequence[Decision] = (),
    retire_unanswered: bool = False,
) -> tuple[Change, ...]:
    """Apply a `check_labels` result, all or nothing: move or remove the vanished labels (and
    their review rows), add the carried ones, retire the relevant labels on another version,
    log each change. `result` must still be what `check_labels` finds now. A person's decisions
    come with it: `confirm` names blocked labels (qid, document, section) to carry to their
    `Blocked.target` all the same, having read the change; `retire_questions` names questions
    to take out of the set with all their labels (one whose answer the new version deleted);
    `label` (qid, document, section, grade, and optionally who decided: else `who`) grades a
    clause of the version the question asks about (after `move`); `retire_unanswered` retires
    every question these decisions leave without a relevant label. Returns the changelog
    entries written (none when there is nothing to do)."""
    root = Path(dataset_dir)
    check_stamp(at, who, "apply_check")
    move = dict(result.moved)
    if check_labels(root, move) != result:
        raise UserError(
            f"apply_check: {root}: the dataset changed since the check; run check_labels again "
            "and apply its result"
        )
    confirmed = _confirmed(result, confirm)
    result = replace(result, carries=result.carries + confirmed)
    if result.clean and not retire_questions and not label and not result.unanswered:
        return ()
    check_manifest(root)
    rows = read_rows(root, LABELS_FILE)
    keys = {(r["qid"], r["document"], r["section"], r["version"]) for r in rows}
    changes: list[Change] = []
    moved: dict[tuple[str, str, str, str], str | None] = {}  # old key -> new section or None
    for v in result.vanished:
        old = (v.qid, v.document, v.section, v.version)
        target = (v.qid, v.document, v.moved_to, v.version) if v.moved_to else None
        base = Change.on(
            "remove",
            who,
            old,
            old_grade=v.grade,
            reason=f"{reason}: clause {v.clause_id} vanished from the snapshot",
        )
        if target is None or target in keys:
            moved[old] = None
            changes.append(base)
        else:
            keys.add(target)
            moved[old] = v.moved_to
            changes.append(
                Change.on(
                    "move",
                    who,
                    target,
                    old_grade=v.grade,
                    new_grade=v.grade,
                    reason=f"{reason}: section renumbered (same text as {v.reference})",
                    source=v.clause_id,
                )
            )
    new_rows = _reanchor(rows, moved)
    for c in result.carries:
        new_rows.append(
            {
                "qid": c.qid,
                "document": c.document,
                "section": c.target,
                "version": c.to_version,
                "grade": c.grade,
            }
        )
        changes.append(
            Change.on(
                "carry",
                who,
                label_key(new_rows[-1]),
                new_grade=c.grade,
                reason=(
                    f"{reason}: same clause in version {c.to_version} (ratio {c.ratio:.1f})"
                    if c.confirmed is None
                    else f"{reason}: carried by {who} after reading the change ({c.confirmed})"
                )
                + (f", renumbered {c.section} -> {c.to_section}" if c.to_section else ""),
                source=clause_id(c.document, c.section, c.from_version),
            )
        )
    retire = {(r.qid, r.document, r.section, r.version): r for r in result.retired}
    for row in new_rows:
        gone = retire.get(label_key(row))
        if gone is None:
            continue
        row["grade"] = 0
        changes.append(
            Change.on(
                "change",
                who,
                label_key(row),
                old_grade=gone.grade,
                new_grade=0,
                reason=f"{reason}: retired, the question asks about {gone.asked} and the "
                "retriever's filter never returns this clause",
            )
        )
    questions = questions_after(root, move)
    changes[:0] = [
        Change(
            kind="version",
            who=who,
            qid=q["qid"],
            version=q["version"],
            reason=f"{reason}: the question now asks about version {q['version']}",
        )
        for q in questions
        if q["qid"] in move
    ]
    changes += _label(root, questions, new_rows, label, who, reason)
    answered = {r["qid"] for r in new_rows if r["grade"] >= 1}
    left = [u for u in result.unanswered if u.qid not in answered]
    if retire_unanswered:
        retire_questions = [*retire_questions, *(u.qid for u in left)]
    for u in left:
        if u.qid not in retire_questions:
            DataFile(root, QUESTIONS_FILE).fail(unanswered_fix(u), u.line, "qid")
    dropped = _retire_questions(questions, retire_questions)
    gone = set(dropped)
    for row in new_rows:
        if row["qid"] in gone:
            changes.append(
                Change.on(
                    "remove",
                    who,
                    label_key(row),
                    old_grade=row["grade"],
                    reason=f"{reason}: its question is retired",
                )
            )
    changes += [
        Change(kind="retire", who=who, qid=q, reason=f"{reason}: question retired") for q in dropped
    ]
    new_rows = [r for r in new_rows if r["qid"] not in gone]
    questions = [q for q in questions if q["qid"] not in gone]
    files = {
        LABELS_FILE: jsonl_bytes(order_labels(new_rows, [q["qid"] for q in questions])),
    }
    if dropped or move:
        files[QUESTIONS_FILE] = jsonl_bytes(questions)
    for name in REVIEW_FILES:
        rel = f"review/{name}.jsonl"
        if (root / rel).is_file():
            kept = [r for r in read_rows(root, rel) if r["qid"] not in gone]
            data = jsonl_bytes(_reanchor(kept, moved))
            if data != (root / rel).read_bytes():
                files[rel] = data
    pool = f"review/{POOL_FILE}"
    if (root / pool).is_file():
        kept = [r for r in read_rows(root, pool) if r["qid"] not in gone]
        data = jsonl_bytes(_repooled(kept, result, load_corpus(root)))
        if data != (root / pool).read_bytes():
            files[pool] = data
    write_dataset_files(root, files, changes, at)
    return tuple(changes)


def _confirmed(result: CheckResult, confirm: Sequence[tuple[str, str, str]]) -> tuple[Carry, ...]:
    """The blocked labels a person confirmed, as carries onto their target section."""
    blocked = {(b.qid, b.document, b.section): b for b in result.blocked}
    out = []
    for qid, doc, sec in confirm:
        b = blocked.get((qid, doc, sec))
        if b is None or b.target is None:
            known_ = [f"{k[0]}:{k[1]}/{k[2]}" for k, v in blocked.items() if v.target]
            raise UserError(
                f"--carry {qid}:{doc}/{sec}: no label the check left for a person to carry "
                f"there; {hint(f'{qid}:{doc}/{sec}', known_)}name one of the 'not carried' "
                "lines that has a clause to carry to"
            )
        to_section = None if b.target == b.section else b.target
        ratio = float("nan")
        out.append(
            Carry(qid, doc, sec, b.from_version, b.to_version, b.grade, ratio, to_section, b.reason)
        )
    return tuple(out)


def _label(
    root: Path,
    questions: list[dict[str, Any]],
    rows: list[dict[str, Any]],
    label: Sequence[Decision],
    who: str,
    reason: str,
) -> list[Change]:
    """Grade the clauses a person named (`apply_check`'s `label`) on the version each question
    asks about, in `rows` (added, or changed in place); their changelog entries."""
    asked = {q["qid"]: q["version"] for q in questions}
    sections = {(d.document, d.version): {c.section for c in d.clauses} for d in load_corpus(root)}
    index = {(r["qid"], r["document"], r["section"], r["version"]): r for r in rows}
    out = []
    for qid, doc, sec, grade, *by in label:
        spec = f"--label {qid}:{doc}/{sec}={grade}"
        if qid not in asked:
            raise UserError(f"{spec}: no question {qid!r}; {hint(qid, list(asked))}name one")
        version = asked[qid]
        if version is None:
            raise UserError(
                f"{spec}: question {qid!r} names no version; label it with `labels import`"
            )
        if sec not in sections.get((doc, version), set()):
            raise UserError(
                f"{spec}: no clause {clause_id(doc, sec, version)} in the snapshot; name a "
                f"clause of version {version}, the one {qid} asks about"
            )
        if grade not in GRADES:
            raise UserError(f"{spec}: grade {grade} is outside {{0, 1, 2}}")
        base = Change.on(
            "add",
            by[0] if by and by[0] else who,
            (qid, doc, sec, version),
            new_grade=grade,
            reason=f"{reason}: labelled by a person during upkeep",
        )
        row = index.get((qid, doc, sec, version))
        if row is None:
            row = {"qid": qid, "document": doc, "section": sec, "version": version, "grade": grade}
            rows.append(row)
            index[(qid, doc, sec, version)] = row
            out.append(base)
        elif row["grade"] != grade:
            out.append(replace(base, kind="change", old_grade=row["grade"]))
            row["grade"] = grade
    return out


def _retire_questions(questions: list[dict[str, Any]], qids: Sequence[str]) -> list[str]:
    """The qids to retire, checked against questions.jsonl, in its order."""
    known_qids = [q["qid"] for q in questions]
    for qid in qids:
        if qid not in known_qids:
            raise UserError(
                f"--retire-question {qid}: no such question in questions.jsonl; "
                f"{hint(qid, known_qids)}name a question of the set"
            )
    return [q for q in known_qids if q in set(qids)]


def _repooled(
    rows: list[dict[str, Any]], result: CheckResult, documents: Sequence[Document]
) -> list[dict[str, Any]]:
    """review/pool.jsonl rows on the snapshot: a pair on a clause that moved (a vanished
    label's `moved_to`) follows it, a pair on another clause no longer in the snapshot is
    dropped, and two rows that become one pair keep one row with both rows' systems."""
    present = {(d.document, d.version, c.section) for d in documents for c in d.clauses}
    moves = {(v.document, v.version, v.section): v.moved_to for v in result.vanished}
    out: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for r in rows:
        section = r["section"]
        if (r["document"], r["version"], section) not in present:
            section = moves.get((r["document"], r["version"], section))
            if section is None:
                continue
        key = (r["qid"], r["document"], section, r["version"])
        if key in out:
            out[key]["systems"] = list(dict.fromkeys([*out[key]["systems"], *r["systems"]]))
        else:
            out[key] = {**r, "section": section}
    return list(out.values())


def _reanchor(
    rows: list[dict[str, Any]], moved: dict[tuple[str, str, str, str], str | None]
) -> list[dict[str, Any]]:
    """Label-shaped rows with the moved pairs given their new section and the removed dropped."""
    out = []
    for r in rows:
        key = (r["qid"], r["document"], r["section"], r["version"])
        if key not in moved:
            out.append(r)
        elif moved[key] is not None:
            out.append({**r, "section": moved[key]})
    return out
