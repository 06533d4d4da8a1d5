"""The dev / held-out split: stable under additions, near the requested share, hashed."""

from __future__ import annotations

import numpy as np
import pytest

from ragsweep.data import split
from ragsweep.errors import UserError


def test_adding_questions_never_moves_old_ones():
    old = [f"q{i:04d}" for i in range(1, 401)]
    new = old + [f"q{i:04d}" for i in range(401, 441)]
    before = split.assign(old, "salt", 0.25)
    after = split.assign(new, "salt", 0.25)
    assert (after[:400] == before).all()
    assert split.split_hash(old, "salt", 0.25) != split.split_hash(new, "salt", 0.25)


def test_share_is_near_the_requested_one_and_salt_matters():
    qids = [f"q{i}" for i in range(4000)]
    held = (split.assign(qids, "a", 0.25) == "heldout").mean()
    assert 0.23 < held < 0.27  # binomial sd is 0.007
    other = split.assign(qids, "b", 0.25)
    assert (other != split.assign(qids, "a", 0.25)).any()


def test_select_masks_and_bad_values():
    qids = ["a", "b", "c"]
    assert split.select(qids, "s", 0.5, "all").all()
    dev = split.select(qids, "s", 0.5, "dev")
    assert (dev ^ split.select(qids, "s", 0.5, "heldout")).all()
    assert dev.dtype == np.bool_
    with pytest.raises(UserError, match="eval.split"):
        split.select(qids, "s", 0.5, "test")
    with pytest.raises(UserError, match="heldout"):
        split.assign(qids, "s", 1.0)


def test_balanced_salt_stratifies_every_slice_and_stays_stable():
    slices = ["a"] * 80 + ["b"] * 80 + ["c"] * 40
    qids = [f"q{i:03d}" for i in range(len(slices))]
    salt = split.balanced_salt(qids, slices, 0.25, "t")
    got = split.counts(qids, slices, salt, 0.25)
    assert all(abs(h - 0.25 * n) <= 1 for n, h in got.values()), got
    # recorded once, the salt keeps every old question where it was when more arrive
    more = qids + [f"q{i:03d}" for i in range(200, 240)]
    assert (split.assign(more, salt, 0.25)[:200] == split.assign(qids, salt, 0.25)).all()


def test_the_sample_split_is_stratified(capsys):
    from omegaconf import OmegaConf

    from ragsweep.cli import main
    from ragsweep.config import compose
    from ragsweep.data import load_dataset

    cfg = compose([])
    q = load_dataset().questions
    got = split.counts(list(q["qid"]), list(q["slice"]), cfg.data.split.salt, 0.25)
    assert all(abs(h - 20) <= 1 for n, h in got.values()), got
    assert main(["data", "split", "--salt", str(OmegaConf.select(cfg, "data.split.salt"))]) == 0
    assert "held out" in capsys.readouterr().out
