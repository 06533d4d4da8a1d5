"""Label upkeep, the check: which labels no longer fit the corpus or their question's wording
version, and what to do with each (docs/labelling.md, "4. Keep the set alive"). `check_labels`
is a dry run; `ragsweep.labelling.upkeep_apply.apply_check` writes its result.

A label is anchored to one clause of one version (docs/schema.md). **Vanished**: its clause is no
longer in the snapshot; it is moved when exactly one clause of its version has the text of the
same section in the nearest other version, else removed. **Carry**: a relevant label on an older
version is carried to the version its question asks about when the clause there is the same
clause (`ragsweep.labelling.sameclause`; renumbered: onto the one clause that is), else it is
**blocked** with why. **Retired**: a relevant label on a clause its question may not retrieve
is set to 0. **Unanswered**: a question left without a relevant label is named with its fixes.
`check_labels(root, move)` checks as if the questions in `move` asked about their new version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragsweep.data import Clause, Document, admits, clause_id, version_key
from ragsweep.data.corpus import load_corpus
from ragsweep.data.labels import LABEL_FIELDS, LABEL_OPTIONAL
from ragsweep.data.meta import load_meta
from ragsweep.data.questions import load_questions
from ragsweep.data.reader import DataFile, hint
from ragsweep.data.schema import GRADES, LABELS_FILE, QUESTIONS_FILE
from ragsweep.errors import UserError
from ragsweep.labelling.labelfiles import jsonl_bytes, read_rows, reviewed
from ragsweep.labelling.sameclause import (
    SAME_TEXT_MIN_RATIO,
    figure_changes,
    renumbered,
    same_clause,
    text_ratio,
)

#: least grade a label needs to be carried to a newer version
CARRY_MIN_GRADE = 1


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
        elsewhere = None
        if new is None or not same_clause(old, new):
            elsewhere = renumbered(old, clauses[(doc, asked)])
            if isinstance(elsewhere, Clause):
                new = elsewhere
        ratio = None if new is None else text_ratio(old, new)
        to_section = None if new is None or new.section == sec else new.section
        if to_section is not None and (qid, doc, to_section, asked) in judged:
            continue  # the renumbered clause is judged already
        target = None if new is None else new.section
        if new is None:
            why = f"corpus/{doc}@{asked}.json has no section {sec!r}"
            if elsewhere:
                why += f" and several clauses match its text ({', '.join(elsewhere)})"
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


def questions_after(root: Path, move: Mapping[str, str]) -> list[dict[str, Any]]:
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
    raw = jsonl_bytes(questions_after(root, move))
    questions = load_questions(root, raw, slices, documents)
    asked = dict(zip(questions["qid"], questions["version"], strict=True))
    f = DataFile(root, LABELS_FILE)
    rows = f.jsonl(f.read("the graded labels"))
    first: dict[tuple[str, str, str, str], int] = {}
    out = []
    for n, lab in enumerate(rows, start=1):
        f.fields(lab, {**LABEL_FIELDS, **LABEL_OPTIONAL}, n, optional=list(LABEL_OPTIONAL))
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


def questions_to_move(
    dataset_dir: str | Path,
    to: str,
    *,
    from_version: str | None = None,
    product: str | None = None,
) -> list[str]:
    """The qids of the questions not yet asking about version `to`, of version `from_version`
    and of `product` (None: any), in file order."""
    return [
        r["qid"]
        for r in read_rows(Path(dataset_dir), QUESTIONS_FILE)
        if r["version"] != to
        and from_version in (None, r["version"])
        and product in (None, r["product"])
    ]


def check_lines(found: CheckResult, decided: set[str], *, applying: bool) -> tuple[list[str], str]:
    """What `found` holds, a line per finding (vanished, carry, retire, not carried, and the
    unanswered questions not in `decided`, the qids a person's decisions settle), and the
    summary line; `applying`: the summary does not offer --apply."""
    lines = []
    for v in found.vanished:
        fate = f"moves to section {v.moved_to}" if v.moved_to else "is removed"
        lines.append(
            f"vanished: {v.qid} {v.document}/{v.section}@{v.version} (grade {v.grade}) {fate}"
        )
    for c in found.carries:
        # only identical texts read 100: 99.5 is not rounded up to "the same"
        alike = "identical" if c.ratio >= 100 else f"{min(c.ratio, 99.9):.1f}% alike, figures equal"
        where = f"{c.section} -> {c.to_section} (renumbered)" if c.to_section else c.section
        lines.append(
            f"carry: {c.qid} {c.document}/{where} grade {c.grade} from {c.from_version} to "
            f"{c.to_version} (text {alike})"
        )
    for r in found.retired:
        lines.append(
            f"retire: {r.qid} {r.document}/{r.section}@{r.version} grade {r.grade} -> 0: the "
            f"question asks about {r.asked}"
        )
    for b in found.blocked:
        lines.append(
            f"not carried: {b.qid} {b.document}/{b.section} {b.from_version} -> {b.to_version}: "
            f"{b.reason}"
        )
    lines += [f"unanswered: {unanswered_fix(u)}" for u in found.unanswered if u.qid not in decided]
    settled = sum(u.qid in decided for u in found.unanswered)
    summary = (
        f"{len(found.vanished)} vanished, {len(found.carries)} to carry, {len(found.blocked)} "
        f"not carried, {len(found.retired)} to retire, {len(found.unanswered)} question(s) "
        "left without a relevant label"
        + (f" ({settled} decided on the command line)" if settled else "")
        + ("" if applying or found.clean else "; --apply writes them")
    )
    return lines, summary


def decided_questions(
    found: CheckResult,
    confirm: Sequence[tuple[str, str, str]],
    label: Sequence[Decision],
    retire_questions: Sequence[str],
    retire_unanswered: bool,
) -> set[str]:
    """The qids a person's decisions settle: a confirmed carry, a relevant grade, a retirement
    (`apply_check`'s arguments)."""
    decided = {c[0] for c in confirm} | {c[0] for c in label if c[3] >= 1}
    decided |= set(retire_questions)
    if retire_unanswered:
        decided |= {u.qid for u in found.unanswered}
    return decided
