"""Passages run files made from ragsweep's own rankings, for the `score-passages` tests.

`write_run` writes what a production system would log for an evaluated configuration: each
question's ranked chunks, best first, as their texts only (no ids), as document + text, or as
document + span. `reflow` is what text extraction and logging do to a passage on the way: cut
10% of the characters at the ends (anywhere in a word), re-wrap the lines at 60 characters,
hyphenating long words at the line break, and change the white space. `reflowed` does it once
per chunk, with a random stream seeded by the chunk id: a system logs one chunk one way.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

from ragsweep.chunking.chunkers import Chunk, chunk_corpus
from ragsweep.data import Dataset
from ragsweep.retrieval.pipeline import Pipeline
from ragsweep.scoring.evaluate import EvalResult


def chunks_by_id(cfg, ds: Dataset) -> dict[str, Chunk]:
    """The configuration's chunks of the dataset by chunk id, as `evaluate` cut them."""
    return {c.chunk_id: c for c in chunk_corpus(ds.documents, Pipeline.from_config(cfg).chunker)}


def write_run(
    path: Path,
    result: EvalResult,
    chunks: dict[str, Chunk],
    form: str = "text",
    change: Callable[[Chunk], str] | None = None,
    depth: int | None = None,
) -> Path:
    """Write `result`'s rankings as a passages run file: `form` text (a string per passage),
    document (document + text) or span (document + start + end); `change` alters each text."""
    with path.open("w", encoding="utf-8") as f:
        for qid, ids in result.rankings.items():
            passages: list[object] = []
            for cid in ids[:depth]:
                c = chunks[cid]
                text = change(c) if change else c.text
                if form == "text":
                    passages.append(text)
                elif form == "document":
                    passages.append({"document": c.doc_id, "text": text})
                else:
                    passages.append({"document": c.doc_id, "start": c.start, "end": c.end})
            f.write(json.dumps({"qid": qid, "passages": passages}) + "\n")
    return path


def reflow(text: str, rng: random.Random, width: int = 60, trim: float = 0.10) -> str:
    """`text` cut, re-wrapped, hyphenated at line breaks and re-spaced (see the module doc)."""
    cut = round(trim * len(text))
    head = rng.randint(0, cut)
    words = text[head : len(text) - (cut - head)].split()
    lines, line = [], words[0]
    for word in words[1:]:
        if len(line) + 1 + len(word) <= width:
            line += " " + word
            continue
        room = width - len(line) - 2  # the space and the hyphen
        if len(word) >= 6 and room >= 3 and word[:room].isalpha():
            lines.append(f"{line} {word[:room]}-")
            line = word[room:]
        else:
            lines.append(line)
            line = word
    lines.append(line)
    out = lines[0] + "".join(rng.choice(["\n", "\n", " \n", "\n  "]) + ln for ln in lines[1:])
    return "".join(rng.choice([" ", " ", "  ", "\t"]) if c == " " else c for c in out)


def reflowed(seed: int = 0, **options: float) -> Callable[[Chunk], str]:
    """`reflow` of each chunk's text, the same every time that chunk is ranked."""
    done: dict[str, str] = {}

    def change(chunk: Chunk) -> str:
        if chunk.chunk_id not in done:
            rng = random.Random(f"{seed}:{chunk.chunk_id}")
            done[chunk.chunk_id] = reflow(chunk.text, rng, **options)  # type: ignore[arg-type]
        return done[chunk.chunk_id]

    return change
