"""The release gate's rule, read off a built comparison report: does a candidate pass?

    gate = decide(report, needs_judging="fail")     # report: the candidate against a baseline
    gate.passed, gate.failures                      # exit 0 or 1, and why
    gate_markdown(gate)                             # a pull-request comment / CI job summary
    gate_junit(gate)                                # JUnit XML, one test case per stratum

A candidate fails when its headline (the traffic-weighted stratum, else `all`) or a guard slice
is worse beyond noise at the stratum's deciding measure; a `needs judging` cell there fails or
warns (`needs_judging`). Any other slice worse beyond noise, a guard or headline interval too
wide to rule out a drop of `target_gap`, and a `needs judging` cell elsewhere are warnings: said,
never failing. docs/ci.md.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from ragsweep.compare.format import interval, signed, value_text
from ragsweep.compare.report import NEEDS_JUDGING, WORSE, Report
from ragsweep.conventions import ALL
from ragsweep.errors import UserError

#: what a `needs judging` cell on the headline or a guard slice does: fail the gate or warn
NEEDS_JUDGING_CHOICES: tuple[str, ...] = ("fail", "warn")
PASS, FAIL, WARN = "pass", "fail", "warn"


@dataclass(frozen=True)
class Check:
    """One stratum of the gate: the candidate against the baseline at the deciding measure."""

    stratum: str
    role: str  # `headline`, `guard`, `slice` or `unweighted` (`all` beside a weighted headline)
    measure: str
    n: int
    baseline: float
    candidate: float
    delta: float
    ci_low: float
    ci_high: float
    verdict: str
    status: str  # PASS, FAIL or WARN
    why: str  # one sentence, empty when it passes quietly

    @property
    def label(self) -> str:
        """`exclusions (guard)`, `weighted (headline)`, `limits`."""
        return self.stratum if self.role == "slice" else f"{self.stratum} ({self.role})"


@dataclass(frozen=True)
class Gate:
    """A candidate gated against its baseline: `checks` per stratum in report order."""

    report: Report
    candidate: str
    checks: tuple[Check, ...]
    needs_judging: str

    @property
    def passed(self) -> bool:
        return all(c.status != FAIL for c in self.checks)

    @property
    def failures(self) -> tuple[str, ...]:
        return tuple(c.why for c in self.checks if c.status == FAIL)

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(c.why for c in self.checks if c.status == WARN)

    @property
    def title(self) -> str:
        outcome = "PASS" if self.passed else "FAIL"
        return f"ragsweep gate: {outcome}: {self.candidate} against {self.report.baseline}"


def _role(report: Report, stratum: str) -> str:
    if stratum == report.headline:
        return "headline"
    if stratum == ALL:  # the unweighted mean, shown beside a weighted headline
        return "unweighted"
    return "guard" if stratum in report.guard_slices else "slice"


def _check(report: Report, config: str, stratum: str, needs_judging: str) -> Check:
    measure = report.deciding(stratum)
    cell = report.cell(config, measure, stratum)
    role = _role(report, stratum)
    delta, lo, hi = float(cell["delta"]), float(cell["ci_low"]), float(cell["ci_high"])
    verdict = str(cell["verdict"])
    where = {
        "headline": f"the headline {stratum}",
        "guard": f"the guard slice {stratum}",
        "slice": f"the slice {stratum}",
        "unweighted": "all questions, unweighted,",
    }[role]
    said = f"{where}: {measure} {interval(delta, lo, hi)} over {int(cell['n'])} questions"
    decides = role in ("headline", "guard")
    status, why = PASS, ""
    if verdict == WORSE:
        status = FAIL if decides else WARN
        why = f"{said}: worse beyond noise" + ("" if decides else " (it does not decide)")
    elif verdict == NEEDS_JUDGING:
        status = FAIL if decides and needs_judging == "fail" else WARN
        optimistic = interval(
            cell["delta_if_relevant"], cell["ci_low_if_relevant"], cell["ci_high_if_relevant"]
        )
        why = (
            f"{said}: needs judging (unjudged passages in the top k could turn the verdict: "
            f"{optimistic} if they are relevant); judge them (docs/report.md, `needs judging`)"
        )
    elif decides and lo < 0 and not bool(cell["resolves"]):
        status = WARN
        gap = report.target_gap
        why = (
            f"{said}: not worse beyond noise, but a drop as large as {signed(lo)} is not ruled "
            "out; about "
            f"{int(cell['questions_needed'])} questions in this stratum would resolve a gap of "
            f"{gap:g}"
        )
    return Check(
        stratum=stratum,
        role=role,
        measure=str(measure),
        n=int(cell["n"]),
        baseline=float(cell["baseline"]),
        candidate=float(cell["value"]),
        delta=delta,
        ci_low=lo,
        ci_high=hi,
        verdict=verdict,
        status=status,
        why=why,
    )


def decide(report: Report, needs_judging: str = "fail") -> Gate:
    """Gate the report's one candidate against its baseline (`needs_judging`: what a `needs
    judging` cell on the headline or a guard slice does, `fail` or `warn`)."""
    if needs_judging not in NEEDS_JUDGING_CHOICES:
        raise UserError(
            f"--needs-judging must be one of {', '.join(NEEDS_JUDGING_CHOICES)}, "
            f"got {needs_judging!r}"
        )
    if len(report.configs) != 1:
        raise UserError(f"the gate compares one candidate, got {len(report.configs)}")
    config = report.configs[0]
    checks = tuple(_check(report, config, s, needs_judging) for s in report.strata)
    return Gate(report=report, candidate=config, checks=checks, needs_judging=needs_judging)


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def gate_markdown(gate: Gate, flipped: str = "") -> str:
    """The gate as Markdown for a pull-request comment or `$GITHUB_STEP_SUMMARY`: the outcome
    and why, one row per stratum, the warnings, the notes, and `flipped` (what flipped, as
    Markdown) at the end."""
    r = gate.report
    lines = [f"## {gate.title}", ""]
    if gate.passed:
        lines.append(
            f"{gate.candidate} passes: neither the headline nor a guard slice "
            f"({', '.join(r.guard_slices) or 'none'}) is worse beyond noise."
        )
    else:
        lines.append(f"{gate.candidate} fails:")
        lines += [f"- {_md(w)}" for w in gate.failures]
    level = f"{r.level:.0%}".rstrip("%")
    lines += [
        "",
        f"| stratum | n | measure | {_md(r.baseline)} | {_md(gate.candidate)} | "
        f"change [{level}% interval] | verdict | gate |",
        "|---|--:|---|--:|--:|---|---|---|",
    ]
    for c in gate.checks:
        lines.append(
            f"| {c.label} | {c.n} | {c.measure} | {value_text(c.baseline)} | "
            f"{value_text(c.candidate)} | {interval(c.delta, c.ci_low, c.ci_high)} | "
            f"{c.verdict} | {c.status} |"
        )
    if gate.warnings:
        lines += ["", "Warnings (they do not fail the gate):"]
        lines += [f"- {_md(w)}" for w in gate.warnings]
    notes = [n for n in (*r.notes, r.unjudged_note()) if n]
    if notes:
        lines += ["", "Notes:"]
        lines += [f"- {_md(n)}" for n in notes]
    lines += [
        "",
        f"Paired comparison on the same questions ({r.method}); a cell is worse when its "
        "whole interval is below 0. docs/ci.md says how to read this.",
    ]
    if flipped.strip():
        lines += ["", flipped.strip()]
    return "\n".join(lines) + "\n"


def gate_junit(gate: Gate, flipped: str = "") -> bytes:
    """The gate as JUnit XML: one test suite, one test case per stratum (a failing headline or
    guard slice is a failure; a warning is written to the case's system-out)."""
    failures = sum(c.status == FAIL for c in gate.checks)
    suites = ET.Element(
        "testsuites", name="ragsweep gate", tests=str(len(gate.checks)), failures=str(failures)
    )
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=f"{gate.candidate} against {gate.report.baseline}",
        tests=str(len(gate.checks)),
        failures=str(failures),
        errors="0",
        skipped="0",
    )
    for c in gate.checks:
        case = ET.SubElement(
            suite, "testcase", classname=f"ragsweep.gate.{c.measure}", name=c.label, time="0"
        )
        if c.status == FAIL:
            failure = ET.SubElement(case, "failure", message=c.why, type=c.verdict)
            failure.text = c.why
        elif c.status == WARN:
            ET.SubElement(case, "system-out").text = f"warning: {c.why}"
    if flipped.strip():
        ET.SubElement(suite, "system-out").text = flipped.strip()
    ET.indent(suites)
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n"
