"""The toy dataset every end-to-end test runs on, and the overrides that select it.

`TOY` evaluates the tiny fixture (tests/fixtures/tiny: 2 wordings x 2 versions, 10 questions)
with nothing held out and equal slice weights, so ten questions are enough for a run.

`SMALL_CHUNKS` cuts the toy wordings into 16-word windows (59 chunks). At the default 128 words
each wording version is one or two chunks, the product filter leaves a question one or two
candidates, and no fusion constant or reranker depth can reorder anything: a sweep over them
would score every value the same and could not notice a factor the pipeline ignores.

`HELDOUT_WINNER` holds half the toy questions out and decides on recall@1 over 16-word chunks:
there `fusion.k=1` beats the baseline 60 on the dev half (one exclusions question moves to the
top), so a sweep `fusion.k=1,60` has a dev winner for the confirm stage to re-score. One
question of five is no evidence at 95% (docs/statistics.md: the interval is honest on small
slices), so these runs decide at a 50% level (`report.level=0.5`): enough for the machinery
that follows a winner to have one, and stated in every report they print. The toy labels only
the clauses that answer, so most 16-word chunks are unjudged and honest bounds would read
`needs judging`; these runs take trec_eval's convention (`eval.unjudged=assume_not_relevant`),
which every report prints as an assumption.

Fixtures and MLflow helpers shared by the tests are in conftest.py.
"""

from __future__ import annotations

from pathlib import Path

TINY = Path(__file__).parent / "fixtures" / "tiny"
TOY = ["data=folder", f"data.path={TINY}", "data.split.heldout=0", "eval.traffic_weights=null"]
SMALL_CHUNKS = ["chunker.size=16", "chunker.overlap=4"]
HELDOUT_WINNER = [
    "data=folder",
    f"data.path={TINY}",
    "data.split.heldout=0.5",
    "eval.traffic_weights=null",
    "eval.k_prompt=1",
    "report.level=0.5",
    "eval.unjudged=assume_not_relevant",
    *SMALL_CHUNKS,
]
