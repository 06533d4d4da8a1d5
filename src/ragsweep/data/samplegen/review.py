"""Review sample: a second reviewer and model pre-labels whose disagreement follows content.

For 10 questions per slice both files grade exactly the pairs labels.jsonl judges. Each pair is
first given a `kind` (identical twin, changed twin, definition, two-part, limit without exception,
summary line, same topic, other), and the chance of a different grade depends on it (`REVIEWER2`,
`PRELABELER`): the kinds and the pre-labeller's two biases are described in docs/sample.md.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ragsweep.data.samplegen.spec import SLICES
from ragsweep.data.samplegen.wordings import Corpus

REVIEW_PER_SLICE = 10
PRELABEL_MODEL = "simulated-prelabeler-v2 (ragsweep sample; not a real model)"

Label = tuple[str, str, str, int]  # (document, section, version, grade)

#: kind -> {first reviewer's grade: ((other grade, probability), ...)}
REVIEWER2: dict[str, dict[int, tuple[tuple[int, float], ...]]] = {
    "identical twin": {0: ((1, 0.2),)},
    "changed twin": {0: ((1, 0.03),)},
    "definition": {1: ((0, 0.45),)},
    "two-part": {1: ((2, 0.5),)},
    "limit without exception": {2: ((1, 0.3),)},
    "summary line": {1: ((0, 0.15), (2, 0.1))},
    "same topic": {0: ((1, 0.05),)},
    "other": {0: ((1, 0.01),), 1: ((2, 0.08), (0, 0.08)), 2: ((1, 0.04),)},
}
#: what the pre-labeller does; `twin` kinds copy the right version's grade with this chance
PRELABEL_IGNORES_VERSION = 0.9
PRELABELER: dict[str, dict[int, tuple[tuple[int, float], ...]]] = {
    "definition": {1: ((2, 0.2),)},
    "two-part": {1: ((2, 0.4),)},
    "limit without exception": {2: ((2, 1.0),)},
    "summary line": {1: ((2, 0.4),)},
    "same topic": {0: ((1, 0.5),)},
    "other": {0: ((1, 0.08),), 1: ((2, 0.3),), 2: ((1, 0.05),)},
}

_TWO_PART = re.compile(
    r"\b(and|also|plus)\b[^?]*?\b(what|how|do|does|is|are|can|will|would|who|when)\b", re.I
)


@dataclass(frozen=True)
class Review:
    reviewer2: list[tuple[str, Label]]  # (qid, label) in labels order
    prelabels: list[tuple[str, Label]]
    notes: dict


def cohen_kappa(a: list[int], b: list[int]) -> float:
    """Unweighted Cohen's kappa of two equally long grade lists (1.0 when both are constant)."""
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[g] * cb[g] for g in set(ca) | set(cb)) / (n * n)
    return 1.0 if expected == 1 else (observed - expected) / (1 - expected)


def pair_kind(corpus: Corpus, question: Any, label: Label, judged: dict) -> str:
    """The kind of judgement call pair (`question`, `label`) is (module docstring)."""
    document, section, version, grade = label
    passage = corpus.passages[(document, section, version)]
    if version != question.version and (document, section, question.version) in judged:
        same = corpus.texts.get((document, section, version)) == corpus.texts.get(
            (document, section, question.version)
        )
        return "identical twin" if same else "changed twin"
    if grade == 1 and passage.kind == "definitions":
        return "definition"
    if grade == 1 and _TWO_PART.search(question.text) and passage.answers:
        return "two-part"
    if grade == 2 and question.slice == "limits" and "-" in document:
        return "limit without exception"
    if grade == 1 and passage.mentions and not passage.answers:
        return "summary line"
    target = corpus.passages.get(
        (
            question.product,
            corpus.refs[(question.product, question.candidate.target)].section,
            question.version,
        )
    )
    if (
        grade == 0
        and version == question.version
        and document == question.product
        and target is not None
        and passage.kind == target.kind
    ):
        return "same topic"
    return "other"


