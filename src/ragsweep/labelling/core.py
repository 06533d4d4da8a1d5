"""The frozen core set: a confirmed production failure added as a new core question with its
labels (`add_failure`), and rolling questions frozen into the core (`freeze`); both logged to the
label changelog (docs/labelling.md, "Keep the set alive").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from ragsweep.data import clause_id, load_dataset
from ragsweep.data.questions import load_questions
from ragsweep.data.reader import hint
from ragsweep.data.schema import GRADES, LABELS_FILE, QUESTIONS_FILE, SYNTHETIC
from ragsweep.errors import DatasetError, UserError
from ragsweep.labelling.labelfiles import (
    Change,
    check_stamp,
    jsonl_bytes,
    label_key,
    order_labels,
    read_rows,
    write_dataset_files,
)
from ragsweep.labelling.scrub import Scrubber

_QID_NUMBER_RE = re.compile(r"(?P<prefix>.*?)(?P<number>\d+)")
#: the first qid of a set with no numbered qid (`next_qid`)
QID_START = "q0001"


@dataclass(frozen=True)
class AddedFailure:
    """What `add_failure` added: the new question's qid, its text as stored (scrubbed) and the
    personal items the scrubber replaced in it (kind -> count; never the values)."""

    qid: str
    text: str
    scrubbed: Mapping[str, int]


def add_failure(
    dataset_dir: str | Path,
    *,
    text: str,
    slice: str,  # noqa: A002 - the schema's field name
    product: str | None,
    version: str,
    clauses: Sequence[tuple[str, str, int]],
    at: str,
    who: str,
    reason: str,
) -> AddedFailure:
    """Add a confirmed production failure as a permanent core question.

    `text` goes through `scrub.scrub` (the scrubber `labels sample` uses) and the scrubbed text
    is stored; the result says what was replaced. The qid is `next_qid` of the set's qids (one
    more than the highest of the set's numbering, whatever else the set holds). `clauses` are
    its labels as (document, section, grade) in the question's `version`; at least one needs
    grade >= 1. `added` is the date of `at`. The changelog gets a `question` row, then an `add`
    row per label.
    """
    root = Path(dataset_dir)
    check_stamp(at, who, "add_failure")
    if not reason.strip():
        raise UserError("add_failure: field 'reason': is empty; say what failed in production")
    ds = load_dataset(root)
    qid = next_qid(list(ds.questions["qid"]))
    clean = Scrubber.for_dataset(root).scrub(text)
    question = {
        "qid": qid,
        "text": clean.text,
        "slice": slice,
        "product": product,
        "version": version,
        "subset": "core",
        "added": datetime.fromisoformat(at).date().isoformat(),
    }
    qrows = [*read_rows(root, QUESTIONS_FILE), question]
    questions_raw = jsonl_bytes(qrows)
    try:
        load_questions(root, questions_raw, ds.slices, ds.documents)
    except DatasetError as err:
        raise UserError(f"add_failure: field '{err.field}': {err.detail}") from err
    if not clauses:
        raise UserError("add_failure: field 'clauses': is empty; give the clause(s) that answer it")
    sections = {(d.document, d.version): {c.section for c in d.clauses} for d in ds.documents}
    new_labels: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for i, (doc, sec, grade) in enumerate(clauses):
        where = f"add_failure: field 'clauses[{i}]'"
        if (doc, version) not in sections or sec not in sections[(doc, version)]:
            raise UserError(
                f"{where}: clause {clause_id(doc, sec, version)} is not in the corpus snapshot; "
                "give a (document, section) of the question's version"
            )
        if isinstance(grade, bool) or not isinstance(grade, int) or grade not in GRADES:
            raise UserError(f"{where}: grade {grade!r} is not 0, 1 or 2")
        if (doc, sec) in seen:
            raise UserError(f"{where}: clause {clause_id(doc, sec, version)} is given twice")
        seen.add((doc, sec))
        new_labels.append(
            {"qid": qid, "document": doc, "section": sec, "version": version, "grade": grade}
        )
    if not any(lab["grade"] >= 1 for lab in new_labels):
        raise UserError(
            "add_failure: field 'clauses': no clause has grade >= 1; grade the answer 2"
        )
    labels = order_labels([*read_rows(root, LABELS_FILE), *new_labels], [q["qid"] for q in qrows])
    files = {QUESTIONS_FILE: questions_raw, LABELS_FILE: jsonl_bytes(labels)}
    changes = [Change(kind="question", who=who, qid=qid, reason=reason)]
    changes += [
        Change.on("add", who, label_key(lab), new_grade=lab["grade"], reason=reason)
        for lab in new_labels
    ]
    write_dataset_files(root, files, changes, at)
    return AddedFailure(qid, clean.text, dict(clean.counts))


def next_qid(qids: Sequence[str]) -> str:
    """The next id of the set's own numbering; never refuses, never renumbers.

    A qid `<prefix><digits>` belongs to the numbering of its prefix (the digits are its trailing
    run: `q0400` is prefix `q`, number 400). The set's numbering is the prefix most qids share
    (ties: the shorter prefix, then the alphabetically first); the next id is one more than its
    highest number, zero-padded like that number: `q0401` after `q0400`, `q100` after `q99`.
    Ids outside it (a sampled question's content hash `s3fa12bc0de`, a hand-made id) are left
    alone and cannot collide: an equal id would be of the same numbering, and so lower. A set
    with no numbered qid starts at `QID_START`."""
    families: dict[str, list[tuple[int, int]]] = {}
    for qid in qids:
        m = _QID_NUMBER_RE.fullmatch(qid)
        if m is not None:
            families.setdefault(m["prefix"], []).append((int(m["number"]), len(m["number"])))
    if not families:
        return QID_START
    prefix = min(families, key=lambda p: (-len(families[p]), len(p), p))
    number, width = max(families[prefix])
    return f"{prefix}{str(number + 1).zfill(width)}"


def freeze(
    dataset_dir: str | Path,
    qids: Sequence[str] | Literal["all-rolling"],
    *,
    at: str,
    who: str,
    reason: str = "frozen into the core set",
) -> tuple[str, ...]:
    """Promote rolling questions to the frozen core set (`subset` to `core`), each logged as a
    `freeze` entry. `qids` lists them, or `"all-rolling"` takes every rolling question; a
    listed question already in core is left as it is; a synthetic one refuses the call (the
    core is for trend lines on real questions). Returns the qids frozen, in file order."""
    root = Path(dataset_dir)
    check_stamp(at, who, "freeze")
    load_dataset(root)  # a folder that loads (and matches its manifest) is the only one touched
    rows = read_rows(root, QUESTIONS_FILE)
    if isinstance(qids, str):
        if qids != "all-rolling":
            raise UserError(
                f"freeze: field 'qids': {qids!r} is neither a list of qids nor 'all-rolling'"
            )
        wanted = {r["qid"] for r in rows if r["subset"] == "rolling"}
    else:
        known_qids = [r["qid"] for r in rows]
        for qid in qids:
            if qid not in known_qids:
                raise UserError(
                    f"freeze: no question {qid} in {root / QUESTIONS_FILE}; "
                    f"{hint(qid, known_qids)}give qids of questions.jsonl"
                )
        wanted = set(qids)
        made = [r["qid"] for r in rows if r["qid"] in wanted and r["subset"] == SYNTHETIC]
        if made:
            raise UserError(
                f"freeze: question {made[0]} in {root / QUESTIONS_FILE} is synthetic (generated "
                "from the corpus), and the frozen core holds only questions people asked; "
                "leave it out of the qids"
            )
    frozen = [r["qid"] for r in rows if r["qid"] in wanted and r["subset"] == "rolling"]
    if not frozen:
        return ()
    new_rows = [{**r, "subset": "core"} if r["qid"] in wanted else r for r in rows]
    changes = [Change(kind="freeze", who=who, qid=q, reason=reason) for q in frozen]
    write_dataset_files(root, {QUESTIONS_FILE: jsonl_bytes(new_rows)}, changes, at)
    return tuple(frozen)
