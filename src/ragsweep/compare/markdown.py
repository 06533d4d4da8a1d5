"""The report as GitHub markdown (`report.md`): method, decisions, one table per measure, the
resolution table, what flipped, notes and links to the forest plots."""

from __future__ import annotations

from collections.abc import Sequence

from ragsweep.compare.flips import flipped_markdown
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
from ragsweep.compare.report import Report

#: questions shown per configuration, slice and change under "What flipped" (all are in
#: flipped.csv)
FLIPS_SHOWN = 5


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _decision_text(report: Report, config: str) -> str:
    """A table's decision cell: the dev decision, and what held-out questions said of it."""
    short = report.heldout_short(config)
    text = f"**{report.decision_of(config).decision}**"
    return text if short is None else f"{text} ({_md_escape(short)})"


def to_markdown(report: Report, images: Sequence[str] = ()) -> str:
    """The report as GitHub markdown: method, one table per measure, resolution, decisions;
    `images` are the forest plots' file names, linked at the end."""
    lines = [f"# {_md_escape(report.title)}", ""]
    if not report.like_for_like:
        lines += [
            "> **Not like for like**: the runs compared differ in labelled set or corpus "
            "snapshot; see the notes.",
            "",
        ]
    part = report.part_note()
    lines += [method_text(report), "", *([f"**{_md_escape(part)}**", ""] if part else [])]
    for line in judge_lines(report):
        lines += [
            f"**{_md_escape(line)}**" if not line.startswith("audit:") else _md_escape(line),
            "",
        ]
    held = report.heldout is not None
    lines += [
        "## Decisions",
        "",
        "| configuration | decision on dev | " + ("held-out | " if held else "") + "why |",
        "|---|---|" + ("---|" if held else "") + "---|",
    ]
    for d in report.decisions:
        why = d.reason + "".join(f"; warning: {w}" for w in d.warnings)
        verdict = f" {_md_escape(report.heldout_of(d.config) or '')} |" if held else ""
        lines.append(f"| {_md_escape(d.config)} | **{d.decision}** |{verdict} {_md_escape(why)} |")
    lines.append("")
    for caption, measure in tables(report):
        cols = columns(report, measure)
        lines += [f"## {caption}", ""]
        first = ["decision"] if measure is None else []
        head = [report.factor or "configuration", *first, *(c.header() for c in cols)]
        lines.append("| " + " | ".join(map(_md_escape, head)) + " |")
        lines.append("|---" * (1 + len(first)) + "|---:" * len(cols) + "|")
        base = [
            *([""] if first else []),
            *(
                " ".join(
                    t
                    for t in (
                        value_text(report.baseline_value(c.measure, c.stratum)),
                        baseline_unjudged(report, c),
                    )
                    if t
                )
                for c in cols
            ),
        ]
        lines.append(
            f"| {_md_escape(row_label(report, report.baseline))} | " + " | ".join(base) + " |"
        )
        for name in report.configs:
            cells = [_decision_text(report, name)] if first else []
            for col in cols:
                delta, interval, verdict, value = cell_texts(report, name, col)
                word = verdict if verdict == "noise" else f"**{verdict}**"
                under = "".join(f"<br>{_md_escape(t)}" for t in bound_lines(report, name, col))
                cells.append(f"{delta} {interval} {word} ({value}){under}")
            lines.append(f"| {_md_escape(name)} | " + " | ".join(cells) + " |")
        lines.append("")
    for extra in (part_table(report), judge_table(report)):  # the tables beside the cells
        if extra is None:
            continue
        caption, head, rows = extra
        lines += [f"## {_md_escape(caption)}", ""]
        lines.append("| " + " | ".join(map(_md_escape, head)) + " |")
        lines.append("|---|---" + "|---:" * (len(head) - 2) + "|")
        lines += ["| " + " | ".join(map(_md_escape, r)) + " |" for r in rows]
        lines.append("")
    cols = columns(report, None)
    lines += [
        f"## Resolution: half-width and questions needed for a gap of {report.target_gap:g}",
        "",
    ]
    lines.append(
        "| "
        + " | ".join(
            map(_md_escape, [report.factor or "configuration", *(c.header() for c in cols)])
        )
        + " |"
    )
    lines.append("|---" + "|---:" * len(cols) + "|")
    for name in report.configs:
        lines.append(
            f"| {_md_escape(name)} | "
            + " | ".join(resolution_text(report, name, c) for c in cols)
            + " |"
        )
    lines.append("")
    lines += ["## What flipped", ""]
    for name in report.configs:
        lines += [flipped_markdown(report, name, per_slice=FLIPS_SHOWN, heading="###"), ""]
    if report.notes:
        lines += ["## Notes", "", *(f"- {n}" for n in report.notes), ""]
    text, commands = unjudged_lines(report)
    if text:
        lines += ["## Unjudged passages", "", *(f"**{_md_escape(t)}**" for t in text), ""]
    if commands:
        lines += ["```", *commands, "```", ""]
    if images:  # a relative image link shows as literal text in MLflow's markdown preview
        shown = ", ".join(f"`{img}`" for img in images)
        lines += [f"Forest plot: {shown} beside this file; `report.html` shows it inline.", ""]
    return "\n".join(lines)


