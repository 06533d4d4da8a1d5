"""Review sample: pooled grade-0 judgements, a second reviewer and model pre-labels.

For 50 questions (10 per slice) the first reviewer also judged pooled candidates that are not
relevant: the wrong-version twin of each relevant clause, the same clause in other products and
neighbouring clauses. `reviewer2.jsonl` and `prelabels.jsonl` grade exactly the same pairs and
disagree with `labels.jsonl` on a fixed number of pairs, chosen at random:

- the second reviewer on `REVIEWER2_SHARE` of the pairs, with limits-slice pairs twice as likely
  to be chosen (the "does a clause with the limit but not its exception count?" dispute), and
  only by one grade step (2<->1, 1<->0);
- the simulated model on `PRELABEL_SHARE`, uniformly, leaning to over-inclusion (0 -> 1).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from ragsweep.data.samplegen.questions import Question
from ragsweep.data.samplegen.spec import SLICES, VERSIONS
from ragsweep.data.samplegen.wordings import PRODUCTS, Corpus

REVIEW_PER_SLICE = 10
POOL_SIZE = (3, 6)  # grade-0 candidates judged per review question (inclusive range)
REVIEWER2_SHARE = 0.15
PRELABEL_SHARE = 0.25
PRELABEL_MODEL = "simulated-prelabeler-v1 (ragsweep sample; not a real model)"

Label = tuple[str, str, str, int]  # (document, section, version, grade)


@dataclass(frozen=True)
class Review:
    labels: dict[str, tuple[Label, ...]]  # qid -> every judged pair, relevant ones first
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


def _pool(corpus: Corpus, q: Question, rng: random.Random) -> list[Label]:
    """Non-relevant candidates a pooled review would have shown for question `q`."""
    judged = {(d, s, v) for d, s, v, _ in q.labels}
    sec_to_key = {
        (doc, ref.section): key for (doc, key), ref in corpus.refs.items() if doc == q.product
    }
    first: list[tuple[str, str, str]] = []
    rest: list[tuple[str, str, str]] = []
    for i, (doc, section, version, _) in enumerate(q.labels):
        key = sec_to_key[(doc, section)]
        for other in VERSIONS:  # the same clause in the wrong version
            if other != version and (doc, section, other) in corpus.texts:
                (first if i == 0 else rest).append((doc, section, other))
        for product in PRODUCTS:  # the same clause in another product
            ref = corpus.refs.get((product.document, key))
            if (
                product.document != doc
                and ref
                and (ref.product.document, ref.section, version) in corpus.texts
            ):
                rest.append((product.document, ref.section, version))
        part, number = section.split(".")
        for n in (int(number) - 1, int(number) + 1):  # neighbours in the same part
            if (doc, f"{part}.{n}", version) in corpus.texts:
                rest.append((doc, f"{part}.{n}", version))
    # fallbacks, used only if the pool is still short: the same clause number in the other
    # products, then clauses two away in the same part
    spare: list[tuple[str, str, str]] = []
    doc, section, version, _ = q.labels[0]
    part, number = section.split(".")
    for product in PRODUCTS:
        if product.document != doc and (product.document, section, version) in corpus.texts:
            spare.append((product.document, section, version))
    for n in (int(number) - 2, int(number) + 2):
        if (doc, f"{part}.{n}", version) in corpus.texts:
            spare.append((doc, f"{part}.{n}", version))
    rng.shuffle(rest)
    out: list[tuple[str, str, str]] = []
    for cand in first + rest + spare:
        if cand not in judged and cand not in out:
            out.append(cand)
    size = rng.randint(*POOL_SIZE)
    return [(d, s, v, 0) for d, s, v in out[:size]]


def _disagree(
    pairs: list[tuple[str, str, Label]],
    share: float,
    weight: dict[str, float],
    flip: dict[int, tuple[int, ...]],
    rng: random.Random,
) -> tuple[list[tuple[str, Label]], set[int]]:
    """Copy `pairs` ((qid, slice, label)) changing the grade of round(share * n) of them, drawn
    without replacement with per-slice weights (Efraimidis-Spirakis keys)."""
    k = round(share * len(pairs))
    keys = [rng.random() ** (1.0 / weight.get(s, 1.0)) for _, s, _ in pairs]
    chosen = set(sorted(range(len(pairs)), key=lambda i: -keys[i])[:k])
    out = []
    for i, (qid, _, (d, s, v, g)) in enumerate(pairs):
        out.append((qid, (d, s, v, rng.choice(flip[g]) if i in chosen else g)))
    return out, chosen


def _summary(pairs: list[tuple[str, str, Label]], other: list[tuple[str, Label]]) -> dict:
    first = [label[3] for _, _, label in pairs]
    second = [label[3] for _, label in other]
    by_slice = {}
    for slice_ in SLICES:
        idx = [i for i, (_, s, _) in enumerate(pairs) if s == slice_]
        n_dis = sum(first[i] != second[i] for i in idx)
        by_slice[slice_] = {
            "pairs": len(idx),
            "disagreements": n_dis,
            "share": round(n_dis / len(idx), 4),
        }
    n_dis = sum(x != y for x, y in zip(first, second, strict=True))
    return {
        "pairs": len(pairs),
        "disagreements": n_dis,
        "share": round(n_dis / len(pairs), 4),
        "cohen_kappa": round(cohen_kappa(first, second), 4),
        "by_slice": by_slice,
    }


def build_review(corpus: Corpus, questions: list[Question], seed: int) -> Review:
    rng = random.Random(f"ragsweep-sample:{seed}:review")
    chosen: list[Question] = []
    for slice_ in SLICES:
        in_slice = [q for q in questions if q.slice == slice_]
        chosen.extend(rng.sample(in_slice, REVIEW_PER_SLICE))
    chosen.sort(key=lambda q: q.qid)

    labels = {q.qid: q.labels for q in questions}
    pairs: list[tuple[str, str, Label]] = []
    for q in chosen:
        labels[q.qid] = q.labels + tuple(_pool(corpus, q, rng))
        pairs.extend((q.qid, q.slice, label) for label in labels[q.qid])

    reviewer2, _ = _disagree(
        pairs, REVIEWER2_SHARE, {"limits": 2.0}, {2: (1,), 1: (2, 0), 0: (1,)}, rng
    )
    prelabels, _ = _disagree(pairs, PRELABEL_SHARE, {}, {2: (1,), 1: (2, 0, 0), 0: (1,)}, rng)
    notes = {
        "questions": len(chosen),
        "questions_per_slice": REVIEW_PER_SLICE,
        "pairs": len(pairs),
        "pooled_grade0_pairs": sum(1 for _, _, label in pairs if label[3] == 0),
        "pooling": "wrong-version twin of each relevant clause, the same clause in other"
        " products, neighbouring clauses; 3-6 per question",
        "reviewer2": {
            "target_share": REVIEWER2_SHARE,
            "rule": "one grade step; limits pairs twice as likely to be disputed",
            **_summary(pairs, reviewer2),
        },
        "prelabels": {
            "model": PRELABEL_MODEL,
            "target_share": PRELABEL_SHARE,
            "rule": "uniform over pairs; 0 -> 1, 1 -> 2 or 0, 2 -> 1",
            **_summary(pairs, prelabels),
        },
    }
    return Review(labels, reviewer2, prelabels, notes)
