"""Pool candidates for judging: the union of several systems' top-`depth` passages, per question,
mapped to the clauses they cover and written as a judging sheet.

    from ragsweep.labelling.pool import pool, write_sheet
    p = pool([], {"bm25": ["retriever=bm25"], "dense": ["retriever=dense"]}, depth=50)
    write_sheet(p, "sheet.csv")
    p.stats                   # per question: pool size, found by one system only, unlabelled

The point of pooling is that judges see passages today's retriever would not rank, so labels
stop rewarding one system's blind spots (TREC's depth-k pooling, at clause level).

Systems. A system is either a list of overrides, composed on top of the same base overrides
(`{"bm25": ["retriever=bm25"]}`), or a `pathlib.Path` to a TREC run file. Override systems are
ranked by `ragsweep.retrieval.pipeline.rank` exactly as `evaluate` ranks them (same chunking,
product/version filter and cache); each of the top `depth` passages is mapped to the clauses it
covers (`ragsweep.chunking.anchors.coverage`, the system's `eval.min_overlap`), and a clause's
rank is that of the best-ranked passage covering it (a passage covering two clauses gives both
its rank). A run file's ids must be **clause ids** (`document/section@version`, what a ragsweep
run's `run_clauses.txt` holds): chunk ids name spans of one particular chunking, which the sheet
cannot show without that chunker's config, so an id that is not a clause of the dataset is a
one-line `DatasetError` naming the file, line and fix. A run is ranked the trec_eval way
(score descending, ties by id descending; a repeated id counts once) and cut at `depth`; its
queries outside the pooled questions are ignored, but a run sharing no query with them is
refused.

Questions. `questions=None` pools the questions of the base config's `eval.split` and
`eval.subset`; the held-out split may be pooled (judging is not tuning: nothing is scored).
`"all"` pools every question of the dataset; a list of qids pools those.

Rankings already made. `pool_ranked(ds, found, depth, unjudged_only=True)` pools rankings
computed elsewhere (a logged sweep's configuration runs: `ragsweep.experiment.pool`), read from
a run's per-question rows by `top_clauses`; `unjudged_only` keeps only the (question, clause)
pairs with no label of any grade.

Rows are sorted by qid, then best rank over the systems, then clause id; the `systems` cell
lists `name@rank` by rank, then name. A sheet depends on nothing but its inputs (never on the
order the systems are given in).
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from ragsweep.chunking.anchors import coverage
from ragsweep.config import compose
from ragsweep.data import Dataset, admits, load_dataset
from ragsweep.data.schema import Clause
from ragsweep.errors import DatasetError, UserError
from ragsweep.labelling.sheetfile import (  # noqa: F401 (SHEET_COLUMNS re-exported)
    SHEET_COLUMNS,
    clause_key,
    clause_text,
    one_line,
    same_text,
    write_sheet_frame,
)
from ragsweep.retrieval import pipeline
from ragsweep.scoring import trec
from ragsweep.scoring.eval_config import check_snapshot, select_questions
from ragsweep.scoring.stages import chunk_and_filter, stage_cache

#: a system's name: it is written as `name@rank`, joined by "; "
SYSTEM_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")

_SAFE_OVERRIDE_VALUE = re.compile(r"[\w./~:+-]+")
_CHUNK_ID = re.compile(r".+#\d+")


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
    base = _base_overrides(dataset_dir_or_cfg)
    cfg = compose(base)
    ds = load_dataset(cfg.data.path)
    check_snapshot(cfg, ds)
    chosen = _questions(cfg, ds, questions)
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
            found[name] = _run_system(Path(spec), set(chosen["qid"]), clauses, ds, depth)
        elif isinstance(spec, Sequence) and not isinstance(spec, str | bytes):
            if not all(isinstance(o, str) for o in spec):
                raise UserError(f"system {name!r}: overrides must be strings, got {list(spec)!r}")
            found[name] = _override_system(name, cfg, [*base, *spec], ds, chosen, depth)
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


def _base_overrides(base: str | os.PathLike[str] | Sequence[str] | DictConfig) -> list[str]:
    if isinstance(base, DictConfig):
        task = OmegaConf.select(base, "hydra.overrides.task", default=None)
        if task is None:
            raise UserError(
                "pool cannot extend a config composed without its hydra node; pass the base "
                "overrides as a list, or compose with ragsweep.config.compose(..., hydra=True)"
            )
        return [str(o) for o in task]
    if isinstance(base, str | os.PathLike):
        folder = str(Path(base))
        if not _SAFE_OVERRIDE_VALUE.fullmatch(folder):
            folder = "'" + folder.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return ["data=folder", f"data.path={folder}"]
    if isinstance(base, Sequence) and all(isinstance(o, str) for o in base):
        return list(base)
    raise UserError(
        f"pool's base must be a dataset folder, a list of overrides or a composed config, "
        f"got {base!r}"
    )


def _questions(
    cfg: DictConfig, ds: Dataset, which: str | Sequence[str] | pd.DataFrame | None
) -> pd.DataFrame:
    """The pooled questions (qid, text, slice, product, version), in qid order. A data frame
    holds candidate questions not in the set yet (sampled from the log): new qids, the
    dataset's slices; product and version may be None (then the retriever does not filter)."""
    q = ds.questions
    if isinstance(which, pd.DataFrame):
        missing = [c for c in ("qid", "text", "slice", "product", "version") if c not in which]
        taken = sorted(set(which.get("qid", [])) & set(q["qid"]))
        if missing or taken or which.empty:
            raise UserError(
                f"candidate questions need new qids and the columns qid, text, slice, product, "
                f"version (missing: {', '.join(missing) or 'none'}; qids already in the set: "
                f"{', '.join(taken[:5]) or 'none'})"
            )
        chosen = which.astype(object).where(which.notna(), None)
        return chosen.sort_values("qid", kind="stable").reset_index(drop=True)
    if which is None:
        chosen, _ = select_questions(cfg, ds, allow_heldout=True)
    elif isinstance(which, str):
        if which != "all":
            raise UserError(
                f"questions={which!r}: give None (the configured split), 'all', or a list of qids"
            )
        chosen = q
    else:
        wanted = list(dict.fromkeys(str(x) for x in which))
        unknown = sorted(set(wanted) - set(q["qid"]))
        if unknown:
            raise UserError(
                f"qid(s) {', '.join(unknown[:5])} are not questions of {ds.root}; check "
                "questions.jsonl or the qids passed"
            )
        if not wanted:
            raise UserError("questions is an empty list; give qids, 'all', or None")
        chosen = q[q["qid"].isin(set(wanted))]
    return chosen.sort_values("qid", kind="stable").reset_index(drop=True)


