"""Score any system's ranked passages per slice, exactly as ragsweep scores its own chunks.

    run = read_passage_run("release-a.jsonl")
    cfg = passages_config(run)                      # the built-in sample, dev split
    scored = score_passages(cfg, run)
    scored.result.summary                           # slice x measure, as `evaluate` gives it
    scored.stats.located_share                      # passages placed in the snapshot

Each passage is placed in the snapshot's rendered documents (`ragsweep.chunking.locate`: exact,
then normalised, then fuzzy; a span given in the run file is taken as it is), becomes a `Chunk`,
and the ranking is scored by `ragsweep.scoring.ranked.score_ranked`, the code that scores our
own pipeline: the coverage rule maps each placed passage to clauses (docs/anchoring.md), the
counted-once rule credits them; each rank's first words are the passage's as the run gives it
(a span's: its rendered text). An unlocated passage keeps its rank and credits nothing; a
question of the split that the run has no line for scores 0 and is counted. What is logged
(`ragsweep.experiment.external`) is a configuration run like any other, tagged
`ragsweep.stage=external`, so `ragsweep report --runs A B` compares two of them.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.chunking.chunkers import Chunk
from ragsweep.chunking.locate import (
    EXACT,
    FUZZY,
    HOW,
    MIN_SIMILARITY,
    NORMALISED,
    SPAN,
    UNLOCATED,
    Location,
    Locator,
)
from ragsweep.data import Dataset, load_dataset
from ragsweep.data.passages import PassageRun
from ragsweep.data.reader import hint
from ragsweep.errors import UserError
from ragsweep.scoring.eval_config import pin_tags, scoring
from ragsweep.scoring.evaluate import EvalResult, prompt_words
from ragsweep.scoring.ranked import score_ranked

#: the config blocks a passages run reads (and may be overridden): the data, how rankings are
#: scored and compared, where they are logged
BLOCKS = ("data", "eval", "report", "tracking")
#: the block recording the run file and the locating threshold
EXTERNAL = "external"
SPLITS = ("dev", "heldout", "all")


@dataclass(frozen=True)
class LocateStats:
    """How the run's passages were placed, and which questions were scored."""

    passages: int  # passages of the scored questions
    by_how: dict[str, int]  # `locate.HOW` -> passages
    ambiguous: int  # located passages whose deciding stage found more than one place
    questions: int  # questions of the split scored
    missing: int  # of those, questions the run has no line for (each scores 0)
    outside_split: int  # run lines of questions of the set outside the split (not scored)
    unknown: tuple[str, ...]  # run qids not in questions.jsonl (not scored)

    @property
    def located(self) -> int:
        return self.passages - self.by_how.get(UNLOCATED, 0)

    @property
    def located_share(self) -> float:
        """Located passages / passages (1.0 for a run with no passage)."""
        return self.located / self.passages if self.passages else 1.0

    def describe(self, split: str, min_similarity: float) -> list[str]:
        """What happened to the passages, in a few lines (the counts that are not 0)."""
        n = self.by_how
        placed = [
            f"{n[SPAN]:,} given as spans" if n[SPAN] else "",
            f"{n[EXACT]:,} exact",
            f"{n[NORMALISED]:,} normalised" if n[NORMALISED] else "",
            f"{n[FUZZY]:,} fuzzy (similarity >= {min_similarity:g})" if n[FUZZY] else "",
        ]
        lines = [
            f"passages: {self.located:,} of {self.passages:,} placed in the snapshot "
            f"({100 * self.located_share:.1f}%): {', '.join(p for p in placed if p)}; "
            f"{n[UNLOCATED]:,} unlocated, scored as not relevant"
        ]
        if self.ambiguous:
            lines.append(
                f"  {self.ambiguous:,} placed passages occur in more than one place (a clause "
                "unchanged between versions): the question's own product and version came "
                "first; give each passage's document to decide it yourself"
            )
        qs = f"questions: {self.questions:,} {split} questions scored"
        if self.missing:
            qs += f", {self.missing:,} of them without a line in the run (each scores 0)"
        if self.outside_split:
            qs += f"; {self.outside_split:,} run lines of questions outside the split not scored"
        if self.unknown:
            shown = ", ".join(repr(q) for q in self.unknown[:3])
            more = ", ..." if len(self.unknown) > 3 else ""
            qs += f"; {len(self.unknown):,} run qids not in questions.jsonl ({shown}{more})"
        return [*lines, qs]

    def metrics(self) -> dict[str, float]:
        """`passages/<what>`: counts and the located share, for MLflow."""
        out = {f"passages/{h}": float(self.by_how.get(h, 0)) for h in HOW}
        out.update(
            {
                "passages/total": float(self.passages),
                "passages/located_share": self.located_share,
                "passages/ambiguous": float(self.ambiguous),
                "passages/questions_missing": float(self.missing),
                "passages/questions_outside_split": float(self.outside_split),
                "passages/questions_unknown": float(len(self.unknown)),
            }
        )
        return out


