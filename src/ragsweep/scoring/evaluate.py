"""Evaluate one retrieval configuration: the library call behind `ragsweep` and notebooks.

    from ragsweep.scoring.evaluate import evaluate, compose
    result = evaluate(compose(["chunker.size=256"]))
    result.summary            # slice x measure table

`evaluate` computes; `ragsweep.experiment.single.run` adds MLflow logging and printing.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.chunking.anchors import coverage, gain_arrays, label_matrix
from ragsweep.chunking.chunkers import Chunk, chunk_corpus
from ragsweep.data import Dataset, load_dataset, split
from ragsweep.data.reviews import kappa_summary
from ragsweep.errors import UserError
from ragsweep.measures import Measure
from ragsweep.provenance import code_tags, source_hash
from ragsweep.retrieval import pipeline
from ragsweep.retrieval.base import ties_across
from ragsweep.retrieval.cache import StageCache
from ragsweep.scoring import bounds, trec
from ragsweep.scoring.metrics import score_gains
from ragsweep.secrets import mask_config

SUBSETS = ("core", "rolling", "all")


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


def compose(overrides: Sequence[str] = ()) -> DictConfig:
    """The resolved config for `overrides`, as `ragsweep [overrides]` would build it."""
    from ragsweep.config import compose as checked_compose

    return checked_compose(overrides)


def parse_measures(cfg: DictConfig) -> list[Measure]:
    """The configured measures, plus recall@k_prompt (the decision metric) if missing, plus
    unjudged@k at k_prompt and at the deepest cutoff (`conventions.unjudged_measures`)."""
    k_prompt = int(cfg.eval.k_prompt)
    if k_prompt <= 0:
        raise UserError(f"eval.k_prompt must be a positive number of passages, got {k_prompt}")
    measures = [Measure.parse(str(m)) for m in cfg.eval.measures]
    decision = cv.decision_measure(k_prompt)
    if decision not in measures:
        measures.append(decision)
    measures += cv.unjudged_measures(k_prompt, measures)
    return list(dict.fromkeys(measures))


def _whole(value: Any) -> int | None:
    """`value` as a whole number (5, 5.0, "5"), else None (2.5, "abc", true)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return int(number) if number.is_integer() else None


def check_eval(cfg: DictConfig) -> None:
    """Every setting of the `eval` block checked, each refused in one line with the fix
    (`UserError`), before anything runs: `eval.min_overlap` is read only once the corpus is
    chunked, and a sweep's configurations all failed on it."""
    k_prompt = _whole(cfg.eval.k_prompt)
    if k_prompt is None or k_prompt <= 0:
        raise UserError(
            f"eval.k_prompt must be a positive whole number of passages, got {cfg.eval.k_prompt!r}"
        )
    share = cfg.eval.min_overlap
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
        raise UserError(
            f"eval.min_overlap must be a share in (0, 1]: how much of the shorter of a chunk and a "
            f"clause they must share (default 0.5), got {share!r}"
        )
    if str(cfg.eval.gain) not in ("exp", "linear"):
        raise UserError(f"eval.gain must be exp or linear, got {cfg.eval.gain!r}")
    normalise = OmegaConf.select(cfg, "eval.normalise_weights", default=False)
    if not isinstance(normalise, bool):
        raise UserError(f"eval.normalise_weights must be true or false, got {normalise!r}")
    cv.unjudged_rule(OmegaConf.select(cfg, "eval.unjudged"))
    parse_measures(cfg)


def check_snapshot(cfg: DictConfig, ds: Dataset) -> None:
    pinned = cfg.data.get("sha256")
    if pinned and pinned != ds.snapshot_hash:
        raise UserError(
            f"corpus snapshot {ds.root / 'corpus'} has sha256 {ds.snapshot_hash}, but the config "
            f"pins data.sha256={pinned}; point data.path at the pinned snapshot, set data.sha256 "
            "to the new hash to accept it, or use `data=folder data.path=DIR` for another dataset"
        )


