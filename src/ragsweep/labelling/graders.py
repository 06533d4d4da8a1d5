"""The two graded files `labels agreement` and `labels audit` compare: label files, judging sheets
or Label Studio exports read side by side on the questions both grade, with the graders' names
and each question's slice; and an agreement saved into the dataset (docs/labelling.md,
"5. Two judges" and "6. Auditing model pre-labels").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from ragsweep.data import Dataset, load_dataset
from ragsweep.errors import UserError
from ragsweep.labelling.agreement import AgreementReport, agreement_record
from ragsweep.labelling.graded import read_graded
from ragsweep.labelling.labelfiles import find_file, write_dataset_files
from ragsweep.labelling.sheetfile import read_sheet

#: where `save_agreement` stores the record, relative to the dataset folder
AGREEMENT_RECORD = "review/agreement.json"


class Pair(NamedTuple):
    """Two graded files read for `agreement`/`audit` (see `read_pair`)."""

    dataset: Dataset
    paths: list[Path]
    a: pd.DataFrame
    b: pd.DataFrame
    names: tuple[str, str]
    slices: dict[str, str]
    order: list[str]


def grader(frame: pd.DataFrame, path: Path) -> str:
    """A grader's name: the one judge its rows name, else the file's stem."""
    judges = {j for j in frame["judge"] if j}
    return judges.pop() if len(judges) == 1 else path.stem


def read_pair(
    data: Path, a: str, b: str | None, columns: tuple[str, str] = ("grade", "grade")
) -> Pair:
    """The dataset at `data`, the graded files `a` and `b` (`columns` of each; `b` None: the
    two judges `a` holds, or with a model column `a`'s two columns) on the questions both
    cover, their names, the slice of each question (the set's, else the sheets' slice cell:
    sampled candidates) and the slice order."""
    ds = load_dataset(data)
    paths = [find_file(name, data) for name in (a, b or a)]
    first, second = (read_graded(p, c) for p, c in zip(paths, columns, strict=True))
    names = (grader(first, paths[0]), grader(second, paths[1]))
    if columns[0] == "prelabel":  # a sheet's model grades, whoever judged the sheet
        names = ("prelabel", names[1])
    if b is None and columns == ("grade", "grade"):  # one file, two judges in it
        judges = sorted({j for j in first["judge"] if j})
        if len(judges) != 2:
            raise UserError(
                f"{paths[0]}: field 'judge': names {len(judges)} judge(s) "
                f"({', '.join(judges) or 'none'}); give two files, or one whose grades come "
                "from exactly two judges"
            )
        names = (judges[0], judges[1])
        first, second = first[first["judge"] == judges[0]], second[second["judge"] == judges[1]]
    elif b is None:
        names = columns
    elif names[0] == names[1]:
        names = (f"{names[0]} ({paths[0].name})", f"{names[1]} ({paths[1].name})")
    common = set(first["qid"]) & set(second["qid"])
    if not common:
        raise UserError(
            f"{paths[0]} and {paths[1]}: field 'qid': they grade no question in common; give "
            "two files that grade the same questions"
        )
    first, second = first[first["qid"].isin(common)], second[second["qid"].isin(common)]
    slices = {
        q: s
        for frame in (first, second)
        for q, s in zip(frame["qid"], frame["slice"], strict=True)
        if s
    }
    slices.update(zip(ds.questions["qid"], ds.questions["slice"], strict=True))
    return Pair(ds, paths, first, second, names, slices, list(ds.slices))


def read_audit_pair(data: Path, model: str, human: str | None) -> Pair:
    """`read_pair` for an audit: the model's grades are a sheet's prelabel column (one file, or
    MODEL a sheet with one), else a label file's grades."""
    column = "prelabel" if human is None or _has_prelabels(find_file(model, data)) else "grade"
    return read_pair(data, model, human, (column, "grade"))


def _has_prelabels(path: Path) -> bool:
    """`path` is a sheet with a prelabel column (its model grades), not a label file."""
    if path.suffix in (".json", ".jsonl"):
        return False
    return "prelabel" in read_sheet(path).rows.columns


def save_agreement(root: Path, report: AgreementReport, pair: Pair, at: str) -> Path:
    """Store `report` in the dataset at `root` (`AGREEMENT_RECORD`, `agreement_record`): runs
    scored on it carry the agreement. Its path."""
    record = agreement_record(
        report,
        files=[f.name for f in pair.paths],
        at=at[:10],
        labels_hash=pair.dataset.labels_hash,
    )
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    write_dataset_files(root, {AGREEMENT_RECORD: text.encode("utf-8")}, [], at)
    return root / AGREEMENT_RECORD
