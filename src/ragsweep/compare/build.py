"""Building the comparison report from per-question scores: check and pair the frames, compare
them per measure and slice, decide each configuration.

    report = build_report(base_frame, {"256": frame_256}, decision="recall@5", weights=traffic)

The decision rule is `_decide` (docs/report.md); the intervals are `ragsweep.compare.stats`
(docs/statistics.md); the model built is `ragsweep.compare.report.Report`. Every comparison
is made twice when the frames allow it, unjudged passages scored as not relevant and as
relevant (`ragsweep.scoring.bounds`): a cell whose verdict differs reads `needs judging`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ragsweep.compare import judged as judged_part
from ragsweep.compare import ppi, stats
from ragsweep.compare.flips import flipped
from ragsweep.compare.format import interval, signed
from ragsweep.compare.judged import Judged
from ragsweep.compare.report import (
    BETTER,
    CELL_COLUMNS,
    FAILS_GUARD,
    NEEDS_JUDGING,
    NOISE,
    PART_COLUMNS,
    WORSE,
    Decision,
    Report,
)
from ragsweep.conventions import ALL, SLICE_DECISION, UNJUDGED_BOUNDS, WEIGHTED, unjudged_rule
from ragsweep.data.schema import SUBSETS
from ragsweep.errors import UserError
from ragsweep.measures import Measure
from ragsweep.scoring.bounds import has_bounds_columns, if_relevant

_ID_COLUMNS = ("qid", "slice")
#: the audited flags (in the baseline's question order) and each run's judge scores by column
JudgeScores = tuple[np.ndarray, Mapping[str, pd.DataFrame]]


def _as_measure(m: Measure | str) -> Measure:
    return m if isinstance(m, Measure) else Measure.parse(str(m))


def _preview(items: Sequence[str], n: int = 3) -> str:
    shown = ", ".join(str(x) for x in items[:n])
    return shown + (", ..." if len(items) > n else "")


def _check_frame(frame: pd.DataFrame, name: str, columns: Sequence[str]) -> pd.DataFrame:
    """The frame indexed by qid with `slice` and the measure columns, checked."""
    if not isinstance(frame, pd.DataFrame):
        raise UserError(
            f"configuration {name!r}: per-question scores must be a pandas DataFrame, "
            f"got {type(frame).__name__}"
        )
    missing = [c for c in (*_ID_COLUMNS, *columns) if c not in frame.columns]
    if missing:
        raise UserError(
            f"configuration {name!r}: per-question scores have no column(s) "
            f"{', '.join(missing)} (found: {_preview(list(map(str, frame.columns)), 12)}); "
            "score the run with those measures (eval.measures)"
        )
    qids = frame["qid"].astype(str)
    dup = qids[qids.duplicated()].unique().tolist()
    if dup:
        raise UserError(
            f"configuration {name!r}: question(s) {_preview(dup)} appear more than "
            "once in the per-question scores; give one row per question"
        )
    out = pd.DataFrame({"slice": frame["slice"].astype(str).to_numpy()}, index=qids.to_numpy())
    for col in columns:
        values = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            raise UserError(
                f"configuration {name!r}: column {col!r} has missing or non-numeric values for "
                f"question(s) {_preview(qids[bad].tolist())}; score a question with no answer as 0"
            )
        out[col] = values
    return out


def _align(base: pd.DataFrame, cand: pd.DataFrame, name: str, baseline_name: str) -> pd.DataFrame:
    """`cand` reindexed to the baseline's questions; refuses other question sets or slices."""
    only_base = sorted(set(base.index) - set(cand.index))
    only_cand = sorted(set(cand.index) - set(base.index))
    if only_base or only_cand:
        parts = []
        if only_base:
            parts.append(f"{len(only_base)} only in {baseline_name!r} ({_preview(only_base)})")
        if only_cand:
            parts.append(f"{len(only_cand)} only in {name!r} ({_preview(only_cand)})")
        raise UserError(
            f"configuration {name!r} was scored on other questions than the baseline "
            f"{baseline_name!r}: {'; '.join(parts)}; a paired comparison needs the same "
            "questions: score both on the same labelled set, split and subset"
        )
    cand = cand.loc[base.index]
    moved = base.index[(cand["slice"] != base["slice"]).to_numpy()].tolist()
    if moved:
        q = moved[0]
        raise UserError(
            f"configuration {name!r} puts question {q!r} in slice {cand.at[q, 'slice']!r}, the "
            f"baseline {baseline_name!r} in {base.at[q, 'slice']!r} ({len(moved)} such "
            "question(s)); the labelled sets differ: score both on the same one"
        )
    return cand


