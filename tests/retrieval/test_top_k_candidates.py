"""`top_k_candidates` (rows given by their candidates) ranks exactly as `top_k` on the full rows,
and `AllowedMasks` builds one mask per filter array."""

from __future__ import annotations

import numpy as np
import pytest

from ragsweep.retrieval import top_k
from ragsweep.retrieval.base import AllowedMasks, top_k_candidates


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
