"""Keeping labels in step with the corpus: vanished clauses, moving questions to a newer wording
version and carrying their labels, and freezing rolling questions into the core set.

A question asks about one wording version (`version` in questions.jsonl), and a label is
anchored to one clause of one version: the same section in another version is another clause
(docs/schema.md). In the data, every label with grade >= 1 sits in its question's version
(`ragsweep.data.admits`; `load_dataset` refuses anything else); labels on another version are
grade 0, the wrong-version clauses a judge rejected.

**Vanished**: a label whose clause (document, section, version) is no longer in the snapshot
(the wording was replaced and the section removed or renumbered). `load_dataset` refuses such a
folder, so `check_labels` reads it without that check. A vanished label is **moved** when its
text can be found again under another section number of the same version: the reference text
is the same section in the nearest other version of the document (the vanished text itself is
gone), and exactly one clause of the label's version must match it by the rule below. Otherwise
it is **removed**. Both are applied by `apply_check`, and the review files follow (their rows
on a moved pair are re-anchored, on a removed pair dropped; review/pool.jsonl's pairs on a
clause no longer in the snapshot follow a move or are dropped), so the folder loads again.

**Moving**: `check_labels(root, move)` checks the folder as if the questions in `move` asked
about their new version, and `apply_check` writes the move with everything it implies.

**Carrying**: a label (q, document, section, v) is carried to (q, document, section, V) (or,
when V's clause of that number is not the same clause, to the one clause of V that is: the
clause renumbered) when
question q asks about V, v is older than V (`version_key` order), q has no label on that clause
yet, the label's grade is >= `CARRY_MIN_GRADE`, and the clause in V is the same clause by the
rule below. Of several older labels on the same section, the newest version's is carried.
Grade 0 is never carried (nor reported): on another version it records the wrong-version
rejection, which says nothing about the same section in the question's version. A label of
grade >= 1 on a clause its question may not retrieve is **retired** (grade set to 0, logged):
the retriever's filter never returns it, and left relevant it would cap the question's recall.
A question
that a review file grades is never given a new pair (review files grade exactly the pairs
labels.jsonl judges); such a carry is reported as blocked, as are clauses whose heading or text
changed too much.

**Same clause**: headings equal after `normalise`, `rapidfuzz.fuzz.ratio` of the normalised
texts >= `SAME_TEXT_MIN_RATIO` (0-100), and the same figures in the same order (`figures`:
amounts, numbers, percentages, durations, dates). A rewritten clause fails the ratio; a changed
amount ("£50" to "£75") passes it (99.5) but is never carried: the difference that matters most
is shown (`figure_changes`, "£50 -> £75") and the label left for a person.

**Unanswered**: a question that would be left without a label of grade >= 1 is named with its
fixes (`Unanswered`, `unanswered_fix`), and `apply_check` refuses (nothing written) until a
person decides: carry a blocked label all the same (`confirm`), grade a clause of the new version
(`label`, or a filled `decision_sheet` read by `decided_labels`), or retire the question
(`retire_questions`, `retire_unanswered`). It also refuses when the folder changed since the
check. Every change goes to the changelog of `ragsweep.labelling.sheets`, as do `freeze`'s
(kind `freeze`).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import pandas as pd
from rapidfuzz import fuzz

from ragsweep.data import Clause, Document, admits, clause_id, load_dataset, version_key
from ragsweep.data.corpus import load_corpus
from ragsweep.data.labels import LABEL_FIELDS
from ragsweep.data.manifest import check_manifest
from ragsweep.data.meta import load_meta
from ragsweep.data.questions import load_questions
from ragsweep.data.reader import DataFile, hint
from ragsweep.data.schema import GRADES, LABELS_FILE, POOL_FILE, QUESTIONS_FILE, REVIEW_FILES
from ragsweep.errors import UserError
from ragsweep.labelling.sheetfile import SHEET_COLUMNS, Sheet, clause_key, clause_text
from ragsweep.labelling.sheets import (
    Change,
    check_stamp,
    jsonl_bytes,
    order_labels,
    read_rows,
    reviewed,
    write_dataset_files,
)

#: least `fuzz.ratio` (0-100) of two normalised clause texts for them to be the same clause
SAME_TEXT_MIN_RATIO = 90.0
#: least grade a label needs to be carried to a newer version
CARRY_MIN_GRADE = 1


def normalise(text: str) -> str:
    """Text as clauses are compared: NFKC, case-folded, runs of white space to one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


