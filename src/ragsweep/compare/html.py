"""The report as one self-contained HTML page (`report.html`): inline CSS, the forest plots
embedded as data URIs, nothing fetched from elsewhere; what flipped, unjudged ranks marked."""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping

from ragsweep.compare import flips
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

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.better { background: #e3f4e3; } .worse { background: #fbe3e3; } .noise { color: #666; }
.raw { color: #888; font-size: 90%; }
.d-fails-guard { color: #b00; font-weight: bold; } .d-better { color: #070; font-weight: bold; }
.d-worse { color: #b00; } .d-noise { color: #960; }
.needs-judging { background: #efe3f7; } .d-needs-judging { color: #7b1fa2; font-weight: bold; }
.bound { color: #7b1fa2; font-size: 90%; } pre.judge { background: #f6f0fa; padding: 0.5em; }
.warn { color: #b00; font-weight: bold; } .method { color: #555; max-width: 60em; }
td.top { font-size: 90%; width: 34%; overflow-wrap: anywhere; } td.q { min-width: 12em; }
.unjudged { background: #efe3f7; color: #7b1fa2; font-weight: bold; } .lost { color: #b00; }
.gained { color: #070; }
"""
#: questions shown per configuration, slice and change under "What flipped" (all are in
#: flipped.csv)
FLIPS_SHOWN = 25


def _ranks(text: str) -> str:
    """A top-k list (`flips`: one rank a line), unjudged ranks marked so they stand out."""
    marked = f"[{flips.UNJUDGED}]"
    return "<br>".join(
        f'<span class="unjudged">{html.escape(line)}</span>'
        if marked in line
        else html.escape(line)
        for line in text.splitlines()
    )


def _flips_html(report: Report) -> list[str]:
    """The "What flipped" section: per configuration its counts, then a table per slice of the
    questions it lost and gained (the first `FLIPS_SHOWN` of each)."""
    e = html.escape
    parts = ["<h2>What flipped</h2>", f'<p class="method">{e(flips.legend(report))}</p>']
    for name in report.configs:
        counted = e(flips.counts_line(report, name))
        parts.append(f"<h3>{e(name)} against {e(report.baseline)}</h3><p>{counted}</p>")
        for s, m, lost, gained in flips.counts(report, name):
            if not lost + gained:
                continue
            k = flips.depth(m)
            parts.append(
                f"<h4>{e(s)} ({e(str(m))}): {lost} lost, {gained} gained</h4><table><tr>"
                "<th>change</th><th>question</th><th>relevant</th>"
                f"<th>{e(report.baseline)} top {k}</th><th>{e(name)} top {k}</th></tr>"
            )
            for change, total in ((flips.LOST, lost), (flips.GAINED, gained)):
                picked = flips.shown(report, name, s, change, FLIPS_SHOWN)
                for r in picked.itertuples(index=False):
                    parts.append(
                        f'<tr><td class="{change}">{change}<br>{r.baseline:.3f} &rarr; '
                        f'{r.candidate:.3f}</td><td class="q"><b>{e(r.qid)}</b> '
                        f"{e(r.question)}</td>"
                        f"<td>{e(r.relevant) or 'none labelled'}</td>"
                        f'<td class="top">{_ranks(r.baseline_top)}</td>'
                        f'<td class="top">{_ranks(r.candidate_top)}</td></tr>'
                    )
                if total > len(picked):
                    parts.append(
                        f'<tr><td colspan="5">{total - len(picked)} more {change}: '
                        "flipped.csv lists them</td></tr>"
                    )
            parts.append("</table>")
    return parts


def _decision_cell(decision: str, heldout: str | None = None) -> str:
    """A decision's cell, styled by its CSS class (`d-fails-guard`, ...), with what held-out
    questions said of it (`Report.heldout_short`) under it."""
    under = ""
    if heldout is not None:
        css = "d-better" if heldout.startswith("confirmed") else "warn"
        under = f'<br><span class="{css}">{html.escape(heldout)}</span>'
    return f'<td class="d-{decision.replace(" ", "-")}">{html.escape(decision)}{under}</td>'


def to_html(report: Report, images: Mapping[str, bytes] | None = None) -> str:
    """The report as one self-contained HTML page (inline CSS, PNGs embedded as data URIs)."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(report.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(report.title)}</h1>",
    ]
    if not report.like_for_like:
        parts.append(
            '<p class="warn">Not like for like: the runs compared differ in labelled '
            "set or corpus snapshot; see the notes.</p>"
        )
    parts.append(f'<p class="method">{e(method_text(report))}</p>')
    part = report.part_note()
    if part:
        parts.append(f'<p class="part"><b>{e(part)}</b></p>')
    for line in judge_lines(report):
        warn = report.judge is not None and report.judge.problem is not None
        css = "warn" if warn and not line.startswith("audit:") else "part"
        parts.append(f'<p class="{css}">{e(line)}</p>')
    held = report.heldout is not None
    parts.append(
        "<h2>Decisions</h2><table><tr><th>configuration</th><th>decision on dev</th>"
        + ("<th>held-out</th>" if held else "")
        + "<th>why</th></tr>"
    )
    for d in report.decisions:
        why = e(d.reason) + "".join(
            f'<br><span class="warn">warning: {e(w)}</span>' for w in d.warnings
        )
        verdict = ""
        if held:
            text = report.heldout_of(d.config) or ""
            css = "d-better" if text.startswith("confirmed") else ("warn" if text else "")
            verdict = f'<td class="{css}">{e(text)}</td>'
        parts.append(
            f"<tr><td>{e(d.config)}</td>{_decision_cell(d.decision)}{verdict}<td>{why}</td></tr>"
        )
    parts.append("</table>")
    for caption, measure in tables(report):
        cols = columns(report, measure)
        first = measure is None  # the headline table carries each row's decision
        parts.append(
            f"<h2>{e(caption)}</h2><table><tr><th>{e(report.factor or 'configuration')}"
            "</th>"
            + ("<th>decision</th>" if first else "")
            + "".join(f"<th>{e(c.header())}</th>" for c in cols)
            + "</tr>"
        )
        parts.append(
            f"<tr><td>{e(row_label(report, report.baseline))}</td>"
            + ("<td></td>" if first else "")
            + "".join(
                f'<td class="num">{value_text(report.baseline_value(c.measure, c.stratum))}'
                + "".join(
                    f'<br><span class="raw">{e(t)}</span>'
                    for t in [baseline_unjudged(report, c)]
                    if t
                )
                + "</td>"
                for c in cols
            )
            + "</tr>"
        )
        for name in report.configs:
            row = [f"<tr><td>{e(name)}</td>"]
            if first:
                row.append(
                    _decision_cell(report.decision_of(name).decision, report.heldout_short(name))
                )
            for col in cols:
                delta, interval, verdict, value = cell_texts(report, name, col)
                under = "".join(
                    f'<br><span class="{"bound" if "relevant" in t else "raw"}">{e(t)}</span>'
                    for t in bound_lines(report, name, col)
                )
                row.append(
                    f'<td class="num {verdict.replace(" ", "-")}">{delta} {verdict}<br>'
                    f'{interval}<br><span class="raw">{value}</span>{under}</td>'
                )
            parts.append("".join(row) + "</tr>")
        parts.append("</table>")
    for table in (part_table(report), judge_table(report)):
        if table is None:
            continue
        caption, head, rows = table
        parts.append(
            f"<h2>{e(caption)}</h2><table><tr>"
            + "".join(f"<th>{e(h)}</th>" for h in head)
            + "</tr>"
        )
        for r in rows:
            parts.append(
                "<tr>"
                + "".join(f"<td>{e(c)}</td>" for c in r[:2])
                + "".join(f'<td class="num">{e(c)}</td>' for c in r[2:])
                + "</tr>"
            )
        parts.append("</table>")
    cols = columns(report, None)
    parts.append(
        f"<h2>Resolution: half-width and questions needed for a gap of "
        f"{report.target_gap:g}</h2><table><tr><th>"
        f"{e(report.factor or 'configuration')}</th>"
        + "".join(f"<th>{e(c.header())}</th>" for c in cols)
        + "</tr>"
    )
    for name in report.configs:
        parts.append(
            f"<tr><td>{e(name)}</td>"
            + "".join(f'<td class="num">{e(resolution_text(report, name, c))}</td>' for c in cols)
            + "</tr>"
        )
    parts.append("</table>")
    parts += _flips_html(report)
    if report.notes:
        parts.append(
            "<h2>Notes</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in report.notes) + "</ul>"
        )
    text, commands = unjudged_lines(report)
    if text:
        parts.append(
            "<h2>Unjudged passages</h2>"
            + "".join(f'<p class="d-needs-judging">{e(t)}</p>' for t in text)
            + (f'<pre class="judge">{e(chr(10).join(commands))}</pre>' if commands else "")
        )
    for name, png in (images or {}).items():
        data = base64.b64encode(png).decode("ascii")
        parts.append(f'<h2>{e(name)}</h2><img alt="{e(name)}" src="data:image/png;base64,{data}">')
    parts.append("</body></html>")
    return "\n".join(parts)