def _decide(
    cells: pd.DataFrame,
    config: str,
    *,
    headline: str,
    decision: Measure,
    guard: Mapping[str, Measure],
    strata: Sequence[str],
    deciding: Mapping[str, Measure],
    target_gap: float,
) -> Decision:
    """The overall decision of one configuration (the rule is in docs/report.md):

    1. `fails guard` if any guard slice's estimate (on its deciding measure) is below the
       baseline's, whether or not the drop is beyond noise;
    2. else `better` / `worse` when the headline cell's verdict is better / worse;
    3. else `noise` (no difference beyond the interval).
    """
    mine = cells[cells["config"] == config]

    def cell(measure: Measure, stratum: str) -> pd.Series:
        return mine[(mine["measure"] == str(measure)) & (mine["stratum"] == stratum)].iloc[0]

    head = cell(decision, headline)
    head_text = f"{headline} {decision} {interval(head['delta'], head['ci_low'], head['ci_high'])}"
    failed, guard_parts, unsure = [], [], []
    for s, m in guard.items():
        g = cell(m, s)
        optimistic = g["delta_if_relevant"]
        if pd.notna(optimistic) and (g["delta"] < 0) != (optimistic < 0):
            unsure.append(s)
            guard_parts.append(
                f"{s} {m} {signed(g['delta'])} with unjudged passages as not relevant, "
                f"{signed(optimistic)} as relevant: {_unjudged_text(g)}"
            )
        elif g["delta"] < 0:
            failed.append(s)
            text = f"{s} {m} {interval(g['delta'], g['ci_low'], g['ci_high'])} below the baseline"
            if g["verdict"] == "noise":
                need = stats.questions_needed(
                    float(g["sd"]), int(g["n"]), -float(g["delta"]), float(g["level"])
                )
                text += (
                    f", within noise (about {need} questions would resolve a drop this "
                    f"size; it has {int(g['n'])})"
                )
            else:
                text += ", beyond noise"
            guard_parts.append(text)
        else:
            guard_parts.append(f"{s} {m} {signed(g['delta'])} holds")
    warnings = []
    for s in strata:
        if s in guard or s == headline:
            continue
        m = deciding.get(s, decision)
        c = cell(m, s)
        if c["verdict"] == "worse":
            warnings.append(
                f"{s} {m} {interval(c['delta'], c['ci_low'], c['ci_high'])} worse beyond noise"
            )
    if failed:
        verdict = FAILS_GUARD
        reason = "; ".join(p for s, p in zip(guard, guard_parts, strict=True) if s in failed)
        reason += f" (headline {head_text} {head['verdict']})"
    elif unsure or head["verdict"] == NEEDS_JUDGING:
        verdict = NEEDS_JUDGING
        parts = [p for s, p in zip(guard, guard_parts, strict=True) if s in unsure]
        if head["verdict"] == NEEDS_JUDGING:
            relevant = interval(
                head["delta_if_relevant"], head["ci_low_if_relevant"], head["ci_high_if_relevant"]
            )
            parts.insert(
                0,
                f"{head_text} {head['verdict_if_not_relevant']} with unjudged passages as not "
                f"relevant, {relevant} {head['verdict_if_relevant']} as relevant: "
                f"{_unjudged_text(head)}",
            )
        reason = "; ".join(parts) + "; judge them before deciding"
    elif head["verdict"] == "better":
        verdict, reason = BETTER, f"{head_text} better" + ("; guards hold" if guard else "")
    elif head["verdict"] == "worse":
        verdict, reason = WORSE, f"{head_text} worse"
    elif head["resolves"]:
        verdict = NOISE
        reason = (
            f"{head_text} is noise; the questions resolve differences above "
            f"{float(head['half_width']):.3f}, finer than the target gap {target_gap:g}"
        )
    else:
        verdict = NOISE
        reason = (
            f"{head_text} is noise; the questions resolve differences above "
            f"{float(head['half_width']):.3f}: about {int(head['questions_needed'])} "
            f"would resolve {target_gap:g} (it has {int(head['n'])})"
        )
    return Decision(
        config=config,
        decision=verdict,
        headline=headline,
        delta=float(head["delta"]),
        ci_low=float(head["ci_low"]),
        ci_high=float(head["ci_high"]),
        verdict=str(head["verdict"]),
        reason=reason,
        guard="; ".join(guard_parts) if guard_parts else "no guard slice",
        guard_failed=tuple(failed),
        warnings=tuple(warnings),
    )