def select_questions(
    cfg: DictConfig, ds: Dataset, allow_heldout: bool = False
) -> tuple[pd.DataFrame, str]:
    """The questions this run scores (split and subset applied), and the split's hash.

    Held-out questions are scored only by the confirm stage (`allow_heldout`): a split nobody
    tuned on stays that way. `eval.split=all` is allowed only when nothing is held out.
    """
    q = ds.questions
    salt, heldout = str(cfg.data.split.salt), float(cfg.data.split.heldout)
    wanted = str(cfg.eval.split)
    if not allow_heldout and heldout > 0 and wanted in ("heldout", "all"):
        raise UserError(
            f"eval.split={wanted} would score held-out questions, which only `ragsweep confirm` "
            "scores; use eval.split=dev, or data.split.heldout=0 to hold nothing out"
        )
    mask = split.select(list(q["qid"]), salt, heldout, str(cfg.eval.split))
    subset = str(cfg.eval.subset)
    if subset not in SUBSETS:
        raise UserError(f"eval.subset must be one of {', '.join(SUBSETS)}, got {subset!r}")
    if subset != "all":
        mask &= (q["subset"] == subset).to_numpy()
    chosen = q[mask].reset_index(drop=True)
    if chosen.empty:
        raise UserError(
            f"no question of {ds.root} is in split {cfg.eval.split!r} and subset {subset!r}; "
            "choose another eval.split or eval.subset"
        )
    return chosen, split.split_hash(list(q["qid"]), salt, heldout)


def slice_weights(
    cfg: DictConfig,
    slices: Sequence[str],
    known: Sequence[str] | None = None,
    declared: dict[str, float] | None = None,
) -> dict[str, float]:
    """Traffic weights of the slices scored (`slices`), as shares summing to 1. When
    `eval.traffic_weights` is null (the default of `data=folder`): the shares the dataset
    declares (`declared`, dataset.json's `traffic_weights`; a slice it leaves out weighs 0),
    else equal shares.

    What the user configured is checked, never silently changed: a weight for a slice the
    labelled set does not have (`known`), a slice scored without a weight, and weights that do
    not sum to 1 are refused with the fix, unless `eval.normalise_weights=true` (then they are
    divided by their sum). Slices of the set that this split holds no question of drop out, and
    the remaining shares are rescaled to sum to 1 over the slices scored.
    """
    raw = cfg.eval.get("traffic_weights")
    if raw is None and declared is not None:
        return _declared_shares(declared, slices)
    if raw is None:
        return {s: 1.0 / len(slices) for s in slices}
    weights = OmegaConf.to_container(raw) if isinstance(raw, DictConfig) else raw
    normalise = bool(OmegaConf.select(cfg, "eval.normalise_weights"))
    return check_shares(weights, slices, known, where=CONFIG_WEIGHTS, normalise=normalise)


#: Where a sweep's traffic weights are configured (messages name it and its fixes).
CONFIG_WEIGHTS = "eval.traffic_weights"


def check_shares(
    weights: Any,
    slices: Sequence[str],
    known: Sequence[str] | None = None,
    *,
    where: str,
    normalise: bool = False,
) -> dict[str, float]:
    """Traffic shares (slice -> share) as given by a user, checked, over the slices scored.

    Refused, with the fix, naming `where` (`eval.traffic_weights` or a file): not a mapping, a
    slice outside `known`, a slice scored without a share, a share that is not a number >= 0,
    all shares 0, shares that do not sum to 1 (unless `normalise`: then divided by their sum).
    Returns the shares of `slices`, rescaled to sum to 1 over them.
    """
    config = where == CONFIG_WEIGHTS
    if not isinstance(weights, dict):
        raise UserError(
            f"{where} must map slice -> share, got {weights!r}; e.g. "
            + (
                "eval.traffic_weights={limits:0.6,exclusions:0.4}, or null for equal weights"
                if config
                else "'limits: 0.6' and 'exclusions: 0.4' on two lines"
            )
        )
    unknown = [str(s) for s in weights if known is not None and s not in known]
    if unknown:
        raise UserError(
            f"{where} names slice(s) {', '.join(unknown)} that the labelled set "
            f"does not have (its slices: {', '.join(known or [])}); rename or remove them"
        )
    missing = [s for s in slices if s not in weights]
    if missing:
        raise UserError(
            f"{where} has no weight for slice(s) {', '.join(missing)}; add them"
            + (", or set eval.traffic_weights=null for equal weights" if config else "")
        )
    values = {}
    for s, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, int | float) or not 0 <= w < math.inf:
            raise UserError(
                f"{where}.{s} must be a number >= 0, got {w!r}; give each slice "
                "its share of production traffic"
            )
        values[s] = float(w)
    total = sum(values.values())
    if total <= 0 or not any(values[s] > 0 for s in slices):
        raise UserError(f"{where} are all 0 for the slices scored; give at least one a share > 0")
    if abs(total - 1.0) > 1e-6 and not normalise:
        raise UserError(
            f"{where} sum to {total:g}, not 1, so the weighted headline would not "
            "be what you configured; give shares that sum to 1"
            + (", or set eval.normalise_weights=true to divide them by their sum" if config else "")
        )
    scored = sum(values[s] for s in slices)
    return {s: values[s] / scored for s in slices}


