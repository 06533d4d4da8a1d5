"""The contract every retrieval stage obeys: ranked lists, stage protocols, and the top-k rule.

Conventions (one place, shared by every stage):

- A `Ranked` holds one ranked list per query as two `(n_queries, width)` arrays. Row order is the
  ranking: column 0 is rank 1. Unused tail positions are padding (`id = -1`, `score = -inf`).
- First-stage retrievers and fusion order by score descending, **ties by text index ascending**
  (`top_k`). Rerankers order their head by the new score and keep the first-stage order among
  ties (see `ragsweep.retrieval.rerank`).
- The pipeline indexes the texts in **tie order** (`tie_order`: ascending `tie_keys` of the
  chunk ids, a stable hash), never in corpus file order, so "ties by text index" means ties by
  that hash: which of two equal-scoring passages ranks first is neutral and cannot depend on
  which file was loaded first.
- Scores are float64 and non-increasing along a row; padding never precedes a real item; an
  index appears at most once per row. `Ranked` checks all of this when built.
- `allowed[q]` is an int array of the text indices query q may return (the product/version
  filter), or None for no restriction. Filtered search equals "score everything, then drop the
  disallowed", because every stage scores first and masks afterwards.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ragsweep.errors import UserError

#: Padding id and score of `Ranked`.
PAD_ID = -1
PAD_SCORE = -np.inf
#: Upper bound on the elements of one (queries x texts) score block, to bound memory (32 MB).
BLOCK_ELEMENTS = 1 << 22
#: `top_k_candidates` ranks a row of more candidates than this by itself (its own work then
#: outweighs numpy's per-call cost), shorter rows together.
ALONE_CANDIDATES = 4096

Allowed = Sequence[np.ndarray | None] | None


@dataclass(frozen=True)
class Ranked:
    """Ranked lists, one row per query: `ids` int64 indices into the indexed texts, -1 padded;
    `scores` float64, -inf where padded. Validated on construction (see the module docstring)."""

    ids: np.ndarray
    scores: np.ndarray

    def __post_init__(self) -> None:
        ids, scores = self.ids, self.scores
        if not isinstance(ids, np.ndarray) or ids.dtype != np.int64 or ids.ndim != 2:
            raise ValueError(f"Ranked.ids must be a 2-D int64 array, got {_describe(ids)}")
        if not isinstance(scores, np.ndarray) or scores.dtype != np.float64:
            raise ValueError(f"Ranked.scores must be a float64 array, got {_describe(scores)}")
        if scores.shape != ids.shape:
            raise ValueError(f"Ranked shapes differ: ids {ids.shape}, scores {scores.shape}")
        pad = ids == PAD_ID
        problems = {
            "ids below -1": ids < PAD_ID,
            "padding without score -inf": pad & (scores != PAD_SCORE),
            "real item with a non-finite score": ~pad & ~np.isfinite(scores),
            "padding before a real item": pad[:, :-1] & ~pad[:, 1:],
            "scores increasing along the row": scores[:, 1:] > scores[:, :-1],
        }
        sorted_ids = np.sort(ids, axis=1)
        problems["an id twice in one row"] = (sorted_ids[:, 1:] == sorted_ids[:, :-1]) & (
            sorted_ids[:, 1:] != PAD_ID
        )
        for what, bad in problems.items():
            rows = np.flatnonzero(bad.any(axis=1))
            if rows.size:
                raise ValueError(f"Ranked row {int(rows[0])}: {what}")

    @property
    def n_queries(self) -> int:
        return int(self.ids.shape[0])

    @property
    def width(self) -> int:
        """Number of rank positions per row (real items plus padding)."""
        return int(self.ids.shape[1])

    def lengths(self) -> np.ndarray:
        """Number of real (non-padding) items per row, int64."""
        return (self.ids != PAD_ID).sum(axis=1).astype(np.int64)

    def head(self, depth: int) -> Ranked:
        """The first `depth` positions of every row (a view, no copy)."""
        depth = check_depth(depth)
        return Ranked(self.ids[:, :depth], self.scores[:, :depth])

    @classmethod
    def empty(cls, n_queries: int, width: int) -> Ranked:
        """All padding."""
        return cls(
            np.full((n_queries, width), PAD_ID, dtype=np.int64),
            np.full((n_queries, width), PAD_SCORE, dtype=np.float64),
        )


@runtime_checkable
class Retriever(Protocol):
    """A first stage: index texts once, then rank them for queries."""

    def index(self, texts: Sequence[str]) -> None: ...

    def search(self, queries: Sequence[str], depth: int, allowed: Allowed = None) -> Ranked: ...

    def fingerprint(self) -> dict[str, Any]: ...


@runtime_checkable
class Embedder(Protocol):
    """Texts to L2-normalised float32 rows; `fit` learns from the corpus (or does nothing).

    An embedder may also define `fit_encode(texts)`, returning exactly `fit(texts)` then
    `encode(texts)` in one pass (LSA counts the corpus once that way); `DenseRetriever.index`
    uses it when present."""

    def fit(self, texts: Sequence[str]) -> None: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...

    def fingerprint(self) -> dict[str, Any]: ...


@runtime_checkable
class Fusion(Protocol):
    """Several first-stage lists of the same queries into one, `depth` deep."""

    def fuse(self, lists: Sequence[Ranked], depth: int) -> Ranked: ...

    def fingerprint(self) -> dict[str, Any]: ...


@runtime_checkable
class Reranker(Protocol):
    """A second stage: rescore the top `depth` candidates of each query with a costlier model."""

    def rerank(
        self, queries: Sequence[str], texts: Sequence[str], candidates: Ranked, depth: int
    ) -> Ranked: ...

    def fingerprint(self) -> dict[str, Any]: ...


def stage_identity(stage: Any) -> dict[str, Any]:
    """What determines a stage object: its class, its own `fingerprint()` and, for a class
    outside ragsweep (the user's module), the sha256 of the file defining it (`source`), so
    editing that file invalidates what the cache holds for it. ragsweep's own classes need no
    `source`: the stage cache is one folder per hash of ragsweep's source.

    The fingerprint must be a dict of JSON values: an object's `str` may hold a memory address,
    which would give every process a different cache key. Anything else is a `UserError`
    naming the class and the fix.
    """
    kind = type(stage)
    name = f"{kind.__module__}.{kind.__qualname__}"
    fingerprint = stage.fingerprint()
    if not isinstance(fingerprint, Mapping):
        raise UserError(
            f"{name}.fingerprint() returned a {type(fingerprint).__name__}, not a dict: return "
            "the parameters that change its results, e.g. {'n': self.n} (see docs/extending.md)"
        )
    try:
        json.dumps(fingerprint, sort_keys=True)
    except (TypeError, ValueError) as err:
        raise UserError(
            f"{name}.fingerprint() must hold only JSON values (str, int, float, bool, None, "
            f"lists and dicts of them), but {err}; return plain values (see docs/extending.md)"
        ) from None
    identity: dict[str, Any] = {"class": name}
    if kind.__module__.split(".", 1)[0] != "ragsweep":
        identity["source"] = _source_hash(kind)
    return {**identity, **fingerprint}


def _source_hash(kind: type) -> str | None:
    """sha256 of the file defining `kind` (None when it has none, e.g. a class defined in a
    notebook cell)."""
    try:
        path = inspect.getsourcefile(kind) or inspect.getfile(kind)
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except (OSError, TypeError):
        return None


def check_depth(depth: Any, name: str = "depth", minimum: int = 1) -> int:
    """`depth` as an int >= `minimum`, or a `UserError` naming `name`."""
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < minimum:
        raise UserError(f"{name} must be an integer >= {minimum}, got {depth!r}")
    return int(depth)


def check_texts(texts: Sequence[str], what: str) -> list[str]:
    """`texts` as a list of str; a bare string (a common slip) or a non-str item is refused."""
    if isinstance(texts, str):
        raise ValueError(f"{what} must be a sequence of strings, not one string")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise ValueError(f"{what}[{i}] is {type(text).__name__}, expected str")
    return out


def check_allowed(allowed: Allowed, n_queries: int, n_texts: int) -> list[np.ndarray | None]:
    """Validate the per-query filter; returns one int64 array (or None) per query."""
    if allowed is None:
        return [None] * n_queries
    if len(allowed) != n_queries:
        raise ValueError(f"allowed has {len(allowed)} entries for {n_queries} queries")
    out: list[np.ndarray | None] = []
    for q, a in enumerate(allowed):
        if a is None:
            out.append(None)
            continue
        arr = np.asarray(a)
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            raise ValueError(f"allowed[{q}] must be a 1-D integer array, got {_describe(arr)}")
        arr = arr.astype(np.int64, copy=False)
        if arr.size and (arr.min() < 0 or arr.max() >= n_texts):
            raise ValueError(f"allowed[{q}] holds indices outside [0, {n_texts})")
        out.append(arr)
    return out


def mask_disallowed(scores: np.ndarray, allowed: Sequence[np.ndarray | None]) -> None:
    """Set, in place, the score of every text row q may not return to -inf."""
    for q, a in enumerate(allowed):
        if a is not None:
            keep = np.zeros(scores.shape[1], dtype=bool)
            keep[a] = True
            scores[q, ~keep] = PAD_SCORE


class AllowedMasks:
    """`allowed` arrays as boolean masks over `n_texts` texts, each built once per array object:
    the pipeline hands every question of one product and version the same array, so a search
    pays for one mask per filter, not one per question."""

    def __init__(self, n_texts: int) -> None:
        self.n_texts = n_texts
        self._masks: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # id -> (array, mask)

    def __call__(self, allowed: np.ndarray) -> np.ndarray:
        known = self._masks.get(id(allowed))
        if known is not None and known[0] is allowed:
            return known[1]
        mask = np.zeros(self.n_texts, dtype=bool)
        mask[allowed] = True
        self._masks[id(allowed)] = (allowed, mask)  # holding the array keeps its id unique
        return mask


def query_blocks(n_queries: int, n_texts: int, elements: int = BLOCK_ELEMENTS) -> list[slice]:
    """Consecutive query slices whose (queries x texts) score block stays under `elements`."""
    rows = max(1, elements // max(1, n_texts))
    return [slice(s, min(s + rows, n_queries)) for s in range(0, n_queries, rows)]


def top_k(scores: np.ndarray, depth: int) -> Ranked:
    """Per row of `scores` (queries x texts, float64, -inf = not a candidate), the `depth` best
    texts by score descending, ties by text index ascending; short rows are padded.

    Exact and deterministic: a partition finds each row's depth-th best value, every text above
    it is kept, and the tied texts at that value are taken in index order.
    """
    depth = check_depth(depth)
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2:
        raise ValueError(f"scores must be 2-D (queries x texts), got shape {scores.shape}")
    if np.isnan(scores).any():
        raise ValueError("scores contain NaN")
    n_q, n = scores.shape
    if depth < n:
        if n <= ALONE_CANDIDATES:  # narrow rows: one partition for the block
            kth = -np.partition(-scores, depth - 1, axis=1)[:, depth - 1 : depth]
        else:  # wide rows: the depth-th best of the real ones, row by row, without -inf
            kth = np.full((n_q, 1), PAD_SCORE)  # (on many -inf, numpy's partition can be 20x
            for q, row in enumerate(scores):  # slower, and it would copy the whole block)
                real = row[row != PAD_SCORE]
                if len(real) >= depth:
                    kth[q] = np.partition(real, len(real) - depth)[len(real) - depth]
        above = scores > kth
        tied = scores == kth
        room = depth - np.count_nonzero(above, axis=1)
        chosen = above | tied
        for q in np.flatnonzero(np.count_nonzero(tied, axis=1) > room):  # more ties than room
            chosen[q] = above[q] | (tied[q] & (np.cumsum(tied[q]) <= room[q]))
        cols = (np.flatnonzero(chosen) % n).reshape(n_q, depth)  # ascending within each row
    else:
        cols = np.broadcast_to(np.arange(n, dtype=np.int64), (n_q, n))
    vals = np.take_along_axis(scores, cols, axis=1)
    order = np.argsort(-vals, axis=1, kind="stable")
    ids = np.take_along_axis(cols, order, axis=1).astype(np.int64)
    vals = np.take_along_axis(vals, order, axis=1)
    pad = vals == PAD_SCORE
    ids[pad] = PAD_ID
    if depth > n:
        ids = np.pad(ids, ((0, 0), (0, depth - n)), constant_values=PAD_ID)
        vals = np.pad(vals, ((0, 0), (0, depth - n)), constant_values=PAD_SCORE)
    return Ranked(np.ascontiguousarray(ids), np.ascontiguousarray(vals))


def top_k_candidates(rows: Sequence[tuple[np.ndarray, np.ndarray]], depth: int) -> Ranked:
    """`top_k` for rows given by their candidates only: per query, the text indices that may
    rank (int64, ascending, distinct) and their float64 scores; every other text scores -inf.

    Same result as `top_k` on the full rows, bit for bit: score descending, ties by text index
    ascending, -inf candidates dropped, short rows padded. The work follows the candidates, not
    the indexed texts: a row of more than ALONE_CANDIDATES is ranked by itself, the shorter
    ones together, as one `top_k` over their candidates padded to the longest (columns in id
    order, so ties by column are ties by id), in groups within BLOCK_ELEMENTS.
    """
    depth = check_depth(depth)
    ids_out = np.full((len(rows), depth), PAD_ID, dtype=np.int64)
    scores_out = np.full((len(rows), depth), PAD_SCORE, dtype=np.float64)
    short: list[int] = []
    checked = []
    for q, (ids, scores) in enumerate(rows):
        ids = np.asarray(ids, dtype=np.int64)
        scores = np.asarray(scores, dtype=np.float64)
        if ids.ndim != 1 or scores.shape != ids.shape:
            raise ValueError(f"row {q}: ids {ids.shape} and scores {scores.shape} must be 1-D")
        if (ids[1:] <= ids[:-1]).any():
            raise ValueError(f"row {q}: candidate ids must be ascending and distinct")
        checked.append((ids, scores))
        if len(ids) > ALONE_CANDIDATES:
            ids, scores = _top_k_row(ids, scores, depth)
            ids_out[q, : len(ids)], scores_out[q, : len(ids)] = ids, scores
        else:
            short.append(q)
    group: list[int] = []
    for q in [*short, None]:
        if q is not None and (len(group) + 1) * ALONE_CANDIDATES <= max(BLOCK_ELEMENTS, 1):
            group.append(q)
            continue
        if group:
            width = max(len(checked[g][0]) for g in group)
            ranked = _top_k_padded(
                [checked[g][0] for g in group], [checked[g][1] for g in group], width, depth
            )
            ids_out[group], scores_out[group] = ranked.ids, ranked.scores
        group = [] if q is None else [q]
    return Ranked(ids_out, scores_out)


def _top_k_row(ids: np.ndarray, scores: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """One row's best `depth` candidates, ranked: `top_k`'s rule on the candidates alone."""
    if np.isnan(scores).any():
        raise ValueError("scores contain NaN")
    real = scores != PAD_SCORE
    if not real.all():
        ids, scores = ids[real], scores[real]
    n = len(scores)
    if n > depth:  # as in top_k: all above the depth-th value, then its ties by index
        kth = np.partition(scores, n - depth)[n - depth]
        keep = scores > kth
        tied = np.flatnonzero(scores == kth)
        keep[tied[: depth - int(np.count_nonzero(keep))]] = True
        ids, scores = ids[keep], scores[keep]
    order = np.argsort(-scores, kind="stable")
    return ids[order], scores[order]


def _top_k_padded(
    ids_list: list[np.ndarray], scores_list: list[np.ndarray], width: int, depth: int
) -> Ranked:
    """One `top_k` over rows of candidates padded to `width` (id -1, score -inf), mapped back
    from columns to the candidates' ids."""
    ids = np.full((len(ids_list), width), PAD_ID, dtype=np.int64)
    scores = np.full((len(ids_list), width), PAD_SCORE, dtype=np.float64)
    if width:
        inside = np.arange(width) < np.array([len(i) for i in ids_list])[:, None]
        ids[inside] = np.concatenate(ids_list)
        scores[inside] = np.concatenate(scores_list)
    ranked = top_k(scores, depth)
    if not width:
        return ranked
    real = ranked.ids != PAD_ID
    found = np.take_along_axis(ids, np.where(real, ranked.ids, 0), axis=1)
    return Ranked(np.where(real, found, PAD_ID), ranked.scores)


def tie_keys(ids: Sequence[str]) -> np.ndarray:
    """The tie key of each id: the first 8 bytes of blake2b(id as UTF-8), big-endian, as uint64.

    A stable hash: the same id has the same key in every process, on every machine, whatever
    else is indexed. Equal scores rank by this key ascending (see `tie_order`)."""
    return np.fromiter(
        (
            int.from_bytes(hashlib.blake2b(str(i).encode("utf-8"), digest_size=8).digest(), "big")
            for i in ids
        ),
        dtype=np.uint64,
        count=len(ids),
    )


def tie_order(ids: Sequence[str]) -> np.ndarray:
    """The permutation (int64 positions into `ids`) that sorts `ids` by `tie_keys` ascending,
    then by the id itself (should two 64-bit keys ever collide), then by position (equal ids).

    Indexing texts in this order makes every stage's "ties by text index" a tie-break by the
    hash of the id: the order of equal scores is the same whatever order the corpus came in."""
    if not len(ids):
        return np.zeros(0, dtype=np.int64)
    names = np.array([str(i) for i in ids])
    return np.lexsort((names, tie_keys(ids))).astype(np.int64)


def ties_across(ids: np.ndarray, scores: np.ndarray, k: int) -> np.ndarray:
    """Per row of a ranking (`ids`, `scores` as in `Ranked`), whether the passage at rank `k`
    and the one at rank `k + 1` are both real and score exactly the same: the cut at `k` (the
    passages handed to the generator) then falls inside a tie, and only the tie rule decided
    which passage made it. False for a row with `k` or fewer passages."""
    k = check_depth(k, "k")
    ids, scores = np.asarray(ids), np.asarray(scores)
    if ids.ndim != 2 or scores.shape != ids.shape:
        raise ValueError(f"ids {ids.shape} and scores {scores.shape} must be equal 2-D shapes")
    if ids.shape[1] <= k:
        return np.zeros(ids.shape[0], dtype=bool)
    real = (ids[:, k - 1] != PAD_ID) & (ids[:, k] != PAD_ID)
    return real & (scores[:, k - 1] == scores[:, k])


def concat_rows(parts: Sequence[Ranked], width: int) -> Ranked:
    """Stack per-block results (same width) into one `Ranked`; an empty list gives 0 rows."""
    if not parts:
        return Ranked.empty(0, width)
    return Ranked(
        np.concatenate([p.ids for p in parts], axis=0),
        np.concatenate([p.scores for p in parts], axis=0),
    )


def _describe(x: Any) -> str:
    if isinstance(x, np.ndarray):
        return f"{x.dtype} array of shape {x.shape}"
    return type(x).__name__
