"""Agreement between two graders of the same (question, clause) pairs, and the model audit.

Conventions:
- An item is a label key (qid, document, section, version): a clause of a wording version,
  never a chunk. Grades are 0 (not relevant), 1 (supports), 2 (answers fully).
- Agreement is counted on the items both graders graded. Items graded by one side only are
  counted per slice (`only_a`, `only_b`) and listed in `one_sided`, never silently dropped, and
  never scored as grade 0: whether an unlabelled pair means "not relevant" is the caller's call.
- Cohen's kappa is computed from the 3x3 confusion matrix with the labels fixed to 0, 1, 2
  (so a grade nobody used still counts), unweighted or with quadratic weights (i - j)^2; it
  matches `sklearn.metrics.cohen_kappa_score(..., labels=[0, 1, 2])`.
- Kappa is undefined (NaN) when the expected disagreement is 0, i.e. both graders gave every
  item the same single grade (expected agreement 1), or when there are no items. Such a row has
  status "undefined": neither "ok" nor flagged as below the threshold, since kappa says nothing
  there (read the raw agreement instead).
- The threshold applies to unweighted kappa (status "below" when kappa < threshold).
- The interval of unweighted kappa is a percentile bootstrap over **questions** (cluster
  resampling: the items of one question are judged together and are not independent):
  `RESAMPLES` resamples of the slice's questions with replacement, seeded (`SEED`, the slice's
  position mixed in), the 2.5th and 97.5th percentiles of the resampled kappas that are defined.
  NaN when kappa is undefined or the slice has a single question.
- Rows are the slices in the order given (`order`, e.g. dataset.json's slices), by default the
  order in which slices first appear in `slices`, then "all". Item lists are sorted by that
  slice order, then qid, document, section, version (string order).
- `weak_slices` turns a dataset's second-reviewer agreement into report notes: a slice where
  judges agree weakly makes differences there measure the labels as much as the retriever.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ragsweep.data import Dataset
from ragsweep.errors import UserError

#: the columns that identify a label: a clause of a wording version, for one question
KEY = ("qid", "document", "section", "version")
GRADES = (0, 1, 2)
#: the name of the overall row
ALL = "all"
#: how kappa is weighted: None (unweighted) or "quadratic"
WEIGHTS = (None, "quadratic")
#: unweighted kappa below this flags a slice (`report.agreement_threshold` in a sweep's report)
THRESHOLD = 0.6
#: the review file (review/<name>.jsonl) a report's agreement check compares with labels.jsonl
REVIEWER = "reviewer2"
#: bootstrap resamples of the kappa interval, its seed and its coverage
RESAMPLES = 2000
SEED = 0
CONFIDENCE = 0.95


def confusion(a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray) -> np.ndarray:
    """3x3 int64 counts: row = grade in `a`, column = grade in `b` (grades 0, 1, 2)."""
    x = _grades(a, "a")
    y = _grades(b, "b")
    if len(x) != len(y):
        raise ValueError(f"grade lists differ in length: {len(x)} and {len(y)}")
    out = np.zeros((len(GRADES), len(GRADES)), dtype=np.int64)
    np.add.at(out, (x, y), 1)
    return out


def kappa_from_confusion(matrix: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa from a 3x3 confusion matrix: 1 - sum(w * O) / sum(w * E), with E the
    product of the margins over n and w = 1 off the diagonal (unweighted) or (i - j)^2
    (quadratic). NaN when undefined: no items, or sum(w * E) = 0 (expected agreement 1)."""
    if weights not in WEIGHTS:
        raise UserError(f"kappa weights must be None or 'quadratic', got {weights!r}")
    m = np.asarray(matrix, dtype=np.float64)
    n = m.sum()
    if n == 0:
        return float("nan")
    i = np.arange(m.shape[0])
    w = (i[:, None] != i[None, :]).astype(np.float64)
    if weights == "quadratic":
        w = (i[:, None] - i[None, :]).astype(np.float64) ** 2
    expected = np.outer(m.sum(axis=1), m.sum(axis=0)) / n
    disagree_expected = float(np.sum(w * expected))
    if disagree_expected == 0.0:
        return float("nan")
    return 1.0 - float(np.sum(w * m)) / disagree_expected


