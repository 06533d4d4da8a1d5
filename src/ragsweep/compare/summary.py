"""What each run of a sweep records of its comparison report, so the MLflow UI shows the answer
(docs/report.md, "MLflow"):

    config_metrics(report, config)   # on each configuration run: delta|ci_low|ci_high/<key>/<slice>
                                     # (and uncorrected/... on a model-judged set)
    summary_metrics(report)          # on the parent: the baseline's and the winner's numbers
                                     # (and judge/audited|bias/... on a model-judged set)
    decision_tag(report, config)     # better|worse|noise|fails guard|needs judging|baseline
    verdict_tag(report, config)      # `noise: weighted recall@5 +0.055 [-0.011, +0.127]`
    pick_winner(report)              # the configuration the confirm stage re-scores
    with_heldout(report, HeldOut(...)) # the report with the confirm verdict beside each decision

No MLflow here: `ragsweep.experiment.logged` logs these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ragsweep.compare.format import interval, signed
from ragsweep.compare.report import BETTER, Report
from ragsweep.conventions import (
    BASELINE,
    CI_HIGH,
    CI_LOW,
    DELTA,
    JUDGE,
    UNCORRECTED,
    metric_key,
    metric_safe,
)
from ragsweep.measures import Measure

#: the tag `ragsweep.decision` of the baseline run (the others carry their decision)
BASELINE_TAG = "baseline"
#: the parent's prefix for the winner's numbers (`winner/recall_at_5/weighted`)
WINNER = "winner"


def config_metrics(report: Report, config: str, every_measure: bool = False) -> dict[str, float]:
    """`delta|ci_low|ci_high/<measure key>/<stratum>` of `config`'s cells that use the measure
    deciding their stratum (`Report.deciding`; with `every_measure`, every measure the report
    shows), per slice and summary row, for its own run, so the runs table sorts by them. The
    baseline's are 0: its difference with itself. The other cells are in the report's
    `report.csv`."""
    out: dict[str, float] = {}
    source = report.configs[0] if config == report.baseline else config
    for row in report.cells[report.cells["config"] == source].itertuples():
        if not every_measure and Measure.parse(row.measure) != report.deciding(row.stratum):
            continue
        values = (row.delta, row.ci_low, row.ci_high) if source == config else (0.0,) * 3
        for prefix, value in zip((DELTA, CI_LOW, CI_HIGH), values, strict=True):
            out[_key(row.measure, row.stratum, prefix)] = float(value)
    judge = report.judge
    if judge is not None and not judge.table.empty and source == config:
        # on a model-judged set the cells are corrected; what the labels alone say beside them
        t = judge.table[judge.table["config"] == config]
        for row in t.itertuples():
            if not every_measure and Measure.parse(row.measure) != report.deciding(row.stratum):
                continue
            for prefix, value in ((DELTA, row.plain_delta), (CI_LOW, row.plain_ci_low)):
                out[f"{UNCORRECTED}/{_key(row.measure, row.stratum, prefix)}"] = float(value)
            out[f"{UNCORRECTED}/{_key(row.measure, row.stratum, CI_HIGH)}"] = float(
                row.plain_ci_high
            )
    return out


def _key(measure: str, stratum: str, prefix: str | None) -> str:
    return metric_key(Measure.parse(measure), stratum, prefix)


def summary_metrics(
    report: Report, logged: Mapping[str, Mapping[str, float]] | None = None
) -> dict[str, float]:
    """The parent run's few numbers: the baseline's value of the deciding measure per slice and
    summary row (`baseline/recall_at_5/weighted`, `baseline/mrr/identifiers`), and, when some
    configuration beats the baseline on dev, the winner's (`winner/...`) with its headline
    difference and bounds (`winner/delta/recall_at_5/weighted`, `winner/ci_low/...`).
    `logged` (config -> its run's metrics) gives the values exactly as the configuration runs
    logged them; else they are the report's means (equal up to the last bit)."""
    out: dict[str, float] = {}
    winner = pick_winner(report)

    def value(config: str, measure: Measure, stratum: str) -> float:
        key = metric_key(measure, stratum)
        if logged is not None and key in logged.get(config, {}):
            return float(logged[config][key])
        if config == report.baseline:
            return report.baseline_value(measure, stratum)
        return float(report.cell(config, measure, stratum)["value"])

    for stratum in report.strata:
        measure = report.deciding(stratum)
        key = metric_key(measure, stratum)
        out[f"{BASELINE}/{key}"] = value(report.baseline, measure, stratum)
        if winner is not None:
            out[f"{WINNER}/{key}"] = value(winner, measure, stratum)
    judge = report.judge
    if judge is not None:  # the audit behind a model-judged set, and the judge's bias
        for stratum in report.strata:
            out[f"{JUDGE}/audited/{metric_safe(stratum)}"] = float(judge.audited.get(stratum, 0))
        t = judge.table
        for stratum in report.strata:
            measure = str(report.deciding(stratum))
            hit = t[(t["stratum"] == stratum) & (t["measure"] == measure)]
            if not hit.empty:
                key = _key(measure, stratum, "bias")
                out[f"{JUDGE}/{key}"] = float(hit["baseline_bias"].iloc[0])
    if winner is not None:
        head = report.cell(winner, report.decision, report.headline)
        for prefix, column in ((DELTA, "delta"), (CI_LOW, "ci_low"), (CI_HIGH, "ci_high")):
            out[f"{WINNER}/{metric_key(report.decision, report.headline, prefix)}"] = float(
                head[column]
            )
    return out


def decision_tag(report: Report, config: str) -> str:
    """`better`, `worse`, `noise` (no difference beyond the interval), `fails guard`,
    `needs judging` (the decision turns on passages nobody judged), or `baseline`."""
    if config == report.baseline:
        return BASELINE_TAG
    return report.decision_of(config).decision


def verdict_tag(report: Report, config: str) -> str:
    """The decision first, then what held-out questions said of a `better` one, then the dev
    headline difference, for a runs-table column and filter:

        better, confirmed on held-out: weighted recall@5 +0.105 [+0.070, +0.139] on dev;
            held-out: weighted recall@5 +0.138 [+0.086, +0.183] better; guards hold
        better, not re-scored on held-out (only the winner, 512, is): weighted recall@5 ...
        noise: weighted recall@5 +0.003 [-0.014, +0.019]

    The baseline's says so."""
    if config == report.baseline:
        return f"{BASELINE_TAG}: the others are compared to it"
    d = report.decision_of(config)
    failed = f" ({', '.join(d.guard_failed)} below)" if d.guard_failed else ""
    head = f"{d.headline} {report.decision} {interval(d.delta, d.ci_low, d.ci_high)}{failed}"
    word = decision_tag(report, config)
    held = report.heldout_of(config)
    if held is None:
        return f"{word}: {head}"
    verdict, _, why = held.partition(": ")
    if verdict in HELDOUT_VERDICTS:
        return f"{word}, {verdict} on held-out: {head} on dev" + (
            f"; held-out: {why}" if why else ""
        )
    return f"{word}, {verdict} on held-out ({why}): {head}"


#: what a confirm stage says of the dev winner (the confirm run's `ragsweep.verdict`)
HELDOUT_VERDICTS = ("confirmed", "not confirmed")


def heldout_tag(report: Report, config: str) -> str | None:
    """What held-out questions said of a `better` configuration, in the confirm run's words:
    `confirmed` or `not confirmed` for the dev winner, `not re-scored` for another `better`
    row, `not checked` when no confirm stage ran; None for the other rows."""
    held = report.heldout_of(config)
    return None if held is None else held.partition(": ")[0]


def headline_tag(report: Report, config: str) -> str | None:
    """The headline difference with its interval, `+0.105 [+0.070, +0.139]` (None for the
    baseline): the runs table shows it as written, where a metric shows 16 digits."""
    if config == report.baseline:
        return None
    d = report.decision_of(config)
    return interval(d.delta, d.ci_low, d.ci_high)


def guard_tag(report: Report, config: str) -> str | None:
    """Each guard slice's difference on its deciding measure and its verdict, short enough for
    a runs-table column: `exclusions +0.135 better` (None for the baseline or with no guard;
    the intervals are in the report)."""
    if config == report.baseline:
        return None
    parts = []
    for stratum in report.guard_slices:
        if stratum not in report.strata:
            continue
        cell = report.cell(config, report.deciding(stratum), stratum)
        parts.append(f"{stratum} {signed(float(cell['delta']))} {cell['verdict']}")
    return "; ".join(parts) or None


def pick_winner(report: Report) -> str | None:
    """The declared rule: the best dev headline of the decision measure among `better` rows
    (ties: the larger name); None when no configuration is `better`."""
    better = [d for d in report.decisions if d.decision == BETTER]
    if not better:
        return None
    return max(
        better,
        key=lambda d: (
            float(report.cell(d.config, report.decision, report.headline)["value"]),
            d.config,
        ),
    ).config


@dataclass(frozen=True)
class HeldOut:
    """What the confirm stage found: the dev `winner` it re-scored (None: no winner), the
    `verdict` (`confirmed`, `not confirmed`, `no winner`) and the held-out decision's `reason`."""

    winner: str | None
    verdict: str
    reason: str | None = None


def with_heldout(
    report: Report, held: HeldOut | None, why_not: str = "the confirm stage did not run"
) -> Report:
    """The report with what the held-out questions said beside each `better` decision, so a dev
    "better" is never shown without it: the winner's verdict with the held-out reason; any
    other `better` row was not re-scored (only the winner is); with no confirmation (`held`
    None), `why_not` says why none was made."""
    texts: dict[str, str] = {}
    for d in report.decisions:
        if d.decision != BETTER:
            continue
        if held is None or held.winner is None:
            texts[d.config] = f"not checked: {why_not}"
        elif d.config == held.winner:
            word = held.verdict  # the confirm run's own word, so a filter copied from here finds it
            texts[d.config] = f"{word}: {held.reason}" if held.reason else word
        else:
            texts[d.config] = f"not re-scored: only the winner, {held.winner}, is"
    return replace(report, heldout=texts)


def heldout_line(held: HeldOut | None, why_not: str) -> str:
    """The confirm stage's verdict in one markdown line, for the parent run's description."""
    if held is None:
        return f"not run ({why_not})"
    if held.winner is None:
        return "no winner to confirm: no configuration beats the baseline beyond noise on dev"
    why = f" ({held.reason})" if held.reason else ""
    return f"`{held.winner}` is **{held.verdict}** on the held-out questions{why}"


def decisions_line(report: Report) -> str:
    """The decisions on one line: `10: noise; 100: fails guard`."""
    return "; ".join(f"{d.config}: {d.decision}" for d in report.decisions)