#: what a clause's figures are: an amount or number (currency sign, thousands separators,
#: decimals) with its unit or a following duration word, or a month name (a date's changed month)
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
FIGURE = re.compile(
    r"[£$€]?\d+(?:[,.]\d+)*(?:\s?%|\s?(?:per ?cent|k|m|bn|"
    r"(?:hour|day|week|month|year|mile|km)s?)\b)?|\b(?:" + _MONTHS + r")\b",
    re.IGNORECASE,
)


def figures(text: str) -> list[str]:
    """The figures of a clause text, in order (`FIGURE`), as written, white space normalised."""
    return [" ".join(m.group(0).split()) for m in FIGURE.finditer(text)]


def figure_changes(old: str, new: str) -> list[str]:
    """What changed among two texts' figures, in order: `£50 -> £75`, `30 days -> (gone)`,
    `(new) -> 14 days`; empty when they hold the same figures in the same order (case aside)."""
    a, b = figures(old), figures(new)
    changes: list[str] = []
    matcher = difflib.SequenceMatcher(a=[x.casefold() for x in a], b=[x.casefold() for x in b])
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        olds, news = a[i1:i2], b[j1:j2]
        for k in range(max(len(olds), len(news))):
            left = olds[k] if k < len(olds) else "(new)"
            right = news[k] if k < len(news) else "(gone)"
            changes.append(f"{left} -> {right}")
    return changes


def text_ratio(a: Clause, b: Clause) -> float | None:
    """`fuzz.ratio` of the two clauses' normalised texts, None when the headings differ."""
    if normalise(a.heading) != normalise(b.heading):
        return None
    return float(fuzz.ratio(normalise(a.text), normalise(b.text)))


@dataclass(frozen=True)
class Vanished:
    """A label whose clause is not in the snapshot; `moved_to` is the section its text is found
    under now (compared with `reference`, a clause id), None when it is to be removed."""

    qid: str
    document: str
    section: str
    version: str
    grade: int
    line: int  # in labels.jsonl
    moved_to: str | None
    reference: str | None

    @property
    def clause_id(self) -> str:
        """The vanished clause, `document/section@version`."""
        return clause_id(self.document, self.section, self.version)


@dataclass(frozen=True)
class Carry:
    """A label to carry: `grade` on (document, section) from `from_version` to `to_version`,
    onto `to_section` when the clause was renumbered there (None: the same section)."""

    qid: str
    document: str
    section: str
    from_version: str
    to_version: str
    grade: int
    ratio: float
    to_section: str | None = None
    #: a blocked label a person confirmed (`apply_check`'s `confirm`): why it was blocked
    confirmed: str | None = None

    @property
    def target(self) -> str:
        """The section the label lands on in `to_version`."""
        return self.to_section or self.section


@dataclass(frozen=True)
class Blocked:
    """A label that would be carried but is not, and why. `target`: the section of
    `to_version` a person may carry it to after reading the change (`apply_check`'s `confirm`),
    None when no clause of `to_version` is a candidate."""

    qid: str
    document: str
    section: str
    from_version: str
    to_version: str
    grade: int
    reason: str
    target: str | None = None


#: a person's grade for a clause of the version its question asks about: (qid, document,
#: section, grade), or with who decided as a fifth item (empty: the caller's `who`)
Decision = tuple[str, str, str, int] | tuple[str, str, str, int, str]


@dataclass(frozen=True)
class Unanswered:
    """A question that applying the check would leave without a label of grade >= 1: its
    relevant labels are removed (vanished) or retired, and none is carried. `lost`: those
    labels' clause ids; `blocked`: its labels left for a person, with why."""

    qid: str
    line: int  # in questions.jsonl
    lost: tuple[str, ...]
    blocked: tuple[Blocked, ...]


@dataclass(frozen=True)
class Retired:
    """A relevant label on a clause its question may not retrieve (another version, or another
    product, than it asks about: `ragsweep.data.admits`): the retriever's filter never returns
    it, so `apply_check` sets its grade to 0 (a wrong-version rejection). `asked`: what the
    question asks about instead, e.g. "version 2025"."""

    qid: str
    document: str
    section: str
    version: str
    asked: str
    grade: int
    line: int  # in labels.jsonl


