"""Pool candidates for judging: the union of several systems' top-`depth` passages, per question,
mapped to the clauses they cover and written as a judging sheet.

    from ragsweep.labelling.pool import pool, write_sheet
    p = pool([], {"bm25": ["retriever=bm25"], "dense": ["retriever=dense"]}, depth=50)
    write_sheet(p, "sheet.csv")
    p.stats                   # per question: pool size, found by one system only, unlabelled

The point of pooling is that judges see passages today's retriever would not rank, so labels
stop rewarding one system's blind spots (TREC's depth-k pooling, at clause level).

Systems are override lists or TREC run files of clause ids (`pool_systems`). `questions=None`
pools the questions of the base config's `eval.split` and `eval.subset` (the held-out split too:
judging is not tuning); `"all"` every question; a list of qids those. `pool_ranked` pools rankings
computed elsewhere (`ragsweep.experiment.pool`); `unjudged_only` keeps only the pairs with no
label of any grade.

Rows are sorted by qid, then best rank over the systems, then clause id; the `systems` cell
lists `name@rank` by rank, then name. A sheet depends on nothing but its inputs (never on the
order the systems are given in).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import DictConfig

from ragsweep.config import compose
from ragsweep.data import Dataset, admits, load_dataset
from ragsweep.data.schema import Clause
from ragsweep.errors import UserError
from ragsweep.labelling.pool_systems import (
    base_overrides,
    override_system,
    pool_questions,
    run_system,
)
from ragsweep.labelling.sheet_columns import (
    SHEET_COLUMNS,
    clause_text,
    same_text,
    sheet_row,
)
from ragsweep.labelling.sheetfile import write_sheet_frame
from ragsweep.scoring.eval_config import check_snapshot

#: the systems pooled when none is named (`labels pool`, `labels generate`): each retriever of
#: the default pipeline
DEFAULT_SYSTEMS: dict[str, list[str]] = {
    "bm25": ["retriever=bm25"],
    "dense": ["retriever=dense"],
    "hybrid": [],
}
#: a system's name: it is written as `name@rank`, joined by "; "
SYSTEM_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")


@dataclass(frozen=True, eq=False)
class Pool:
    """A judging pool: the sheet rows, each system's hit per pooled clause, per-question stats."""

    depth: int
    systems: tuple[str, ...]  # system names, sorted
    #: the judging sheet, `SHEET_COLUMNS`, one row per (question, clause); `existing_grade` is
    #: an Int64 (NA: unlabelled), every other column a str
    rows: pd.DataFrame
    #: qid, clause_id, system, rank: each system's best rank (1-based) of each clause it found
    hits: pd.DataFrame
    #: qid, slice, pool_size (rows on the sheet), single_system (found by one system only),
    #: unlabelled (no label for this question yet), relevant_missed (labelled grade >= 1 but in
    #: no system's top depth), collapsed (clauses folded into a row of the same text)
    stats: pd.DataFrame

    def summary(self) -> dict[str, float]:
        """Headline figures: questions, rows, mean pool size, shares unlabelled / single-system."""
        rows = float(self.stats["pool_size"].sum())
        return {
            "questions": float(len(self.stats)),
            "rows": rows,
            "mean_pool_size": float(self.stats["pool_size"].mean()) if len(self.stats) else 0.0,
            "unlabelled_share": float(self.stats["unlabelled"].sum()) / rows if rows else 0.0,
            "single_system_share": float(self.stats["single_system"].sum()) / rows if rows else 0.0,
            "collapsed": float(self.stats["collapsed"].sum()),
        }


