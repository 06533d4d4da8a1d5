"""Two graders' rows of the same (question, clause) items, checked and paired: the items both
graded and those one side graded, in slice order (docs/labelling.md, two judges).

An item is a label key (qid, document, section, version): a clause of a wording version, never a
chunk. Items one side graded are kept apart, never scored as grade 0. Slices come in the order
given (by default as they first appear), then the overall row `ALL`; items sort by that order,
then the key (string order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ragsweep.errors import UserError
from ragsweep.labelling.kappa import GRADES

#: the columns that identify a label: a clause of a wording version, for one question
KEY = ("qid", "document", "section", "version")
#: the name of the overall row
ALL = "all"


def _check_frame(df: pd.DataFrame, name: str) -> pd.DataFrame:
    """The key and grade columns of a grader's rows, checked: grades 0-2, one row per item."""
    for col in (*KEY, "grade"):
        if col not in df.columns:
            raise UserError(
                f"{name}: field {col!r} is missing; label rows need qid, document, section, "
                "version and grade"
            )
    out = df[[*KEY, "grade"]].copy()
    bad = ~out["grade"].isin(GRADES) | out["grade"].map(lambda g: isinstance(g, bool))
    if bad.any():
        qid, value = out.loc[bad, ["qid", "grade"]].values.tolist()[0]
        raise UserError(
            f"{name}: field 'grade': {value!r} for question {qid!r} is not one of "
            "0, 1, 2 (2 answers fully, 1 supports, 0 not relevant); fix the grade"
        )
    out["grade"] = out["grade"].astype(np.int64)
    for col in KEY:
        out[col] = out[col].astype(str)
    dup = out.duplicated(list(KEY))
    if dup.any():
        r = out[dup].iloc[0]
        raise UserError(
            f"{name}: field 'qid': two grades for question {r['qid']!r} and clause "
            f"{r['document']}/{r['section']}@{r['version']}; keep one row per pair"
        )
    return out


def pair_graders(
    a: pd.DataFrame,
    b: pd.DataFrame,
    slices: Mapping[str, str],
    order: Sequence[str] | None,
    names: tuple[str, str],
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The items both graded (slice, key, grade_a, grade_b), the one-sided items (slice, key,
    grade, graded_by) and the slice order; both frames sorted in item order."""
    if len(names) != 2 or names[0] == names[1]:
        raise UserError(f"grader names must be two different strings, got {names!r}")
    fa, fb = _check_frame(a, names[0]), _check_frame(b, names[1])
    for name, frame in ((names[0], fa), (names[1], fb)):
        missing = sorted(set(frame["qid"]) - set(slices))
        if missing:
            raise UserError(
                f"{name}: field 'qid': question {missing[0]!r} has no slice "
                f"({len(missing)} such); pass a slice for every graded question "
                "(questions.jsonl's slice field)"
            )
    groups = list(dict.fromkeys(slices.values())) if order is None else list(order)
    if len(set(groups)) != len(groups) or ALL in groups:
        raise UserError(f"slice order must list each slice once and not {ALL!r}: {groups}")
    used = {slices[q] for q in pd.concat([fa["qid"], fb["qid"]])}
    unknown = sorted(used - set(groups))
    if unknown:
        raise UserError(
            f"slice {unknown[0]!r} is missing from the slice order {groups}; add it to `order`"
        )
    merged = fa.merge(fb, on=list(KEY), how="outer", suffixes=("_a", "_b"), indicator=True)
    merged.insert(0, "slice", merged["qid"].map(slices))
    rank = {s: i for i, s in enumerate(groups)}
    merged["_rank"] = merged["slice"].map(rank)
    merged = merged.sort_values(["_rank", *KEY], kind="mergesort").reset_index(drop=True)
    both = merged[merged["_merge"] == "both"].copy()
    both["grade_a"] = both["grade_a"].astype(np.int64)
    both["grade_b"] = both["grade_b"].astype(np.int64)
    both = both[["slice", *KEY, "grade_a", "grade_b"]].reset_index(drop=True)
    sided = merged[merged["_merge"] != "both"].copy()
    is_a = sided["_merge"] == "left_only"
    sided["grade"] = np.where(is_a, sided["grade_a"], sided["grade_b"]).astype(np.int64)
    sided["graded_by"] = np.where(is_a, names[0], names[1])
    sided = sided[["slice", *KEY, "grade", "graded_by"]].reset_index(drop=True)
    return both, sided, groups