def kappa_interval(
    qids: Sequence[str] | np.ndarray,
    a: Sequence[int] | np.ndarray,
    b: Sequence[int] | np.ndarray,
    *,
    resamples: int = RESAMPLES,
    seed: int | Sequence[int] = SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """Percentile bootstrap interval of unweighted kappa over the questions `qids` (one per
    item, aligned with the grades `a` and `b`): each resample draws as many questions as there
    are, with replacement, and takes all their items. (NaN, NaN) with fewer than two questions
    or when no resample has a defined kappa."""
    x, y = _grades(a, "a"), _grades(b, "b")
    codes, groups = pd.factorize(pd.Series(np.asarray(qids, dtype=object)), sort=True)
    nq = len(groups)
    if nq < 2:
        return float("nan"), float("nan")
    cells = np.zeros((nq, len(GRADES) ** 2), dtype=np.float64)
    np.add.at(cells, (codes, x * len(GRADES) + y), 1.0)
    rng = np.random.default_rng(seed)
    weights = np.zeros((resamples, nq), dtype=np.float64)
    draws = rng.integers(0, nq, size=(resamples, nq))
    np.add.at(weights, (np.repeat(np.arange(resamples), nq), draws.ravel()), 1.0)
    m = (weights @ cells).reshape(resamples, len(GRADES), len(GRADES))
    n = m.sum(axis=(1, 2))
    observed = np.trace(m, axis1=1, axis2=2) / n
    expected = np.einsum("ri,ri->r", m.sum(axis=2), m.sum(axis=1)) / n**2
    with np.errstate(divide="ignore", invalid="ignore"):
        kappas = (observed - expected) / (1.0 - expected)
    kappas = kappas[np.isfinite(kappas) & (expected < 1.0)]
    if kappas.size == 0:
        return float("nan"), float("nan")
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(kappas, [tail, 100 - tail])
    return float(low), float(high)


def cohen_kappa(
    a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray, weights: str | None = None
) -> float:
    """Cohen's kappa of two aligned grade lists (labels 0, 1, 2); NaN when undefined."""
    return kappa_from_confusion(confusion(a, b), weights)


@dataclass(frozen=True, eq=False)
class AgreementReport:
    """Agreement of grader `names[0]` (a) with `names[1]` (b), per slice and overall.

    `table`: one row per slice then "all"; columns slice, n (items both graded), questions
    (questions those items belong to), only_a, only_b (items one side graded), agree (raw
    agreement, share of items with equal grades), kappa, kappa_low, kappa_high (its bootstrap
    interval over questions), kappa_quadratic, status ("ok", "below" or "undefined"), flagged
    (status == "below").
    `disagreements`: slice, qid, document, section, version, grade_a, grade_b, one row per
    item graded differently. `one_sided`: slice, the key, grade, graded_by (a grader's name).
    """

    names: tuple[str, str]
    threshold: float
    table: pd.DataFrame
    disagreements: pd.DataFrame
    one_sided: pd.DataFrame

    def disagreements_in(self, slice_: str) -> pd.DataFrame:
        """The disagreements of one slice, in item order."""
        return self.disagreements[self.disagreements["slice"] == slice_].reset_index(drop=True)


@dataclass(frozen=True, eq=False)
class AuditReport:
    """Model pre-labels (`names[0]`) against human labels (`names[1]`) on the items both graded.

    `table`: one row per slice then "all"; columns slice, n, disagree (items graded
    differently), rate (disagree / n, NaN when n = 0), over_call (model grade above the human's),
    under_call (below), only_model, only_human. `confusion`: 3x3 counts over all items, index
    the model's grade, columns the human's; `confusion_by_slice` the same per slice.
    """

    names: tuple[str, str]
    table: pd.DataFrame
    confusion: pd.DataFrame
    confusion_by_slice: Mapping[str, pd.DataFrame]


def agreement(
    a: pd.DataFrame,
    b: pd.DataFrame,
    slices: Mapping[str, str],
    threshold: float = 0.6,
    *,
    order: Sequence[str] | None = None,
    names: tuple[str, str] = ("a", "b"),
) -> AgreementReport:
    """Cohen's kappa between graders `a` and `b` (columns qid, document, section, version,
    grade; other columns ignored) on the items both graded, per slice (`slices`: qid -> slice)
    and overall. `names` label the graders in messages and in `one_sided`."""
    _check_threshold(threshold)
    both, one_sided, groups = _pair(a, b, slices, order, names)
    rows = []
    for i, group in enumerate([*groups, ALL]):
        part = both if group == ALL else both[both["slice"] == group]
        ga, gb = part["grade_a"].to_numpy(), part["grade_b"].to_numpy()
        m = confusion(ga, gb)
        n = int(m.sum())
        kappa = kappa_from_confusion(m)
        low, high = (
            (float("nan"), float("nan"))
            if np.isnan(kappa)
            else kappa_interval(part["qid"].to_numpy(), ga, gb, seed=(SEED, i))
        )
        status = "undefined" if np.isnan(kappa) else ("below" if kappa < threshold else "ok")
        sided = one_sided if group == ALL else one_sided[one_sided["slice"] == group]
        rows.append(
            {
                "slice": group,
                "n": n,
                "questions": int(part["qid"].nunique()),
                "only_a": int((sided["graded_by"] == names[0]).sum()),
                "only_b": int((sided["graded_by"] == names[1]).sum()),
                "agree": float(np.trace(m) / n) if n else float("nan"),
                "kappa": kappa,
                "kappa_low": low,
                "kappa_high": high,
                "kappa_quadratic": kappa_from_confusion(m, "quadratic"),
                "status": status,
                "flagged": status == "below",
            }
        )
    differ = both[both["grade_a"] != both["grade_b"]].reset_index(drop=True)
    return AgreementReport(
        names=names,
        threshold=float(threshold),
        table=pd.DataFrame(rows),
        disagreements=differ[["slice", *KEY, "grade_a", "grade_b"]],
        one_sided=one_sided,
    )


def weak_slices(
    dataset: Dataset, threshold: float = THRESHOLD, *, slices: Sequence[str] | None = None
) -> list[str]:
    """Report notes, one per slice (in the dataset's slice order) where the second reviewer
    (review/reviewer2.jsonl) and labels.jsonl agree weakly: unweighted kappa below `threshold`
    on the items both graded. `slices` keeps only those a report covers (None: all). Empty
    when the dataset has no reviewer2 file; a slice whose kappa is undefined (no reviewed
    items, or one grade for all) is not flagged."""
    _check_threshold(threshold)
    review = dataset.reviews.get(REVIEWER)
    if review is None:
        return []
    questions = dataset.questions
    of = dict(zip(questions["qid"], questions["slice"], strict=True))
    order = list(dataset.slices)
    single = order == [ALL]  # an imported dataset's one slice is named like the overall row
    if single:
        of, order = {q: "_" for q in of}, ["_"]
    report = agreement(
        review, dataset.labels, of, threshold, order=order, names=(REVIEWER, "labels.jsonl")
    )
    table = report.table
    rows = table[(table["slice"] == ALL) == single]  # the one slice is then the overall row
    keep = None if slices is None else set(slices)
    return [
        f"judges agree weakly on {row.slice} ({REVIEWER} vs labels.jsonl: kappa {row.kappa:.3f} "
        f"< {threshold:g} on {row.n} reviewed items): differences on this slice measure the "
        "labels as much as the retriever; tighten relevance.md and re-judge"
        for row in rows.itertuples(index=False)
        if row.flagged and (keep is None or row.slice in keep)
    ]


def agreement_record(
    report: AgreementReport, *, files: Sequence[str], at: str, labels_hash: str
) -> dict[str, Any]:
    """The JSON record `labels agreement --save` stores as review/agreement.json: the two
    judges and their files, the date, the labelled-set hash it was measured beside, the
    threshold, how the interval was made, and per slice then "all" the items, questions,
    kappa, its interval (null when undefined) and status."""

    def num(x: float) -> float | None:
        return None if np.isnan(x) else round(float(x), 6)

    return {
        "judges": list(report.names),
        "files": list(files),
        "at": at,
        "labels_hash": labels_hash,
        "threshold": report.threshold,
        "interval": {
            "method": "percentile bootstrap over questions",
            "resamples": RESAMPLES,
            "seed": SEED,
            "confidence": CONFIDENCE,
        },
        "slices": [
            {
                "slice": r.slice,
                "items": int(r.n),
                "questions": int(r.questions),
                "kappa": num(r.kappa),
                "low": num(r.kappa_low),
                "high": num(r.kappa_high),
                "status": r.status,
            }
            for r in report.table.itertuples(index=False)
        ],
    }


def stored_notes(
    record: Mapping[str, Any], threshold: float, *, slices: Sequence[str] | None = None
) -> list[str]:
    """Report notes from a stored agreement record (review/agreement.json): first the overall
    kappa with its interval, then one note per slice (of `slices`, None: all) whose kappa is
    below `threshold`."""
    _check_threshold(threshold)
    rows = list(record["slices"])
    judges = " vs ".join(record["judges"])
    measured = f"{judges}, review/agreement.json of {record['at']}"

    def kappa(row: Mapping[str, Any]) -> str:
        low, high = row["low"], row["high"]
        band = "" if low is None else f" {interval_text(low, high)}"
        return f"kappa {row['kappa']:.3f}{band}"

    overall = next(r for r in rows if r["slice"] == ALL)
    notes = [
        f"judge agreement ({measured}): "
        + (
            "kappa undefined"
            if overall["kappa"] is None
            else f"{kappa(overall)} on {overall['items']} items of {overall['questions']} "
            f"questions ({CONFIDENCE:.0%} bootstrap interval over questions)"
        )
    ]
    keep = None if slices is None else set(slices)
    for row in rows:
        if row["slice"] == ALL or row["kappa"] is None or row["kappa"] >= threshold:
            continue
        if keep is not None and row["slice"] not in keep:
            continue
        notes.append(
            f"judges agree weakly on {row['slice']} ({judges}: {kappa(row)} < {threshold:g} on "
            f"{row['items']} items): differences on this slice measure the labels as much as "
            "the retriever; tighten relevance.md and re-judge"
        )
    return notes


def audit(
    model: pd.DataFrame,
    human: pd.DataFrame,
    slices: Mapping[str, str],
    *,
    order: Sequence[str] | None = None,
    names: tuple[str, str] = ("model", "human"),
) -> AuditReport:
    """How model pre-labels differ from human labels on the items both graded, per slice and
    overall: disagreement rate, over-calls (model grade > human grade), under-calls and the
    confusion matrix (rows model grade, columns human grade). Items one side graded are
    counted (only_model, only_human), not scored."""
    both, one_sided, groups = _pair(model, human, slices, order, names)
    rows = []
    by_slice: dict[str, pd.DataFrame] = {}
    overall = pd.DataFrame()
    for group in [*groups, ALL]:
        part = both if group == ALL else both[both["slice"] == group]
        m = confusion(part["grade_a"].to_numpy(), part["grade_b"].to_numpy())
        n = int(m.sum())
        over = int(np.tril(m, -1).sum())  # row (model) grade above column (human) grade
        under = int(np.triu(m, 1).sum())
        sided = one_sided if group == ALL else one_sided[one_sided["slice"] == group]
        rows.append(
            {
                "slice": group,
                "n": n,
                "disagree": n - int(np.trace(m)),
                "rate": float((n - np.trace(m)) / n) if n else float("nan"),
                "over_call": over,
                "under_call": under,
                "only_model": int((sided["graded_by"] == names[0]).sum()),
                "only_human": int((sided["graded_by"] == names[1]).sum()),
            }
        )
        frame = pd.DataFrame(
            m,
            index=pd.Index(GRADES, name=f"{names[0]} grade"),
            columns=pd.Index(GRADES, name=f"{names[1]} grade"),
        )
        if group == ALL:
            overall = frame
        else:
            by_slice[group] = frame
    return AuditReport(
        names=names, table=pd.DataFrame(rows), confusion=overall, confusion_by_slice=by_slice
    )


def render_agreement(report: AgreementReport, max_items: int | None = 10) -> str:
    """Plain-text agreement table, then the disagreements by slice (at most `max_items` per
    slice; None: all) and the one-sided items, for the discussion that tightens the rule."""
    a, b = report.names
    lines = [
        f"Agreement: {a} vs {b} on the items both graded (kappa < {report.threshold:.2f} is "
        "flagged 'below'; 'undefined': kappa is NaN, both gave one same grade to every item; "
        f"interval: {CONFIDENCE:.0%} percentile bootstrap over questions, {RESAMPLES} resamples)",
        "",
    ]
    headers = [
        "slice",
        "n",
        "questions",
        f"only {a}",
        f"only {b}",
        "agree",
        "kappa",
        f"{CONFIDENCE:.0%} interval",
        "kappa_q",
        "status",
    ]
    body = [
        [
            r.slice,
            str(r.n),
            str(r.questions),
            str(r.only_a),
            str(r.only_b),
            _num(r.agree),
            _num(r.kappa),
            interval_text(r.kappa_low, r.kappa_high),
            _num(r.kappa_quadratic),
            r.status,
        ]
        for r in report.table.itertuples(index=False)
    ]
    lines += format_table(headers, body)
    lines += ["", f"Disagreements ({len(report.disagreements)} items, {a} / {b}):"]
    for group in report.table["slice"]:
        if group == ALL:
            continue
        items = report.disagreements_in(group)
        if items.empty:
            continue
        lines.append(f"  {group} ({len(items)}):")
        shown = items if max_items is None else items.head(max_items)
        for r in shown.itertuples(index=False):
            cid = f"{r.document}/{r.section}@{r.version}"
            lines.append(f"    {r.qid}  {cid}  {a}={r.grade_a} {b}={r.grade_b}")
        if len(shown) < len(items):
            lines.append(f"    ... {len(items) - len(shown)} more")
    lines.append("")
    if report.one_sided.empty:
        lines.append("Items graded by one side only: none")
    else:
        lines.append(f"Items graded by one side only ({len(report.one_sided)}, not scored):")
        shown = report.one_sided if max_items is None else report.one_sided.head(max_items)
        for r in shown.itertuples(index=False):
            cid = f"{r.document}/{r.section}@{r.version}"
            lines.append(f"    {r.slice}  {r.qid}  {cid}  {r.graded_by}={r.grade}")
        if len(shown) < len(report.one_sided):
            lines.append(f"    ... {len(report.one_sided) - len(shown)} more")
    return "\n".join(lines)


def render_audit(report: AuditReport) -> str:
    """Plain-text audit: the per-slice table, then the overall confusion matrix."""
    m, h = report.names
    lines = [f"Audit: {m} vs {h} on the items both graded (over-call: {m} grade above {h}'s)", ""]
    headers = ["slice", "n", "disagree", "rate", "over", "under", f"only {m}", f"only {h}"]
    body = [
        [
            r.slice,
            str(r.n),
            str(r.disagree),
            _num(r.rate),
            str(r.over_call),
            str(r.under_call),
            str(r.only_model),
            str(r.only_human),
        ]
        for r in report.table.itertuples(index=False)
    ]
    lines += format_table(headers, body)
    lines += ["", f"Confusion (rows: {m} grade, columns: {h} grade):"]
    grid = [[str(g), *(str(int(v)) for v in report.confusion.loc[g])] for g in GRADES]
    lines += format_table([f"{m}\\{h}", *(str(g) for g in GRADES)], grid)
    return "\n".join(lines)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Lines of a plain-text table: the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = [str(cells[0]).ljust(widths[0])]
        out += [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join(out).rstrip()

    return [line(headers), *(line(r) for r in rows)]


def interval_text(low: float, high: float) -> str:
    """`[0.58, 0.80]`, or `-` when the interval is undefined."""
    return "-" if np.isnan(low) or np.isnan(high) else f"[{low:.2f}, {high:.2f}]"


def _check_threshold(threshold: object) -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise UserError(f"agreement threshold must be a number, got {threshold!r}")


def _num(x: float) -> str:
    return "nan" if np.isnan(x) else f"{x:.3f}"


def _grades(values: Sequence[int] | np.ndarray, what: str) -> np.ndarray:
    """Grades as int64, each one of 0, 1, 2."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{what}: grades must be a flat list, got shape {arr.shape}")
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iuf" or not np.isin(arr, GRADES).all():
        bad = next(v for v in arr.tolist() if v not in GRADES or isinstance(v, bool))
        raise UserError(f"{what}: grade {bad!r} is not one of 0, 1, 2")
    return arr.astype(np.int64)


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


def _pair(
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