def pool(
    dataset_dir_or_cfg: str | os.PathLike[str] | Sequence[str] | DictConfig,
    systems: Mapping[str, Sequence[str] | os.PathLike[str]],
    *,
    depth: int = 50,
    questions: str | Sequence[str] | pd.DataFrame | None = None,
) -> Pool:
    """Pool the top-`depth` passages of `systems` (override lists and/or run-file paths) for
    each question, de-duplicated at clause level.

    `dataset_dir_or_cfg` is the base every override system is composed on: a dataset folder
    (`data=folder data.path=DIR`), a list of base overrides (`[]` is the built-in sample), or a
    config from `ragsweep.config.compose(overrides, hydra=True)` (its overrides are reused).
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth <= 0:
        raise UserError(f"pool depth must be a positive number of passages, got {depth!r}")
    if not systems:
        raise UserError("pool needs at least one system, e.g. {'bm25': ['retriever=bm25']}")
    base = base_overrides(dataset_dir_or_cfg)
    cfg = compose(base)
    ds = load_dataset(cfg.data.path)
    check_snapshot(cfg, ds)
    chosen = pool_questions(cfg, ds, questions)
    clauses = {c.clause_id: c for d in ds.documents for c in d.clauses}

    found: dict[str, dict[str, dict[str, int]]] = {}  # system -> qid -> clause id -> rank
    for name in sorted(systems):
        spec = systems[name]
        if not isinstance(name, str) or not SYSTEM_NAME_RE.fullmatch(name):
            raise UserError(
                f"system name {name!r} must be letters, digits and _ . + - (it is written as "
                "name@rank in the sheet); rename it"
            )
        if isinstance(spec, os.PathLike):
            found[name] = run_system(Path(spec), set(chosen["qid"]), clauses, ds, depth)
        elif isinstance(spec, Sequence) and not isinstance(spec, str | bytes):
            if not all(isinstance(o, str) for o in spec):
                raise UserError(f"system {name!r}: overrides must be strings, got {list(spec)!r}")
            found[name] = override_system(name, cfg, [*base, *spec], ds, chosen, depth)
        else:
            raise UserError(
                f"system {name!r} is {spec!r}: give a list of overrides (['retriever=bm25']) or "
                "a pathlib.Path to a TREC run file of clause ids"
            )
    return _assemble(ds, chosen, clauses, found, depth)


def write_sheet(pool: Pool, path: str | os.PathLike[str]) -> Path:
    """Write `pool.rows` as the judging sheet at `path`: an Excel workbook of text cells when
    `path` ends in .xlsx, else CSV (`ragsweep.labelling.sheetfile.write_sheet_frame`)."""
    return write_sheet_frame(pool.rows, path)


def pool_ranked(
    ds: Dataset,
    found: Mapping[str, Mapping[str, Mapping[str, int]]],
    depth: int,
    *,
    unjudged_only: bool = False,
) -> Pool:
    """The pool of rankings already computed: `found` is system -> qid -> clause id -> rank
    (each system cut at its own depth; `depth` is recorded as the pool's). The questions are
    those any system ranked. With `unjudged_only`, a (question, clause) pair that has a label
    of any grade, 0 included, is left out: the sheet holds only what nobody judged yet."""
    for name in found:
        if not SYSTEM_NAME_RE.fullmatch(name):
            raise UserError(f"system name {name!r} must be letters, digits and _ . + -; rename it")
    qids = {q for ranked in found.values() for q in ranked}
    unknown = sorted(qids - set(ds.questions["qid"]))
    if unknown:
        raise UserError(
            f"question(s) {', '.join(unknown[:5])} are not in {ds.root}; pool the dataset the "
            "rankings were made on"
        )
    clauses = {c.clause_id: c for d in ds.documents for c in d.clauses}
    strange = sorted({c for r in found.values() for q in r.values() for c in q} - set(clauses))
    if strange:
        raise UserError(
            f"clause(s) {', '.join(strange[:5])} are not clauses of {ds.root}; pool the corpus "
            "snapshot the rankings were made on"
        )
    chosen = ds.questions[ds.questions["qid"].isin(qids)]
    chosen = chosen.sort_values("qid", kind="stable").reset_index(drop=True)
    return _assemble(ds, chosen, clauses, found, depth, unjudged_only=unjudged_only)


def _assemble(
    ds: Dataset,
    questions: pd.DataFrame,
    clauses: Mapping[str, Clause],
    found: Mapping[str, Mapping[str, Mapping[str, int]]],
    depth: int,
    *,
    unjudged_only: bool = False,
) -> Pool:
    lab = ds.labels
    labels = {
        (str(q), str(c)): int(g)
        for q, c, g in zip(lab["qid"], lab["clause_id"], lab["grade"], strict=True)
    }
    relevant: dict[str, set[str]] = {}
    for (qid, cid), g in labels.items():
        if g >= 1:
            relevant.setdefault(qid, set()).add(cid)
    own = {(d.document, d.version): d.product for d in ds.documents}
    names = sorted(found)
    rows: list[dict[str, Any]] = []
    hits: list[tuple[str, str, str, int]] = []
    stats: list[dict[str, Any]] = []
    for q in questions.itertuples(index=False):
        qid = str(q.qid)
        by_clause: dict[str, list[tuple[int, str]]] = {}
        seen: set[str] = set()  # every pooled clause, judged or not (for relevant_missed)
        for name in names:
            for cid, rank in found[name].get(qid, {}).items():
                seen.add(cid)
                if unjudged_only and (qid, cid) in labels:
                    continue
                by_clause.setdefault(cid, []).append((rank, name))
                hits.append((qid, cid, name, rank))
        pooled = sorted(by_clause, key=lambda c: (min(by_clause[c])[0], c))
        twins = _same_text(pooled, clauses, own, q.product, q.version)
        collapsed = sum(len(t) for t in twins.values())
        first = {c: i for i, c in enumerate(pooled)}
        pooled = sorted(twins, key=lambda c: min(first[m] for m in (c, *twins[c])))
        single = 0
        for cid in pooled:
            clause = clauses[cid]
            grade = labels.get((qid, cid))
            best: dict[str, int] = {}
            for twin in (cid, *twins[cid]):
                for rank, name in by_clause[twin]:
                    best[name] = min(rank, best.get(name, rank))
            single += len(best) == 1
            version = "" if q.version is None or pd.isna(q.version) else str(q.version)
            rows.append(
                sheet_row(
                    qid,
                    str(q.text),
                    str(q.slice),
                    version,
                    clause,
                    same_text_clauses="; ".join(twins[cid]),
                    systems="; ".join(f"{s}@{r}" for s, r in sorted(best.items(), key=_by_rank)),
                    existing_grade=pd.NA if grade is None else grade,
                )
            )
        stats.append(
            {
                "qid": qid,
                "slice": str(q.slice),
                "pool_size": len(pooled),
                "single_system": single,
                "unlabelled": sum(1 for c in pooled if (qid, c) not in labels),
                "relevant_missed": len(relevant.get(qid, set()) - seen),
                "collapsed": collapsed,
            }
        )
    frame = pd.DataFrame(rows, columns=list(SHEET_COLUMNS))
    frame["existing_grade"] = frame["existing_grade"].astype("Int64")
    hit_frame = pd.DataFrame(hits, columns=["qid", "clause_id", "system", "rank"])
    hit_frame = hit_frame.sort_values(["qid", "clause_id", "system"], kind="stable")
    return Pool(
        depth=depth,
        systems=tuple(names),
        rows=frame,
        hits=hit_frame.reset_index(drop=True).astype({"rank": "int64"}),
        stats=pd.DataFrame(
            stats,
            columns=[
                "qid",
                "slice",
                "pool_size",
                "single_system",
                "unlabelled",
                "relevant_missed",
                "collapsed",
            ],
        ),
    )


def _by_rank(item: tuple[str, int]) -> tuple[int, str]:
    return item[1], item[0]


def _same_text(
    pooled: Sequence[str],
    clauses: Mapping[str, Clause],
    own: Mapping[tuple[str, str], str | None],
    product: Any,
    version: Any,
) -> dict[str, tuple[str, ...]]:
    """The clauses of one question's pool that get a sheet row, each with the others of the
    same shown text (`same_text`) it stands for. The row goes to the clause the question may be
    answered from (`admits`: its own product and version), else the best-ranked; ties by the
    order of `pooled` (best rank, then clause id)."""
    product = None if product is None or pd.isna(product) else str(product)
    version = None if version is None or pd.isna(version) else str(version)
    groups: dict[str, list[str]] = {}
    for cid in pooled:
        groups.setdefault(same_text(clause_text(clauses[cid])), []).append(cid)
    out: dict[str, tuple[str, ...]] = {}
    for members in groups.values():
        c = clauses
        keep = next(
            (
                m
                for m in members
                if admits(product, version, own[(c[m].document, c[m].version)], c[m].version)
            ),
            members[0],
        )
        out[keep] = tuple(sorted(m for m in members if m != keep))
    return out
