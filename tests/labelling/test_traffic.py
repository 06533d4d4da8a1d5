"""Traffic shares (ragsweep.labelling.traffic): counted before de-duplication, without `unknown`,
written as weights that sum to 1 and that `eval.traffic_weights` reads."""

from __future__ import annotations

import pytest
import yaml
from omegaconf import OmegaConf
from sample_logs import SLICES, entries, scrub

from ragsweep.labelling.sampling import draw_sample
from ragsweep.labelling.slicerules import UNKNOWN
from ragsweep.labelling.traffic import traffic_shares, write_weights
from ragsweep.scoring.weights import slice_weights


def test_traffic_shares_count_volume_before_dedupe_and_sum_to_one(tmp_path):
    log = entries(
        "how much is the excess", "how much is the excess", "how much is the excess",
        "what does END-HM-14 change", "xyzzy",
    )  # fmt: skip
    r = draw_sample(log, scrub, target=5)
    assert r.exact_duplicates == 2
    assert r.shares["limits"] == 3 / 4 and r.shares["identifiers"] == 1 / 4
    assert sum(r.shares.values()) == 1.0
    thirds = traffic_shares(["limits", "exclusions", "procedures", UNKNOWN], SLICES)
    out = tmp_path / "weights.yaml"
    written = write_weights(out, thirds, comment="from query_log.jsonl\nunknown: 1 entry")
    loaded = yaml.safe_load(out.read_text())
    assert loaded == written
    assert written["limits"] + written["exclusions"] + written["procedures"] == 1.0
    assert sorted(written.values()) == [0, 0, 0.3333, 0.3333, 0.3334]
    assert out.read_text().startswith("# from query_log.jsonl\n# unknown: 1 entry\n")
    cfg = OmegaConf.create({"eval": {"traffic_weights": loaded}})
    assert slice_weights(cfg, ["limits", "exclusions", "procedures"], SLICES) == pytest.approx(
        {"limits": 1 / 3, "exclusions": 1 / 3, "procedures": 1 / 3}, abs=1e-3
    )