@dataclass
class PassagesResult:
    """A scored passages run: the result as `evaluate` shapes it, where every passage went
    (one row per passage of the scored questions) and the counts."""

    result: EvalResult
    passages: pd.DataFrame  # qid, rank, how, document, start, end, similarity, places, chars
    stats: LocateStats


def passages_config(
    run: PassageRun,
    *,
    data: str | Path | None = None,
    split: str = "dev",
    overrides: Sequence[str] = (),
    min_similarity: float = MIN_SIMILARITY,
) -> DictConfig:
    """The config of a passages run: the `data`, `eval`, `report` and `tracking` blocks as
    `ragsweep` composes them (`data`: a dataset folder, None for the built-in sample; `split`;
    `overrides` of those blocks, e.g. `eval.k_prompt=6`), plus an `external` block naming the
    run file, its sha256 and the fuzzy threshold. No retrieval block: the system is not ours."""
    from ragsweep.config import compose

    if split not in SPLITS:
        raise UserError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
    if not 0 < min_similarity <= 100:
        raise UserError(
            f"--min-similarity must be a score in (0, 100], got {min_similarity:g}; "
            f"{MIN_SIMILARITY:g} is the default"
        )
    for item in overrides:
        key = item.partition("=")[0]
        if "=" not in item or cv.block_of(key) not in BLOCKS or key != key.lstrip("+~"):
            raise UserError(
                f"override {item!r} is not KEY=VALUE of the {', '.join(BLOCKS)} blocks; a "
                "passages run has no chunker or retriever to configure (e.g. eval.k_prompt=6)"
            )
    chosen = ["data=folder", f"data.path={Path(data).resolve()}"] if data is not None else []
    cfg = compose([*chosen, f"eval.split={split}", *overrides])
    plain = {b: OmegaConf.to_container(cfg[b], resolve=True) for b in BLOCKS}
    plain[EXTERNAL] = {
        "run_file": str(run.path.resolve()),
        "run_sha256": run.sha256,
        "min_similarity": float(min_similarity),
    }
    return OmegaConf.create(plain)


def _check_places(run: PassageRun, ds: Dataset, locator: Locator) -> None:
    """Every document a line names is a wording of the snapshot, every span fits it and every
    span's text is the rendered text there: checked on every line, scored or not."""
    names = list(locator.index)
    for line in run.lines:
        for p in line.passages:
            if p.document is None:
                continue
            i = locator.index.get(p.document)
            if i is None:
                raise run.fail(
                    f"{p.document!r} is not a wording version of the snapshot "
                    f"{ds.root / 'corpus'}; {hint(p.document, names)}known: {', '.join(names)}",
                    line.line,
                    f"{p.field}.document",
                )
            if not p.is_span:
                continue
            text = locator.documents[i].text
            if p.end is not None and p.end > len(text):
                raise run.fail(
                    f"span [{p.start}, {p.end}) ends after {p.document}'s rendered text "
                    f"({len(text)} characters); spans are code-point offsets in the rendered "
                    "text (docs/schema.md), not byte offsets nor offsets in another rendering",
                    line.line,
                    f"{p.field}.end",
                )
            if p.text is not None and text[p.start : p.end] != p.text:
                raise run.fail(
                    f"is not the rendered text of {p.document} [{p.start}, {p.end}) "
                    f"({text[p.start : p.end][:40]!r}...); spans are code-point offsets in the "
                    "rendered text (docs/schema.md): fix them, or drop start and end to locate "
                    "the text instead",
                    line.line,
                    f"{p.field}.text",
                )


def _value(x: object) -> str | None:
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else str(x)


