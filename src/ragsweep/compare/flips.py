"""What flipped in a comparison: per slice, the questions a configuration lost and gained at the
slice's deciding measure, each with its text, its relevant clauses and both systems' top k,
every rank marked judged (with its grade) or unjudged. This is where a "miss" shows as a
correct passage nobody judged (docs/report.md, "What flipped").

    flips = flipped(base_frame, {"256": frame_256}, baseline_name="128", slices=order,
                    deciding={"limits": Measure.parse("recall@5"), ...})
    print(flipped_markdown(report, "256"))        # a pull-request comment's section
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ragsweep.compare.report import FLIP_COLUMNS, Report
from ragsweep.errors import UserError
from ragsweep.measures import Measure
from ragsweep.scoring.ranked import QUESTION_COLUMN, WORDS_COLUMN

LOST, GAINED = "lost", "gained"
#: the mark of a rank whose passage covers clauses none of which is labelled for the question
UNJUDGED = "unjudged"
#: how deep the top lists go for a measure without a cutoff (RR)
RR_DEPTH = 10
#: a difference smaller than this is no change (the same score read back from a CSV file)
_TOLERANCE = 1e-9
_STR_COLUMNS = ("config", "slice", "qid", "change", "measure", "question", "relevant")


def depth(measure: Measure) -> int:
    """How many ranks of each system a flip shows: the measure's cutoff, or `RR_DEPTH`."""
    return measure.k or RR_DEPTH


def _cell(frame: pd.DataFrame, column: str, qid: str, name: str, default: Any) -> Any:
    """The JSON cell `column` of question `qid`, parsed; `default` when the frame lacks the
    column or the cell is empty (runs logged before ragsweep wrote it)."""
    if column not in frame.columns:
        return default
    value = frame.at[qid, column]
    if not isinstance(value, str) or not value:
        return default
    try:
        return json.loads(value)
    except ValueError:
        raise UserError(
            f"configuration {name!r}, question {qid!r}: column {column} must hold JSON as a "
            "configuration run writes it; drop the column to compare without it"
        ) from None


def _text(frame: pd.DataFrame, qid: str) -> str:
    if QUESTION_COLUMN not in frame.columns:
        return ""
    value = frame.at[qid, QUESTION_COLUMN]
    return " ".join(value.split()) if isinstance(value, str) else ""


def _top(
    ranks: Sequence[Sequence[str]], words: Sequence[str], labels: Mapping[str, int] | None, k: int
) -> tuple[str, int]:
    """Up to `k` ranks as text, one line each (`1. c12 [2] "first words ..."`, `3. c77
    [unjudged] "..."`, `4. (no clause) "..."` for a passage that covers no clause), and how
    many of them are unjudged. Without `labels` (frames without the column) no mark."""
    lines, unjudged = [], 0
    for i in range(min(k, max(len(ranks), len(words)))):
        covered = [str(c) for c in ranks[i]] if i < len(ranks) else []
        said = " ".join(str(words[i]).split()) if i < len(words) else ""  # one line a rank
        text = f"{i + 1}. " + (", ".join(covered) if covered else "(no clause)")
        if covered and labels is not None:
            grades = [labels[c] for c in covered if c in labels]
            if grades:
                text += f" [{max(grades)}]"
            else:
                text += f" [{UNJUDGED}]"
                unjudged += 1
        if said:
            text += f' "{said}"'
        lines.append(text)
    return "\n".join(lines), unjudged


def _relevant(labels: Mapping[str, int]) -> str:
    """`c12 (2), c40 (1)`: the clauses labelled relevant, highest grade first, then by id."""
    shown = sorted(((-g, c) for c, g in labels.items() if g >= 1))
    return ", ".join(f"{c} ({-g})" for g, c in shown)


