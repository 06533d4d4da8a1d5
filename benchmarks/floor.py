"""The floor: one ragsweep configuration's job written by hand with the libraries it builds on.

    python benchmarks/floor.py DATASET_DIR [--json FILE] [--size 128] [--overlap 16] ...

What `ragsweep data=folder data.path=DIR retriever.filter=false` computes with its default
pipeline, done the most direct way with json, numpy, bm25s + PyStemmer, scikit-learn and
pytrec_eval:

- read the dataset folder (docs/schema.md) with `json`;
- render each wording and cut it into windows of `--size` words every `size - overlap` words
  (ragsweep's fixed chunker);
- BM25 with bm25s (stemmer english, stopwords en, k1 1.5, b 0.75, Lucene variant), top
  `--depth`;
- LSA as ragsweep fits it: TfidfVectorizer with sublinear tf, randomized TruncatedSVD(`--dim`)
  with the same seed and default iterations on `--svd-threads` BLAS threads (1, as ragsweep
  does: on 2 busy cores the SVD of 30,000 chunks took 12-15 s on one thread, 28-31 s on two),
  rows L2-normalised; searched by a float32 matmul and `argpartition`, top `--depth`;
- reciprocal rank fusion (`--k`) in numpy, top `--depth`;
- recall@5 and recall@10 of the dev questions (`ragsweep.data.split`'s rule: a question is held
  out when sha256(salt:qid), read as a fraction, is below `--heldout`) by pytrec_eval. A chunk
  credits the clauses it covers (sharing at least half of the shorter of the two, counted in
  words; ragsweep counts characters, which is the same for one-clause documents such as
  Cranfield's), so recall@k is the share of a question's relevant clauses covered by its top k
  chunks: pytrec_eval's `recall_1000` of the clauses the top k chunks cover, for each k.

No cache, no configuration, no logging, no checks, no tie rule: this is what ragsweep's
end-to-end time and memory are compared with (benchmarks/e2e.py). Other threads are what the
environment sets (OMP/OPENBLAS/MKL_NUM_THREADS); ragsweep's runs get the same settings.
Prints (or writes with --json) the recall, the counts and the seconds of each stage.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

CUTOFFS = (5, 10)


class Stages:
    """Wall seconds per named stage, in the order they ran."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        yield
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start