def _override_system(
    name: str,
    base_cfg: DictConfig,
    overrides: Sequence[str],
    ds: Dataset,
    questions: pd.DataFrame,
    depth: int,
) -> dict[str, dict[str, int]]:
    """qid -> clause id -> rank of the best passage covering it, in the top `depth`."""
    cfg = compose(overrides)
    if OmegaConf.to_container(cfg.data, resolve=True) != OmegaConf.to_container(
        base_cfg.data, resolve=True
    ):
        raise UserError(
            f"system {name!r} overrides the dataset (data.*); pooled systems share the base "
            "dataset, so move the data override into the base"
        )
    pipe = pipeline.Pipeline.from_config(cfg)
    if depth > pipe.first.depth:
        raise UserError(
            f"pool depth {depth} is deeper than system {name!r}'s ranking (retriever.depth="
            f"{pipe.first.depth}); add retriever.depth={depth} to its overrides or pool less deep"
        )
    chunks, allowed = chunk_and_filter(pipe, ds, questions)
    ranking = pipeline.rank(
        pipe,
        ds.snapshot_hash,
        chunks,
        list(questions["text"]),
        allowed,
        stage_cache(cfg),
        measure_latency=False,
    )
    cov = coverage(ds.documents, chunks, float(cfg.eval.min_overlap))
    covered: dict[int, list[str]] = {}
    out: dict[str, dict[str, int]] = {}
    for qid, row in zip(questions["qid"], ranking.ids, strict=True):
        best: dict[str, int] = {}
        for rank, i in enumerate(row[:depth].tolist(), start=1):
            if i < 0:
                continue
            if i not in covered:
                covered[i] = cov.chunk_clauses(i)
            for cid in covered[i]:
                best.setdefault(cid, rank)
        out[str(qid)] = best
    return out


