"""Judged sheets into labels.jsonl: `import_sheets` merges the `grade` column of judging sheets
(CSV or .xlsx, read and their clauses verified by `ragsweep.labelling.sheetfile.read_sheet`),
a further judge's grades as confirmations or disputes, sampled candidates joining the set
(docs/labelling.md, "3. Judge, then import" and "5. Two judges").

All or nothing: every input is checked first, and the first problem raises a one-line
`UserError` (`<sheet>:<line>: field '<field>': <what>; <fix>`, exit code 2) before any file is
written (`ragsweep.labelling.labelfiles.write_dataset_files`).
"""

from __future__ import annotations

import csv
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ragsweep.data import Dataset, admits, clause_id, load_dataset
from ragsweep.data.reader import DataFile, hint, known
from ragsweep.data.schema import GRADES, LABELS_FILE, QUESTIONS_FILE
from ragsweep.errors import DatasetError, UserError
from ragsweep.labelling.graded import read_graded
from ragsweep.labelling.labelfiles import (
    CHANGELOG_FILE,
    SETTING_KINDS,
    Change,
    Key,
    check_stamp,
    find_file,
    jsonl_bytes,
    order_labels,
    read_rows,
    reviewed,
    write_dataset_files,
)
from ragsweep.labelling.sampling import read_candidates
from ragsweep.labelling.scrub import Scrubber
from ragsweep.labelling.sheet_columns import clause_text, same_text
from ragsweep.labelling.sheetfile import read_sheet

#: the columns an import needs; `version`, `note` and `judge` are read when present
REQUIRED_COLUMNS = ("qid", "document", "section", "clause_version", "grade")

_GRADE_RE = re.compile(r"[+-]?\d+")


@dataclass(frozen=True)
class ImportResult:
    """What `import_sheets` did. Counts are over distinct (question, clause) pairs graded in
    the sheets (a pair two sheets grade alike counts once), except `skipped`, the rows left
    ungraded. `changes` are the changelog entries written, in order."""

    added: int
    changed: int
    unchanged: int
    skipped: int
    changes: tuple[Change, ...]
    questions_added: int = 0  # candidates that joined the set (with a clause graded >= 1)
    not_added: tuple[str, ...] = ()  # graded candidates with no relevant clause
    #: pairs graded 1 or 2 on a clause their question may not retrieve (another version or
    #: product), imported as 0 by the relevance rule
    by_rule: tuple[Key, ...] = ()
    #: kind -> items the scrubber replaced in joining texts and judges' notes (never values)
    scrubbed: Mapping[str, int] = field(default_factory=dict)
    #: pairs a further judge graded otherwise than the label's judge: left for adjudication
    disputes: tuple[Dispute, ...] = ()
    confirmed: int = 0  # pairs a further judge graded as the label has it
    #: pairs graded through a row's `same_text_clauses` (the row's grade, its clause's text),
    #: and how many of them the relevance rule set to 0 (not in `by_rule`, the rows' own)
    same_text: int = 0
    same_text_by_rule: int = 0
    #: pairs whose model-made label people graded (their grade replaced the model's), and
    #: with `by_model`, pairs people had labelled, whose labels the model's grade left alone
    audited: int = 0
    kept_people: int = 0
    #: with `by_model`, questions people had labelled whose model grades went to
    #: review/prelabels.jsonl (they count as audited), and the model's grades of pairs their
    #: labels do not judge, left out
    judged_people: int = 0
    not_kept: int = 0


@dataclass(frozen=True)
class Dispute:
    """A pair two judges graded differently: the label's grade and judge (None: a label older
    than the changelog), and the further judge's grade, sheet and line."""

    key: Key
    grade: int
    judge: str | None
    other_grade: int
    other_judge: str
    sheet: str
    line: int


@dataclass(frozen=True)
class _Graded:
    """One graded sheet row, checked."""

    key: Key
    grade: int
    who: str
    note: str | None
    sheet: DataFile
    line: int
    #: the pair whose row graded this one through its `same_text_clauses` (None: its own row)
    twin_of: Key | None = None


