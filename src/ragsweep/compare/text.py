"""The report on the terminal: rich tables (one per measure, then the resolution table), the
decisions, how many questions flipped per slice and the notes.

    print_report(report)          # stdout, wide enough for the whole table when piped
"""

from __future__ import annotations

from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ragsweep.compare.flips import counts_line
from ragsweep.compare.format import (
    baseline_unjudged,
    bound_lines,
    cell_texts,
    columns,
    judge_lines,
    judge_table,
    method_text,
    part_table,
    resolution_text,
    row_label,
    tables,
    unjudged_lines,
    value_text,
)
from ragsweep.compare.report import (
    BETTER,
    FAILS_GUARD,
    NEEDS_JUDGING,
    NOISE,
    WORSE,
    Report,
)
from ragsweep.compare.summary import pick_winner

_RICH_VERDICT = {"better": "green", "worse": "red", "noise": "dim", NEEDS_JUDGING: "magenta"}
_RICH_DECISION = {
    FAILS_GUARD: "bold red",
    NEEDS_JUDGING: "bold magenta",
    BETTER: "bold green",
    WORSE: "red",
    NOISE: "yellow",
}


def rich_tables(report: Report) -> list[RenderableType]:
    """The report as rich renderables: a title, the tables, the decisions and notes."""
    out: list[RenderableType] = [Text(report.title, style="bold")]
    if not report.like_for_like:
        out.append(
            Text(
                "NOT LIKE FOR LIKE: the runs compared differ in labelled set or corpus "
                "snapshot (see the notes below)",
                style="bold red",
            )
        )
    out.append(Text(method_text(report), style="dim"))
    part = report.part_note()
    if part:
        out.append(Text(part, style="bold"))
    for i, line in enumerate(judge_lines(report)):
        corrected = report.judge is not None and report.judge.problem is None
        out.append(Text(line, style="bold" if i == 0 and corrected else "bold magenta"))
    for caption, measure in tables(report):
        cols = columns(report, measure)
        table = Table(title=caption, title_justify="left", show_lines=True)
        table.add_column(report.factor or "configuration")
        if measure is None:
            table.add_column("decision")
        for col in cols:
            table.add_column(col.header("\n"), justify="right")
        base = [
            Text(
                "\n".join(
                    t
                    for t in (
                        value_text(report.baseline_value(c.measure, c.stratum)),
                        baseline_unjudged(report, c),
                    )
                    if t
                )
            )
            for c in cols
        ]
        table.add_row(row_label(report, report.baseline), *([""] if measure is None else []), *base)
        for name in report.configs:
            cells = []
            for col in cols:
                delta, interval, verdict, value = cell_texts(report, name, col)
                t = Text(f"{delta} {verdict}\n", style=_RICH_VERDICT[verdict])
                t.append(interval + "\n", style="dim" if verdict == "noise" else "")
                t.append(value, style="dim")
                for line in bound_lines(report, name, col):
                    t.append("\n" + line, style="magenta" if "relevant" in line else "dim")
                cells.append(t)
            extra = []
            if measure is None:
                d = report.decision_of(name).decision
                extra = [Text(d, style=_RICH_DECISION[d])]
                short = report.heldout_short(name)
                if short is not None:
                    extra[0].append(f"\n{short}", style=_heldout_style(short))
            table.add_row(name, *extra, *cells)
        out.append(table)
    for extra in (part_table(report), judge_table(report)):  # the tables beside the cells
        if extra is None:
            continue
        caption, head, rows = extra
        table = Table(title=caption, title_justify="left")
        for i, h in enumerate(head):
            table.add_column(h, justify="left" if i < 2 else "right")
        for r in rows:
            table.add_row(*r)
        out.append(table)
    out.append(_resolution_table(report))
    winner = _winner_line(report)
    if winner is not None:
        out.append(winner)
    for d in report.decisions:
        line = Text(f"{d.config}: ", style="bold")
        line.append(d.decision, style=_RICH_DECISION[d.decision])
        line.append(f": {d.reason}")
        held = report.heldout_of(d.config)
        if held is not None:
            line.append(f"\n  held-out: {held}", style=_heldout_style(held))
        for w in d.warnings:
            line.append(f"\n  warning: {w}", style="yellow")
        out.append(line)
    for name in report.configs:
        line = Text(f"what flipped at the deciding measure, {name} against {report.baseline}: ")
        line.stylize("bold")
        line.append(counts_line(report, name))
        out.append(line)
    for note in report.notes:
        out.append(Text(f"note: {note}", style="yellow"))
    lines, commands = unjudged_lines(report)
    for line in lines:
        out.append(Text(line, style="bold magenta"))
    if commands:
        out.append(Text("\n".join(f"  {c}" for c in commands), style="magenta"))
    return out


def _winner_line(report: Report) -> Text | None:
    """Which row the decision rule picks when there are several candidates, so the table's
    first row is never read as the winner."""
    if len(report.configs) < 2:
        return None
    winner = pick_winner(report)
    if winner is None:
        return Text(
            f"winner: none (no configuration is better than {report.baseline} beyond noise)",
            style="bold",
        )
    rule = f"the best {report.headline} {report.decision} among the better rows"
    return Text(f"winner: {winner} ({rule})", style="bold green")


def _heldout_style(text: str) -> str:
    """Green only for a confirmation; anything else is a warning to read before adopting."""
    return "bold green" if text.startswith("confirmed") else "bold yellow"


def _resolution_table(report: Report) -> Table:
    """Per configuration and column: the interval half-width and the questions needed."""
    cols = columns(report, None)
    table = Table(
        title=(
            f"smallest resolvable difference (interval half-width) and questions needed to "
            f"resolve {report.target_gap:g}"
        ),
        title_justify="left",
    )
    table.add_column(report.factor or "configuration")
    for col in cols:
        table.add_column(col.header("\n"), justify="right")
    for name in report.configs:
        table.add_row(name, *(resolution_text(report, name, c) for c in cols))
    return table


def print_report(report: Report, console: Console | None = None) -> None:
    """Print the report's tables with rich (wide enough for the whole table when piped)."""
    items = rich_tables(report)
    if console is None:
        console = Console()
        if not console.is_terminal:
            wide = console.options.update_width(10_000)
            widest = max(
                Measurement.get(console, wide, i).maximum for i in items if isinstance(i, Table)
            )
            console = Console(width=max(120, widest))
    for item in items:
        console.print(item)
        console.print()
