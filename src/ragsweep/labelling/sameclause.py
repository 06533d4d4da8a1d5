"""The same-clause rule: whether a clause of one wording version is the same clause in another
(docs/labelling.md, "4. Keep the set alive"). Label upkeep carries a label only onto the same
clause, and finds a renumbered clause by it.

Same clause: headings equal after `normalise`, `rapidfuzz.fuzz.ratio` of the normalised texts
>= `SAME_TEXT_MIN_RATIO` (0-100), and the same figures in the same order (`figures`: amounts,
numbers, percentages, durations, dates). A rewritten clause fails the ratio; a changed amount
("£50" to "£75") passes it (99.5) but is not the same clause: `figure_changes` shows the
difference ("£50 -> £75") for a person to decide.
"""

from __future__ import annotations

import difflib
import re
import unicodedata

from rapidfuzz import fuzz

from ragsweep.data import Clause

#: least `fuzz.ratio` (0-100) of two normalised clause texts for them to be the same clause
SAME_TEXT_MIN_RATIO = 90.0


def normalise(text: str) -> str:
    """Text as clauses are compared: NFKC, case-folded, runs of white space to one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


#: what a clause's figures are: an amount or number (currency sign, thousands separators,
#: decimals) with its unit or a following duration word, or a month name (a date's changed month)
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
FIGURE = re.compile(
    r"[£$€]?\d+(?:[,.]\d+)*(?:\s?%|\s?(?:per ?cent|k|m|bn|"
    r"(?:hour|day|week|month|year|mile|km)s?)\b)?|\b(?:" + _MONTHS + r")\b",
    re.IGNORECASE,
)


def figures(text: str) -> list[str]:
    """The figures of a clause text, in order (`FIGURE`), as written, white space normalised."""
    return [" ".join(m.group(0).split()) for m in FIGURE.finditer(text)]


def figure_changes(old: str, new: str) -> list[str]:
    """What changed among two texts' figures, in order: `£50 -> £75`, `30 days -> (gone)`,
    `(new) -> 14 days`; empty when they hold the same figures in the same order (case aside)."""
    a, b = figures(old), figures(new)
    changes: list[str] = []
    matcher = difflib.SequenceMatcher(a=[x.casefold() for x in a], b=[x.casefold() for x in b])
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        olds, news = a[i1:i2], b[j1:j2]
        for k in range(max(len(olds), len(news))):
            left = olds[k] if k < len(olds) else "(new)"
            right = news[k] if k < len(news) else "(gone)"
            changes.append(f"{left} -> {right}")
    return changes


def text_ratio(a: Clause, b: Clause) -> float | None:
    """`fuzz.ratio` of the two clauses' normalised texts, None when the headings differ."""
    if normalise(a.heading) != normalise(b.heading):
        return None
    return float(fuzz.ratio(normalise(a.text), normalise(b.text)))


def same_clause(old: Clause, new: Clause) -> bool:
    """Whether `new` is `old` by the same-clause rule (module docstring)."""
    ratio = text_ratio(old, new)
    return (
        ratio is not None
        and ratio >= SAME_TEXT_MIN_RATIO
        and not figure_changes(old.text, new.text)
    )


def renumbered(old: Clause, sections: dict[str, Clause]) -> Clause | list[str] | None:
    """The one clause of a newer version that is `old` renumbered (the same clause by the rule
    above: heading, text ratio, figures), the sections when several match, None when none."""
    hits = [c for c in sections.values() if same_clause(old, c)]
    if len(hits) > 1:
        return sorted(c.section for c in hits)
    return hits[0] if hits else None
