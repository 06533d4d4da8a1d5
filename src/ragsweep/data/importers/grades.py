"""Grade rules: how a source collection's relevance codes become schema grades (0, 1, 2).

`THRESHOLD_RULE` (TREC, BEIR), `CRANFIELD_RULE` (codes that run backwards) and a custom rule
from `--grade-map`. docs/importing.md, "Grade rules", says why each rule is what it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ragsweep.errors import UserError


@dataclass(frozen=True)
class GradeRule:
    """Maps a source relevance code to a schema grade (0, 1, 2) or None (the line is dropped).

    `table` lists exact codes; a code outside it is graded by the threshold rule (>= 2 -> 2,
    1 -> 1, <= 0 -> 0) when `threshold` is true, and is an error otherwise (a custom map must
    name every code the qrels use). `best` says which codes are better for `--slice-by
    best-code`: `higher` (TREC, BEIR) or `lower` (Cranfield, whose 1 is a complete answer);
    `names` gives those slices readable names (default `code<N>`).
    """

    name: str
    table: tuple[tuple[int, int | None], ...] = ()
    threshold: bool = True
    best: Literal["higher", "lower"] = "higher"
    names: tuple[tuple[int, str], ...] = ()

    def grade(self, code: int) -> int | None:
        """The schema grade of `code`; KeyError if the rule does not cover it."""
        for c, g in self.table:
            if c == code:
                return g
        if not self.threshold:
            raise KeyError(code)
        return 2 if code >= 2 else (1 if code == 1 else 0)

    def slice_name(self, code: int) -> str:
        """Name of the `--slice-by best-code` slice of questions whose best code is `code`."""
        return dict(self.names).get(code, f"code{code}")

    def best_key(self, code: int) -> int:
        """Sort key putting the best code first."""
        return code if self.best == "lower" else -code

    def describe(self) -> str:
        """The rule in words, for dataset.json and the import summary."""
        parts = [f"{c} -> {'dropped' if g is None else g}" for c, g in self.table]
        if self.threshold:
            parts.append(("other codes: " if self.table else "") + ">= 2 -> 2, 1 -> 1, <= 0 -> 0")
        return ", ".join(parts)


#: TREC and BEIR: grades above 2 collapse to 2; zero and negative grades are judged non-relevant
THRESHOLD_RULE = GradeRule("threshold")
#: Cranfield's codes run backwards (1 complete answer .. 4 minimum interest); -1 is judged not
#: relevant (the collection's notes do not explain it)
CRANFIELD_RULE = GradeRule(
    "cranfield",
    table=((1, 2), (2, 2), (3, 1), (4, 1), (-1, 0)),
    threshold=False,
    best="lower",
    names=((1, "complete"), (2, "high"), (3, "background"), (4, "minimum")),
)


def parse_grade_map(spec: str, base: GradeRule) -> GradeRule:
    """A custom rule from `--grade-map "1=2,2=2,3=1,4=0,-1=drop"` (every code used must be named).

    Keeps `base`'s notion of which code is best (for slicing) and its slice names.
    """
    table: list[tuple[int, int | None]] = []
    seen: set[int] = set()
    for item in spec.split(","):
        code_s, sep, grade_s = item.strip().partition("=")
        try:
            code = int(code_s.strip())
        except ValueError:
            code = None
        grade_s = grade_s.strip()
        if not sep or code is None or grade_s not in ("0", "1", "2", "drop"):
            raise UserError(
                f"--grade-map item {item.strip()!r} is not CODE=GRADE; write e.g. "
                "'1=2,2=2,3=1,4=0,-1=drop' (GRADE 0, 1, 2, or drop to ignore the line)"
            )
        if code in seen:
            raise UserError(f"--grade-map names code {code} twice; keep one")
        seen.add(code)
        table.append((code, None if grade_s == "drop" else int(grade_s)))
    return GradeRule("custom", tuple(table), threshold=False, best=base.best, names=base.names)