def import_sheets(
    dataset_dir: str | Path,
    sheets: Sequence[str | Path],
    *,
    judge: str | None,
    at: str,
    reason: str = "judged sheet",
    candidates: pd.DataFrame | None = None,
    adjudicated: bool = False,
    by_model: bool = False,
) -> ImportResult:
    """Merge the graded rows of judging `sheets` into labels.jsonl, all or nothing.

    Two judges on one pair (docs/labelling.md, "Two judges"): the label's judge is the `who`
    of the last changelog row that set its grade (`SETTING_KINDS`; none: a label older than
    the changelog; the first judge to confirm such a label becomes its judge). A pair already
    labelled and graded again by **another** judge keeps its
    grade: the same grade is logged as `confirm`, a different one as `dispute` and returned in
    `disputes` for a third decision; the label's own judge changing their grade is a `change`.
    With `adjudicated` the sheets hold final decisions: a differing grade replaces the label's
    (`adjudicate`). A judge's grade already in the changelog for the pair is not logged twice.

    `candidates` (qid, text, slice, product, version: questions sampled from the log and pooled,
    not yet in the set) may be graded too: a candidate with at least one clause graded 1 or 2
    joins questions.jsonl as a rolling question (`added` = the date of `at`) with its labels;
    one with none (out of scope, or the wordings do not answer it) is left out and counted in
    `not_added`, since every question of the set must have an answer. A candidate keeps its
    qid (the sample's content hash, which every sheet grading it uses); its text goes through
    `scrub.scrub` as it joins (`scrubbed` counts what that replaced), and so does a row's note
    on its way to the changelog. A sheet's `question` column is never read: a judge who edits
    it changes nothing (the text comes from questions.jsonl or the candidates).

    A row with an empty `grade` is not judged and skipped; every row is still checked against
    the dataset (question, version, clause, grade 0/1/2, one row per pair per sheet, no two
    sheets grading a pair differently). The judge is the row's `judge` cell, else `judge`.
    New pairs are added, changed grades updated, and each of those is logged to the changelog
    (`at`, `reason`, the sheet's file name as source). Nothing is written when nothing changes.

    Model-made labels (docs/schema.md, "Model-made labels"): with `by_model` the grades are a
    model judge's (the row's `judge`, one model across the sheets and the set): a new pair gets
    a label with `model`, a model's label takes the new grade; a question people labelled keeps
    its labels (`kept_people` pairs), and the model's grades of it go to
    review/prelabels.jsonl instead (`judged_people` questions; 0 for a pair it did not grade,
    its grade of a pair the labels do not judge left out, `not_kept`), so the question counts as
    audited. Without it, people's grade on a model's label replaces it (`audited`, logged as a
    `change`: the person is the label's judge now): the label loses `model`, and the model's
    grades of the question's pairs go to review/prelabels.jsonl (0 for a pair the model never
    graded), so the question counts as audited once people graded all of it.
    """
    root = Path(dataset_dir)
    check_stamp(at, judge, "import_sheets")
    if not sheets:
        raise UserError(
            "import_sheets: no sheet given; pass at least one judged sheet (.csv or .xlsx)"
        )
    ds = load_dataset(root)
    extra = _candidates(candidates, ds)
    graded: dict[tuple[str, str, str, str], _Graded] = {}
    skipped = 0
    scrubbed: dict[str, int] = {}
    for sheet in sheets:
        rows, empty = _read_sheet(Path(sheet), ds, judge, extra)
        if not rows and not empty:
            raise UserError(
                f"{sheet}: has a header but no row; give a sheet `labels pool` wrote, judged"
            )
        skipped += empty
        for g in rows:
            if g.note:  # free text a judge typed, bound for the changelog: scrubbed like a log
                clean = Scrubber.for_dataset(root).scrub(g.note)
                for kind, n in clean.counts.items():
                    scrubbed[kind] = scrubbed.get(kind, 0) + n
                g = replace(g, note=clean.text)
            first = graded.get(g.key)
            if first is None or (first.twin_of is not None and g.twin_of is None):
                graded[g.key] = g  # a pair's own row outranks a row of the same text
            elif g.twin_of is not None:
                continue
            elif first.grade != g.grade:
                qid, doc, sec, ver = g.key
                g.sheet.fail(
                    f"grade {g.grade} for question {qid!r} and clause {clause_id(doc, sec, ver)} "
                    f"conflicts with grade {first.grade} in {first.sheet.path}:{first.line}; "
                    "agree on one grade and fix one of the sheets, or import them one at a "
                    "time (a further judge's differing grades go to adjudication)",
                    g.line,
                    "grade",
                )
    graded, zeroed = _relevance_rule(graded, ds, extra)
    by_rule = [k for k in zeroed if graded[k].twin_of is None]
    answered = {g.key[0] for g in graded.values() if g.key[0] in extra and g.grade >= 1}
    not_added = sorted({g.key[0] for g in graded.values() if g.key[0] in extra} - answered)
    graded = {k: g for k, g in graded.items() if k[0] not in extra or k[0] in answered}
    current = read_rows(root, LABELS_FILE)
    index = {
        (r["qid"], r["document"], r["section"], r["version"]): i for i, r in enumerate(current)
    }
    under_review = reviewed(root)
    setter, logged = _label_judges(root)
    if by_model:
        _one_model(root, current, graded.values())
    people = _people_questions(current)
    moved: dict[str, dict[Key, tuple[int, str]]] = {}  # qid -> pair -> (model's grade, model)
    kept_people = audited = 0
    added = changed = unchanged = confirmed = 0
    disputes: list[Dispute] = []
    changes: list[Change] = []
    new_rows: list[dict[str, Any]] = []
    for g in graded.values():
        qid, doc, sec, ver = g.key
        base = Change.on(
            "add",
            g.who,
            g.key,
            new_grade=g.grade,
            reason=reason,
            source=g.sheet.path.name,
            note=g.note,
        )
        i = index.get(g.key)
        if by_model and qid in people:  # people labelled it: the model's grades are an audit's
            moved.setdefault(qid, {})[g.key] = (g.grade, g.who)
            kept_people += i is not None
            continue
        if i is None:
            if qid in under_review:
                g.sheet.fail(
                    f"question {qid!r} is in {under_review[qid]}, which must grade exactly the "
                    f"pairs labels.jsonl judges for it, and clause {clause_id(doc, sec, ver)} is "
                    "not judged yet; drop this row, or take the question out of review/ first",
                    g.line,
                    "qid",
                )
            added += 1
            row = {"qid": qid, "document": doc, "section": sec, "version": ver, "grade": g.grade}
            new_rows.append(row | {"model": g.who} if by_model else row)
            changes.append(base)
        elif by_model:
            if current[i].get("model") is None:  # people outrank the model: their label stays
                kept_people += 1  # (a question mixing both labels: only by hand)
            elif (current[i]["grade"], current[i]["model"]) == (g.grade, g.who):
                unchanged += 1
            else:
                changed += 1
                changes.append(replace(base, kind="change", old_grade=current[i]["grade"]))
                current[i] = {**current[i], "grade": g.grade, "model": g.who}
        elif current[i].get("model") is not None:  # an audit: people's grade replaces the model's
            old, made_by = current[i]["grade"], str(current[i]["model"])
            moved.setdefault(qid, {})[g.key] = (old, made_by)
            audited += 1
            said = f"audit of {made_by}" + (", the same grade" if old == g.grade else "")
            # a change even at the same grade: the person is the label's judge from now on
            changes.append(replace(base, kind="change", old_grade=old, note=g.note or said))
            current[i] = {k: v for k, v in current[i].items() if k != "model"} | {"grade": g.grade}
        else:
            old, judge_of = current[i]["grade"], setter.get(g.key)
            seen = (g.key, g.who, g.grade) in logged
            if old == g.grade:
                unchanged += 1
                if judge_of != g.who and not seen:
                    confirmed += 1
                    changes.append(replace(base, kind="confirm", old_grade=old))
            elif adjudicated or judge_of == g.who:
                changed += 1
                kind = "adjudicate" if adjudicated else "change"
                changes.append(replace(base, kind=kind, old_grade=old))
                current[i] = {**current[i], "grade": g.grade}
            else:
                unchanged += 1
                disputes.append(
                    Dispute(g.key, old, judge_of, g.grade, g.who, g.sheet.path.name, g.line)
                )
                if not seen:
                    changes.append(replace(base, kind="dispute", old_grade=old))
    files: dict[str, bytes] = {}
    qids = list(ds.questions["qid"])
    if answered:
        questions = read_rows(root, QUESTIONS_FILE)
        for qid in sorted(answered):
            c = extra[qid]
            clean = Scrubber.for_dataset(root).scrub(
                str(c["text"])
            )  # a sampled text is scrubbed already: a no-op then
            for kind, n in clean.counts.items():
                scrubbed[kind] = scrubbed.get(kind, 0) + n
            questions.append(
                {
                    "qid": qid,
                    "text": clean.text,
                    "slice": c["slice"],
                    "product": c["product"],
                    "version": c["version"],
                    "subset": "rolling",
                    "added": at[:10],
                }
            )
            qids.append(qid)
            new_question = Change(
                kind="question",
                who=judge or "unknown",
                qid=qid,
                reason="sampled from the query log",
                source="candidates",
            )
            changes.insert(0, new_question)
        files[QUESTIONS_FILE] = jsonl_bytes(questions)
    final = order_labels([*current, *new_rows], qids)
    judged_people = not_kept = 0
    if moved:
        prelabels, written = _audit_prelabels(root, final, moved)
        if written:
            files[PRELABELS] = prelabels
        if by_model:
            judged_people = len(written)
            judged = {(r["qid"], r["document"], r["section"], r["version"]) for r in final}
            not_kept = sum(k not in judged for q in written for k in moved[q])
            changes += [
                Change(
                    "confirm",
                    next(iter(moved[q].values()))[1],
                    q,
                    reason="the model's grades of a question people labelled: its audit",
                    source=PRELABELS,
                )
                for q in sorted(written)
            ]
    if changes:
        if added or changed or answered or audited:
            files[LABELS_FILE] = jsonl_bytes(final)
        write_dataset_files(root, files, changes, at)
    return ImportResult(
        added,
        changed,
        unchanged,
        skipped,
        tuple(changes),
        len(answered),
        tuple(not_added),
        tuple(by_rule),
        scrubbed,
        tuple(disputes),
        confirmed,
        sum(1 for g in graded.values() if g.twin_of is not None),
        sum(1 for k in zeroed if k in graded and graded[k].twin_of is not None),
        audited,
        kept_people,
        judged_people,
        not_kept,
    )


