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

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ragsweep.errors import UserError
from ragsweep.labelling.jsonl import json_objects
from ragsweep.labelling.sheetfile import read_sheet

#: the columns of the rows `read_graded` returns
COLUMNS = ("qid", "document", "section", "version", "grade", "slice", "judge")
#: the Choices control of the Label Studio config `labels export-ls` writes
LS_CHOICES = "grade"


def read_graded(path: Path, column: str = "grade") -> pd.DataFrame:
    """The graded rows of `path` (see the module docstring); `column` is the sheet column that
    holds the grades (`prelabel` for a pre-labelled sheet's model grades)."""
    if not path.is_file():
        raise UserError(f"{path}: no such file; give the path of a label file or a sheet")
    if path.suffix in (".json", ".jsonl"):
        if column != "grade":
            raise UserError(
                f"{path}: field {column!r}: a label file holds one grade per pair, not model "
                "grades beside a judge's; give a pre-labelled sheet (prelabel and grade "
                "columns), or two files: MODEL and HUMAN"
            )
        data = path.read_bytes()
        try:
            text = data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as err:
            raise UserError(
                f"{path}: is not UTF-8 (bad byte at offset {err.start}); save it as UTF-8"
            ) from None
        if not text.strip():
            raise UserError(f"{path}: is empty; give a label file or a judged sheet")
        rows = _label_studio(path, text) if path.suffix == ".json" else _jsonl(path, text)
    else:
        rows = _sheet(path, column)
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
    for n, obj in json_objects(path, text):
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


def _sheet(path: Path, column: str) -> list[dict[str, Any]]:
    """The graded rows of a judging sheet, read by `sheetfile.read_sheet` (CSV or .xlsx)."""
    sheet = read_sheet(path)
    header = list(sheet.rows.columns)
    version = "clause_version" if "clause_version" in header else "version"
    for field in ("qid", "document", "section", version, column):
        if field not in header:
            what = "a pre-labelled sheet" if column == "prelabel" else "a judged sheet"
            sheet.file.fail(
                f"missing column; {what} has the columns qid, document, section, "
                f"clause_version and {column} (regenerate it, or restore the header)",
                1,
                field,
            )
    rows = []
    for i, row in enumerate(sheet.rows.to_dict("records")):
        if not row[column]:
            continue
        rows.append(
            {
                "qid": row["qid"],
                "document": row["document"],
                "section": row["section"],
                "version": row[version],
                "grade": _grade(f"{path}:{sheet.lines[i]}", row[column], column),
                "slice": row.get("slice", ""),
                "judge": row.get("judge", ""),
            }
        )
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