def score_passages(
    cfg: DictConfig, run: PassageRun, dataset: Dataset | None = None
) -> PassagesResult:
    """Place and score `run` with `cfg` (`passages_config`); see the module docstring.

    Refused (`UserError` naming the run file, line and field) before anything is scored: a
    document or span the snapshot does not have, a run with no question of the split, and a
    run none of whose passages can be placed (it is not about this snapshot).
    """
    t0 = time.perf_counter()
    ds = dataset if dataset is not None else load_dataset(cfg.data.path)
    how = scoring(cfg, ds, allow_heldout=True)
    locator = Locator(ds.documents, float(cfg[EXTERNAL].min_similarity))
    _check_places(run, ds, locator)
    questions = how.questions
    by_qid = run.by_qid()
    split_qids = list(questions["qid"])
    in_split, known = set(split_qids), set(ds.questions["qid"])
    if not in_split & set(by_qid):
        shown = ", ".join(repr(r.qid) for r in run.lines[:3])
        raise UserError(
            f"{run.path}: no line is about a {cfg.eval.split} question of {ds.root} (the run's "
            f"qids: {shown}{', ...' if len(run.lines) > 3 else ''}; the set's: "
            f"{', '.join(repr(q) for q in split_qids[:3])}, ...); use the qids of "
            "questions.jsonl, or pass --data for the dataset the run answers"
        )

    depth = max([len(by_qid[q].passages) for q in split_qids if q in by_qid] + [1])
    ranked = np.full((len(split_qids), depth), -1, dtype=np.int64)
    given = np.full((len(split_qids), depth), -1, dtype=np.int64)
    texts: list[str] = []  # what each passage handed to the generator says
    spans: dict[tuple[str, int, int], int] = {}
    rows: list[tuple[object, ...]] = []
    for r, (qid, product, version) in enumerate(
        zip(split_qids, questions["product"], questions["version"], strict=True)
    ):
        line = by_qid.get(qid)
        if line is None:
            continue
        prod, vers = _value(product), _value(version)
        for rank, p in enumerate(line.passages):
            if p.document is not None and p.start is not None and p.end is not None:
                doc = locator.documents[locator.index[p.document]]
                loc = locator.span(locator.index[p.document], p.start, p.end)
                said = doc.text[p.start : p.end] if p.text is None else p.text
            else:
                said = str(p.text)
                loc = locator.locate(said, product=prod, version=vers, document=p.document)
            if loc.located and loc.doc_id is not None:
                ranked[r, rank] = spans.setdefault((loc.doc_id, loc.start, loc.end), len(spans))
            texts.append(said)
            given[r, rank] = len(texts) - 1
            rows.append(_row(qid, rank, loc, len(said)))
    if rows and not spans:
        raise UserError(
            f"{run.path}: none of its {len(rows)} passages of {cfg.eval.split} questions is "
            f"found in the snapshot {ds.root / 'corpus'} (not even at similarity "
            f"{float(cfg[EXTERNAL].min_similarity):g}); the run was most likely made on another "
            "corpus: pass --data for the dataset it answers"
        )
    chunks = [_chunk(locator, doc_id, start, end) for doc_id, start, end in spans]
    located = time.perf_counter()

    said = [[texts[i] if i >= 0 else None for i in row] for row in given]
    scored = score_ranked(ds, how, chunks, ranked, texts=said)
    table = pd.DataFrame(
        rows,
        columns=["qid", "rank", "how", "document", "start", "end", "similarity", "places", "chars"],
    )
    per_q = scored.per_question
    per_q["passages"] = [len(by_qid[q].passages) if q in by_qid else 0 for q in per_q["qid"]]
    unlocated = table[table["how"] == UNLOCATED].groupby("qid").size()
    per_q["unlocated"] = [int(unlocated.get(q, 0)) for q in per_q["qid"]]
    counts = Counter(table["how"])
    stats = LocateStats(
        passages=len(table),
        by_how={h: int(counts.get(h, 0)) for h in HOW},
        ambiguous=int(((table["places"] > 1) & (table["how"] != UNLOCATED)).sum()),
        questions=len(split_qids),
        missing=sum(q not in by_qid for q in split_qids),
        outside_split=sum(r.qid in known and r.qid not in in_split for r in run.lines),
        unknown=tuple(r.qid for r in run.lines if r.qid not in known),
    )
    tags = {
        **pin_tags(cfg, ds, how),
        cv.TAG_STAGE: cv.STAGE_EXTERNAL,
        cv.tag("run_file"): run.path.name,
        cv.tag("run_sha256"): run.sha256,
    }
    result = EvalResult(
        config=OmegaConf.to_container(cfg, resolve=True),
        measures=how.measures,
        per_question=per_q,
        summary=scored.summary,
        metrics=scored.metrics,
        tags=tags,
        counts=scored.counts,
        seconds={"locate": located - t0, "scoring": time.perf_counter() - located},
        cost={"prompt_words_mean": prompt_words(texts, given, int(cfg.eval.k_prompt))},
        rankings=scored.rankings,
        clause_rankings=scored.clause_rankings,
        qrels=scored.qrels,
        data_root=str(ds.root.resolve()),
    )
    return PassagesResult(result=result, passages=table, stats=stats)


def _row(qid: str, rank: int, loc: Location, chars: int) -> tuple[object, ...]:
    if not loc.located:
        return (qid, rank + 1, loc.how, "", -1, -1, round(loc.similarity, 2), 0, chars)
    return (
        qid,
        rank + 1,
        loc.how,
        loc.doc_id,
        loc.start,
        loc.end,
        round(loc.similarity, 2),
        loc.places,
        chars,
    )


def _chunk(locator: Locator, doc_id: str, start: int, end: int) -> Chunk:
    """A placed passage as a chunk: id `<doc_id>:<start>-<end>`."""
    d = locator.documents[locator.index[doc_id]]
    return Chunk(
        chunk_id=f"{doc_id}:{start}-{end}",
        doc_id=doc_id,
        document=d.document,
        version=d.version,
        product=d.product,
        start=start,
        end=end,
        text=d.text[start:end],
    )