def import_files(
    dataset_dir: str | Path,
    names: Sequence[str],
    *,
    judge: str | None,
    at: str,
    reason: str = "judged sheet",
    candidates: Path | None = None,
    limit: int = 0,
    adjudicated: bool = False,
    by_model: bool = False,
) -> ImportResult:
    """`import_sheets` of the files `names` (as given, else in the dataset folder: `find_file`):
    judged sheets, reviewers' label files (JSONL) and Label Studio JSON exports alike, each
    file that is not a sheet imported as its equivalent sheet (`as_sheet`); `candidates`: the
    file of sampled questions the sheets grade (`dataset_candidates`, at most `limit` per
    slice)."""
    root = Path(dataset_dir)
    with tempfile.TemporaryDirectory(prefix="ragsweep-import-") as tmp:
        sheets = [as_sheet(find_file(name, root), Path(tmp)) for name in names]
        written: dict[str, tuple[Path, list[int]]] = {}
        if by_model:  # the pre-labels are the grades, the model that made them the judge
            for i, sheet in enumerate(sheets):
                sheets[i], lines = model_sheet(sheet, Path(tmp) / f"model-{i}")
                written[str(sheets[i])] = (sheet, lines)
        extra = None if candidates is None else dataset_candidates(root, candidates, limit)
        try:
            return import_sheets(
                root,
                sheets,
                judge=judge,
                at=at,
                reason=reason,
                candidates=extra,
                adjudicated=adjudicated,
                by_model=by_model,
            )
        except DatasetError as err:
            if err.path not in written:
                raise
            # said of the sheet the user gave: its line, and `prelabel` for the model's grade
            given, lines = written[err.path]
            line = err.line if err.line is None or err.line < 2 else lines[err.line - 2]
            field = "prelabel" if err.field == "grade" else err.field
            raise DatasetError(given, err.detail, line=line, field=field) from None


