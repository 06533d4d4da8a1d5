"""Keeping labels in step with the corpus: vanished clauses, carrying labels to a newer wording
version, and freezing rolling questions into the core set.

A question asks about one wording version (`version` in questions.jsonl), and a label is
anchored to one clause of one version: the same section in another version is another clause
(docs/schema.md). In the data, every label with grade >= 1 sits in its question's version;
labels on another version are grade 0, the wrong-version clauses a judge rejected.

**Vanished**: a label whose clause (document, section, version) is no longer in the snapshot
(the wording was replaced and the section removed or renumbered). `load_dataset` refuses such a
folder, so `check_labels` reads it without that check. A vanished label is **moved** when its
text can be found again under another section number of the same version: the reference text
is the same section in the nearest other version of the document (the vanished text itself is
gone), and exactly one clause of the label's version must match it by the rule below. Otherwise
it is **removed**. Both are applied by `apply_check`, and the review files follow (their rows
on a moved pair are re-anchored, on a removed pair dropped; review/pool.jsonl's pairs on a
clause no longer in the snapshot follow a move or are dropped), so the folder loads again.

**Carrying**: a label (q, document, section, v) is carried to (q, document, section, V) (or,
when V has no such section, to the one clause of V that is the same clause renumbered) when
question q asks about V, v is older than V (`version_key` order), q has no label on that clause
yet, the label's grade is >= `CARRY_MIN_GRADE`, and the clause in V is the same clause by the
rule below. Of several older labels on the same section, the newest version's is carried.
Grade 0 is never carried (nor reported): on another version it records the wrong-version
rejection, which says nothing about the same section in the question's version. A label of
grade >= 1 on another version than its question's is **retired** (grade set to 0, logged): the
version filter never retrieves it, and left relevant it would cap the question's recall. A question
that a review file grades is never given a new pair (review files grade exactly the pairs
labels.jsonl judges); such a carry is reported as blocked, as are clauses whose heading or text
changed too much.

**Same clause**: headings equal after `normalise`, `rapidfuzz.fuzz.ratio` of the normalised
texts >= `SAME_TEXT_MIN_RATIO` (0-100), and the same figures in the same order (`figures`:
amounts, numbers, percentages, durations, dates). A rewritten clause fails the ratio; a changed
amount ("£50" to "£75") passes it (99.5) but is never carried: the difference that matters most
is shown (`figure_changes`, "£50 -> £75") and the label left for a person.

`apply_check` refuses (nothing written) when the folder changed since the check or when a
question would be left without a label of grade >= 1; every change goes to the changelog of
`ragsweep.labelling.sheets`, as do `freeze`'s (kind `freeze`).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rapidfuzz import fuzz

from ragsweep.data import Clause, Document, clause_id, load_dataset, version_key
from ragsweep.data.corpus import load_corpus
from ragsweep.data.labels import LABEL_FIELDS
from ragsweep.data.manifest import check_manifest
from ragsweep.data.meta import load_meta
from ragsweep.data.questions import load_questions
from ragsweep.data.reader import DataFile, hint
from ragsweep.data.schema import GRADES, LABELS_FILE, POOL_FILE, QUESTIONS_FILE, REVIEW_FILES
from ragsweep.errors import UserError
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

    @property
    def target(self) -> str:
        """The section the label lands on in `to_version`."""
        return self.to_section or self.section


@dataclass(frozen=True)
class Blocked:
    """A label that would be carried but is not, and why."""

    qid: str
    document: str
    section: str
    from_version: str
    to_version: str
    grade: int
    reason: str


@dataclass(frozen=True)
class Retired:
    """A relevant label on another version than its question asks about: the version filter
    never retrieves it, so `apply_check` sets its grade to 0 (a wrong-version rejection)."""

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

    @property
    def questions(self) -> tuple[str, ...]:
        """The questions the carried labels apply to, sorted."""
        return tuple(sorted({c.qid for c in self.carries}))

    @property
    def clean(self) -> bool:
        """Nothing to apply."""
        return not self.vanished and not self.carries and not self.retired


def check_labels(dataset_dir: str | Path) -> CheckResult:
    """Dry run: the vanished labels and the labels to carry (see the module docstring). Reads
    the folder without changing it; every file but labels.jsonl's anchors is checked as
    `load_dataset` does."""
    root = Path(dataset_dir)
    documents, questions, labels = _read(root)
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
        if asked is None or ver == asked or (doc, asked) not in by_doc:
            continue
        if lab["grade"] >= 1:
            retired.append(Retired(lab["qid"], doc, sec, ver, asked, lab["grade"], n))
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
        if new is None:
            renumbered = _renumbered(old, clauses[(doc, asked)])
            if isinstance(renumbered, Clause):
                new = renumbered
        ratio = None if new is None else text_ratio(old, new)
        to_section = None if new is None or new.section == sec else new.section
        if to_section is not None and (qid, doc, to_section, asked) in judged:
            continue  # the renumbered clause is judged already
        if new is None:
            why = f"corpus/{doc}@{asked}.json has no section {sec!r}"
            if renumbered:
                why += f" and several clauses match its text ({', '.join(renumbered)})"
            blocked.append(Blocked(*args, why))
        elif ratio is None:
            blocked.append(Blocked(*args, f"heading changed: {old.heading!r} -> {new.heading!r}"))
        elif ratio < SAME_TEXT_MIN_RATIO:
            blocked.append(
                Blocked(*args, f"text changed: ratio {ratio:.1f} < {SAME_TEXT_MIN_RATIO:g}")
            )
        elif changed := figure_changes(old.text, new.text):
            blocked.append(
                Blocked(
                    *args,
                    f"figures changed: {', '.join(changed)}; a person decides whether the "
                    "label still holds (label it by hand)",
                )
            )
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
    return CheckResult(tuple(vanished), tuple(carries), tuple(blocked), tuple(retired))


def _renumbered(old: Clause, sections: dict[str, Clause]) -> Clause | list[str] | None:
    """The one clause of a newer version that is `old` renumbered (the same clause by the rule
    above: heading, text ratio, figures), the sections when several match, None when none."""
    hits = [
        c
        for c in sections.values()
        if (r := text_ratio(old, c)) is not None
        and r >= SAME_TEXT_MIN_RATIO
        and not figure_changes(old.text, c.text)
    ]
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
) -> tuple[Change, ...]:
    """Apply a `check_labels` result, all or nothing: move or remove the vanished labels (and
    their review rows), add the carried ones, log each change. `result` must still be what
    `check_labels` finds now. Returns the changelog entries written (none when clean)."""
    root = Path(dataset_dir)
    check_stamp(at, who, "apply_check")
    if check_labels(root) != result:
        raise UserError(
            f"apply_check: {root}: the dataset changed since the check; run check_labels again "
            "and apply its result"
        )
    if result.clean:
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
                reason=f"{reason}: same clause in version {c.to_version} (ratio {c.ratio:.1f})"
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
                reason=f"{reason}: retired, the question asks about version {gone.asked} and "
                "the version filter never retrieves this clause",
            )
        )
    questions = read_rows(root, QUESTIONS_FILE)
    answered = {r["qid"] for r in new_rows if r["grade"] >= 1}
    for n, q in enumerate(questions, start=1):
        if q["qid"] not in answered:
            lost = [v.clause_id for v in result.vanished if v.qid == q["qid"]] + [
                clause_id(r.document, r.section, r.version)
                for r in result.retired
                if r.qid == q["qid"]
            ]
            DataFile(root, QUESTIONS_FILE).fail(
                f"question {q['qid']!r} would have no label with grade >= 1 once its label(s) "
                f"{', '.join(lost)} are removed (vanished) or retired (another version than "
                f"it asks about); label a clause of its version that answers it in "
                "labels.jsonl, or retire the question (remove it), then check again",
                n,
                "qid",
            )
    files = {LABELS_FILE: jsonl_bytes(order_labels(new_rows, [q["qid"] for q in questions]))}
    for name in REVIEW_FILES:
        rel = f"review/{name}.jsonl"
        if (root / rel).is_file():
            data = jsonl_bytes(_reanchor(read_rows(root, rel), moved))
            if data != (root / rel).read_bytes():
                files[rel] = data
    pool = f"review/{POOL_FILE}"
    if (root / pool).is_file():
        data = jsonl_bytes(_repooled(read_rows(root, pool), result, load_corpus(root)))
        if data != (root / pool).read_bytes():
            files[pool] = data
    write_dataset_files(root, files, changes, at)
    return tuple(changes)


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


def _read(
    root: Path,
) -> tuple[tuple[Document, ...], dict[str, str | None], list[tuple[int, dict[str, Any]]]]:
    """The snapshot, each question's version, and the label rows with their line numbers,
    checked as `load_dataset` does except whether each label's clause exists."""
    slices = tuple(load_meta(root)["slices"])
    documents = load_corpus(root)
    raw = DataFile(root, QUESTIONS_FILE).read("the questions of the labelled set")
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
    return documents, {q: (None if v is None else str(v)) for q, v in asked.items()}, out


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
