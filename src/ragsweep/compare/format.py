"""Texts every renderer of the report shares, written once: signed differences, intervals, the
method paragraph, and the tables' layout (which tables, which columns, what each cell says).

The rich, markdown, HTML and plot renderers (`text`, `markdown`, `html`, `plot`) differ only in
markup; what they show comes from here, so the formats cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragsweep.compare.report import NEEDS_JUDGING, Report
from ragsweep.measures import Measure


def signed(x: float) -> str:
    """A difference with its sign at 3 decimals; a nonzero one that would print as 0.000 prints
    as `+<0.001` / `-<0.001`, so an interval shown as "[+0.000, ...]" really touches 0 and one
    that excludes 0 never looks as if it did not."""
    x = float(x)
    if x != 0 and abs(x) < 0.0005:
        return "+<0.001" if x > 0 else "-<0.001"
    return f"{x:+.3f}"


def bounds(lo: float, hi: float) -> str:
    """An interval `[lo, hi]`, both ends signed."""
    return f"[{signed(lo)}, {signed(hi)}]"


def interval(delta: float, lo: float, hi: float) -> str:
    """A difference and its interval: `+0.050 [+0.010, +0.090]`."""
    return f"{signed(delta)} {bounds(lo, hi)}"


def value_text(x: float) -> str:
    """A raw value (a mean score) at 3 decimals."""
    return f"{x:.3f}"


@dataclass(frozen=True)
class Column:
    """One column of a table: a stratum, the measure shown there, its question count."""

    stratum: str
    measure: Measure
    n: int
    guard: bool
    own_measure: bool  # decided on another measure than the table's (identifiers on RR)

    def header(self, sep: str = " ") -> str:
        """`limits (n=20)`, `identifiers (n=4, RR)`, `exclusions (n=20, guard)`."""
        tags = [f"n={self.n}"]
        if self.own_measure:
            tags.append(str(self.measure))
        if self.guard:
            tags.append("guard")
        return f"{self.stratum}{sep}({', '.join(tags)})"


def columns(report: Report, measure: Measure | None) -> list[Column]:
    """The columns of one table: `measure`, or each stratum's deciding measure when None."""
    out = []
    for s in report.strata:
        m = report.deciding(s) if measure is None else measure
        out.append(
            Column(
                s,
                m,
                report.n[s],
                s in report.guard_slices,
                measure is None and m != report.decision,
            )
        )
    return out


def tables(report: Report) -> list[tuple[str, Measure | None]]:
    """(caption, measure) of each table: the headline (None: deciding measure per stratum),
    then every other measure shown."""
    first = f"{report.decision} (decides)" + "".join(
        f"; {s}: {m}" for s, m in report.slice_decision.items()
    )
    return [(first, None), *((str(m), m) for m in report.measures if m != report.decision)]


def row_label(report: Report, name: str) -> str:
    """A row's name, `(baseline)` appended for the baseline."""
    return f"{name} (baseline)" if name == report.baseline else name


def cell_texts(report: Report, config: str, col: Column) -> tuple[str, str, str, str]:
    """(delta, interval, verdict, raw value) texts of one candidate cell."""
    c = report.cell(config, col.measure, col.stratum)
    verdict = str(c["verdict"])
    return signed(c["delta"]), bounds(c["ci_low"], c["ci_high"]), verdict, value_text(c["value"])


def unjudged_share(share: float) -> str:
    """`unjudged 40%`, or "" when not measured (NaN)."""
    return "" if share != share else f"unjudged {share:.0%}"


def bound_lines(report: Report, config: str, col: Column) -> list[str]:
    """What a candidate cell shows under its numbers about passages nobody judged: its share
    of them (`unjudged 40%`) and, where the verdict turns on them, the comparison with them
    scored as relevant (`if relevant: +0.020 [-0.010, +0.050] noise`)."""
    c = report.cell(config, col.measure, col.stratum)
    lines = [t for t in [unjudged_share(float(c["unjudged"]))] if t]
    if str(c["verdict"]) == NEEDS_JUDGING:
        relevant = interval(
            c["delta_if_relevant"], c["ci_low_if_relevant"], c["ci_high_if_relevant"]
        )
        lines[:0] = [
            f"as not relevant: {c['verdict_if_not_relevant']}",
            f"if relevant: {relevant} {c['verdict_if_relevant']}",
        ]
    return lines


def baseline_unjudged(report: Report, col: Column) -> str:
    """The baseline's share of unjudged passages in one column (`unjudged 10%`, or "")."""
    c = report.cell(report.configs[0], col.measure, col.stratum)
    return unjudged_share(float(c["baseline_unjudged"]))


def unjudged_lines(report: Report) -> tuple[list[str], list[str]]:
    """(lines, commands) every rendering prints about passages nobody judged: the assumption
    (or the missing bounds) and, when a decision is `needs judging`, what it means and the
    commands that close the gap."""
    lines = [t for t in [report.unjudged_note()] if t]
    if not report.needs_judging():
        return lines, []
    lines.append(
        "needs judging: a verdict turns on passages nobody judged (scored as not relevant and "
        "as relevant, it reads differently); to close the gap:"
    )
    return lines, list(report.judging_commands())


