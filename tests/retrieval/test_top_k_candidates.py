"""`top_k` ranks as it did before it was sped up (the old implementation is written out here),
`top_k_candidates` (rows given by their candidates) exactly as `top_k` on the full rows, and
`AllowedMasks` builds one mask per filter array."""

from __future__ import annotations

import numpy as np
import pytest

from ragsweep.retrieval import base, top_k
from ragsweep.retrieval.base import PAD_ID, PAD_SCORE, AllowedMasks, top_k_candidates


def old_top_k(scores: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """`top_k` as ragsweep computed it before: argpartition of the negated block, a cumulative
    count of the ties at the cut."""
    n_q, n = scores.shape
    if depth < n:
        part = np.argpartition(-scores, depth - 1, axis=1)
        kth = np.take_along_axis(scores, part[:, depth - 1 : depth], axis=1)
        above = scores > kth
        tied = scores == kth
        room = depth - above.sum(axis=1, keepdims=True)
        chosen = above | (tied & (np.cumsum(tied, axis=1) <= room))
        cols = np.nonzero(chosen)[1].reshape(n_q, depth)
    else:
        cols = np.broadcast_to(np.arange(n, dtype=np.int64), (n_q, n))
    vals = np.take_along_axis(scores, cols, axis=1)
    order = np.argsort(-vals, axis=1, kind="stable")
    ids = np.take_along_axis(cols, order, axis=1).astype(np.int64)
    vals = np.take_along_axis(vals, order, axis=1)
    ids[vals == PAD_SCORE] = PAD_ID
    if depth > n:
        ids = np.pad(ids, ((0, 0), (0, depth - n)), constant_values=PAD_ID)
        vals = np.pad(vals, ((0, 0), (0, depth - n)), constant_values=PAD_SCORE)
    return ids, vals


@pytest.mark.parametrize("width", [7, 300, base.ALONE_CANDIDATES + 500])
def test_top_k_equals_the_old_implementation(width):
    """Narrow blocks take one partition, wide ones a partition of each row's real scores."""
    rng = np.random.default_rng(width)
    for share_inf, levels in [(0.0, 3), (0.5, 5), (0.97, 2), (0.3, 10**6)]:
        full = rng.integers(0, levels, size=(12, width)).astype(np.float64) / 7
        full[rng.random(full.shape) < share_inf] = -np.inf
        full[0] = -np.inf
        full[1] = 0.25
        for depth in (1, 3, 6, width - 1, width, width + 2):
            got = top_k(full, depth)
            want_ids, want_scores = old_top_k(full, depth)
            assert got.ids.tobytes() == want_ids.tobytes(), (share_inf, levels, depth)
            assert got.scores.tobytes() == want_scores.tobytes(), (share_inf, levels, depth)


def as_candidates(
    full: np.ndarray, rng: np.random.Generator
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each row's finite texts, plus a few -inf ones, as (ascending ids, scores)."""
    rows = []
    for row in full:
        pick = np.isfinite(row) | (rng.random(len(row)) < 0.1)
        ids = np.flatnonzero(pick)
        rows.append((ids, row[ids]))
    return rows


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_top_k_on_heavy_ties(seed):
    rng = np.random.default_rng(seed)
    full = rng.integers(0, 4, size=(60, 50)).astype(np.float64) / 3  # few values, many ties
    full[rng.random(full.shape) < 0.4] = -np.inf
    full[0] = -np.inf  # a row without candidates
    full[1, :] = 0.5  # a row tied throughout
    rows = as_candidates(full, rng)
    for depth in (1, 2, 7, 29, 50, 64):
        want, got = top_k(full, depth), top_k_candidates(rows, depth)
        assert got.ids.tobytes() == want.ids.tobytes(), depth
        assert got.scores.tobytes() == want.scores.tobytes(), depth


def test_rows_ranked_alone_and_in_several_groups_equal_top_k(monkeypatch):
    """Rows of more than ALONE_CANDIDATES go alone, the others in groups within BLOCK_ELEMENTS:
    with both set small here, one call takes every path."""
    monkeypatch.setattr(base, "ALONE_CANDIDATES", 12)
    monkeypatch.setattr(base, "BLOCK_ELEMENTS", 40)
    rng = np.random.default_rng(9)
    full = rng.integers(0, 3, size=(40, 30)).astype(np.float64)
    full[rng.random(full.shape) < rng.random((40, 1))] = -np.inf  # rows from empty to full
    rows = as_candidates(full, rng)
    lengths = [len(ids) for ids, _ in rows]
    assert min(lengths) <= 12 < max(lengths)
    for depth in (1, 4, 30):
        want, got = top_k(full, depth), top_k_candidates(rows, depth)
        assert got.ids.tobytes() == want.ids.tobytes(), depth
        assert got.scores.tobytes() == want.scores.tobytes(), depth


def test_orders_by_score_then_index_written_out():
    rows = [
        (np.array([2, 5, 7, 9]), np.array([1.0, 3.0, 3.0, 2.0])),
        (np.array([], dtype=np.int64), np.array([])),
        (np.array([0, 4]), np.array([-np.inf, 1.5])),
    ]
    got = top_k_candidates(rows, 3)
    assert got.ids.tolist() == [[5, 7, 9], [-1, -1, -1], [4, -1, -1]]
    assert got.scores.tolist() == [[3.0, 3.0, 2.0], [-np.inf] * 3, [1.5, -np.inf, -np.inf]]


def test_refuses_rows_it_cannot_rank():
    with pytest.raises(ValueError, match="ascending and distinct"):
        top_k_candidates([(np.array([3, 1]), np.array([1.0, 2.0]))], 2)
    with pytest.raises(ValueError, match="ascending and distinct"):
        top_k_candidates([(np.array([1, 1]), np.array([1.0, 2.0]))], 2)
    with pytest.raises(ValueError, match="NaN"):
        top_k_candidates([(np.array([1, 2]), np.array([np.nan, 2.0]))], 2)
    with pytest.raises(ValueError, match="1-D"):
        top_k_candidates([(np.array([1, 2]), np.array([1.0]))], 2)


def test_allowed_masks_builds_one_mask_per_array():
    masks = AllowedMasks(6)
    a, b = np.array([1, 4]), np.array([0])
    first = masks(a)
    assert first.tolist() == [False, True, False, False, True, False]
    assert masks(a) is first, "the same array object reuses its mask"
    assert masks(b).tolist() == [True] + [False] * 5
    equal = np.array([1, 4])
    assert masks(equal) is not first and masks(equal).tolist() == first.tolist()