def flipped(
    baseline: pd.DataFrame,
    candidates: Mapping[str, pd.DataFrame],
    *,
    baseline_name: str,
    slices: Sequence[str],
    deciding: Mapping[str, Measure],
) -> pd.DataFrame:
    """The questions each candidate lost and gained (`FLIP_COLUMNS`), per slice of `slices` on
    `deciding[slice]`: a candidate value below the baseline's is `lost`, above `gained`.

    Frames are per-question scores with the same questions (`build_report` checks them); the
    text comes from their `question`, `clauses`, `labels` and `first_words` columns where they
    have them (ids only, or no top lists, where not). A rank is judged when a clause it covers
    is labelled for the question (the labels of both frames, the baseline's first, as the
    bounds merge them), and shows the highest such grade; `unjudged_in_candidate` counts the
    candidate's unjudged ranks in its top k (NA without labels). Rows: candidates in order,
    slices in `slices` order, lost before gained, the largest change first, then by qid.
    """
    base = baseline.set_index(baseline["qid"].astype(str), drop=False)
    keyed: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    for order, (name, frame) in enumerate(candidates.items()):
        cand = frame.set_index(frame["qid"].astype(str), drop=False)
        judged = "labels" in base.columns or "labels" in cand.columns
        for rank, s in enumerate(slices):
            m = deciding[s]
            qids = sorted(base.index[(base["slice"].astype(str) == s).to_numpy()])
            before = pd.to_numeric(base.loc[qids, str(m)]).to_numpy(dtype=np.float64)
            after = pd.to_numeric(cand.loc[qids, str(m)]).to_numpy(dtype=np.float64)
            for qid, b, c in zip(qids, before, after, strict=True):
                if abs(c - b) <= _TOLERANCE:
                    continue
                labels: dict[str, int] = {}
                for who, f in ((baseline_name, base), (name, cand)):
                    for clause, grade in _cell(f, "labels", qid, who, {}).items():
                        labels.setdefault(str(clause), int(grade))
                marks = labels if judged else None
                tops = [
                    _top(
                        _cell(f, "clauses", qid, who, []),
                        _cell(f, WORDS_COLUMN, qid, who, []),
                        marks,
                        depth(m),
                    )
                    for who, f in ((baseline_name, base), (name, cand))
                ]
                row = {
                    "config": name,
                    "slice": s,
                    "qid": qid,
                    "change": LOST if c < b else GAINED,
                    "measure": str(m),
                    "baseline": float(b),
                    "candidate": float(c),
                    "question": _text(base, qid) or _text(cand, qid),
                    "relevant": _relevant(labels),
                    "baseline_top": tops[0][0],
                    "candidate_top": tops[1][0],
                    "unjudged_in_candidate": tops[1][1] if judged else pd.NA,
                }
                keyed.append(((order, rank, c > b, -abs(c - b), qid), row))
    if not keyed:
        return empty()
    rows = [row for _, row in sorted(keyed, key=lambda kr: kr[0])]
    return _typed(pd.DataFrame(rows, columns=list(FLIP_COLUMNS)))


def empty() -> pd.DataFrame:
    """A flips table with no row."""
    return _typed(pd.DataFrame({c: [] for c in FLIP_COLUMNS}))


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """Text as object columns (MLflow's table view looks for them), the values as floats, the
    unjudged count as a nullable integer."""
    text = (*_STR_COLUMNS, "baseline_top", "candidate_top")
    frame = frame.astype({c: object for c in text})
    frame = frame.astype({"baseline": "float64", "candidate": "float64"})
    return frame.astype({"unjudged_in_candidate": "Int64"})


def counts(report: Report, config: str) -> list[tuple[str, Measure, int, int]]:
    """Per slice of the report, in its order: (slice, deciding measure, lost, gained)."""
    mine = report.flipped[report.flipped["config"] == config]
    out = []
    for s in report.slices:
        here = mine[mine["slice"] == s]
        lost = int((here["change"] == LOST).sum())
        out.append((s, report.deciding(s), lost, len(here) - lost))
    return out


