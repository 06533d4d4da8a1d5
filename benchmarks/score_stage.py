"""The score stage alone: `anchors.coverage` and `scoring.ranked.score_ranked` timed on a padded
benchmark corpus, for comparing two source trees (issue 32).

    python benchmarks/corpus.py --chunks 100000            # prints the corpus folder
    PYTHONPATH=TREE/src python benchmarks/score_stage.py FOLDER [--repeat 7] [--save OUT.pkl]
    python benchmarks/score_stage.py --same A.pkl B.pkl     # two trees' outputs, equal?

The ranking is what a run would score: every question (nothing held out) with 100 random chunks,
the chunks of its labelled documents put at random places in its top 20, and a few padded ranks;
chunks are ragsweep's default fixed windows (128 words, overlap 16). Prints the minimum and the
median of `--repeat` timings of coverage of every chunk, coverage of the ranked chunks only (where
the tree has `only=`) and `score_ranked`; `--save` keeps `score_ranked`'s output, and `--same`
checks two saved outputs are equal to the bit.
"""

from __future__ import annotations

import argparse
import inspect
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

DEPTH, TOP = 100, 20


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Minimum and median wall seconds of `repeat` calls."""
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        seconds.append(time.perf_counter() - start)
    return min(seconds), float(np.median(seconds))


def ranking(chunks: list[Any], questions: Any, labels: Any, seed: int = 0) -> np.ndarray:
    """(questions, DEPTH) chunk indices: random chunks, each question's labelled documents'
    chunks at random places in its top TOP, the last 3 ranks of every 9th question padded."""
    rng = np.random.default_rng(seed)
    by_doc: dict[str, list[int]] = {}
    for i, c in enumerate(chunks):
        by_doc.setdefault(c.doc_id, []).append(i)
    ranked = np.stack([rng.choice(len(chunks), DEPTH, replace=False) for _ in questions["qid"]])
    for q, qid in enumerate(questions["qid"]):
        mine = labels[labels["qid"] == qid]
        docs = [f"{d}@{v}" for d, v in zip(mine["document"], mine["version"], strict=True)]
        hits = [i for d in docs for i in by_doc.get(d, [])][:TOP]
        ranked[q, rng.choice(TOP, len(hits), replace=False)] = hits
    ranked[::9, -3:] = -1
    return ranked


def run(folder: Path, repeat: int, save: Path | None) -> None:
    from ragsweep.chunking import anchors
    from ragsweep.chunking.chunkers import FixedTokenChunker, chunk_corpus
    from ragsweep.config import compose
    from ragsweep.data import load_dataset
    from ragsweep.scoring.eval_config import scoring
    from ragsweep.scoring.ranked import score_ranked

    ds = load_dataset(folder)
    how = scoring(compose(["data=folder", f"data.path={folder}", "data.split.heldout=0"]), ds)
    chunks = chunk_corpus(ds.documents, FixedTokenChunker(size=128, overlap=16))
    ranked = ranking(chunks, how.questions, ds.labels)
    print(
        f"{Path(anchors.__file__).parents[2]} on {folder.name}: {len(ds.documents)} documents, "
        f"{len(chunks)} chunks, {len(how.questions)} questions x {DEPTH}, "
        f"{len(np.unique(ranked[ranked >= 0]))} distinct chunks ranked"
    )
    cases = {
        "coverage, every chunk": lambda: anchors.coverage(ds.documents, chunks, how.min_overlap)
    }
    if "only" in inspect.signature(anchors.coverage).parameters:
        wanted = ranked[ranked >= 0]
        cases["coverage, ranked only"] = lambda: anchors.coverage(
            ds.clause_table, chunks, how.min_overlap, only=wanted
        )
    cases["score_ranked"] = lambda: score_ranked(ds, how, chunks, ranked)
    for name, fn in cases.items():
        low, median = timed(fn, repeat)
        print(f"  {name:24s} min {low * 1e3:8.1f} ms   median {median * 1e3:8.1f} ms")
    if save is not None:
        scored = score_ranked(ds, how, chunks, ranked)
        with save.open("wb") as fh:
            pickle.dump(vars(scored), fh)


def same(a: Path, b: Path) -> None:
    import pandas as pd

    left, right = (pickle.loads(p.read_bytes()) for p in (a, b))
    for key in left:
        if isinstance(left[key], pd.DataFrame):
            pd.testing.assert_frame_equal(left[key], right[key], check_exact=True)
        elif left[key] != right[key]:
            raise SystemExit(f"{key} differs")
    print(f"equal: {', '.join(left)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, nargs="?")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--same", type=Path, nargs=2)
    args = parser.parse_args()
    if args.same:
        same(*args.same)
    elif args.folder is None:
        parser.error("give a corpus folder (benchmarks/corpus.py prints one) or --same A B")
    else:
        run(args.folder, args.repeat, args.save)


if __name__ == "__main__":
    main()