def model_sheet(path: Path, folder: Path) -> tuple[Path, list[int]]:
    """A pre-labelled sheet (`labels prelabel`) as the sheet of its model's grades: `grade` the
    `prelabel` column, `judge` the model its `prelabel_source` names (`model NAME at TIME`); a
    row the model could not grade stays ungraded. Every graded row must name one model.
    Written into `folder` under the sheet's own name (the changelog's source), with the line
    of the given sheet each of its rows comes from."""
    sheet = read_sheet(path)
    sheet.require((*REQUIRED_COLUMNS[:-1], "prelabel", "prelabel_source"))
    rows = sheet.rows.copy()
    models = []
    for i, (grade, source) in enumerate(
        zip(rows["prelabel"], rows["prelabel_source"], strict=True)
    ):
        if not str(grade).strip():
            continue
        found = _MODEL_SOURCE.fullmatch(str(source).strip())
        if found is None:
            sheet.file.fail(
                f"{str(source)[:60]!r} does not name the model that made the pre-label; "
                "pre-label the sheet with `labels prelabel`, or clear the row's prelabel",
                sheet.lines[i],
                "prelabel_source",
            )
        models.append(found.group(1))
    distinct = sorted(set(models))
    if len(distinct) > 1:
        sheet.file.fail(
            f"pre-labels from {len(distinct)} models ({', '.join(distinct[:3])}): import one "
            "model's labels at a time (a correction needs one judge's grades)",
            None,
            "prelabel_source",
        )
    rows["grade"] = rows["prelabel"]
    rows["judge"] = distinct[0] if distinct else ""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{path.stem}.csv"
    rows.to_csv(out, index=False)
    return out, list(sheet.lines)


