"""Near-duplicate detection measured: precision and recall of pair decisions, and the time.

    python benchmarks/dedup.py [--seed 0] [--json FILE]

Labelled pairs come from two places:

- **the built-in sample's query log** (`ragsweep.data.samplegen.querylog.build_query_log`):
  its generator records which ask (`Truth.candidate`) each in-scope entry words. The entries
  are scrubbed (`ragsweep.labelling.scrub.scrub`), exact duplicates (same `normalise`d text)
  merged, and every pair of the distinct texts left is labelled "same question" when both word
  the same ask (its templates and values; not its product, version or target clause: one
  wording asked of two products, e.g. "how do I complain", is one text). Recall against that
  truth is a floor: it counts paraphrases (another template, another lay name of the product)
  that no surface method should merge.
  Precision is what matters most: a merged pair of different asks loses a question.
- **hard pairs written by hand** (`HARD_PAIRS`): the forms an unseen log showed (PII lead-ins
  left by the scrubber, merged and split words, typos of short words) and pairs that must stay
  apart (storm vs flood damage, END-HM-12 vs END-HM-14, 2024 vs 2025, a question and the same
  question with "abroad").

Methods: `ragsweep.labelling.dedup` as it stands (candidates by token_sort_ratio, decided
word by word by `same_question`, on `dedup_key.near_key`), the same before a change (`--old
FILE`: one module holding `near_key`, `_candidates`, `same_question`, `near_duplicates` and
`matches_any`, e.g. a copy of `labelling/sampling.py` from before issue 30 split it), character
n-gram TF-IDF cosine (scikit-learn, `char_wb` 2-4 grams, one threshold) and rapidfuzz's ratio
on the key with its spaces removed. Timing: `near_duplicates` on the distinct texts of a
10,000-line log (this log and the start of the next seed's), one thread.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process

from ragsweep.data.samplegen import querylog
from ragsweep.data.samplegen.querylog import build_query_log
from ragsweep.data.samplegen.wordings import build_corpus
from ragsweep.labelling import dedup as near
from ragsweep.labelling import dedup_key, sampling
from ragsweep.labelling.logreader import LogEntry
from ragsweep.labelling.scrub import Scrubber, scrub

#: today's near-duplicate detection, as the one module `--old` gives for the old one
NOW = SimpleNamespace(
    near_key=dedup_key.near_key,
    _candidates=near._candidates,
    same_question=near.same_question,
    near_duplicates=near.near_duplicates,
    matches_any=near.matches_any,
)

#: (a, b, same question?) written by hand: the forms an unseen log showed, and their opposites
HARD_PAIRS: tuple[tuple[str, str, bool], ...] = (
    ("dob <DOB> is storm damage covered", "is storm damage covered", True),
    ("is storm damage covered, reg <VEHICLE_REG>", "is storm damage covered?", True),
    ("pol no <POLICY_REF> - what is the excess for theft", "what is the excess for theft", True),
    ("what is the excess for theft signed <NAME>", "what is the excess for theft", True),
    ("my nhs number is <NHS_NUMBER>, am I covered for physio", "am i covered for physio", True),
    ("acc <BANK_ACCOUNT> when do you take the payment", "when do you take the payment", True),
    ("D.O.B. <DOB>. Is a young driver covered", "is a youngdriver covered", True),
    ("is a youngdriver covered on my policy", "is a young driver covered on my policy", True),
    ("is weara nd tear covered", "is wear and tear covered", True),
    ("what is teh excess fo storm damage", "what is the excess for storm damage", True),
    ("whats teh limit for jewellery", "whats the limit for jewellery", True),
    ("how do i make a claim, call me on <PHONE>", "how do i make a claim", True),
    ("my email is <EMAIL> how do i cancel", "how do i cancel", True),
    ("is my car <VEHICLE_REG> covered abroad", "is my car covered abroad", True),
    ("Kind regards Mr <NAME>, what does END-HM-12 change", "what does END-HM-12 change", True),
    ("how much is the excess for storm damage", "how much is the excess for flood damage", False),
    ("what does END-HM-12 change", "what does END-HM-14 change", False),
    ("what does EXC-HM-12 exclude", "what does EXC-TR-12 exclude", False),
    ("is END-MT-05 an extra or a rwstriction", "is END-TR-05 an extra or a restriction", False),
    (
        "do i need 2 call the police b4 claiming",
        "do i need to call the police before claiming",
        True,
    ),
    ("is my bike covered in france", "is my bike covered on france", False),
    ("what changed in the 2024 wording", "what changed in the 2025 wording", False),
    ("is my bike covered", "is my bike covered abroad", False),
    ("is my bike covered abroad", "is my bike covered at home", False),
    ("what is the limit for jewellery", "what is the limit for cash", False),
    ("can i cancel my policy", "can i cancel my trip", False),
    ("is my phone covered", "is my home covered", False),
    ("what does clause 4.2 say", "what does clause 4.3 say", False),
    # contact wording inside the question, and what must not pass for it (the PII test log)
    (
        "what does END-HM-07 change on, i uploaded them, my claim <CLAIM_REF>, to <URL> myhome"
        " policy?",
        "what does END-HM-07 change on my home policy",
        True,
    ),
    ("is scuba - mob <PHONE> - diving covered", "is scuba diving covered", True),
    (
        "hiya what does valuables mean in my policy?, d.o.b. <DOB>",
        "what does valuables mean in my policy",
        True,
    ),
    (
        "my tiktok is <URL> is thee a limit on medical expenses in the usa",
        "is there a limit on medical expenses in the usa",
        True,
    ),
    ("explain clause 3.2.1 please?", "rxplain clause 3.2.1 pllease", True),
    ("what happens to my claim <CLAIM_REF>", "what happens to my policy <POLICY_REF>", False),
    ("is my car <VEHICLE_REG> covered abroad", "is my van <VEHICLE_REG> covered abroad", False),
)

Decide = Callable[[Sequence[str]], set[tuple[int, int]]]


def load_old(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("old_sampling", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_sampling"] = module
    spec.loader.exec_module(module)
    return module


def _keys(module: Any, texts: Sequence[str]) -> list[str]:
    """The keys `module` compares (marked where its `near_key` marks them)."""
    if "mark" in module.near_key.__code__.co_varnames:
        return [module.near_key(t, mark=True) for t in texts]
    return [module.near_key(t) for t in texts]


def word_check(module: Any) -> Decide:
    """Pairs `module`'s candidates propose and its `same_question` accepts, each pair decided
    on its own."""

    def decide(texts: Sequence[str]) -> set[tuple[int, int]]:
        keys = _keys(module, texts)
        cand = module._candidates(keys, keys)
        return {
            (int(i), int(j))
            for i, j in zip(*np.nonzero(cand), strict=True)
            if i < j and module.same_question(keys[i], keys[j])
        }

    return decide


def clusters(module: Any) -> Decide:
    """Every pair within one cluster of `module.near_duplicates`: what `labels sample` merges
    (pairs joined through a third text included)."""

    def decide(texts: Sequence[str]) -> set[tuple[int, int]]:
        dup = module.near_duplicates(_keys(module, texts))
        groups: dict[int, list[int]] = {}
        for i, d in enumerate(dup):
            groups.setdefault(i if d is None else d, []).append(i)
        return {(i, j) for g in groups.values() for a, i in enumerate(g) for j in g[a + 1 :]}

    return decide


def char_ngrams(threshold: float) -> Decide:
    from sklearn.feature_extraction.text import TfidfVectorizer

    def decide(texts: Sequence[str]) -> set[tuple[int, int]]:
        keys = [dedup_key.near_key(t) for t in texts]
        m = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4)).fit_transform(keys)
        sim = (m @ m.T).tocoo()
        return {
            (int(i), int(j))
            for i, j, v in zip(sim.row, sim.col, sim.data, strict=True)
            if i < j and v >= threshold
        }

    return decide


def embeddings(threshold: float) -> Decide:
    """Cosine of all-MiniLM-L6-v2 embeddings of the keys (the `[minilm]` extra)."""
    from ragsweep.retrieval.dense import load_minilm, st_encode

    model = load_minilm(None)

    def decide(texts: Sequence[str]) -> set[tuple[int, int]]:
        emb = st_encode(model, [dedup_key.near_key(t) for t in texts], 64)
        sim = emb @ emb.T
        return {
            (int(i), int(j)) for i, j in zip(*np.nonzero(sim >= threshold), strict=True) if i < j
        }

    return decide


def joined_ratio(threshold: int) -> Decide:
    def decide(texts: Sequence[str]) -> set[tuple[int, int]]:
        keys = [dedup_key.near_key(t).replace(" ", "") for t in texts]
        scores = process.cdist(keys, keys, scorer=fuzz.ratio, score_cutoff=threshold, workers=1)
        return {(int(i), int(j)) for i, j in zip(*np.nonzero(scores), strict=True) if i < j}

    return decide


def log_pairs(seed: int) -> tuple[list[str], set[tuple[int, int]], set[tuple[int, int]]]:
    """Distinct scrubbed in-scope texts of the sample's log, the pairs asking one ask, and the
    pairs typing one wording (the text `render` produced: a repeat or near-duplicate of an
    earlier question, typos or reordered words, types that question's wording; only the
    generator knows it, so its private steps are traced while it runs)."""
    by_text: dict[str, str] = {}  # a log text -> its wording
    by_plain: dict[str, str] = {}  # an ask's text -> its wording
    state: dict[str, str] = {}
    names = ("render", "add_typos", "_reorder", "_Row")
    originals = {n: getattr(querylog, n) for n in names}

    def render(cand: Any, rng: Any, p: float) -> str:
        state["rendered"] = originals["render"](cand, rng, p)
        return state["rendered"]

    def typos(parts: Any, rng: Any) -> Any:
        state["source"] = "".join(c for c, _ in parts)
        return originals["add_typos"](parts, rng)

    def reorder(text: str, rng: Any) -> str:
        out = originals["_reorder"](text, rng)
        state["source"] = text
        return out

    def row(*args: Any) -> Any:
        r = originals["_Row"](*args)
        if r.kind == "ask":
            by_plain.setdefault(r.text, state["rendered"])
            by_text.setdefault(r.text, state["rendered"])
        elif r.kind == "repeat":
            by_text.setdefault(r.text, by_plain[r.text])
        elif r.kind == "near":
            by_text.setdefault(r.text, by_plain[state["source"]])
        return r

    for name, traced in zip(names, (render, typos, reorder, row), strict=True):
        setattr(querylog, name, traced)
    try:
        log = querylog.build_query_log(build_corpus(seed), seed)
    finally:
        for name, value in originals.items():
            setattr(querylog, name, value)
    first: dict[str, str] = {}  # normalised text -> its first scrubbed text
    ask_of: dict[str, tuple] = {}
    wording_of: dict[str, str] = {}
    for entry, truth in zip(log.entries, log.truth, strict=True):
        c = truth.candidate
        if c is None:
            continue
        scrubbed = scrub(entry["text"]).text
        key = dedup_key.normalise(scrubbed)
        if key not in first:
            first[key] = scrubbed
            ask_of[scrubbed] = (c.templates, tuple(sorted(c.values.items())))
            wording_of[scrubbed] = by_text.get(entry["text"], entry["text"])
    texts = sorted(ask_of)
    return texts, _pairs(texts, ask_of), _pairs(texts, wording_of)


def _pairs(texts: Sequence[str], label: Mapping[str, Any]) -> set[tuple[int, int]]:
    groups: dict[Any, list[int]] = {}
    for i, t in enumerate(texts):
        groups.setdefault(label[t], []).append(i)
    return {(i, j) for g in groups.values() for a, i in enumerate(g) for j in g[a + 1 :]}


def score(
    found: set[tuple[int, int]], ask: set[tuple[int, int]], wording: set[tuple[int, int]]
) -> dict[str, float]:
    """Precision against one ask (a merged pair of two asks loses a question), recall against
    one wording (what a surface method can find) and against one ask (a floor: paraphrases)."""
    return {
        "pairs": len(found),
        "precision": len(found & ask) / len(found) if found else float("nan"),
        "recall_wording": len(found & wording) / len(wording) if wording else float("nan"),
        "recall_ask": len(found & ask) / len(ask) if ask else float("nan"),
        "false_merges": len(found - ask),
    }


def hard_score(decide: Decide) -> dict[str, int]:
    right = 0
    for a, b, same in HARD_PAIRS:
        right += ((0, 1) in decide([a, b])) == same
    return {"hard_right": right, "hard_total": len(HARD_PAIRS)}


def pii_log_draw(module: Any, seed: int) -> dict[str, int]:
    """`labels sample`'s draw (80 per slice) on the PII test log (`pii_log.py`, scrubbed), with
    `module`'s near-duplicate keys and clusters: how many questions were drawn, how many
    distinct questions they are (the log's own `question` ids), and how many clusters hold two
    questions."""
    import datetime as dt

    import pii_log

    rows = pii_log.build(seed)
    texts = [s.text for s in Scrubber().scrub_many([r["text"] for r in rows])]
    log = [
        LogEntry(n, text, dt.datetime.fromisoformat(r["ts"]), None)
        for n, (r, text) in enumerate(zip(rows, texts, strict=True), 1)
    ]
    saved = sampling.near_key, sampling.near_duplicates, sampling.matches_any
    keyed = {t: k for t, k in zip(texts, _keys(module, texts), strict=True)}
    sampling.near_key = lambda t, mark=False: keyed[t]  # type: ignore[assignment]
    sampling.near_duplicates, sampling.matches_any = module.near_duplicates, module.matches_any
    try:
        result = sampling.draw_sample(log, lambda t: t, target=80, seed=seed)
    finally:
        sampling.near_key, sampling.near_duplicates, sampling.matches_any = saved
    question = {n: r["question"] for n, r in enumerate(rows, 1)}
    return {
        "entries": len(rows),
        "questions": len(set(question.values())),
        "kept": result.entries_in - result.exact_duplicates - result.near_duplicates,
        "drawn": len(result.rows),
        "distinct_drawn": len({question[q.line] for q in result.rows}),
        "mixed_clusters": sum(
            bool({question[a.line] for a in c.absorbed} - {question[c.line]})
            for c in result.clusters
        ),
    }


def timing(seed: int) -> dict[str, float]:
    """Seconds of `near_key` + `near_duplicates` over the distinct texts of 10,000 lines."""
    entries = build_query_log(build_corpus(seed), seed).entries
    entries += build_query_log(build_corpus(seed + 1), seed + 1).entries
    texts = [scrub(e["text"]).text for e in entries[:10_000]]
    distinct = list(dict.fromkeys(dedup_key.normalise(t) for t in texts))
    start = time.perf_counter()
    keys = [dedup_key.near_key(t, mark=True) for t in distinct]
    dup = near.near_duplicates(keys)
    return {
        "lines": len(texts),
        "distinct": len(distinct),
        "near_removed": sum(d is not None for d in dup),
        "seconds": round(time.perf_counter() - start, 2),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--old", type=Path, help="the dedup code before a change (one module)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--embeddings", action="store_true", help="also all-MiniLM-L6-v2 cosine")
    args = ap.parse_args(argv)
    methods: dict[str, Decide] = {}
    if args.old:
        old = load_old(args.old)
        methods["before: pairs"] = word_check(old)
        methods["before: clusters"] = clusters(old)
    methods["pairs: candidates + same_question"] = word_check(NOW)
    methods["clusters: near_duplicates (what labels sample merges)"] = clusters(NOW)
    for t in (0.8, 0.9):
        methods[f"char 2-4 gram tf-idf cosine>={t}"] = char_ngrams(t)
    for t in (90, 95):
        methods[f"ratio on joined words>={t}"] = joined_ratio(t)
    if args.embeddings:
        for c in (0.9, 0.95):
            methods[f"all-MiniLM-L6-v2 cosine>={c}"] = embeddings(c)
    texts, ask, wording = log_pairs(args.seed)
    print(
        f"{len(texts)} distinct in-scope texts, {len(wording)} same-wording pairs, "
        f"{len(ask)} same-ask pairs"
    )
    print(
        "| method | precision | recall (wording) | recall (ask) | false merges | hard pairs | s |"
    )
    rows = {}
    for name, decide in methods.items():
        start = time.perf_counter()
        found = decide(texts)
        seconds = time.perf_counter() - start
        rows[name] = {
            **score(found, ask, wording),
            **hard_score(decide),
            "seconds": round(seconds, 2),
        }
        r = rows[name]
        print(
            f"| {name} | {r['precision']:.3f} | {r['recall_wording']:.3f} | "
            f"{r['recall_ask']:.3f} | {r['false_merges']} | "
            f"{r['hard_right']}/{r['hard_total']} | {r['seconds']} |",
            flush=True,
        )
    sys.path.insert(0, str(Path(__file__).parent))
    pii = {"now": pii_log_draw(NOW, args.seed)}
    if args.old:
        pii["before"] = pii_log_draw(load_old(args.old), args.seed)
    for name, d in pii.items():
        print(f"PII test log, {name}: {d}")
    t = timing(args.seed)
    print(f"timing: {t}")
    if args.json:
        args.json.write_text(json.dumps({"methods": rows, "pii_log": pii, "timing": t}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