@dataclass(frozen=True)
class CheckResult:
    """What `check_labels` found, each tuple in labels.jsonl order."""

    vanished: tuple[Vanished, ...]
    carries: tuple[Carry, ...]
    blocked: tuple[Blocked, ...]
    retired: tuple[Retired, ...] = ()
    unanswered: tuple[Unanswered, ...] = ()
    #: (qid, version) of the questions moved to another version, sorted (`check_labels`' move)
    moved: tuple[tuple[str, str], ...] = ()

    @property
    def questions(self) -> tuple[str, ...]:
        """The questions the carried labels apply to, sorted."""
        return tuple(sorted({c.qid for c in self.carries}))

    @property
    def clean(self) -> bool:
        """Nothing to apply."""
        return not (self.vanished or self.carries or self.retired or self.moved)


def check_labels(dataset_dir: str | Path, move: Mapping[str, str] | None = None) -> CheckResult:
    """Dry run: the vanished labels and the labels to carry (see the module docstring). Reads
    the folder without changing it; every file but labels.jsonl's anchors is checked as
    `load_dataset` does. `move` (qid -> version): check as if those questions asked about that
    version (`apply_check` with the same `move` writes it); the result's `moved` says so."""
    root = Path(dataset_dir)
    documents, questions, products, labels = _read(root, move or {})
    by_doc = {(d.document, d.version): d for d in documents}
    clauses = {(d.document, d.version): {c.section: c for c in d.clauses} for d in documents}
    versions: dict[str, list[str]] = {}
    for d in documents:
        versions.setdefault(d.document, []).append(d.version)
    under_review = reviewed(root)
    judged = {(r["qid"], r["document"], r["section"], r["version"]) for _, r in labels}
    vanished: list[Vanished] = []
    retired: list[Retired] = []
    sources: dict[tuple[str, str, str], tuple[dict[str, Any], Clause]] = {}
    for n, lab in labels:
        doc, sec, ver = lab["document"], lab["section"], lab["version"]
        found = clauses.get((doc, ver), {}).get(sec)
        if found is None:
            vanished.append(_vanished(n, lab, by_doc, clauses, versions))
            continue
        asked = questions[lab["qid"]]
        product = products[lab["qid"]]
        if lab["grade"] >= 1 and not admits(product, asked, by_doc[(doc, ver)].product, ver):
            wanted = f"version {asked}" if asked not in (None, ver) else f"product {product}"
            retired.append(Retired(lab["qid"], doc, sec, ver, wanted, lab["grade"], n))
        if asked is None or ver == asked or (doc, asked) not in by_doc:
            continue
        if version_key(ver) >= version_key(asked) or lab["grade"] < CARRY_MIN_GRADE:
            continue
        if (lab["qid"], doc, sec, asked) in judged:
            continue
        key = (lab["qid"], doc, sec)
        if key not in sources or version_key(ver) > version_key(sources[key][0]["version"]):
            sources[key] = (lab, found)
    carries: list[Carry] = []
    blocked: list[Blocked] = []
    for (qid, doc, sec), (lab, old) in sources.items():
        asked = questions[qid]
        args = (qid, doc, sec, lab["version"], asked, lab["grade"])
        new = clauses[(doc, asked)].get(sec)
        renumbered = None
        if new is None or not _same(old, new):
            renumbered = _renumbered(old, clauses[(doc, asked)])
            if isinstance(renumbered, Clause):
                new = renumbered
        ratio = None if new is None else text_ratio(old, new)
        to_section = None if new is None or new.section == sec else new.section
        if to_section is not None and (qid, doc, to_section, asked) in judged:
            continue  # the renumbered clause is judged already
        target = None if new is None else new.section
        if new is None:
            why = f"corpus/{doc}@{asked}.json has no section {sec!r}"
            if renumbered:
                why += f" and several clauses match its text ({', '.join(renumbered)})"
            blocked.append(Blocked(*args, why))
        elif ratio is None:
            why = f"section {new.section} of {asked} is another clause ({new.heading!r}) and "
            why += f"none of {asked} has this one's heading and text: deleted, or rewritten"
            blocked.append(Blocked(*args, why))
        elif ratio < SAME_TEXT_MIN_RATIO:
            why = f"text changed: ratio {ratio:.1f} < {SAME_TEXT_MIN_RATIO:g}"
            blocked.append(Blocked(*args, why, target))
        elif changed := figure_changes(old.text, new.text):
            why = f"figures changed: {', '.join(changed)}; a person decides whether the label "
            why += "still holds"
            blocked.append(Blocked(*args, why, target))
        elif qid in under_review:
            blocked.append(
                Blocked(
                    *args,
                    f"question is graded in {under_review[qid]}, which must keep exactly the "
                    "pairs labels.jsonl judges; label it by hand or take it out of review/",
                )
            )
        else:
            carries.append(Carry(*args, ratio, to_section))
    unanswered = _unanswered(
        root, labels, tuple(vanished), tuple(carries), tuple(blocked), tuple(retired)
    )
    return CheckResult(
        tuple(vanished),
        tuple(carries),
        tuple(blocked),
        tuple(retired),
        unanswered,
        tuple(sorted((move or {}).items())),
    )


