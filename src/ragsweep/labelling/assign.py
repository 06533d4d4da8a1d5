"""Split a judging sheet between several judges, with an overlap every judge grades.

    from ragsweep.labelling.assign import assign
    done = assign(sheet_rows, ["ann", "bob"], overlap=20, seed=0)
    done.sheets["ann"]          # ann's sheet: the overlap questions and her share of the rest

The unit is the **question**: a judge sees every pooled clause of each question given to them
(judging a clause is judging it against the others), and Cohen's kappa is then counted on the
(question, clause) items of the overlap questions, with its interval resampling questions
(`ragsweep.labelling.agreement`). The overlap questions are drawn stratified by slice: shares
proportional to the slice's questions in the sheet (largest remainder), at least one per slice
while there are as many overlap questions as slices. The rest are dealt round-robin, slice by
slice, so every judge gets about as many questions of each slice. Deterministic under `seed`
(questions are sorted before any draw). Docs: docs/labelling.md, "Two judges".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragsweep.errors import UserError


@dataclass(frozen=True, eq=False)
class Assignment:
    """Who judges what: the overlap questions (every judge), each judge's own questions and
    each judge's sheet (the input's rows of their questions, `judge` filled with their name)."""

    judges: tuple[str, ...]
    overlap: tuple[str, ...]
    overlap_by_slice: dict[str, int]
    own: dict[str, tuple[str, ...]]
    sheets: dict[str, pd.DataFrame]


def assign(rows: pd.DataFrame, judges: Sequence[str], overlap: int, seed: int) -> Assignment:
    """Split `rows` (a judging sheet: qid, slice, ..., judge) between `judges` with `overlap`
    questions given to all of them (see the module docstring)."""
    names = [j.strip() for j in judges]
    if len(names) < 2 or any(not j for j in names) or len(set(names)) != len(names):
        raise UserError(
            f"--judges {','.join(judges)!r}: name two or more different judges, e.g. ann,bob"
        )
    slice_of = rows.groupby("qid", sort=True)["slice"].first()
    if overlap < 0 or overlap > len(slice_of):
        raise UserError(
            f"--overlap {overlap}: the sheet has {len(slice_of)} questions; give 0 to "
            f"{len(slice_of)} (questions every judge grades)"
        )
    order = list(dict.fromkeys(rows["slice"]))
    by_slice = {s: sorted(slice_of.index[slice_of == s]) for s in order}
    take = _allocate({s: len(q) for s, q in by_slice.items()}, overlap)
    rng = np.random.default_rng(seed)
    shared: list[str] = []
    rest: list[str] = []
    for s in order:
        picked = rng.permutation(len(by_slice[s]))
        qids = [by_slice[s][i] for i in picked]
        shared += sorted(qids[: take[s]])
        rest += qids[take[s] :]
    own: dict[str, list[str]] = {j: [] for j in names}
    for i, qid in enumerate(rest):
        own[names[i % len(names)]].append(qid)
    sheets = {}
    for j in names:
        mine = set(shared) | set(own[j])
        sheet = rows[rows["qid"].isin(mine)].copy()
        sheet["judge"] = j
        sheets[j] = sheet.reset_index(drop=True)
    return Assignment(
        judges=tuple(names),
        overlap=tuple(sorted(shared)),
        overlap_by_slice={s: take[s] for s in order},
        own={j: tuple(sorted(q)) for j, q in own.items()},
        sheets=sheets,
    )


def _allocate(sizes: dict[str, int], total: int) -> dict[str, int]:
    """`total` split over slices in proportion to `sizes` (largest remainder, ties in slice
    order), at least one per non-empty slice while `total` allows, never more than a slice has."""
    out = {s: 0 for s in sizes}
    if total == 0:
        return out
    nonempty = [s for s, n in sizes.items() if n]
    if total >= len(nonempty):
        for s in nonempty:
            out[s] = 1
    left = total - sum(out.values())
    whole = sum(sizes.values())
    while left > 0:
        # the slice furthest below its proportional share, with room left
        gap = {s: total * sizes[s] / whole - out[s] for s in sizes if out[s] < sizes[s]}
        best = max(gap, key=lambda s: (gap[s], -list(sizes).index(s)))
        out[best] += 1
        left -= 1
    return out
