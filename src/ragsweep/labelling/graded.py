"""Graded files as `agreement` and `audit` read them: a label file (JSONL), a judging sheet (CSV,
as `labels pool`/`prelabel` write it or as a judge filled it) or a Label Studio JSON export.

    from ragsweep.labelling.graded import read_graded
    rows = read_graded(Path("ann.csv"))                  # grade column
    model = read_graded(Path("sheet.csv"), "prelabel")    # a pre-labelled sheet's model grades

Every file becomes rows (qid, document, section, version, grade, slice, judge): `version` is the
clause's version (a sheet's `clause_version`), `slice` the sheet's slice cell ("" when the file
has none: the dataset's questions give it), `judge` the sheet's judge cell or the Label Studio
annotator. Rows with an empty grade are not judged and left out. A file that cannot be read
this way is one line (`UserError`): the file, the line and field where known, and the fix.
Label Studio's export is described in docs/labelling.md ("Label Studio").
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pandas as pd

from ragsweep.errors import UserError

#: the columns of the rows `read_graded` returns
COLUMNS = ("qid", "document", "section", "version", "grade", "slice", "judge")
#: the Choices control of the Label Studio config `labels export-ls` writes
LS_CHOICES = "grade"


def read_graded(path: Path, column: str = "grade") -> pd.DataFrame:
    """The graded rows of `path` (see the module docstring); `column` is the sheet column that
    holds the grades (`prelabel` for a pre-labelled sheet's model grades)."""
    if not path.is_file():
        raise UserError(f"{path}: no such file; give the path of a label file or a sheet")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        raise UserError(
            f"{path}: is not UTF-8 (bad byte at offset {err.start}); save it as UTF-8"
        ) from None
    if not text.strip():
        raise UserError(f"{path}: is empty; give a label file or a judged sheet")
    if path.suffix == ".json":
        rows = _label_studio(path, text)
    elif path.suffix == ".jsonl":
        rows = _jsonl(path, text)
    else:
        rows = _sheet(path, text, column)
    if not rows:
        fix = "run `labels prelabel` on it" if column == "prelabel" else "fill its grade column"
        raise UserError(f"{path}: field {column!r}: no row is graded; {fix} (0, 1 or 2)")
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _grade(where: str, value: Any, field: str) -> int:
    text = str(value).strip()
    if isinstance(value, bool) or text not in ("0", "1", "2"):
        raise UserError(
            f"{where}: field {field!r}: {value!r} is not a grade; write 0, 1 or 2 (2 "
            "answers fully, 1 supports, 0 not relevant), or leave it empty (not judged)"
        )
    return int(text)


def _jsonl(path: Path, text: str) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise UserError(
                f"{path}:{n}: invalid JSON ({err.msg}); each line must be one label object"
            ) from None
        if not isinstance(obj, dict):
            raise UserError(f"{path}:{n}: expected one JSON object per line, got {obj!r:.40}")
        for field in ("qid", "document", "section", "version", "grade"):
            if field not in obj:
                raise UserError(
                    f"{path}:{n}: field {field!r} is missing; a label row has qid, document, "
                    "section, version and grade"
                )
        rows.append(
            {
                **{k: str(obj[k]) for k in ("qid", "document", "section", "version")},
                "grade": _grade(f"{path}:{n}", obj["grade"], "grade"),
                "slice": str(obj.get("slice") or ""),
                "judge": str(obj.get("judge") or ""),
            }
        )
    return rows


def _sheet(path: Path, text: str, column: str) -> list[dict[str, Any]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip() for h in next(reader)]
        version = "clause_version" if "clause_version" in header else "version"
        for field in ("qid", "document", "section", version, column):
            if field not in header:
                what = "a pre-labelled sheet" if column == "prelabel" else "a judged sheet"
                raise UserError(
                    f"{path}:1: field {field!r}: missing column; {what} has the columns qid, "
                    f"document, section, clause_version and {column} (regenerate it, or restore "
                    "the header)"
                )
        rows = []
        prev = reader.line_num
        for cells in reader:
            line, prev = prev + 1, reader.line_num
            if not any(c.strip() for c in cells):
                continue
            row = dict(zip(header, (c.strip() for c in cells), strict=False))
            if not row.get(column, ""):
                continue
            rows.append(
                {
                    "qid": row.get("qid", ""),
                    "document": row.get("document", ""),
                    "section": row.get("section", ""),
                    "version": row.get(version, ""),
                    "grade": _grade(f"{path}:{line}", row[column], column),
                    "slice": row.get("slice", ""),
                    "judge": row.get("judge", ""),
                }
            )
    except csv.Error as err:
        raise UserError(
            f"{path}:{reader.line_num}: is not valid CSV ({err}); save it as CSV (UTF-8)"
        ) from None
    return rows


def _label_studio(path: Path, text: str) -> list[dict[str, Any]]:
    """Label Studio's JSON export: a list of tasks, each with `data` (the task `labels
    export-ls` wrote) and `annotations`, each annotation with `completed_by` and `result`, the
    `grade` Choices' `value.choices`. One row per (task, annotation); cancelled annotations and
    annotations without a grade are not judged."""
    shape = (
        "a Label Studio JSON export is a list of tasks with data.qid, data.document, "
        "data.section, data.clause_version and annotations[].result[].value.choices; export "
        "the project as JSON"
    )
    try:
        tasks = json.loads(text)
    except json.JSONDecodeError as err:
        raise UserError(
            f"{path}: invalid JSON at line {err.lineno} column {err.colno} ({err.msg}); {shape}"
        ) from None
    if not isinstance(tasks, list):
        raise UserError(
            f"{path}: expected a list of tasks, got a JSON {type(tasks).__name__}; {shape}"
        )
    rows = []
    for i, task in enumerate(tasks):
        where = f"{path}: task {i}"
        data = task.get("data") if isinstance(task, dict) else None
        if not isinstance(data, dict):
            raise UserError(f"{where}: field 'data' is missing; {shape}")
        for field in ("qid", "document", "section", "clause_version"):
            if field not in data:
                raise UserError(f"{where}: field 'data.{field}' is missing; {shape}")
        annotations = task.get("annotations", [])
        if not isinstance(annotations, list):
            raise UserError(f"{where}: field 'annotations' is not a list; {shape}")
        for j, ann in enumerate(annotations):
            if not isinstance(ann, dict) or not isinstance(ann.get("result", []), list):
                raise UserError(f"{where}: field 'annotations[{j}].result' is not a list; {shape}")
            if ann.get("was_cancelled"):
                continue
            choices = [
                c
                for r in ann.get("result", [])
                if isinstance(r, dict) and r.get("from_name", LS_CHOICES) == LS_CHOICES
                for c in (r.get("value") or {}).get("choices", [])
            ]
            if not choices:
                continue
            if len(choices) > 1:
                raise UserError(
                    f"{where}: field 'annotations[{j}].result': {len(choices)} grades chosen; "
                    "choose one (the config's Choices is single)"
                )
            who = ann.get("completed_by")
            if isinstance(who, dict):
                who = who.get("email") or who.get("id")
            rows.append(
                {
                    "qid": str(data["qid"]),
                    "document": str(data["document"]),
                    "section": str(data["section"]),
                    "version": str(data["clause_version"]),
                    "grade": _grade(where, choices[0], f"annotations[{j}].value.choices"),
                    "slice": str(data.get("slice") or ""),
                    "judge": "" if who is None else str(who),
                }
            )
    return rows
