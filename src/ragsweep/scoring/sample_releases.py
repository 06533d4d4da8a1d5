"""Three releases of a made-up assistant on the built-in sample, as passages run files, to try
the release gate on (`ragsweep data releases --out DIR`, docs/ci.md).

- `release-a.jsonl`: what the default configuration retrieves, the top 10 per question;
- `release-b.jsonl`: the same retrieval after an ingestion change that lost every "What is not
  covered" part (a passage mostly inside a part of kind `exclusions` is gone, the list closes
  up): it regresses the exclusions slice;
- `release-c.jsonl`: release A's passages as another text extractor gives them (re-wrapped at
  60 characters) with ranks 6-10 in another order: nothing the prompt sees changes.

Every question of the set has a line (any split can be scored). Deterministic: the same ragsweep
writes the same bytes.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from ragsweep.chunking.chunkers import Chunk
from ragsweep.data import Dataset, load_dataset
from ragsweep.data.write import replace_file
from ragsweep.scoring.evaluate import evaluate

#: passages per question in each release
DEPTH = 10
#: the part kind release B lost
LOST_KIND = "exclusions"
RELEASES = ("release-a", "release-b", "release-c")


def _lost_share(chunk: Chunk, ds: Dataset) -> float:
    """The share of the chunk's characters inside clauses of a `LOST_KIND` part."""
    (doc,) = [d for d in ds.documents if d.doc_id == chunk.doc_id]
    inside = sum(
        max(0, min(end, chunk.end) - max(start, chunk.start))
        for clause, (start, end) in zip(doc.clauses, doc.spans, strict=True)
        if clause.kind == LOST_KIND
    )
    return inside / max(1, chunk.end - chunk.start)


def _lines(ranked: dict[str, list[Chunk]], passage) -> bytes:  # noqa: ANN001 - Chunk -> str
    rows = [
        json.dumps({"qid": q, "passages": [passage(c) for c in cs]}) for q, cs in ranked.items()
    ]
    return ("\n".join(rows) + "\n").encode("utf-8")


def write_releases(out: Path) -> list[Path]:
    """Write the three releases into the folder `out`; return their paths."""
    from ragsweep.chunking.chunkers import chunk_corpus
    from ragsweep.config import compose
    from ragsweep.retrieval.pipeline import Pipeline

    cfg = compose(["eval.split=all", "cache.dir=null"])
    ds = load_dataset(cfg.data.path)
    result = evaluate(cfg, ds, allow_heldout=True)
    chunks = {c.chunk_id: c for c in chunk_corpus(ds.documents, Pipeline.from_config(cfg).chunker)}
    full = {q: [chunks[i] for i in ids] for q, ids in result.rankings.items()}
    kept: dict[Chunk, bool] = {}
    a = {q: cs[:DEPTH] for q, cs in full.items()}
    b = {
        q: [c for c in cs if kept.setdefault(c, _lost_share(c, ds) < 0.5)][:DEPTH]
        for q, cs in full.items()
    }
    c = {q: cs[:5] + cs[5:DEPTH][::-1] for q, cs in a.items()}
    files = {
        "release-a": _lines(a, lambda ch: ch.text),
        "release-b": _lines(b, lambda ch: ch.text),
        "release-c": _lines(c, lambda ch: textwrap.fill(ch.text, 60)),
    }
    paths = []
    for name, body in files.items():
        path = Path(out) / f"{name}.jsonl"
        replace_file(path, body)
        paths.append(path)
    return paths