#: `prelabel_source` of a graded pre-label: `model <labeller>[;thresholds] at <time>`
_MODEL_SOURCE = re.compile(r"model (.+?) at \S+")


def as_sheet(path: Path, folder: Path) -> Path:
    """A judged sheet CSV as given; a label JSONL (a reviewer's file) or a Label Studio JSON
    export (one row per annotation, its annotator the judge) as the equivalent sheet, written
    into `folder`."""
    if path.suffix not in (".jsonl", ".json"):
        return path
    frame = read_graded(path, "grade")
    twice = frame[frame.duplicated(["qid", "document", "section", "version"], keep=False)]
    if not twice.empty:
        r = twice.iloc[0]
        who = ", ".join(sorted(set(twice["judge"][twice["qid"] == r.qid])))
        raise UserError(
            f"{path}: field 'judge': question {r.qid!r} and clause {r.document}/{r.section}@"
            f"{r.version} are graded more than once ({who}); import one annotator's grades at a "
            "time (export per annotator): a later judge's differing grades go to adjudication"
        )
    sheet = folder / f"{path.stem}.csv"
    with sheet.open("w", encoding="utf-8", newline="") as out:
        w = csv.writer(out)
        w.writerow(["qid", "document", "section", "clause_version", "grade", "judge"])
        for r in frame.itertuples(index=False):
            w.writerow([r.qid, r.document, r.section, r.version, r.grade, r.judge])
    return sheet


def dataset_candidates(dataset_dir: str | Path, path: Path, limit: int = 0) -> pd.DataFrame:
    """The questions `labels sample` wrote (`sampling.read_candidates`, checked against the
    dataset's products), at most `limit` per slice (0: all)."""
    ds = load_dataset(dataset_dir)
    products = sorted({d.product for d in ds.documents if d.product is not None})
    frame = read_candidates(path, products)
    if limit:
        frame = frame.groupby("slice", sort=False).head(limit)
    return frame


