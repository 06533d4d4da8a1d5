"""How well a scrubber removes the personal data the query log's truth records, per kind.
See docs/sample.md.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from ragsweep.data.samplegen.log_people import PII_KINDS
from ragsweep.data.samplegen.querylog import Truth

_PLACEHOLDER = re.compile(r"<[A-Z_]+>")


def scrub_check(
    texts: list[str], truth: list[Truth], scrub: Callable[[str], str]
) -> dict[str, dict[str, float]]:
    """How well `scrub` removes the personal data the truth records, per kind: `spans`, `recall`
    (share of spans whose every letter and digit was replaced) and, under `placeholders`,
    `precision` (share of placeholders that replaced text overlapping a personal item). The raw
    and scrubbed texts are aligned with difflib, each placeholder first turned into one
    private-use character that matches nothing in the raw text."""
    import difflib

    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    placed = hit = 0
    for raw, t in zip(texts, truth, strict=True):
        out = _PLACEHOLDER.sub("\ue000", scrub(raw))
        replaced = [False] * len(raw)
        regions: list[tuple[int, int]] = []
        matcher = difflib.SequenceMatcher(None, raw, out, autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            if "\ue000" in out[j1:j2] or op == "delete":
                for i in range(i1, i2):
                    replaced[i] = True
            for _ in range(out[j1:j2].count("\ue000")):
                regions.append((i1, i2))
        for start, end, kind in t.pii:
            total[kind] += 1
            # spaces and punctuation inside an item may align with those between placeholders
            found[kind] += all(replaced[i] for i in range(start, end) if raw[i].isalnum())
        for i1, i2 in regions:
            placed += 1
            hit += any(s < i2 and i1 < e for s, e, _ in t.pii)
    report: dict[str, dict[str, float]] = {
        k: {"spans": total[k], "recall": round(found[k] / total[k], 4) if total[k] else 1.0}
        for k in PII_KINDS
    }
    report["placeholders"] = {"n": placed, "precision": round(hit / placed, 4) if placed else 1.0}
    return report
