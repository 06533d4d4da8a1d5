"""Build the built-in sample's labelled set the way the method says a team should build theirs.

`ragsweep.data.samplegen` writes the wordings (with derived documents) and a raw query log, and
knows, for every log entry, what was asked (`Truth`) and, for every passage, which clauses' facts
it states (`Passage.answers`, `.mentions`). This module then runs the product's own tools on
them, in order:

1. **Sample** (`labels sample`: `sampling.sample_log` with `scrub.scrub`): 48 core questions per
   slice from the entries before `ROLLING_FROM`, then 32 rolling ones per slice from the entries
   after it, excluding everything already drawn. A drawn entry that asks nothing the corpus can
   answer (out of scope, an account or claim-status request, a follow-up that needs its session)
   or comes from an anonymous session (no policy form, so no wording version) is what a labeller
   would set aside: it is recorded as such and the slice is topped up by drawing again, with
   the set-aside texts excluded, until it is full.
2. **Label by construction** (`construct_labels`), fact by fact: the generator knows which of
   a clause's facts (its `core` sentences) every passage restates and which facts each question
   asks; `relevance.md` in the sample is the rule in words.
3. **Pool** (`labels pool`: `pool.pool`) over `POOL_SYSTEMS` at `POOL_DEPTH` clauses, filter on
   and off; every pooled candidate not already relevant is judged 0, so no pooled clause is left
   unjudged, and `review/pool.jsonl` records the pool so `ragsweep data check` can show it.
4. **Review**: `samplegen.review` grades the judged pairs of 10 questions per slice twice more
   (a second reviewer, a biased pre-labeller) with disagreement that follows content.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ragsweep.data.samplegen import generate as gen
from ragsweep.data.samplegen.querylog import QueryLog, Truth, build_query_log
from ragsweep.data.samplegen.questions import Candidate
from ragsweep.data.samplegen.review import build_review
from ragsweep.data.samplegen.spec import SLICES
from ragsweep.data.samplegen.wordings import Corpus, build_corpus, present_facts
from ragsweep.labelling import sampling
from ragsweep.labelling.pool import pool
from ragsweep.labelling.scrub import Counting, Scrubber

QUESTIONS_PER_SLICE = 80
CORE_PER_SLICE = 48
#: core questions come from the log before this date, rolling ones from it on
ROLLING_FROM = dt.date(2025, 7, 1)
#: top-up rounds of `labels sample` per slice and subset before giving up
MAX_ROUNDS = 20
POOL_DEPTH = 10
#: the systems pooled (override lists on the sample's base config); `minilm` ones are skipped
#: when the [minilm] extra is not installed, and dataset.json says so
POOL_SYSTEMS: dict[str, list[str]] = {
    "bm25": ["retriever=bm25"],
    "bm25-nofilter": ["retriever=bm25", "retriever.filter=false"],
    "lsa": ["retriever=dense", "embedder=lsa"],
    "lsa-nofilter": ["retriever=dense", "embedder=lsa", "retriever.filter=false"],
    "minilm": ["retriever=dense", "embedder=minilm"],
    "minilm-nofilter": ["retriever=dense", "embedder=minilm", "retriever.filter=false"],
}

Label = tuple[str, str, str, int]  # (document, section, version, grade)
Progress = Callable[[str], None]


@dataclass(frozen=True)
class Question:
    qid: str
    text: str
    slice: str
    product: str
    version: str
    subset: str
    added: str
    candidate: Candidate
    labels: tuple[Label, ...]  # relevant ones, by construction: grade 2 first, then 1


@dataclass(frozen=True)
class Drawn:
    """One log entry `labels sample` drew, with what it asked."""

    line: int  # 1-based line in the log
    text: str  # scrubbed
    slice: str  # the classifier's
    ts: dt.datetime
    subset: str


def construct_labels(corpus: Corpus, cand: Candidate, version: str) -> tuple[Label, ...]:
    """The relevant passages of one question, from which facts each passage states.

    The question asks facts F of its target clause (`Candidate.facts`, or every fact the clause
    prints in `version`). Among the passages of its own product and version:
    grade 2 if a passage states all of F, or all of an `also` clause;
    grade 1 if it states some of F or some of an `also` clause, or all of a clause that bears on
    the answer (`supports`: the exception, a condition, a definition; or a clause the target
    cites); 0 otherwise: a passage stating only other facts of the target, a summary line that
    only points to the clause, and every passage of another version or product, whatever its
    text (relevance.md)."""
    product = cand.product.document

    def facts(key: str) -> set[tuple[str, int]]:
        return {(key, i) for i in present_facts(corpus, product, key, version)}

    target = facts(cand.target)
    asked = {(cand.target, i) for i in cand.facts} & target if cand.facts else target
    also = [facts(k) for k in cand.also if facts(k)]
    bearing = (set(cand.supports) | set(corpus.cites.get((product, cand.target), ()))) - {
        cand.target,
        *cand.also,
    }
    whole = [facts(k) for k in sorted(bearing) if facts(k)]
    twos, ones = [], []
    for (document, section, ver), passage in sorted(corpus.passages.items()):
        if passage.product != product or ver != version or not passage.states:
            continue
        states = set(passage.states)
        if (asked and asked <= states) or any(a <= states for a in also):
            twos.append((document, section, ver, 2))
        elif asked & states or any(a & states for a in also) or any(w <= states for w in whole):
            ones.append((document, section, ver, 1))
    return tuple(twos + ones)


def _write_log(path: Path, entries: list[dict]) -> None:
    path.write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries), encoding="utf-8"
    )


def draw_questions(
    log: QueryLog, seed: int, tmp: Path, progress: Progress
) -> tuple[list[Drawn], dict]:
    """Run `labels sample` on the two periods of the log, topping slices up until each holds
    its quota of answerable questions; returns the kept draws and what was set aside."""

    scrubbed = Counting(Scrubber())

    periods = {
        "core": [i for i, e in enumerate(log.entries) if _date(e) < ROLLING_FROM],
        "rolling": [i for i, e in enumerate(log.entries) if _date(e) >= ROLLING_FROM],
    }
    quota = {"core": CORE_PER_SLICE, "rolling": QUESTIONS_PER_SLICE - CORE_PER_SLICE}
    kept: list[Drawn] = []
    set_aside: Counter[str] = Counter()
    rounds: dict[str, int] = {}
    seen_texts: list[str] = []
    for subset, lines in periods.items():
        path = tmp / f"log-{subset}.jsonl"
        _write_log(path, [log.entries[i] for i in lines])
        need = {s: quota[subset] for s in SLICES}
        for round_ in range(MAX_ROUNDS):
            if not any(need.values()):
                break
            rounds[subset] = round_ + 1
            result = sampling.sample_log(
                path,
                scrubbed,
                existing=seen_texts,
                target=dict(need),
                seed=seed * 1000 + round_ + (500 if subset == "rolling" else 0),
            )
            if not result.rows:
                break
            for row in result.rows:
                index = lines[row.line - 1]
                truth = log.truth[index]
                seen_texts.append(row.text)
                if _leaks(log.entries[index]["text"], truth, row.text):
                    set_aside["personal data the scrubber missed"] += 1
                elif truth.candidate is None:
                    set_aside["asks nothing the wordings answer"] += 1
                elif truth.version is None:
                    set_aside["anonymous session: wording version unknown"] += 1
                elif need[row.slice] > 0:
                    need[row.slice] -= 1
                    kept.append(Drawn(index + 1, row.text, row.slice, row.ts, subset))
        short = {s: n for s, n in need.items() if n}
        if short:
            raise RuntimeError(f"the {subset} log cannot fill slices {short}")
        progress(
            f"sampled {quota[subset] * len(SLICES)} {subset} questions in {rounds[subset]} rounds"
        )
    return kept, {"set_aside": dict(sorted(set_aside.items())), "rounds": rounds}


def _leaks(raw: str, truth: Truth, scrubbed: str) -> bool:
    """True when a personal item of the raw entry (the generator's span truth) is still in the
    scrubbed text: what a labeller reading the question would catch and set aside."""
    for start, end, _kind in truth.pii:
        value = raw[start:end].strip()
        if len(value) >= 3 and value.lower() in scrubbed.lower():
            return True
    return False


def _date(entry: dict) -> dt.date:
    return dt.datetime.fromisoformat(entry["ts"]).date()


def build_questions(corpus: Corpus, log: QueryLog, drawn: list[Drawn], seed: int) -> list[Question]:
    """The drawn entries as labelled questions; `added` is the day a labeller got to them (1-9
    days after they were asked), qids follow it."""
    rng = random.Random(f"ragsweep-sample:{seed}:added")
    rows = []
    for d in sorted(drawn, key=lambda d: d.line):
        truth = log.truth[d.line - 1]
        entry = log.entries[d.line - 1]
        added = d.ts.date() + dt.timedelta(days=rng.randint(1, 9))
        rows.append((added.isoformat(), d.line, d, truth, entry))
    rows.sort(key=lambda r: (r[0], r[1]))
    out = []
    for n, (added, _, d, truth, entry) in enumerate(rows, start=1):
        cand = truth.candidate
        out.append(
            Question(
                qid=f"q{n:04d}",
                text=d.text,
                slice=d.slice,
                product=entry["product"],
                version=truth.version,
                subset=d.subset,
                added=added,
                candidate=cand,
                labels=construct_labels(corpus, cand, truth.version),
            )
        )
    return out


def _question_rows(questions: list[Question]) -> list[dict]:
    return [
        {
            "qid": q.qid,
            "text": q.text,
            "slice": q.slice,
            "product": q.product,
            "version": q.version,
            "subset": q.subset,
            "added": q.added,
        }
        for q in questions
    ]


def _minilm_available() -> bool:
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        return False
    return True


def pool_candidates(
    files: dict[str, bytes], tmp: Path, systems: dict[str, list[str]], progress: Progress
) -> list[dict]:
    """Every (question, clause) the systems rank in their top `POOL_DEPTH`, from a dataset
    folder holding `files`; rows sorted by qid and clause."""
    folder = tmp / "dataset"
    gen.write_dataset(folder, files)
    found: dict[tuple[str, str], set[str]] = {}
    for name, overrides in sorted(systems.items()):
        progress(f"pooling {name} (top {POOL_DEPTH})")
        p = pool(
            ["data=folder", f"data.path={folder}"],
            {name: overrides},
            depth=POOL_DEPTH,
            questions="all",
        )
        for qid, clause_id in zip(p.hits["qid"], p.hits["clause_id"], strict=True):
            found.setdefault((str(qid), str(clause_id)), set()).add(name)
    rows = []
    for (qid, clause_id), names in sorted(found.items()):
        document, rest = clause_id.split("/", 1)
        section, version = rest.rsplit("@", 1)
        rows.append(
            {
                "qid": qid,
                "document": document,
                "section": section,
                "version": version,
                "systems": sorted(names),
            }
        )
    return rows


def build_files(seed: int = 0, progress: Progress | None = None) -> dict[str, bytes]:
    """Every file of the sample dataset for `seed`, path -> bytes; same seed, same bytes
    (given the same pooling systems: without the [minilm] extra the MiniLM ones are skipped)."""
    say = progress or (lambda _msg: None)
    corpus = build_corpus(seed)
    log = build_query_log(corpus, seed)
    systems = {
        k: v for k, v in POOL_SYSTEMS.items() if not k.startswith("minilm") or _minilm_available()
    }
    with tempfile.TemporaryDirectory(prefix="ragsweep-sample-build-") as tmp_name:
        tmp = Path(tmp_name)
        drawn, draw_notes = draw_questions(log, seed, tmp, say)
        questions = build_questions(corpus, log, drawn, seed)
        relevant = {q.qid: list(q.labels) for q in questions}
        files = gen.assemble(corpus, log, _question_rows(questions), relevant, seed)
        pooled = pool_candidates(files, tmp, systems, say)
    # every pooled pair not already relevant is judged 0 (pool rows are unique per pair)
    relevant_keys = {qid: {(d, s, v) for d, s, v, _ in labs} for qid, labs in relevant.items()}
    labels = {qid: list(labs) for qid, labs in relevant.items()}
    already_relevant = 0
    for row in pooled:
        key = (row["document"], row["section"], row["version"])
        if key in relevant_keys[row["qid"]]:
            already_relevant += 1
        else:
            labels[row["qid"]].append((*key, 0))
    review = build_review(corpus, questions, labels, seed)
    notes = {
        "sampling": {
            "method": "ragsweep labels sample (scrubbed, deduplicated, stratified by the rule"
            " classifier's slice), 48 core questions per slice from entries before"
            f" {ROLLING_FROM.isoformat()}, 32 rolling ones after; drawn entries a labeller sets"
            " aside are replaced by drawing again",
            **draw_notes,
        },
        "pool": {
            "systems": {k: " ".join(v) for k, v in sorted(systems.items())},
            "skipped": sorted(set(POOL_SYSTEMS) - set(systems)),
            "depth": POOL_DEPTH,
            "candidates": len(pooled),
            "already_relevant": already_relevant,
        },
    }
    return gen.assemble(
        corpus,
        log,
        _question_rows(questions),
        labels,
        seed,
        review=review,
        pooled=pooled,
        questions_meta=questions,
        extra_notes=notes,
    )


def generate(out: Path, seed: int = 0, progress: Progress | None = None) -> None:
    """Write the sample for `seed` to folder `out` (missing, empty or a dataset folder)."""
    gen.write_dataset(Path(out), build_files(seed, progress))


__all__ = ["build_files", "construct_labels", "generate"]