def resolution_text(report: Report, config: str, col: Column) -> str:
    """`±0.031 (ok)` when the cell resolves the target gap, else `±0.031 (767 q)`."""
    c = report.cell(config, col.measure, col.stratum)
    if bool(c["resolves"]):
        return f"±{c['half_width']:.3f} (ok)"
    return f"±{c['half_width']:.3f} ({int(c['questions_needed'])} q)"


def method_text(report: Report) -> str:
    """One paragraph: how the intervals and verdicts were made."""
    c = len(report.configs)
    level = f"{report.level * 100:g}%"
    if report.correction == "bonferroni" and c > 1:
        intervals = (
            f"{level} intervals, Bonferroni-widened over {c} configurations "
            f"to {report.interval_level:.2%}"
        )
        verdict = "better / worse when the interval excludes 0, else noise"
    elif report.correction == "holm" and c > 1:
        intervals = f"unadjusted {level} intervals"
        verdict = (
            f"better / worse when the Holm-adjusted p over the {c} configurations is "
            f"below {1 - report.level:.2g}, else noise (an interval shown may exclude 0 "
            "and still read noise)"
        )
    else:
        intervals = f"{level} intervals, no family-wise correction"
        verdict = "better / worse when the interval excludes 0, else noise"
    weights = ""
    if report.weights is not None:
        weights = (
            " `weighted` = "
            + " + ".join(f"{w:.2f} x {s}" for s, w in report.weights.items())
            + " (slice means; traffic weights)."
        )
    how = (
        "a Student-t interval on the paired differences with two pseudo-questions, so a slice "
        "on which no question differs still has an honest width"
    )
    if report.judge is not None and report.judge.problem is None:
        how = (
            "the judge's scores on every question corrected by the audited questions' "
            "residuals, a Student-t interval on the audited questions' degrees of freedom"
        )
    return (
        f"Paired comparison per slice ({report.method}: {how}; docs/statistics.md): each cell "
        f"is the configuration minus the baseline {report.baseline!r} on the same questions, "
        f"{intervals}; verdict {verdict}. "
        f"Decided on {report.decision}"
        + "".join(f", {s} on {m}" for s, m in report.slice_decision.items())
        + f"; headline `{report.headline}`.{weights}"
    )


def part_table(report: Report) -> tuple[str, list[str], list[list[str]]] | None:
    """(caption, header, rows) of the table by part, or None when the report has one part:
    a row per slice (then `all`) and part, with its question count and each run's mean of the
    slice's deciding measure (baseline first)."""
    if report.parts is None:
        return None
    runs = [report.baseline, *report.configs]
    header = ["slice", "part", "n", *(row_label(report, r) for r in runs)]
    rows = []
    frame = report.parts
    for (stratum, measure, part), group in frame.groupby(
        ["stratum", "measure", "part"], sort=False
    ):
        value = dict(zip(group["run"], group["value"], strict=True))
        label = stratum if measure == str(report.decision) else f"{stratum} ({measure})"
        n = int(group["n"].iloc[0])
        rows.append([label, str(part), str(n), *(value_text(value[r]) for r in runs)])
    caption = (
        f"{report.decision} by part: the frozen core and the rolling questions side by side "
        "(descriptive; the decisions above are over both)"
    )
    return caption, header, rows


def judge_table(report: Report) -> tuple[str, list[str], list[list[str]]] | None:
    """(caption, header, rows) of the model-judged labels table, or None when people made every
    label or the comparison could not be corrected: per configuration and stratum, at the
    stratum's deciding measure, the audited questions, what the labels alone say, the
    corrected comparison, and the judge's bias (judge - people, on the audited questions)."""
    judge = report.judge
    if judge is None or judge.problem is not None or judge.table.empty:
        return None
    header = [
        "configuration",
        "slice",
        "audited",
        "labels alone",
        "corrected",
        "judge's bias (baseline)",
        "worth (questions)",
    ]
    rows = []
    t = judge.table
    for name in report.configs:
        for stratum in report.strata:
            m = str(report.deciding(stratum))
            hit = t[(t["config"] == name) & (t["stratum"] == stratum) & (t["measure"] == m)]
            if hit.empty:
                continue
            r = hit.iloc[0]
            label = stratum if m == str(report.decision) else f"{stratum} ({m})"
            rows.append(
                [
                    row_label(report, name),
                    label,
                    f"{int(r['audited'])} of {int(r['questions'])}",
                    f"{interval(r['plain_delta'], r['plain_ci_low'], r['plain_ci_high'])} "
                    f"{r['plain_verdict']}",
                    f"{interval(r['delta'], r['ci_low'], r['ci_high'])} {r['verdict']}",
                    signed(float(r["baseline_bias"])),
                    f"{float(r['n_eff']):.0f}",
                ]
            )
    caption = (
        f"Model-judged labels: {report.decision} against the baseline as the labels alone say "
        "and corrected by the audited questions (the corrected one decides); the judge's bias "
        "is its mean score minus the people's on the audited questions; worth: how many "
        "people-labelled questions the corrected difference is worth"
    )
    return caption, header, rows


def judge_lines(report: Report) -> list[str]:
    """The note on a model-judged set, then the audit advice (empty when people made every
    label)."""
    note = report.judge_note()
    if note is None:
        return []
    assert report.judge is not None
    return [note, *(f"audit: {a}" for a in report.judge.advice)]