def _declared_shares(declared: dict[str, float], slices: Sequence[str]) -> dict[str, float]:
    """dataset.json's traffic shares (checked when loaded) over the slices scored."""
    total = sum(float(declared.get(s, 0.0)) for s in slices)
    if total <= 0:  # this split holds only slices the dataset gives no traffic
        return {s: 1.0 / len(slices) for s in slices}
    return {s: float(declared.get(s, 0.0)) / total for s in slices}


def summarise(
    per_question: pd.DataFrame,
    measures: Sequence[Measure],
    slices: Sequence[str],
    weights: dict[str, float],
) -> pd.DataFrame:
    """Per-slice means, the mean over all questions, and the traffic-weighted headline."""
    cols = [str(m) for m in measures]
    present = [s for s in slices if (per_question["slice"] == s).any()]
    by_slice = per_question.groupby("slice", sort=False)[cols].mean().reindex(present)
    table = by_slice.copy()
    table.loc[cv.ALL] = per_question[cols].mean()
    w = np.array([weights[s] for s in present])
    table.loc[cv.WEIGHTED] = (by_slice.to_numpy() * w[:, None]).sum(axis=0)
    table.index.name = "slice"
    return table


def metric_dict(summary: pd.DataFrame, measures: Sequence[Measure]) -> dict[str, float]:
    """MLflow metric names `<measure key>/<slice>` (e.g. recall_at_5/exclusions). Of the
    diagnostic measures only the first (unjudged@k_prompt, `parse_measures`) is a metric: the
    deeper cutoff's share stays in the per-question rows, and a run page keeps under 150 metrics.
    """
    diagnostic = [m for m in measures if m.diagnostic]
    logged = [m for m in measures if not m.diagnostic] + diagnostic[:1]
    return {
        cv.metric_key(m, row): float(summary.loc[row, str(m)])
        for row in summary.index
        for m in logged
    }