def _add_unjudged(
    cells: pd.DataFrame,
    frames: Mapping[str, pd.DataFrame],
    base: pd.DataFrame,
    strata: Sequence[str],
    weights: Mapping[str, float] | None,
) -> None:
    """Columns `unjudged` and `baseline_unjudged` of `cells`: the mean unjudged@k (k the cell's
    measure's cutoff; RR's: the deepest given) per stratum, the `weighted` row with the
    traffic weights; NaN where the frames do not have it."""
    available = {
        Measure.parse(c).k: c
        for c in frames[next(iter(frames))].columns
        if isinstance(c, str) and c.startswith("unjudged@")
    }

    def means(frame: pd.DataFrame, column: str) -> dict[str, float]:
        values = pd.to_numeric(
            frame.set_index(frame["qid"].astype(str)).loc[base.index, column], errors="coerce"
        )
        by_slice = values.groupby(base["slice"].to_numpy()).mean()
        out = {s: float(v) for s, v in by_slice.items()}
        out[ALL] = float(values.mean())
        if weights is not None:
            out[WEIGHTED] = float(sum(w * out[s] for s, w in weights.items() if s in out))
        return out

    cache: dict[tuple[str, str], dict[str, float]] = {}
    mine, theirs = [], []
    first = next(iter(frames))
    for row in cells.itertuples():
        k = Measure.parse(row.measure).k
        column = available.get(k) or (
            available[max(available)] if available and k is None else None
        )
        if column is None or any(column not in f.columns for f in frames.values()):
            mine.append(np.nan)
            theirs.append(np.nan)
            continue
        for who in (row.config, first):
            if (who, column) not in cache:
                cache[(who, column)] = means(frames[who], column)
        mine.append(cache[(row.config, column)].get(row.stratum, np.nan))
        theirs.append(cache[(first, column)].get(row.stratum, np.nan))
    cells["unjudged"] = mine
    cells["baseline_unjudged"] = theirs


def _by_part(
    frames: Mapping[str, pd.DataFrame],
    base: pd.DataFrame,
    order: Sequence[str],
    deciding: Mapping[str, Measure],
    decision: Measure,
) -> tuple[tuple[str, ...], pd.DataFrame | None]:
    """(the parts the questions come from, in `SUBSETS` order; the `PART_COLUMNS` table when
    there are two): per slice in `order`, then `all`, and per part, each run's mean of the
    stratum's deciding measure over that part's questions. From the frames' `subset` column,
    aligned on the baseline's questions (`base`, indexed by qid); a part with no question in a
    stratum has no row. Descriptive: the decisions are made on all the questions."""
    first = next(iter(frames.values()))
    if "subset" not in first.columns:
        return (), None
    part = first.set_index(first["qid"].astype(str))["subset"].astype(str).loc[base.index]
    present = tuple(p for p in SUBSETS if p in set(part))
    if len(present) < 2:
        return present, None
    by_qid = {n: f.set_index(f["qid"].astype(str)) for n, f in frames.items()}
    rows = []
    for stratum in [*order, ALL]:
        m = str(deciding.get(stratum, decision))
        here = base.index if stratum == ALL else base.index[(base["slice"] == stratum).to_numpy()]
        for p in present:
            qids = here[(part.loc[here] == p).to_numpy()]
            if len(qids) == 0:
                continue
            for run, frame in by_qid.items():
                value = pd.to_numeric(frame.loc[qids, m]).mean()
                rows.append((stratum, m, p, len(qids), run, float(value)))
    return present, pd.DataFrame(rows, columns=list(PART_COLUMNS))