def _other_grade(
    rules: dict[str, dict[int, tuple[tuple[int, float], ...]]],
    kind: str,
    grade: int,
    rng: random.Random,
) -> int:
    draw = rng.random()
    for other, p in rules.get(kind, {}).get(grade, ()):
        if draw < p:
            return other
        draw -= p
    return grade


def _summary(first: list[int], second: list[int], slices: list[str], kinds: list[str]) -> dict:
    def block(idx: list[int]) -> dict:
        n_dis = sum(first[i] != second[i] for i in idx)
        return {
            "pairs": len(idx),
            "disagreements": n_dis,
            "share": round(n_dis / len(idx), 4) if idx else 0.0,
        }

    everything = list(range(len(first)))
    return {
        **block(everything),
        "cohen_kappa": round(cohen_kappa(first, second), 4),
        "by_first_grade": {
            str(g): block([i for i in everything if first[i] == g]) for g in (0, 1, 2)
        },
        "by_kind": {k: block([i for i in everything if kinds[i] == k]) for k in sorted(set(kinds))},
        "by_slice": {s: block([i for i in everything if slices[i] == s]) for s in SLICES},
    }


def build_review(
    corpus: Corpus, questions: list[Any], labels: dict[str, list[Label]], seed: int
) -> Review:
    """The two review files for 10 questions per slice; `questions` carry qid, text, slice,
    product, version and candidate (`ragsweep.labelling.sample_build.Question`), `labels` every
    judged pair per qid."""
    rng = random.Random(f"ragsweep-sample:{seed}:review")
    chosen = []
    for slice_ in SLICES:
        in_slice = sorted((q for q in questions if q.slice == slice_), key=lambda q: q.qid)
        chosen.extend(rng.sample(in_slice, REVIEW_PER_SLICE))
    chosen.sort(key=lambda q: q.qid)

    reviewer2: list[tuple[str, Label]] = []
    prelabels: list[tuple[str, Label]] = []
    first: list[int] = []
    slices: list[str] = []
    kinds: list[str] = []
    for q in chosen:
        judged = {(d, s, v): g for d, s, v, g in labels[q.qid]}
        for label in labels[q.qid]:
            d, s, v, g = label
            kind = pair_kind(corpus, q, label, judged)
            key = f"{q.qid}:{d}/{s}@{v}"
            r2 = _other_grade(REVIEWER2, kind, g, random.Random(f"{seed}:reviewer2:{key}"))
            pre_rng = random.Random(f"{seed}:prelabel:{key}")
            if kind.endswith("twin") and pre_rng.random() < PRELABEL_IGNORES_VERSION:
                pre = judged[(d, s, q.version)]
            else:
                pre = _other_grade(PRELABELER, kind, g, pre_rng)
            reviewer2.append((q.qid, (d, s, v, r2)))
            prelabels.append((q.qid, (d, s, v, pre)))
            first.append(g)
            slices.append(q.slice)
            kinds.append(kind)
    notes = {
        "questions": len(chosen),
        "questions_per_slice": REVIEW_PER_SLICE,
        "pairs": len(first),
        "pairs_by_kind": dict(sorted(Counter(kinds).items())),
        "reviewer2": {
            "rule": "one grade step, on the judgement calls of the relevance rule (pair kinds)",
            **_summary(first, [lab[3] for _, lab in reviewer2], slices, kinds),
        },
        "prelabels": {
            "model": PRELABEL_MODEL,
            "rule": "ignores the wording version (twins graded like the right version's"
            " passage) and over-grades passages on the same topic",
            **_summary(first, [lab[3] for _, lab in prelabels], slices, kinds),
        },
    }
    return Review(reviewer2, prelabels, notes)


__all__ = ["PRELABEL_MODEL", "Review", "build_review", "cohen_kappa", "pair_kind"]
