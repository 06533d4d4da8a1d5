"""docs/screenshots/make.py makes its five pictures from a fresh sweep: run here on the toy data
(a fusion sweep with a dev winner, `toy.HELDOUT_WINNER`) into a temporary folder, in about a
minute; the committed pictures come from the Quickstart."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

from browser import CHROMIUM
from toy import HELDOUT_WINNER

MAKE = Path(__file__).parents[1] / "docs" / "screenshots" / "make.py"
PICTURES = ["runs-table.png", "charts.png", "parent-run.png", "winner-run.png", "experiments.png"]


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (.ci/run installs it)")
def test_make_saves_the_five_screenshots_of_a_fresh_sweep(tmp_path):
    pytest.importorskip("playwright", reason="the test extra installs playwright")
    out = tmp_path / "shots"
    done = subprocess.run(
        [sys.executable, str(MAKE), "--out", str(out), "--", *HELDOUT_WINNER, "fusion.k=1,60"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(p.name for p in out.iterdir()) == sorted(PICTURES)
    for name in PICTURES:
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", name
        assert struct.unpack(">II", data[16:24]) == (1600, 1000), name  # the browser's screen
        assert len(data) > 20_000, f"{name} is blank"  # a page, not an empty screen