def read(root: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Wordings (file-name order), questions and labels of a dataset folder, as dicts."""
    wordings = [json.loads(p.read_bytes()) for p in sorted((root / "corpus").glob("*.json"))]

    def lines(name: str) -> list[dict[str, Any]]:
        return [json.loads(line) for line in (root / name).read_bytes().splitlines() if line]

    return wordings, lines("questions.jsonl"), lines("labels.jsonl")


def chunk(
    wordings: list[dict[str, Any]], size: int, overlap: int
) -> tuple[list[str], list[list[str]]]:
    """Window texts over each rendered wording, and the clause ids each window covers."""
    texts: list[str] = []
    covers: list[list[str]] = []
    step = size - overlap
    for w in wordings:
        words = w["title"].split()
        spans = []  # (first word, end word, clause id)
        for part in w["parts"]:
            words += f"{part['number']}. {part['title']}".split()
            for c in part["clauses"]:
                start = len(words)
                words += f"{c['section']} {c['heading']}".split()
                words += c["text"].split()
                spans.append((start, len(words), f"{w['document']}/{c['section']}@{w['version']}"))
        first = 0
        while words:
            end = min(first + size, len(words))
            texts.append(" ".join(words[first:end]))
            covers.append(
                [
                    cid
                    for a, b, cid in spans
                    if min(end, b) - max(first, a) >= 0.5 * max(min(end - first, b - a), 1)
                ]
            )
            if end == len(words):
                break
            first += step
    return texts, covers


def is_heldout(salt: str, qid: str, heldout: float) -> bool:
    digest = hashlib.sha256(f"{salt}:{qid}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64 < heldout


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of each row's `k` highest scores, highest first."""
    k = min(k, scores.shape[1])
    part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(scores, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


def rrf(lists: list[list[np.ndarray]], k: float, depth: int) -> list[np.ndarray]:
    """Per query, the ids of the `depth` best summed 1 / (k + rank) over the lists."""
    n_q = len(lists[0])
    q_parts, id_parts, w_parts = [], [], []
    for per_query in lists:
        for q, ids in enumerate(per_query):
            q_parts.append(np.full(len(ids), q, dtype=np.int64))
            id_parts.append(ids.astype(np.int64))
            w_parts.append(1.0 / (k + np.arange(1, len(ids) + 1)))
    q_all, ids_all = np.concatenate(q_parts), np.concatenate(id_parts)
    width = int(ids_all.max()) + 1
    keys, inverse = np.unique(q_all * width + ids_all, return_inverse=True)
    fused = np.bincount(inverse, weights=np.concatenate(w_parts))
    q_of, id_of = keys // width, keys % width
    order = np.lexsort((-fused, q_of))
    bounds = np.searchsorted(q_of[order], np.arange(n_q + 1))
    return [id_of[order[bounds[q] : bounds[q + 1]]][:depth] for q in range(n_q)]


def recall(
    qrels: dict[str, dict[str, int]], covered: dict[str, set[str]]
) -> tuple[dict[str, float], str]:
    """Mean over the questions of qrels of the share of relevant clauses in `covered`: by
    pytrec_eval's recall_1000 when installed (else the same count in Python)."""
    run = {q: {cid: 1.0 for cid in covered.get(q, ())} for q in qrels}
    try:
        import pytrec_eval
    except ImportError:
        per = {
            q: len({c for c, g in labels.items() if g >= 1} & covered.get(q, set()))
            / max(1, sum(g >= 1 for g in labels.values()))
            for q, labels in qrels.items()
        }
        return per, "python"
    run = {q: docs or {"-": 0.0} for q, docs in run.items()}  # an empty run is left unscored
    got = pytrec_eval.RelevanceEvaluator(qrels, {"recall"}).evaluate(run)
    return {q: got.get(q, {}).get("recall_1000", 0.0) for q in qrels}, "pytrec_eval"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--json", type=Path, default=None, help="write the result here")
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--overlap", type=int, default=16)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--k", type=float, default=60.0)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--salt", default="ragsweep-v1")
    parser.add_argument("--heldout", type=float, default=0.25)
    parser.add_argument("--svd-threads", type=int, default=1, help="BLAS threads of the SVD")
    args = parser.parse_args(argv)
    stage = Stages()

    with stage("load"):
        wordings, questions, labels = read(args.dataset)
    with stage("chunk"):
        texts, covers = chunk(wordings, args.size, args.overlap)

    import bm25s
    import Stemmer
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from threadpoolctl import threadpool_limits

    stemmer = Stemmer.Stemmer("english")
    with stage("bm25_index"):
        bm25 = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        bm25.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                   show_progress=False)  # fmt: skip
    with stage("dense_index"):
        tfidf = TfidfVectorizer(sublinear_tf=True, dtype=np.float64)
        x = tfidf.fit_transform(texts)
        dim = min(args.dim, x.shape[0], x.shape[1])
        svd = TruncatedSVD(n_components=dim, algorithm="randomized", random_state=args.seed)
        with threadpool_limits(limits=args.svd_threads):
            vectors = svd.fit_transform(x)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-300)
        vectors = vectors.astype(np.float32)

    dev = [q for q in questions if not is_heldout(args.salt, q["qid"], args.heldout)]
    asked = [q["text"] for q in dev]
    depth = min(args.depth, len(texts))
    with stage("bm25_search"):
        tokens = bm25s.tokenize(asked, stopwords="en", stemmer=stemmer, show_progress=False)
        ids, scores = bm25.retrieve(tokens, k=depth, show_progress=False)
        sparse = [row_ids[row > 0] for row_ids, row in zip(ids, scores, strict=True)]
    with stage("dense_search"):
        with threadpool_limits(limits=args.svd_threads):
            z = svd.transform(tfidf.transform(asked))
        z /= np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-300)
        dense = list(top_k(z.astype(np.float32) @ vectors.T, depth))
    with stage("fusion"):
        fused = rrf([sparse, dense], args.k, depth)
    with stage("score"):
        wanted = {q["qid"] for q in dev}
        qrels: dict[str, dict[str, int]] = {q: {} for q in wanted}
        for lab in labels:
            if lab["qid"] in wanted:
                cid = f"{lab['document']}/{lab['section']}@{lab['version']}"
                qrels[lab["qid"]][cid] = int(lab["grade"])
        result: dict[str, float] = {}
        for cut in CUTOFFS:
            covered = {
                q["qid"]: {cid for i in row[:cut] for cid in covers[int(i)]}
                for q, row in zip(dev, fused, strict=True)
            }
            per, evaluator = recall(qrels, covered)
            result[f"recall@{cut}"] = float(np.mean([per[q["qid"]] for q in dev]))

    record = {
        **result,
        "evaluator": evaluator,
        "chunks": len(texts),
        "documents": len(wordings),
        "questions": len(dev),
        "seconds": stage.seconds,
    }
    text = json.dumps(record, indent=2)
    if args.json is not None:
        args.json.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
