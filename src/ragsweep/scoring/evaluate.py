"""Evaluate one retrieval configuration: the library call behind `ragsweep` and notebooks.

    from ragsweep.config import compose
    from ragsweep.scoring.evaluate import evaluate
    result = evaluate(compose(["chunker.size=256"]))
    result.summary            # slice x measure table

`evaluate` computes; `ragsweep.experiment.single.run` adds MLflow logging and printing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.data import Dataset, load_dataset
from ragsweep.data.gc_pause import heap_frozen
from ragsweep.measures import Measure
from ragsweep.retrieval import pipeline
from ragsweep.retrieval.base import ties_across
from ragsweep.scoring import trec
from ragsweep.scoring.eval_config import check_eval, pin_tags, scoring
from ragsweep.scoring.ranked import score_ranked
from ragsweep.scoring.stages import chunk_and_filter, question_rows, stage_cache

#: the TREC files of a configuration run's `trec/` artifact
TREC_FILES = {
    "chunk": "run_chunks.txt",
    "clause": "run_clauses.txt",
    "qrels": "qrels_clauses.txt",
}


@dataclass
class EvalResult:
    """What one evaluation produced: per-question scores, per-slice table, MLflow payload."""

    config: dict[str, Any]
    measures: list[Measure]
    per_question: pd.DataFrame  # qid, slice, subset, one column per measure, ranked, clauses
    summary: pd.DataFrame  # index: slices + "all" + "weighted"; columns: str(measure)
    metrics: dict[str, float]  # "<measure key>/<row>" -> value
    tags: dict[str, str]
    counts: dict[str, int]  # questions per slice that were scored
    seconds: dict[str, float] = field(default_factory=dict)
    cost: dict[str, float] = field(default_factory=dict)
    #: score ties across the prompt cut (`tie_counts`): `k_prompt` (questions whose passages at
    #: ranks k_prompt and k_prompt + 1 score the same) and `k_prompt_share` (over the questions)
    ties: dict[str, float] = field(default_factory=dict)
    #: qid -> chunk ids, the full final ranking (`retriever.depth` deep)
    rankings: dict[str, list[str]] = field(default_factory=dict)
    #: qid -> clause ids in the order the ranking first covers them (what the measures credit)
    clause_rankings: dict[str, list[str]] = field(default_factory=dict)
    #: qid -> clause id -> grade, the labels of the scored questions
    qrels: dict[str, dict[str, int]] = field(default_factory=dict)
    #: the dataset folder the corpus and labelled set were read from
    data_root: str = ""

    def write_trec(self, folder: Path) -> None:
        """The run as TREC files, so trec_eval or ranx can check any number we report.

        `run_chunks.txt` ranks chunk ids (the retriever's own output); `run_clauses.txt` ranks
        clause ids in the order the chunks first cover them, and `qrels_clauses.txt` holds the
        clause labels of the scored questions. With one chunk per clause (`chunker=section`)
        trec_eval on the clause files gives our numbers exactly (linear gain for nDCG). Scores
        are n - rank, so trec_eval's tie rule cannot reorder anything.
        """
        folder.mkdir(parents=True, exist_ok=True)
        trec.write_run(folder / TREC_FILES["chunk"], self.rankings)
        trec.write_run(folder / TREC_FILES["clause"], self.clause_rankings)
        lines = [
            f"{qid} 0 {cid} {grade}\n"
            for qid in sorted(self.qrels)
            for cid, grade in sorted(self.qrels[qid].items())
        ]
        (folder / TREC_FILES["qrels"]).write_text("".join(lines))


def prompt_words(texts: Sequence[str], ranked: np.ndarray, k_prompt: int) -> float:
    """Mean words (whitespace-separated) in the first `k_prompt` passages handed to the
    generator, over the questions (`ranked` indexes `texts`; -1 adds nothing)."""
    return float(
        np.mean([sum(len(texts[i].split()) for i in row[:k_prompt] if i >= 0) for row in ranked])
    )


def tie_counts(ids: np.ndarray, scores: np.ndarray, k_prompt: int) -> dict[str, float]:
    """How many questions have a score tie across the prompt cut of the final ranking (the
    passages at ranks `k_prompt` and `k_prompt + 1` score exactly the same, so the tie rule,
    not the score, chose what the generator sees), and their share of the questions."""
    tied = ties_across(ids, scores, k_prompt)
    n = int(tied.sum())
    return {"k_prompt": float(n), "k_prompt_share": n / len(tied) if len(tied) else 0.0}


def first_stage_unjudged(path: str | Path) -> dict[str, Any]:
    """How much of a first stage's top k nobody judged on the dataset folder `path`: BM25 over
    the default chunks, every question (nothing held out), k = eval.k_prompt. Returns
    `{"retriever": "bm25", "k": k, "share": mean unjudged@k over all questions}`: what a
    collection that lists only relevant documents leaves to `needs judging` (docs/report.md).
    """
    from ragsweep.config import compose

    cfg = compose(
        ["data=folder", f"data.path={path}", "retriever=bm25", "data.split.heldout=0"]
        + ["cache.dir=null"]
    )
    k = int(cfg.eval.k_prompt)
    result = evaluate(cfg)
    return {"retriever": "bm25", "k": k, "share": float(result.metrics[f"unjudged_at_{k}/all"])}


def evaluate(
    cfg: DictConfig,
    dataset: Dataset | None = None,
    progress: Callable[[str], None] | None = None,
    allow_heldout: bool = False,
    once: bool = False,
) -> EvalResult:
    """Evaluate the configuration `cfg` (as `ragsweep.config.compose` builds it) on its
    dataset's selected questions.

    `progress`, if given, is called with the name of each stage as it starts; `allow_heldout`
    is for the confirm stage only. `once` is for a process that evaluates one configuration
    (a single run): the dataset it loads is not remembered for another load, and its wordings
    are let go once chunked, so they do not sit beside the index builds (263 MiB of the peak of
    a 100,000-chunk run), and the stage cache writes what the run holds anyway behind it
    (`StageCache.writing_behind`).
    """
    say = progress or (lambda stage: None)
    check_eval(cfg)  # before the dataset is read
    clock = time.perf_counter()
    say("loading data")
    ds = dataset if dataset is not None else load_dataset(cfg.data.path, remember=not once)
    how = scoring(cfg, ds, allow_heldout)
    questions = how.questions
    seconds = {"load": time.perf_counter() - clock}

    clock = time.perf_counter()
    say("chunking")
    pipe = pipeline.Pipeline.from_config(cfg)
    cache = stage_cache(cfg)
    # a single run's heap is left out of the collector's passes from its chunks on (below)
    with ExitStack() as stack:
        # a single run writes the chunks and lists it holds anyway on the core its SVD leaves idle
        with cache.writing_behind() if once else nullcontext():
            # every question goes through the first stage (one cached list for every split); the
            # later stages and the scores only see the selected ones
            chunks, allowed = chunk_and_filter(pipe, ds, ds.questions, cache)
            if once and dataset is None:
                ds = ds.without_wordings()  # the last reference to them
                pipeline.return_freed_memory()
                stack.enter_context(heap_frozen())  # what is alive now, until the run is scored
            seconds["chunk"] = time.perf_counter() - clock
            ranking = pipeline.rank(
                pipe,
                ds.snapshot_hash,
                chunks,
                list(ds.questions["text"]),
                allowed,
                cache,
                say,
                rows=question_rows(ds, questions),
            )

        clock = time.perf_counter()
        say("scoring")
        scored = score_ranked(ds, how, chunks, ranking.ids)
        seconds["score"] = time.perf_counter() - clock
    tags = {
        **pin_tags(cfg, ds, how),
        "ragsweep.index_build": pipe.index_build_hash(ds.snapshot_hash),
        cv.TAG_STAGE: cv.STAGE_CONFIG,
        "ragsweep.cache_hits": ",".join(sorted(cache.hits)) or "none",
    }
    words = prompt_words([c.text for c in chunks], ranking.ids, int(cfg.eval.k_prompt))
    ties = tie_counts(ranking.ids, ranking.scores, int(cfg.eval.k_prompt))
    return EvalResult(
        config=OmegaConf.to_container(cfg, resolve=True),
        measures=how.measures,
        per_question=scored.per_question,
        summary=scored.summary,
        metrics=scored.metrics,
        tags=tags,
        counts=scored.counts,
        seconds={**seconds, **ranking.seconds},
        cost={"chunks": float(len(chunks)), "prompt_words_mean": words, **ranking.cost},
        ties=ties,
        rankings=scored.rankings,
        clause_rankings=scored.clause_rankings,
        qrels=scored.qrels,
        data_root=str(ds.root.resolve()),
    )