def _relevance_rule(
    graded: dict[Key, _Graded], ds: Dataset, extra: Mapping[str, Mapping[str, Any]]
) -> tuple[dict[Key, _Graded], list[Key]]:
    """`graded` with every grade of 1 or 2 on a clause its question may not retrieve (another
    version or product than it asks about, `ragsweep.data.admits`) set to 0, as the relevance
    rule says and `load_dataset` requires; the judge's grade goes into the changelog note. And
    the pairs so set, in sheet order."""
    asked = {
        q: (p, v)
        for q, p, v in zip(
            ds.questions["qid"], ds.questions["product"], ds.questions["version"], strict=True
        )
    }
    asked |= {q: (c["product"], c["version"]) for q, c in extra.items()}
    products = {(d.document, d.version): d.product for d in ds.documents}
    out: dict[Key, _Graded] = {}
    zeroed: list[Key] = []
    for key, g in graded.items():
        qid, doc, _, ver = key
        if g.grade >= 1 and not admits(*asked[qid], products[(doc, ver)], ver):
            said = f"judged {g.grade} by {g.who}; another version or product than the question "
            said += "asks about is 0 (relevance rule)"
            g = replace(g, grade=0, note=said if g.note is None else f"{said}; {g.note}")
            zeroed.append(key)
        out[key] = g
    return out, zeroed


def _label_judges(root: Path) -> tuple[dict[Key, str], set[tuple[Key, str, int]]]:
    """From the changelog: who set each label's grade (the last row of `SETTING_KINDS`), and
    every (pair, judge, grade) a row records (`new_grade` of add, change, confirm, dispute,
    adjudicate, carry, move)."""
    setter: dict[Key, str] = {}
    logged: set[tuple[Key, str, int]] = set()
    if not (root / CHANGELOG_FILE).is_file():
        return setter, logged
    for row in read_rows(root, CHANGELOG_FILE):
        if row.get("document") is None or row.get("new_grade") is None:
            continue
        key = (row["qid"], row["document"], row["section"], row["version"])
        logged.add((key, row["who"], row["new_grade"]))
        if row["kind"] in SETTING_KINDS or (row["kind"] == "confirm" and key not in setter):
            setter[key] = row["who"]
    return setter, logged


def _candidates(frame: pd.DataFrame | None, ds: Dataset) -> dict[str, dict[str, Any]]:
    """qid -> candidate question (checked: new qids, known slices, products and versions)."""
    if frame is None or frame.empty:
        return {}
    out: dict[str, dict[str, Any]] = {}
    existing = set(ds.questions["qid"])
    products = {d.product for d in ds.documents if d.product is not None}
    versions = {d.version for d in ds.documents}
    for row in frame.to_dict("records"):
        qid = str(row["qid"])
        product, version = (
            None if v is None or pd.isna(v) or v == "" else str(v)
            for v in (row.get("product"), row.get("version"))
        )
        if qid in existing:
            raise UserError(f"candidate {qid!r} is a question of the set already; drop it")
        if row["slice"] not in ds.slices:
            raise UserError(
                f"candidate {qid!r} has slice {row['slice']!r}, not one of {', '.join(ds.slices)}"
            )
        if product is not None and product not in products:
            raise UserError(f"candidate {qid!r}: no wording has product {product!r}")
        if version is not None and version not in versions:
            raise UserError(f"candidate {qid!r}: no wording has version {version!r}")
        out[qid] = {**row, "qid": qid, "product": product, "version": version}
    return out


#: the model judge's grades of the audited questions (`ragsweep.data.judge`)
PRELABELS = "review/prelabels.jsonl"
_KEY_FIELDS = ("qid", "document", "section", "version")


def _people_questions(rows: Sequence[Mapping[str, Any]]) -> set[str]:
    """The questions people made every label of."""
    made: dict[str, bool] = {}
    for r in rows:
        made[r["qid"]] = made.get(r["qid"], True) and r.get("model") is None
    return {q for q, yes in made.items() if yes}