#: MLflow keeps at most this many characters of a tag value (a run's description is a tag)
_NOTE_LIMIT = 8000


def parent_description(
    report: Report, confirm: str | None, files: Sequence[str] = (), image: str | None = None
) -> str:
    """The sweep's parent-run description (`mlflow.note.content`, rendered as markdown on the
    run's page, of which MLflow shows the first lines until "Show more"): the decisions and the
    held-out verdict in two lines, then the decisions table and the decision measure per slice
    with difference and interval, the method, and where the full report is. `confirm` is the
    confirm stage's one-line verdict (None: it did not run); `files` the report's artifact
    paths (`report/report.html`, ...) the description points to; `image` the address of the
    forest plot, shown under the two lines."""
    body = to_markdown(report).split("\n## Resolution", 1)[0].rstrip()
    head, _, sections = body.partition("\n## ")
    method = head.partition("\n")[2].strip()  # the paragraph under the title: how it was decided
    decided = "; ".join(f"`{d.config}` {d.decision}" for d in report.decisions)
    held = confirm or "not run (the sweep did not finish, or confirm.enabled=false)"
    lines = [
        f"**Decisions on dev** (against `{report.baseline}`): {decided}.",
        "",
        f"**Held-out confirmation:** {held}",
        "",
    ]
    judge = report.judge_note()
    if judge:  # on a model-judged set: whether the numbers are corrected, in the first lines
        lines += [f"**{_md_escape(judge)}**", ""]
    if image:
        lines += [f"![forest plot: the differences from the baseline per slice]({image})", ""]
    lines += [
        f"## {sections.strip()}",
        "",
        method,
    ]
    if files:
        lines += ["", "Full report: artifacts " + ", ".join(f"`{f}`" for f in files) + "."]
    text = "\n".join(lines)
    if len(text) > _NOTE_LIMIT:
        cut = text[: _NOTE_LIMIT - 80].rsplit("\n", 1)[0]
        text = cut + "\n\n(cut here: the full table is in `report/report.md`)"
    return text


def config_description(report: Report, config: str, factor: str) -> str:
    """A configuration run's description: its decision first and, for a `better` one, what the
    held-out questions said (the dev winner: `confirmed` or `not confirmed`); then what it
    changed and the reason."""
    if config == report.baseline:
        head = f"**Baseline** of the sweep: `{factor}={config}`"
        return f"{head}; the other values are compared to it."
    d = report.decision_of(config)
    lead = f"**{d.decision}** on dev"
    held = report.heldout_of(config)
    if held is not None:
        verdict, _, why = held.partition(": ")
        lead += f", **{verdict} on held-out**" + (f" ({why})" if why else "")
    text = (
        f"{lead}. `{factor}={config}` against the baseline `{factor}={report.baseline}` on "
        f"dev: {d.reason}"
    )
    judge = report.judge_note()
    return text if judge is None else f"{text}\n\n{_md_escape(judge)}"