def _same(old: Clause, new: Clause) -> bool:
    """Whether `new` is `old` by the same-clause rule (module docstring)."""
    ratio = text_ratio(old, new)
    return (
        ratio is not None
        and ratio >= SAME_TEXT_MIN_RATIO
        and not figure_changes(old.text, new.text)
    )


def _unanswered(
    root: Path,
    labels: list[tuple[int, dict[str, Any]]],
    vanished: tuple[Vanished, ...],
    carries: tuple[Carry, ...],
    blocked: tuple[Blocked, ...],
    retired: tuple[Retired, ...],
) -> tuple[Unanswered, ...]:
    """The questions applying the check would leave without a relevant label, in file order."""
    gone = {(v.qid, v.document, v.section, v.version) for v in vanished if v.moved_to is None}
    gone |= {(r.qid, r.document, r.section, r.version) for r in retired}
    kept = {
        lab["qid"]
        for _, lab in labels
        if lab["grade"] >= 1
        and (lab["qid"], lab["document"], lab["section"], lab["version"]) not in gone
    }
    kept |= {c.qid for c in carries}
    out = []
    for n, q in enumerate(read_rows(root, QUESTIONS_FILE), start=1):
        qid = q["qid"]
        if qid in kept:
            continue
        lost = tuple(
            clause_id(lab["document"], lab["section"], lab["version"])
            for _, lab in labels
            if lab["qid"] == qid and lab["grade"] >= 1
        )
        out.append(Unanswered(qid, n, lost, tuple(b for b in blocked if b.qid == qid)))
    return tuple(out)