def _open(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def _first_line_with(path: Path, ids: set[str]) -> tuple[int | None, str]:
    """The first run line whose document id is in `ids`: its number and that id."""
    with _open(path) as fh:
        for number, line in enumerate(fh, start=1):
            fields = line.split()
            if len(fields) == 6 and fields[2] in ids:
                return number, fields[2]
    return None, min(ids)


def _run_system(
    path: Path, qids: set[str], clauses: Mapping[str, Clause], ds: Dataset, depth: int
) -> dict[str, dict[str, int]]:
    """qid -> clause id -> rank in the run (trec_eval order), top `depth`, pooled qids only."""
    run = trec.read_run(path)
    unknown = sorted(d for d in run.doc_names if d not in clauses)
    if unknown:
        line, bad = _first_line_with(path, set(unknown))
        more = f" (and {len(unknown) - 1} more unknown ids)" if len(unknown) > 1 else ""
        hint = (
            "it looks like a chunk id, which names a span of one chunking: pool the run's "
            "run_clauses.txt instead"
            if _CHUNK_ID.fullmatch(bad)
            else "fix the id or drop the line"
        )
        raise DatasetError(
            path,
            f"{bad!r} is not a clause of {ds.root}{more}; a pooled run ranks clause ids "
            f"document/section@version (e.g. {min(clauses)}); {hint}",
            line=line,
            field="docid",
        )
    if run.qid_names and not qids.intersection(run.qid_names):
        raise UserError(
            f"{path}: none of its {len(run.qid_names)} queries (e.g. {sorted(run.qid_names)[0]}) "
            "is a pooled question; check the run is for this dataset and split, or pass "
            "questions='all'"
        )
    names = sorted(run.doc_names)  # codes in string order, as trec_order needs
    code = {d: i for i, d in enumerate(names)}
    dcodes = np.array([code[d] for d in run.doc_names], dtype=np.int64)[run.doc_codes]
    order = trec.trec_order(run.qid_codes, run.scores, dcodes)
    out: dict[str, dict[str, int]] = {}
    for q, d in zip(run.qid_codes[order].tolist(), dcodes[order].tolist(), strict=True):
        qid = run.qid_names[q]
        if qid not in qids:
            continue
        best = out.setdefault(qid, {})
        if len(best) < depth and names[d] not in best:
            best[names[d]] = len(best) + 1
    return out


def top_clauses(per_question: pd.DataFrame, depth: int) -> dict[str, dict[str, int]]:
    """qid -> clause id -> rank (1-based) of the best passage covering it in the top `depth`,
    from a scored run's per-question rows (`clauses`: for each ranked passage, best first, the
    JSON list of clause ids it covers: `ragsweep.scoring.ranked.score_ranked`)."""
    out: dict[str, dict[str, int]] = {}
    for qid, covered in zip(per_question["qid"], per_question["clauses"], strict=True):
        best: dict[str, int] = {}
        for rank, ids in enumerate(json.loads(str(covered))[:depth], start=1):
            for cid in ids:
                best.setdefault(str(cid), rank)
        out[str(qid)] = best
    return out


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
            rows.append(
                {
                    "qid": qid,
                    "question": one_line(str(q.text)),
                    "slice": str(q.slice),
                    "version": "" if q.version is None or pd.isna(q.version) else str(q.version),
                    "document": clause.document,
                    "section": clause.section,
                    "clause_version": clause.version,
                    "clause_text": clause_text(clause),
                    "same_text_clauses": "; ".join(twins[cid]),
                    "systems": "; ".join(f"{s}@{r}" for s, r in sorted(best.items(), key=_by_rank)),
                    "existing_grade": pd.NA if grade is None else grade,
                    "prelabel": "",
                    "prelabel_source": "",
                    "grade": "",
                    "note": "",
                    "judge": "",
                    "clause_key": clause_key(
                        clause.document, clause.section, clause.version, clause_text(clause)
                    ),
                }
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