def counts_line(report: Report, config: str) -> str:
    """`limits 2 lost, 1 gained; exclusions 1 lost; identifiers none`: one config's flips."""
    parts = []
    for s, _, lost, gained in counts(report, config):
        said = [f"{n} {w}" for n, w in ((lost, LOST), (gained, GAINED)) if n]
        parts.append(f"{s} {', '.join(said) if said else 'none'}")
    return "; ".join(parts)


def shown(report: Report, config: str, slice_: str, change: str, cap: int) -> pd.DataFrame:
    """The first `cap` rows of one configuration, slice and change (largest change first)."""
    f = report.flipped
    here = f[(f["config"] == config) & (f["slice"] == slice_) & (f["change"] == change)]
    return here.head(cap)


def legend(report: Report) -> str:
    """The sentence above every flips table: what a row is and what the marks mean."""
    return (
        f"Questions whose score at the slice's deciding measure changed against "
        f"{report.baseline}, the largest change first; each system's top k (k the measure's "
        f"cutoff, {RR_DEPTH} for RR) as clause ids, `[grade]` where the clauses are labelled for "
        f'the question, `[{UNJUDGED}]` where nobody judged them (a "miss" there may be a '
        "correct passage: judge it before deciding), and the passage's first words."
    )


#: a judged rank's line: its words are dropped from the compact section (the grade says it)
_JUDGED_LINE = re.compile(r'^(\d+\. .* \[\d+\]) ".*"$')


def compact(top: str) -> str:
    """A top-k list with the words of judged ranks dropped: the words matter where nobody
    judged the passage (or it covers no clause), and a pull-request comment has little room."""
    return "\n".join(_JUDGED_LINE.sub(r"\1", line) for line in top.splitlines())


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", "<br>")


def flipped_markdown(report: Report, config: str, per_slice: int = 3, heading: str = "###") -> str:
    """A compact Markdown section for a pull-request comment or a CI job summary: per slice how
    many questions `config` lost and gained, and the first `per_slice` of each with the
    question, its relevant clauses and both top k lists (`compact`: words only where a rank is
    not judged). On the built-in sample, 128 against 256-word chunks at the default 3: about
    32,000 characters (GitHub keeps 65,536 in a comment)."""
    head = [f"{heading} What flipped: {_md(config)} against {_md(report.baseline)}", ""]
    counted = counts(report, config)
    if not any(lost + gained for _, _, lost, gained in counted):
        measures = ", ".join(dict.fromkeys(str(m) for _, m, _, _ in counted))
        return "\n".join([*head, f"No question changed its score ({measures}).", ""])
    rows = ["| slice | measure | lost | gained |", "|---|---|---:|---:|"]
    for s, m, lost, gained in counted:
        rows.append(f"| {_md(s)} | {m} | {lost} | {gained} |")
    lines = [*head, legend(report), "", *rows, ""]
    for s, m, lost, gained in counted:
        if not lost + gained:
            continue
        lines += [f"**{_md(s)}** ({m}): {lost} lost, {gained} gained", ""]
        lines += [
            f"| change | question | relevant | {_md(report.baseline)} top {depth(m)} | "
            f"{_md(config)} top {depth(m)} |",
            "|---|---|---|---|---|",
        ]
        for change, total in ((LOST, lost), (GAINED, gained)):
            picked = shown(report, config, s, change, per_slice)
            for r in picked.itertuples(index=False):
                what = f"{change} {r.baseline:.3f} → {r.candidate:.3f}"
                asked = f"`{_md(r.qid)}` {_md(r.question)}".strip()
                lines.append(
                    f"| {what} | {asked} | {_md(r.relevant) or 'none labelled'} | "
                    f"{_md(compact(r.baseline_top))} | {_md(compact(r.candidate_top))} |"
                )
            if total > len(picked):
                lines.append(f"| {total - len(picked)} more {change} | | | | |")
        lines.append("")
    return "\n".join(lines)
