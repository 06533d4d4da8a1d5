"""What each pooled system ranks, as qid -> clause id -> rank of the best passage covering it in
the top `depth` (docs/labelling.md, pool candidates).

A system is a list of overrides on the pool's base overrides, ranked by
`ragsweep.retrieval.pipeline.rank` exactly as `evaluate` ranks it, each passage mapped to the
clauses it covers (`eval.min_overlap`); or a TREC run file whose ids are **clause ids**
(`document/section@version`, a run's `run_clauses.txt`), ranked the trec_eval way and cut at
`depth`; or a scored run's per-question rows (`top_clauses`). A chunk id or any id that is not a
clause of the dataset is a one-line `DatasetError` naming the file, line and fix.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from ragsweep.chunking.anchors import coverage
from ragsweep.config import compose
from ragsweep.data import Dataset
from ragsweep.data.schema import Clause
from ragsweep.errors import DatasetError, UserError
from ragsweep.retrieval import pipeline
from ragsweep.scoring import trec
from ragsweep.scoring.eval_config import select_questions
from ragsweep.scoring.stages import chunk_and_filter, stage_cache

_SAFE_OVERRIDE_VALUE = re.compile(r"[\w./~:+-]+")
_CHUNK_ID = re.compile(r".+#\d+")


def base_overrides(base: str | os.PathLike[str] | Sequence[str] | DictConfig) -> list[str]:
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


def pool_questions(
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


def override_system(
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
    top = ranking.ids[:, :depth]
    cov = coverage(ds.clause_table, chunks, float(cfg.eval.min_overlap), only=top[top >= 0])
    covered = cov.clauses_of(cov.mapped)  # the pooled chunks only: chunk -> clause ids
    out: dict[str, dict[str, int]] = {}
    for qid, row in zip(questions["qid"], top.tolist(), strict=True):
        best: dict[str, int] = {}
        for rank, i in enumerate(row, start=1):
            if i < 0:
                continue
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


def run_system(
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