def _one_model(root: Path, current: Sequence[Mapping[str, Any]], graded: Iterable[_Graded]) -> None:
    """Refuse, in one line, a model import whose sheets name two models, or another model
    than the set's labels and review/prelabels.jsonl already hold: a correction needs one
    judge's grades on every question."""
    mine: dict[str, _Graded] = {}
    for g in graded:
        mine.setdefault(g.who, g)
    if len(mine) > 1:
        a, b = sorted(mine)[:2]
        g = mine[b]
        g.sheet.fail(
            f"grades of model {b!r} beside model {a!r} ({mine[a].sheet.path.name}): import one "
            "model's labels at a time (a correction needs one judge's grades)",
            g.line,
            "prelabel_source",
        )
    if not mine:
        return
    ((who, g),) = mine.items()
    held = {str(r["model"]) for r in current if r.get("model") is not None}
    where = "labels.jsonl"
    if not held and (root / PRELABELS).is_file():
        held = {str(r["model"]) for r in read_rows(root, PRELABELS) if r.get("model") is not None}
        where = PRELABELS
    other = sorted(held - {who})
    if other:
        g.sheet.fail(
            f"the set's {where} holds the grades of model {other[0]!r}, and this sheet is "
            f"{who!r}'s: a correction needs one judge's grades on every question; import that "
            f"model's grades instead, or move {where if where == PRELABELS else 'its model labels'}"
            " aside first",
            g.line,
            "prelabel_source",
        )


def _audit_prelabels(
    root: Path,
    final: Sequence[Mapping[str, Any]],
    moved: Mapping[str, Mapping[Key, tuple[int, str]]],
) -> tuple[bytes, set[str]]:
    """review/prelabels.jsonl with the model's grades of each question in `moved` (qid -> pair
    -> (the model's grade, the model)) that the file does not grade yet, and those questions:
    one row per pair labels.jsonl now judges for it, the model's grade, else the grade of its
    model-made label, else 0 (a pair the model never graded: its labels do not make it
    relevant)."""
    rows = [dict(r) for r in read_rows(root, PRELABELS)] if (root / PRELABELS).is_file() else []
    kept = {r["qid"] for r in rows}
    written: set[str] = set()
    for qid, pairs in moved.items():
        if qid in kept:
            continue  # the model's grades are there already (an audit in two sittings)
        model = next(iter(pairs.values()))[1]
        for r in final:
            if r["qid"] != qid:
                continue
            key = (r["qid"], r["document"], r["section"], r["version"])
            grade = pairs[key][0] if key in pairs else r["grade"] if r.get("model") else 0
            rows.append({**{k: r[k] for k in _KEY_FIELDS}, "grade": grade, "model": model})
            written.add(qid)
    return jsonl_bytes(rows), written


def _read_sheet(
    path: Path, ds: Dataset, judge: str | None, extra: Mapping[str, Mapping[str, Any]]
) -> tuple[list[_Graded], int]:
    """The graded rows of one sheet, every row checked; and how many rows are ungraded."""
    sheet = read_sheet(path, dataset=ds)  # CSV or .xlsx; each row's clause against its key
    sheet.require(REQUIRED_COLUMNS)
    records = sheet.rows.to_dict("records")
    return _check_rows(sheet.file, list(zip(sheet.lines, records, strict=True)), ds, judge, extra)