def _renumbered(old: Clause, sections: dict[str, Clause]) -> Clause | list[str] | None:
    """The one clause of a newer version that is `old` renumbered (the same clause by the rule
    above: heading, text ratio, figures), the sections when several match, None when none."""
    hits = [c for c in sections.values() if _same(old, c)]
    if len(hits) > 1:
        return sorted(c.section for c in hits)
    return hits[0] if hits else None


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
        base = Change(
            kind="remove",
            who=who,
            qid=v.qid,
            document=v.document,
            section=v.section,
            version=v.version,
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
                Change(
                    kind="move",
                    who=who,
                    qid=v.qid,
                    document=v.document,
                    section=v.moved_to,
                    version=v.version,
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
            Change(
                kind="carry",
                who=who,
                qid=c.qid,
                document=c.document,
                section=c.target,
                version=c.to_version,
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
        gone = retire.get((row["qid"], row["document"], row["section"], row["version"]))
        if gone is None:
            continue
        row["grade"] = 0
        changes.append(
            Change(
                kind="change",
                who=who,
                qid=gone.qid,
                document=gone.document,
                section=gone.section,
                version=gone.version,
                old_grade=gone.grade,
                new_grade=0,
                reason=f"{reason}: retired, the question asks about {gone.asked} and the "
                "retriever's filter never returns this clause",
            )
        )
    questions = _questions(root, move)
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
                Change(
                    kind="remove",
                    who=who,
                    qid=row["qid"],
                    document=row["document"],
                    section=row["section"],
                    version=row["version"],
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


def unanswered_fix(u: Unanswered) -> str:
    """What a question left without a relevant label needs, for a one-line refusal."""
    what = f"question {u.qid!r} would have no label with grade >= 1"
    if u.lost:
        what += f" once its label(s) {', '.join(u.lost)} are removed (vanished) or retired "
        what += "(another version)"
    options = [
        f"carry {b.document}/{b.section} to {b.target} after reading the change "
        f"(--carry {u.qid}:{b.document}/{b.section})"
        for b in u.blocked
        if b.target is not None
    ]
    options += [
        f"label a clause of its version that answers it (--label {u.qid}:DOC/SECTION=GRADE)",
        f"or retire the question (--retire-question {u.qid})",
    ]
    return f"{what}; {', '.join(options)}"


def decision_sheet(dataset_dir: str | Path, result: CheckResult) -> pd.DataFrame:
    """The labels `result` left for a person that have a clause to go to, as judging-sheet rows
    (`SHEET_COLUMNS`): the question (asking about its new version), the candidate clause of that
    version with its text and key, `existing_grade` empty, `prelabel` the old label's grade and
    `prelabel_source` where it came from and why it was not carried. A person fills `grade`;
    `decided_labels` reads the sheet back for `apply_check`'s `label`."""
    root = Path(dataset_dir)
    questions = {q["qid"]: q for q in _questions(root, dict(result.moved))}
    clauses = {(c.document, c.section, c.version): c for d in load_corpus(root) for c in d.clauses}
    rows = []
    for b in result.blocked:
        if b.target is None:
            continue
        q, c = questions[b.qid], clauses[(b.document, b.target, b.to_version)]
        text = clause_text(c)
        rows.append(
            {
                "qid": b.qid,
                "question": q["text"],
                "slice": q["slice"],
                "version": b.to_version,
                "document": b.document,
                "section": b.target,
                "clause_version": b.to_version,
                "clause_text": text,
                "prelabel": str(b.grade),
                "prelabel_source": f"{clause_id(b.document, b.section, b.from_version)}: "
                f"{b.reason}",
                "clause_key": clause_key(b.document, b.target, b.to_version, text),
            }
        )
    return pd.DataFrame(rows, columns=list(SHEET_COLUMNS), dtype=object).fillna("")


def decided_labels(dataset_dir: str | Path, result: CheckResult, sheet: Sheet) -> list[Decision]:
    """The graded rows of a decision sheet (`decision_sheet`, filled by a person) as `label`
    decisions for `apply_check`, each with the row's judge cell as who decided: each row's
    clause must be of the version its question asks about (after the move) and match its
    `clause_key` when it has one; empty grades are skipped."""
    sheet.require(["qid", "document", "section", "clause_version", "grade"])
    root = Path(dataset_dir)
    asked = {q["qid"]: q["version"] for q in _questions(root, dict(result.moved))}
    texts = {
        (c.document, c.section, c.version): clause_text(c)
        for d in load_corpus(root)
        for c in d.clauses
    }
    out = []
    for i, row in enumerate(sheet.rows.to_dict("records")):
        if row["grade"] == "":
            continue
        qid, doc, sec, ver = row["qid"], row["document"], row["section"], row["clause_version"]
        if row["grade"] not in ("0", "1", "2"):
            sheet.fail(f"grade {row['grade']!r} is not 0, 1 or 2; fix the cell", i, "grade")
        if qid not in asked:
            sheet.fail(f"unknown question {qid!r}; {hint(qid, list(asked))}fix the cell", i, "qid")
        if ver != asked[qid]:
            sheet.fail(
                f"clause version {ver!r}, but {qid} asks about version {asked[qid]!r}; grade a "
                "clause of the question's version (write the sheet again with --sheet)",
                i,
                "clause_version",
            )
        key = row.get("clause_key", "")
        text = texts.get((doc, sec, ver))
        if text is not None and key and key != clause_key(doc, sec, ver, text):
            sheet.fail(
                f"clause_key is not {clause_id(doc, sec, ver)}'s: the id was reformatted or the "
                "clause changed; write the sheet again with --sheet",
                i,
                "clause_key",
            )
        out.append((qid, doc, sec, int(row["grade"]), row.get("judge", "")))
    return out


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
        base = Change(
            kind="add",
            who=by[0] if by and by[0] else who,
            qid=qid,
            document=doc,
            section=sec,
            version=version,
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
    listed question already in core is left as it is. Returns the qids frozen, in file order."""
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
    frozen = [r["qid"] for r in rows if r["qid"] in wanted and r["subset"] == "rolling"]
    if not frozen:
        return ()
    new_rows = [{**r, "subset": "core"} if r["qid"] in wanted else r for r in rows]
    changes = [Change(kind="freeze", who=who, qid=q, reason=reason) for q in frozen]
    write_dataset_files(root, {QUESTIONS_FILE: jsonl_bytes(new_rows)}, changes, at)
    return tuple(frozen)


def _questions(root: Path, move: Mapping[str, str]) -> list[dict[str, Any]]:
    """The rows of questions.jsonl, those in `move` asking about their new version (an unknown
    qid in `move` is refused)."""
    rows = read_rows(root, QUESTIONS_FILE)
    known_qids = [r["qid"] for r in rows]
    for qid in move:
        if qid not in known_qids:
            raise UserError(
                f"{root / QUESTIONS_FILE}: no question {qid!r} to move; "
                f"{hint(qid, known_qids)}name questions of the set"
            )
    return [{**r, "version": move[r["qid"]]} if r["qid"] in move else r for r in rows]


def _read(
    root: Path, move: Mapping[str, str]
) -> tuple[
    tuple[Document, ...],
    dict[str, str | None],
    dict[str, str | None],
    list[tuple[int, dict[str, Any]]],
]:
    """The snapshot, each question's version and product, and the label rows with their line
    numbers, checked as `load_dataset` does except whether each label's clause exists and is
    one its question may retrieve (what `check_labels` repairs)."""
    slices = tuple(load_meta(root)["slices"])
    documents = load_corpus(root)
    raw = jsonl_bytes(_questions(root, move))
    questions = load_questions(root, raw, slices, documents)
    asked = dict(zip(questions["qid"], questions["version"], strict=True))
    f = DataFile(root, LABELS_FILE)
    rows = f.jsonl(f.read("the graded labels"))
    first: dict[tuple[str, str, str, str], int] = {}
    out = []
    for n, lab in enumerate(rows, start=1):
        f.fields(lab, LABEL_FIELDS, n)
        if lab["grade"] not in GRADES:
            f.fail(f"grade {lab['grade']} is outside {{0, 1, 2}}", n, "grade")
        if lab["qid"] not in asked:
            f.fail(f"unknown qid {lab['qid']!r}: no such question in questions.jsonl", n, "qid")
        key = (lab["qid"], lab["document"], lab["section"], lab["version"])
        if key in first:
            f.fail(f"duplicate label (first on line {first[key]}); keep one row per pair", n, "qid")
        first[key] = n
        out.append((n, lab))
    products = dict(zip(questions["qid"], questions["product"], strict=True))
    return (
        documents,
        {q: (None if v is None else str(v)) for q, v in asked.items()},
        {q: (None if p is None else str(p)) for q, p in products.items()},
        out,
    )


def _vanished(
    n: int,
    lab: dict[str, Any],
    by_doc: dict[tuple[str, str], Document],
    clauses: dict[tuple[str, str], dict[str, Clause]],
    versions: dict[str, list[str]],
) -> Vanished:
    """A vanished label, with the section its text moved to if exactly one clause of its
    version matches the same section in the nearest other version."""
    doc, sec, ver = lab["document"], lab["section"], lab["version"]
    args = (lab["qid"], doc, sec, ver, lab["grade"], n)
    if (doc, ver) not in by_doc:
        return Vanished(*args, None, None)
    others = [w for w in versions.get(doc, []) if w != ver and sec in clauses[(doc, w)]]
    if not others:
        return Vanished(*args, None, None)
    here = version_key(ver)
    ref_version = min(others, key=lambda w: (version_key(w) > here, _distance(w, ver, versions)))
    ref = clauses[(doc, ref_version)][sec]
    matches = []
    for c in by_doc[(doc, ver)].clauses:
        ratio = text_ratio(ref, c)
        if ratio is not None and ratio >= SAME_TEXT_MIN_RATIO:
            matches.append(c.section)
    moved_to = matches[0] if len(matches) == 1 else None
    return Vanished(*args, moved_to, ref.clause_id if moved_to else None)


def _distance(a: str, b: str, versions: dict[str, list[str]]) -> int:
    """How many versions apart `a` and `b` are among all versions of any document."""
    ordered = sorted({v for vs in versions.values() for v in vs} | {a, b}, key=version_key)
    return abs(ordered.index(a) - ordered.index(b))


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
