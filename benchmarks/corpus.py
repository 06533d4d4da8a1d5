"""Benchmark corpora: real questions and labels in a corpus padded to a chosen number of chunks.

    python benchmarks/corpus.py --chunks 100000 [--seed 0] [--cache DIR] [--source auto]

The source is the Cranfield collection (1,400 aeronautics abstracts, 225 queries, graded qrels
nobody on the project wrote), imported with ragsweep's own SMART importer (`ragsweep data import
--format smart --qrels-format cranfield --slice-by best-code`). When it cannot be found, the
built-in sample stands in (its wordings, questions and labels). Either way the corpus is then
padded with distractor documents, made by recombining the source's own sentences with a seeded
random stream, up to exactly `chunks` passages of ragsweep's default fixed chunker at 128
words (128-word windows overlapping by 16, over the rendered text of docs/schema.md). A source
larger than the target keeps its first documents that fit (and the questions still labelled
in them). Distractors carry no label, so every one of them is a wrong answer that competes
with the labelled documents, as the rest of a large collection does.

Distractor lengths are drawn from the source documents' own lengths, so the padded corpus has
the source's mix of one-, two- and three-chunk documents. Built folders are cached under
`--cache` (default `benchmarks/.corpora/`) by source, chunk count, seed and a digest of the
source files and of this builder's format, so reruns reuse them; delete the folder to rebuild.
Writing goes to a hidden sibling that is renamed into place when complete.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: ragsweep's default fixed chunker at size 128 (conf/chunker/fixed.yaml sets overlap 16)
CHUNK_SIZE, CHUNK_OVERLAP = 128, 16
#: bump when the same key would build different bytes (part of every cache key)
FORMAT = 1
HERE = Path(__file__).resolve().parent
DEFAULT_CACHE = HERE / ".corpora"
SOURCES = ("auto", "cranfield", "sample")
CRANFIELD_FILES = ("cran.all.1400", "cran.qry", "cranqrel")
#: distractor document ids: `x` and a zero-padded number (the schema's `[a-z0-9][a-z0-9_.-]*`)
DISTRACTOR_PREFIX = "x"
#: words of a distractor's heading at most (the source headings are titles of this order)
HEADING_WORDS = 16
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def find_cranfield(start: Path = HERE) -> Path | None:
    """The first `<ancestor>/shared/datasets/cranfield` holding the three SMART files, looking
    from `start` upwards (the repository's `../shared`, or a worktree's), else None."""
    for folder in (start, *start.parents):
        candidate = folder / "shared" / "datasets" / "cranfield"
        if all((candidate / name).is_file() for name in CRANFIELD_FILES):
            return candidate
    return None


def chunk_count(n_tokens: int, size: int = CHUNK_SIZE, overlap: int = CHUNK_OVERLAP) -> int:
    """Windows of `size` tokens starting every `size - overlap` tokens until one reaches the
    last token (ragsweep's FixedTokenChunker): 0 for no token, else 1 + ceil((n - size) / step)."""
    if n_tokens <= 0:
        return 0
    step = size - overlap
    return 1 + max(0, -(-(n_tokens - size) // step))


def max_tokens(n_chunks: int, size: int = CHUNK_SIZE, overlap: int = CHUNK_OVERLAP) -> int:
    """The most tokens a document may have and still make `n_chunks` windows (>= 1)."""
    return size + (size - overlap) * (n_chunks - 1)


def rendered_tokens(wording: dict[str, Any]) -> int:
    """Whitespace tokens of a wording rendered per docs/schema.md (title, `<number>. <title>`
    per part, `<section> <heading>` and the text per clause): what the chunker windows over."""
    n = len(wording["title"].split())
    for part in wording["parts"]:
        n += len(f"{part['number']}. {part['title']}".split())
        for clause in part["clauses"]:
            n += len(f"{clause['section']} {clause['heading']}".split())
            n += len(clause["text"].split())
    return n


@dataclass(frozen=True)
class Source:
    """A labelled collection to pad: wordings (schema dicts, in file-name order), questions and
    labels (schema dicts, file order), dataset.json, the optional relevance rule."""

    name: str  # "cranfield" or "sample"
    digest: str  # sha256 of the source files: part of the cache key
    meta: dict[str, Any]
    wordings: list[dict[str, Any]]
    questions: list[dict[str, Any]]
    labels: list[dict[str, Any]]
    relevance: str | None


@dataclass(frozen=True)
class Built:
    """A benchmark dataset folder and what it holds."""

    path: Path
    source: str
    seed: int
    chunks: int  # 128-word chunks, as ragsweep's default chunker at size 128 makes them
    documents: int
    source_documents: int
    distractors: int
    questions: int
    labels: int


def _digest(paths: Sequence[Path]) -> str:
    h = hashlib.sha256(f"format={FORMAT}\n".encode())
    for p in paths:
        h.update(p.name.encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _read_folder(name: str, folder: Path, digest: str) -> Source:
    corpus = sorted((folder / "corpus").glob("*.json"))
    relevance = folder / "relevance.md"
    return Source(
        name=name,
        digest=digest,
        meta=json.loads((folder / "dataset.json").read_text(encoding="utf-8")),
        wordings=[json.loads(p.read_text(encoding="utf-8")) for p in corpus],
        questions=_jsonl(folder / "questions.jsonl"),
        labels=_jsonl(folder / "labels.jsonl"),
        relevance=relevance.read_text(encoding="utf-8") if relevance.is_file() else None,
    )


def cranfield_source(cranfield: Path, cache: Path, env: dict[str, str] | None = None) -> Source:
    """Cranfield as ragsweep's importer writes it (imported once into `cache`; the importer
    runs as `python -m ragsweep.cli` with `env`, default this process's environment)."""
    paths = [cranfield / name for name in CRANFIELD_FILES]
    digest = _digest(paths)
    folder = cache / f"cranfield-import-{digest[:12]}"
    if not (folder / "dataset.json").is_file():
        cache.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".import-", dir=cache))
        argv = [
            sys.executable, "-m", "ragsweep.cli", "data", "import", "--format", "smart",
            "--docs", str(paths[0]), "--queries", str(paths[1]), "--qrels", str(paths[2]),
            "--qrels-format", "cranfield", "--slice-by", "best-code",
            "--name", "cranfield", "--out", str(staging / "cranfield"),
        ]  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            raise RuntimeError(
                f"`{' '.join(argv)}` failed (exit {done.returncode}):\n{done.stderr.strip()}"
            )
        os.replace(staging / "cranfield", folder)
        shutil.rmtree(staging, ignore_errors=True)
    return _read_folder("cranfield", folder, digest)


def sample_source() -> Source:
    """The built-in sample's wordings, questions, labels and relevance rule (its query log,
    review files and manifest are left out: a padded corpus is another snapshot)."""
    spec = importlib.util.find_spec("ragsweep.data.sample")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the built-in sample (ragsweep.data.sample) is not installed")
    folder = Path(list(spec.submodule_search_locations)[0])
    kept = [*sorted((folder / "corpus").glob("*.json"))]
    names = ("dataset.json", "questions.jsonl", "labels.jsonl", "relevance.md")
    kept += [folder / n for n in names if (folder / n).is_file()]
    return _read_folder("sample", folder, _digest(kept))


def load_source(
    which: str, cache: Path, cranfield: Path | None, env: dict[str, str] | None = None
) -> Source:
    """`cranfield`, `sample`, or `auto` (Cranfield when found, else the sample)."""
    if which not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {which!r}")
    if which != "sample":
        found = cranfield or find_cranfield()
        if found is not None:
            return cranfield_source(found, cache, env)
        if which == "cranfield":
            raise FileNotFoundError("the Cranfield collection was not found (see --cranfield)")
    return sample_source()


def sentences(wordings: Sequence[dict[str, Any]]) -> list[list[str]]:
    """Every clause text's sentences, as word lists, in wording and clause order."""
    out = []
    for wording in wordings:
        for part in wording["parts"]:
            for clause in part["clauses"]:
                for s in _SENTENCE_END.split(clause["text"]):
                    words = s.split()
                    if words:
                        out.append(words)
    return out


def _clause_words(wordings: Sequence[dict[str, Any]]) -> np.ndarray:
    return np.array(
        [len(c["text"].split()) for w in wordings for p in w["parts"] for c in p["clauses"]]
    )


def distractor(number: int, words: list[str]) -> dict[str, Any]:
    """A one-clause wording of `words`: the heading is its first words (as Cranfield's texts
    open with their title); product and form code null, version `1`."""
    doc = f"{DISTRACTOR_PREFIX}{number:07d}"
    return {
        "document": doc,
        "version": "1",
        "product": None,
        "form_code": None,
        "title": doc,
        "parts": [
            {
                "number": "1",
                "title": "Text",
                "kind": "other",
                "clauses": [
                    {
                        "section": "1",
                        "heading": " ".join(words[:HEADING_WORDS]),
                        "text": " ".join(words),
                    }
                ],
            }
        ],
    }


#: rendered tokens of a distractor besides its text: title (1), `1. Text` (2), `1 <heading>`
def _overhead(n_words: int) -> int:
    return 1 + 2 + 1 + min(n_words, HEADING_WORDS)


def distractors(source: Source, seed: int, n_chunks: int) -> Iterator[dict[str, Any]]:
    """Distractor wordings making exactly `n_chunks` chunks in all: each text is whole source
    sentences drawn at random (with replacement) until a length drawn from the source's clause
    lengths, the last document cut to the chunks still missing."""
    pool = sentences(source.wordings)
    lengths = _clause_words(source.wordings)
    if not pool:
        raise ValueError(f"the {source.name} source has no sentence to recombine")
    rng = np.random.default_rng(seed)
    made, number = 0, 0
    while made < n_chunks:
        number += 1
        target = max(int(rng.choice(lengths)), 8)
        words: list[str] = []
        while len(words) < target:
            words.extend(pool[int(rng.integers(len(pool)))])
        words = words[:target]
        n = chunk_count(_overhead(len(words)) + len(words))
        if made + n > n_chunks:
            room = max_tokens(n_chunks - made)
            words = words[: room - _overhead(len(words))]
            n = chunk_count(_overhead(len(words)) + len(words))
        made += n
        yield distractor(number, words)


def _keep_fitting(source: Source, n_chunks: int) -> tuple[list[dict[str, Any]], int]:
    """The source wordings in order, skipping any that would overshoot `n_chunks` in all."""
    kept, total = [], 0
    for wording in source.wordings:
        n = chunk_count(rendered_tokens(wording))
        if total + n <= n_chunks:
            kept.append(wording)
            total += n
    return kept, total


def _labelled(
    source: Source, wordings: Sequence[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The questions still answerable in `wordings` (a relevant label on a kept clause and their
    product and version still present) and their labels on kept clauses."""
    clauses = {
        (w["document"], c["section"], w["version"])
        for w in wordings
        for p in w["parts"]
        for c in p["clauses"]
    }
    products = {(w["product"], w["version"]) for w in wordings}
    labels = [
        lab for lab in source.labels if (lab["document"], lab["section"], lab["version"]) in clauses
    ]
    relevant = {lab["qid"] for lab in labels if lab["grade"] >= 1}

    def present(q: dict[str, Any]) -> bool:
        if q["product"] is None:
            return q["version"] is None or any(v == q["version"] for _, v in products)
        return any(p == q["product"] and q["version"] in (None, v) for p, v in products)

    questions = [q for q in source.questions if q["qid"] in relevant and present(q)]
    kept = {q["qid"] for q in questions}
    return questions, [lab for lab in labels if lab["qid"] in kept]


def _dump(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def _write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    path.write_text(text, encoding="utf-8")


def key(source: Source, n_chunks: int, seed: int) -> str:
    """The cache folder name: source, chunks, seed, and the source files' and format's digest."""
    return f"{source.name}-{n_chunks}-seed{seed}-{source.digest[:12]}"


def build(
    n_chunks: int,
    seed: int = 0,
    cache: Path = DEFAULT_CACHE,
    source: str = "auto",
    cranfield: Path | None = None,
    env: dict[str, str] | None = None,
) -> Built:
    """The dataset folder of `n_chunks` 128-word chunks (built, or found in `cache`)."""
    if isinstance(n_chunks, bool) or not isinstance(n_chunks, int) or n_chunks < 1:
        raise ValueError(f"chunks must be a whole number >= 1, got {n_chunks!r}")
    src = load_source(source, cache, cranfield, env)
    folder = cache / key(src, n_chunks, seed)
    info = folder / "dataset.json"
    if info.is_file():
        return Built(
            path=folder, **json.loads(info.read_text(encoding="utf-8"))["notes"]["benchmark"]
        )
    kept, made = _keep_fitting(src, n_chunks)
    questions, labels = _labelled(src, kept)
    if not questions:
        raise ValueError(f"{n_chunks} chunks hold no labelled question of the {src.name} source")
    used = {q["slice"] for q in questions}
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=cache))
    try:
        (staging / "corpus").mkdir()
        for w in kept:
            _dump(staging / "corpus" / f"{w['document']}@{w['version']}.json", w)
        n_distractors = 0
        for w in distractors(src, seed, n_chunks - made):
            _dump(staging / "corpus" / f"{w['document']}@{w['version']}.json", w)
            n_distractors += 1
        built = Built(
            path=folder,
            source=src.name,
            seed=seed,
            chunks=n_chunks,
            documents=len(kept) + n_distractors,
            source_documents=len(kept),
            distractors=n_distractors,
            questions=len(questions),
            labels=len(labels),
        )
        record = {k: v for k, v in asdict(built).items() if k != "path"}
        meta = {
            "schema_version": 1,
            "name": folder.name,
            "description": (
                f"The {src.name} collection's first {len(kept)} documents and {len(questions)} "
                f"questions still labelled in them, padded with {n_distractors} distractor "
                f"documents of its own sentences recombined (seed {seed}) to {n_chunks} chunks "
                f"of {CHUNK_SIZE} words overlapping by {CHUNK_OVERLAP}: benchmarks/corpus.py."
            ),
            "slices": [s for s in src.meta["slices"] if s in used],
            "generator": {"name": "benchmarks/corpus.py", "version": str(FORMAT), "seed": seed},
            "notes": {"benchmark": record, "source_digest": src.digest},
        }
        (staging / "dataset.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        _write_jsonl(staging / "questions.jsonl", questions)
        _write_jsonl(staging / "labels.jsonl", labels)
        if src.relevance is not None:
            (staging / "relevance.md").write_text(src.relevance, encoding="utf-8")
        os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return built


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, required=True, help="128-word chunks to reach")
    parser.add_argument("--seed", type=int, default=0, help="the distractors' random stream")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="built corpora here")
    parser.add_argument("--source", choices=SOURCES, default="auto")
    parser.add_argument("--cranfield", type=Path, default=None, help="folder of cran.all.1400")
    args = parser.parse_args(argv)
    built = build(args.chunks, args.seed, args.cache, args.source, args.cranfield)
    print(json.dumps({**asdict(built), "path": str(built.path)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