def _check_rows(
    f: DataFile,
    rows: list[tuple[int, dict[str, str]]],
    ds: Dataset,
    judge: str | None,
    extra: Mapping[str, Mapping[str, Any]],
) -> tuple[list[_Graded], int]:
    """Check each row of a sheet against the dataset and the candidates (see `import_sheets`)."""
    questions = {q: v for q, v in zip(ds.questions["qid"], ds.questions["version"], strict=True)}
    questions.update({q: c["version"] or "" for q, c in extra.items()})
    sections = {(d.document, d.version): {c.section for c in d.clauses} for d in ds.documents}
    clauses = {c.clause_id: c for d in ds.documents for c in d.clauses}
    versions: dict[str, list[str]] = {}
    for d in ds.documents:
        versions.setdefault(d.document, []).append(d.version)
    all_versions = sorted({d.version for d in ds.documents})
    qids = list(questions)
    first: dict[Key, int] = {}
    out: list[_Graded] = []
    skipped = 0
    for line, row in rows:
        qid = row.get("qid", "")
        if qid not in questions:
            f.fail(
                f"unknown question {qid!r}: not in questions.jsonl; {hint(qid, qids)}fix the qid "
                "or add the question first",
                line,
                "qid",
            )
        asked = row.get("version", "")
        if asked:
            if asked not in all_versions:
                f.fail(
                    f"version {asked!r} does not exist: no wording in corpus/ has it; versions: "
                    f"{known(all_versions)}",
                    line,
                    "version",
                )
            if asked != questions[qid]:
                f.fail(
                    f"question {qid!r} asks about version {questions[qid]!r} in questions.jsonl, "
                    f"the sheet says {asked!r}; the sheet is stale: write a new one",
                    line,
                    "version",
                )
        doc, sec, ver = (
            row.get("document", ""),
            row.get("section", ""),
            row.get("clause_version", ""),
        )
        cid = clause_id(doc, sec, ver)
        missing = f"clause {cid} is not in the corpus snapshot: "
        if doc not in versions:
            f.fail(
                f"{missing}there is no document {doc!r}; {hint(doc, sorted(versions))}documents: "
                f"{known(sorted(versions))}",
                line,
                "document",
            )
        if ver not in versions[doc]:
            f.fail(
                f"{missing}version {ver!r} of document {doc!r} does not exist; versions: "
                f"{known(sorted(versions[doc]))}",
                line,
                "clause_version",
            )
        if sec not in sections[(doc, ver)]:
            f.fail(
                f"{missing}corpus/{doc}@{ver}.json has no section {sec!r}; fix the section",
                line,
                "section",
            )
        key = (qid, doc, sec, ver)
        if key in first:
            f.fail(
                f"duplicate row for question {qid!r} and clause {cid} (first on line "
                f"{first[key]}); keep one row per pair",
                line,
                "qid",
            )
        first[key] = line
        raw = row.get("grade", "")
        if not raw:
            skipped += 1
            continue
        if not _GRADE_RE.fullmatch(raw):
            f.fail(
                f"{raw!r} is not a whole number; write 0, 1 or 2 (2 answers fully, 1 supports, "
                "0 not relevant), or leave it empty (not judged)",
                line,
                "grade",
            )
        grade = int(raw)
        if grade not in GRADES:
            f.fail(
                f"grade {grade} is outside {{0, 1, 2}}; write 0, 1 or 2, or leave it empty (not "
                "judged)",
                line,
                "grade",
            )
        who = row.get("judge", "") or (judge or "").strip()
        if not who:
            f.fail(
                "is empty and no judge was given; fill the judge column or pass judge",
                line,
                "judge",
            )
        graded = _Graded(key, grade, who, row.get("note") or None, f, line)
        out.append(graded)
        out.extend(_twins(graded, row.get("same_text_clauses", ""), clauses))
    return out, skipped


def _twins(g: _Graded, cell: str, clauses: Mapping[str, Any]) -> list[_Graded]:
    """The pairs a row grades through its `same_text_clauses` cell (clause ids joined by "; "),
    each checked to be a clause of the corpus with the very text of the row's clause."""
    qid, doc, sec, ver = g.key
    text = same_text(clause_text(clauses[clause_id(doc, sec, ver)]))
    out = []
    for twin in (t.strip() for t in cell.split(";") if t.strip()):
        clause = clauses.get(twin)
        if clause is None or same_text(clause_text(clause)) != text:
            what = "is not a clause of the corpus" if clause is None else "has another text"
            g.sheet.fail(
                f"{twin!r} {what}, so the row's grade cannot apply to it; restore the cell as "
                "`labels pool` wrote it, or empty it",
                g.line,
                "same_text_clauses",
            )
        key = (qid, clause.document, clause.section, clause.version)
        said = f"graded in the row of {clause_id(doc, sec, ver)}, the same text"
        note = said if g.note is None else f"{said}; {g.note}"
        out.append(replace(g, key=key, note=note, twin_of=g.key))
    return out