def _unjudged_text(c: pd.Series) -> str:
    """`29% of this top k nobody judged, 0% of the baseline's`: what the two bounds turn on."""
    if pd.isna(c["unjudged"]):
        return "passages nobody judged in the top k"
    return (
        f"{c['unjudged']:.0%} of this top k nobody judged, {c['baseline_unjudged']:.0%} of the "
        "baseline's"
    )


def build_report(
    baseline: pd.DataFrame,
    candidates: Mapping[str, pd.DataFrame],
    *,
    decision: Measure | str,
    baseline_name: str = "baseline",
    measures: Sequence[Measure | str] = (),
    slices: Sequence[str] | None = None,
    weights: Mapping[str, float] | None = None,
    guard_slices: Sequence[str] = ("exclusions",),
    correction: str = "bonferroni",
    level: float = 0.95,
    target_gap: float = 0.02,
    slice_decision: Mapping[str, Measure | str] | None = None,
    factor: str | None = None,
    title: str | None = None,
    notes: Sequence[str] = (),
    like_for_like: bool = True,
    unjudged: str = UNJUDGED_BOUNDS,
    gain: str = "exp",
    subset: str | None = None,
    rel_level: int = 1,
) -> Report:
    """Compare each candidate with the baseline per slice, on per-question scores.

    `baseline` and each of `candidates` (name -> frame, in report order) are per-question frames
    with columns `qid`, `slice` and one column per measure named `str(Measure)` (`recall@5`,
    `nDCG@10`, `RR`), as in a run's `results/per_question.csv`; all must hold the same questions
    in the same slices (else `UserError`). `decision` decides (the headline: the `weighted`
    stratum when `weights` (slice -> traffic weight) are given and there are two or more slices,
    else `all`); `measures` are shown beside it. `slice_decision` overrides the deciding measure
    per slice (default: RR for identifiers; `{}` for none). `slices` gives the column order
    (others follow in order of appearance); within a slice questions are taken in qid order, so
    the result does not depend on row order. A guard slice whose estimate is below the
    baseline's fails the configuration (see `Decision`). One `stats.paired_differences` per
    measure; no randomness: the same frames give the same bits.

    Unjudged passages (`unjudged`, docs/report.md): with `bounds` (the default) and frames that
    carry `clauses` and `labels` (a configuration run's do), every comparison is made again with
    the unjudged passages of the compared top k scored as relevant (`scoring.bounds`, nDCG with
    `gain`), and a cell whose verdict differs reads `needs judging`; `assume_not_relevant`
    takes trec_eval's convention and the report says so. Frames with `unjudged@k` columns give
    each cell its share of unjudged passages.

    What flipped (`Report.flipped`, `ragsweep.compare.flips`): per slice, the questions each
    configuration lost and gained at the slice's deciding measure, with the question's text and
    both top k lists where the frames carry them.

    Parts of the labelled set: frames with a `subset` column (a run's do) say which part each
    question is in; the report names the parts its numbers come from (`subset`: the runs'
    `eval.subset`, when known) and, when both the frozen core and the rolling part are there,
    gives each slice's deciding measure per part (`Report.parts`).

    `rel_level` is the relevance level the frames were scored at (trec_eval's `-l`: relevant
    means grade >= it); the optimistic side assumes unjudged passages relevant at that level.

    Model-judged labels (`ragsweep.compare.judged`, docs/report.md): frames that carry
    `audited`, `judge:labels` and a `judge:<measure>` column per measure (a configuration run's
    do on a set a model judge partly labelled) are compared again with every cell corrected by
    the audited questions (`ppi.paired`), both bounds alike; the corrected cells decide, and
    `Report.judge` keeps the labels' own comparison beside them, the judge's bias and the audit
    advice. With fewer than two audited questions in a slice the cells stay the labels' own
    and `Report.judge.problem` says why.
    """
    unjudged = unjudged_rule(unjudged)
    decision = _as_measure(decision)
    if decision.diagnostic:
        raise UserError(
            f"{decision} says how much of a ranking was judged, not how good it is; decide on "
            "recall@k, nDCG@k or RR"
        )
    # unjudged@k is shown beside each cell, never compared for a verdict
    shown = tuple(
        dict.fromkeys([decision, *(m for m in map(_as_measure, measures) if not m.diagnostic)])
    )
    names = [str(n) for n in candidates]
    if not names:
        raise UserError("nothing to compare: give at least one configuration besides the baseline")
    if baseline_name in names:
        raise UserError(
            f"a configuration is named like the baseline ({baseline_name!r}); "
            "give each a distinct name"
        )
    per_slice = {
        str(s): _as_measure(m)
        for s, m in (SLICE_DECISION if slice_decision is None else slice_decision).items()
    }
    notes = list(notes)

    base = _check_frame(baseline, baseline_name, [str(m) for m in shown])
    present = list(dict.fromkeys(base["slice"]))
    order = [s for s in (slices or ()) if s in present]
    order += [s for s in present if s not in order]
    # the slice-specific measures that can be used: present in every frame
    used: dict[str, Measure] = {}
    for s, m in per_slice.items():
        if s not in order or m == decision:
            continue
        lacking = [
            n
            for n, f in [(baseline_name, baseline), *candidates.items()]
            if str(m) not in f.columns
        ]
        if lacking:
            notes.append(
                f"slice {s} is decided on {decision}, not {m}: no {m} scores for "
                f"{_preview(lacking)}"
            )
        else:
            used[s] = m
    computed = tuple(dict.fromkeys([*shown, *used.values()]))
    columns = [str(m) for m in computed]
    base = _check_frame(baseline, baseline_name, columns)
    cands = {
        n: _align(base, _check_frame(candidates[n], n, columns), n, baseline_name) for n in names
    }

    rank = {s: i for i, s in enumerate(order)}
    keys = pd.DataFrame({"rank": base["slice"].map(rank).to_numpy(), "qid": base.index})
    idx = keys.sort_values(["rank", "qid"], kind="stable").index.to_numpy()
    base = base.iloc[idx]
    cands = {n: f.iloc[idx] for n, f in cands.items()}
    strata_labels = base["slice"].to_numpy()
    use_weights = None if weights is None or len(order) < 2 else dict(weights)

    guard = {s: used.get(s, decision) for s in guard_slices if s in order}
    absent = [s for s in guard_slices if s not in order]
    if absent and order != [ALL]:
        notes.append(f"guard slice(s) {', '.join(absent)} have no questions here: not checked")

    def compared(
        base: pd.DataFrame,
        cands: Mapping[str, pd.DataFrame],
        judge: JudgeScores | None = None,
        estimates: dict[str, ppi.Corrected] | None = None,
    ) -> tuple[pd.DataFrame, stats.PairedDifferences]:
        """Every cell of `computed`: one paired comparison per measure, corrected by the
        audited questions when `judge` (the audited flags and the judge's scores) is given
        (each measure's estimates then kept in `estimates`, when given)."""
        frames = []
        for m in computed:
            col = str(m)
            b, c = base[col].to_numpy(), np.stack([cands[n][col].to_numpy() for n in names])
            if judge is None:
                draws = stats.paired_differences(b, c, strata_labels, names, weights=use_weights)
            else:
                audited, scores = judge
                draws, est = judged_part.corrected_draws(
                    b,
                    c,
                    scores[baseline_name][col].to_numpy(),
                    np.stack([scores[n][col].to_numpy() for n in names]),
                    audited,
                    strata_labels,
                    names,
                    use_weights,
                )
                if estimates is not None:
                    estimates[col] = est
            comp = stats.to_frame(stats.compare(draws, level=level, correction=correction))
            res = stats.to_frame(
                stats.resolution(draws, target_gap=target_gap, level=level, correction=correction)
            )
            comp["measure"] = col
            for c in ("sd", "half_width", "questions_needed", "resolves"):
                comp[c] = res[c].to_numpy()
            frames.append(comp)
        cells = pd.concat(frames, ignore_index=True).rename(columns={"candidate": "config"})
        return cells, draws

    cells, draws = compared(base, cands)
    strata, normalised = draws.strata, draws.weights
    n_of = {s: int(k) for s, k in zip(draws.strata, draws.n, strict=True)}
    everyone = {baseline_name: baseline, **{n: candidates[n] for n in names}}
    estimates: dict[str, ppi.Corrected] = {}
    judge: Judged | None = None
    corrected_cells = None
    if judged_part.has_judge_columns(everyone, columns):
        audited, scores = judged_part.aligned(everyone, base.index, columns)
        problem = judged_part.too_few_audits(audited, strata_labels, order)
        if problem is None:
            corrected_cells, _ = compared(base, cands, (audited, scores), estimates)
        judge = judged_part.judge_part(
            cells,
            corrected_cells,
            estimates,
            names,
            problem,
            audited,
            strata_labels,
            strata,
            decision=str(decision),
            headline=WEIGHTED if WEIGHTED in strata else ALL,
            target=float(target_gap),
            level=stats.interval_level(level, len(names), correction),
        )
    _add_unjudged(cells, everyone, base, strata, normalised)
    bounded = unjudged == UNJUDGED_BOUNDS and all(map(has_bounds_columns, everyone.values()))
    cells["verdict_if_not_relevant"] = cells["verdict"]
    for c in ("delta", "ci_low", "ci_high"):
        cells[f"{c}_if_relevant"] = np.nan
    cells["verdict_if_relevant"] = ""
    if bounded:
        scored = if_relevant(
            everyone, computed, labels_from=baseline_name, gain=gain, rel_level=rel_level
        )
        opt_base = _check_frame(scored[baseline_name], baseline_name, columns).loc[base.index]
        opt_cands = {n: _check_frame(scored[n], n, columns).loc[base.index] for n in names}
        opt_judge = None
        if corrected_cells is not None:  # the judge's scores with the same passages assumed
            as_judged = judged_part.as_judge_frames(everyone, computed)
            opt_judge = judged_part.aligned(
                if_relevant(
                    as_judged, computed, labels_from=baseline_name, gain=gain, rel_level=rel_level
                ),
                base.index,
                columns,
                audited_from=everyone,
            )
        optimistic, _ = compared(opt_base, opt_cands, opt_judge)
        for c in ("delta", "ci_low", "ci_high", "verdict"):
            cells[f"{c}_if_relevant"] = optimistic[c].to_numpy()
    if corrected_cells is not None:  # the corrected comparison decides
        for c in [c for c in corrected_cells.columns if c in cells.columns]:
            cells[c] = corrected_cells[c].to_numpy()
        cells["verdict_if_not_relevant"] = cells["verdict"]
    if bounded:
        differ = (cells["verdict"] != cells["verdict_if_relevant"]).to_numpy()
        cells.loc[differ, "verdict"] = NEEDS_JUDGING
    cells = cells[list(CELL_COLUMNS)]
    headline = WEIGHTED if WEIGHTED in strata else ALL
    parts_scored, parts = _by_part(everyone, base, order, used, decision)
    decisions = tuple(
        _decide(
            cells,
            n,
            headline=headline,
            decision=decision,
            guard=guard,
            strata=strata,
            deciding=used,
            target_gap=float(target_gap),
        )
        for n in names
    )
    flips = flipped(
        baseline,
        {n: candidates[n] for n in names},
        baseline_name=baseline_name,
        slices=order,
        deciding={s: used.get(s, decision) for s in order},
    )
    return Report(
        baseline=baseline_name,
        configs=tuple(names),
        decision=decision,
        measures=shown,
        slice_decision=used,
        slices=tuple(order),
        strata=tuple(strata),
        headline=headline,
        n=n_of,
        weights=normalised,
        guard_slices=tuple(guard),
        correction=correction,
        level=float(level),
        interval_level=stats.interval_level(level, len(names), correction),
        method=stats.METHOD if corrected_cells is None else ppi.METHOD,
        target_gap=float(target_gap),
        cells=cells,
        decisions=decisions,
        notes=tuple(notes),
        like_for_like=like_for_like,
        factor=factor,
        title=title or f"{', '.join(names)} against {baseline_name}",
        unjudged=unjudged,
        bounded=bounded,
        parts_scored=parts_scored,
        subset=subset,
        parts=parts,
        flipped=flips,
        judge=judge,
    )