def _hash(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def config_hash(cfg: DictConfig) -> str:
    """Hash of the resolved config minus `conventions.NOT_RESULTS`, secrets masked: equal
    hashes, equal numbers (a new API key changes no number, and no hash can be traced back to
    a key)."""
    plain = mask_config(OmegaConf.to_container(cfg, resolve=True))
    for key in cv.NOT_RESULTS:
        plain.pop(key, None)
    return _hash(plain)


def stage_cache(cfg: DictConfig) -> StageCache:
    """The stage cache `cache.dir` names, one folder per source hash of ragsweep (nothing built
    by other code is reused), or none when it is null."""
    directory = OmegaConf.select(cfg, "cache.dir", default=None)
    return StageCache(None if directory is None else Path(directory) / source_hash()[:16])


def chunk_and_filter(
    pipe: pipeline.Pipeline,
    ds: Dataset,
    questions: pd.DataFrame,
    cache: StageCache | None = None,
) -> tuple[list[Chunk], list[np.ndarray | None] | None]:
    """The chunks of the corpus under the pipeline's chunker (from `cache` when given and
    present: stage `chunks`), and each question's allowed chunks (None when the retriever does
    not filter)."""
    cache = cache or StageCache(None)
    key = pipe.stage_keys(ds.snapshot_hash)[pipeline.CHUNKS]
    chunks = cache.get_or_compute(
        pipeline.CHUNKS, key, lambda: chunk_corpus(ds.documents, pipe.chunker)
    )
    if not chunks:
        raise UserError(f"the chunker produced no passages from {ds.root / 'corpus'}")
    allowed = None
    if pipe.first.filter:
        allowed = pipeline.allowed_chunks(
            chunks, list(questions["product"]), list(questions["version"])
        )
    return chunks, allowed


def question_rows(ds: Dataset, questions: pd.DataFrame) -> np.ndarray:
    """Positions in `ds.questions` of `questions` (a selection of them, in file order)."""
    return np.flatnonzero(ds.questions["qid"].isin(set(questions["qid"])).to_numpy())


def prebuild(cfgs: Sequence[DictConfig], ds: Dataset, cache: StageCache) -> list[str]:
    """Build, once, the stages every configuration in `cfgs` shares (chunks, indexes,
    first-stage lists of every question, held-out ones included, so the confirm stage finds
    them too) into `cache`, so parallel workers read them instead of each building them.
    Returns the stages built or found. Nothing is shared when the chunking differs."""
    if cache.directory is None or not cfgs:
        return []
    pipes = [pipeline.Pipeline.from_config(c) for c in cfgs]
    pipe, snapshot = pipes[0], ds.snapshot_hash
    shared = set(pipeline.shared_stages(pipes, snapshot))
    if pipeline.CHUNKS not in shared:
        return []
    chunks, allowed = chunk_and_filter(pipe, ds, ds.questions, cache)
    only = [st for st in pipe.index_keys(snapshot) if f"first_stage_{st}" in shared]
    if only:
        ties = pipeline.TieOrder.of(chunks)  # the order `pipeline.rank` indexes them in
        pipeline.first_stage(
            pipe,
            snapshot,
            ties.chunks(chunks),
            list(ds.questions["text"]),
            ties.allowed(allowed),
            cache,
            only=only,
        )
    return [pipeline.CHUNKS, *sorted(f"first_stage_{st}" for st in only)]


@dataclass(frozen=True)
class Scoring:
    """How a configuration's rankings are scored: what `evaluate` and every other scorer of
    ranked passages (`ragsweep.scoring.passages`) share, so equal rankings get equal numbers."""

    measures: list[Measure]
    gain: str  # nDCG gain: exp or linear
    min_overlap: float  # the coverage rule's share (docs/anchoring.md)
    questions: pd.DataFrame  # the questions scored (split and subset applied), in file order
    split_hash: str
    weights: dict[str, float]  # traffic weight of each slice scored


def scoring(cfg: DictConfig, ds: Dataset, allow_heldout: bool = False) -> Scoring:
    """The measures, gain, coverage share, questions and slice weights `cfg` asks for on `ds`
    (the snapshot pin checked first)."""
    check_snapshot(cfg, ds)
    check_eval(cfg)
    measures = parse_measures(cfg)
    gain = str(cfg.eval.gain)
    questions, split_hash = select_questions(cfg, ds, allow_heldout)
    scored = [s for s in ds.slices if (questions["slice"] == s).any()]
    weights = slice_weights(cfg, scored, known=ds.slices, declared=ds.meta.get("traffic_weights"))
    return Scoring(measures, gain, float(cfg.eval.min_overlap), questions, split_hash, weights)


@dataclass
class Scored:
    """Ranked passages scored: what `EvalResult` holds of the scores (see its fields)."""

    per_question: pd.DataFrame
    summary: pd.DataFrame
    metrics: dict[str, float]
    counts: dict[str, int]
    rankings: dict[str, list[str]]
    clause_rankings: dict[str, list[str]]
    qrels: dict[str, dict[str, int]]


def stored_depth(measures: Sequence[Measure]) -> int:
    """How many ranked passages a run's per-question rows keep (`ranked`, `clauses`): the
    deepest cutoff of its measures, at least 10."""
    return max([m.k or 10 for m in measures] + [10])


def score_ranked(ds: Dataset, how: Scoring, chunks: Sequence[Chunk], ranked: np.ndarray) -> Scored:
    """Score `ranked` (one row per question of `how.questions`: indices into `chunks`, -1 for
    padding or a rank that holds nothing scorable) per question and per slice.

    The clause labels reach the chunks by the coverage rule (`ragsweep.chunking.anchors`), and
    the counted-once rule credits them; a -1 keeps its rank and credits nothing.
    """
    questions, measures = how.questions, how.measures
    cov = coverage(ds.documents, chunks, how.min_overlap)
    clause, grade = label_matrix(list(questions["qid"]), ds.labels, cov.clause_ids)
    arrays = gain_arrays(ranked, cov, clause, grade)
    scores = score_gains(
        arrays.gains,
        arrays.new_rel,
        arrays.n_rel,
        arrays.ideal,
        measures,
        how.gain,
        unjudged=arrays.unjudged,
    )

    top = stored_depth(measures)
    covered = {int(i): cov.chunk_clauses(int(i)) for i in np.unique(ranked[ranked >= 0])}
    columns = {str(m): scores[:, j] for j, m in enumerate(measures)}  # one frame, not N inserts
    columns["ranked"] = [
        json.dumps([chunks[i].chunk_id for i in row[:top] if i >= 0]) for row in ranked
    ]
    columns["clauses"] = [json.dumps(_rank_clauses(row[:top], covered)) for row in ranked]
    labelled = ds.labels[ds.labels["qid"].isin(set(questions["qid"]))]
    qrels: dict[str, dict[str, int]] = {}
    for qid, cid, g in zip(labelled["qid"], labelled["clause_id"], labelled["grade"], strict=True):
        qrels.setdefault(qid, {})[cid] = int(g)
    columns["labels"] = [
        json.dumps(bounds.labels_needed(qrels.get(q, {}), json.loads(c)), sort_keys=True)
        for q, c in zip(questions["qid"], columns["clauses"], strict=True)
    ]
    per_q = pd.concat(
        [questions[["qid", "slice", "subset"]].reset_index(drop=True), pd.DataFrame(columns)],
        axis=1,
    )
    rankings: dict[str, list[str]] = {}
    clause_rankings: dict[str, list[str]] = {}
    for qid, row in zip(questions["qid"], ranked, strict=True):
        kept = [int(i) for i in row if i >= 0]
        rankings[qid] = [chunks[i].chunk_id for i in kept]
        clause_rankings[qid] = list(dict.fromkeys(c for i in kept for c in covered[i]))
    summary = summarise(per_q, measures, ds.slices, how.weights)
    return Scored(
        per_question=per_q,
        summary=summary,
        metrics=metric_dict(summary, measures),
        counts={s: int((questions["slice"] == s).sum()) for s in how.weights},
        rankings=rankings,
        clause_rankings=clause_rankings,
        qrels=qrels,
    )


def _rank_clauses(row: np.ndarray, covered: dict[int, list[str]]) -> list[list[str]]:
    """The clause ids each rank's chunk covers, one list per rank (a -1 inside the ranking keeps
    its place as an empty list; trailing padding is dropped): the `clauses` column, which the
    bounds (`scoring.bounds`) score again rank by rank."""
    kept = [int(i) for i in row]
    while kept and kept[-1] < 0:
        kept.pop()
    return [covered[i] if i >= 0 else [] for i in kept]


def pin_tags(cfg: DictConfig, ds: Dataset, how: Scoring) -> dict[str, str]:
    """The tags every scored run carries: the pins (snapshot, labelled set, split), the split's
    name and subset, the dataset's name, the config hash and the code that ran; and, when the
    dataset records two judges' agreement (review/agreement.json), its overall kappa with the
    interval (`ragsweep.kappa`, e.g. `0.70 [0.58, 0.80] n=307 (ann vs bob)`)."""
    kappa = {} if ds.agreement is None else {cv.tag("kappa"): kappa_summary(ds.agreement)}
    return {
        "ragsweep.snapshot": ds.snapshot_hash,
        "ragsweep.labels": ds.labels_hash,
        "ragsweep.split": how.split_hash,
        "ragsweep.split_name": str(cfg.eval.split),
        "ragsweep.subset": str(cfg.eval.subset),
        "ragsweep.config_hash": config_hash(cfg),
        cv.tag("unjudged"): cv.unjudged_rule(OmegaConf.select(cfg, "eval.unjudged")),
        **code_tags(),
        "ragsweep.dataset": str(ds.meta.get("name", ds.root.name)),
        **kappa,
    }


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
) -> EvalResult:
    """Evaluate the configuration `cfg` (see `compose`) on its dataset's selected questions.

    `progress`, if given, is called with the name of each stage as it starts; `allow_heldout`
    is for the confirm stage only.
    """
    say = progress or (lambda stage: None)
    check_eval(cfg)  # before the dataset is read
    clock = time.perf_counter()
    say("loading data")
    ds = dataset if dataset is not None else load_dataset(cfg.data.path)
    how = scoring(cfg, ds, allow_heldout)
    questions = how.questions
    seconds = {"load": time.perf_counter() - clock}

    clock = time.perf_counter()
    say("chunking")
    pipe = pipeline.Pipeline.from_config(cfg)
    cache = stage_cache(cfg)
    # every question goes through the first stage (one cached list for every split); the
    # later stages and the scores only see the selected ones
    chunks, allowed = chunk_and_filter(pipe, ds, ds.questions, cache)
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
