"""The toy dataset every end-to-end test runs on, and the overrides that select it.

`TOY` evaluates the tiny fixture (tests/fixtures/tiny: 2 wordings x 2 versions, 10 questions)
with nothing held out and equal slice weights, so ten questions are enough for a run.
"""

from __future__ import annotations

from pathlib import Path

TINY = Path(__file__).parent / "fixtures" / "tiny"
TOY = ["data=folder", f"data.path={TINY}", "data.split.heldout=0", "eval.traffic_weights=null"]
