"""Cost beside quality: every configuration logs what it costs to build and to query, and how
many words its top `eval.k_prompt` passages put in the generator's prompt.

The prompt words are checked against an independent count: the chunk ids of each question's
ranking (results/per_question.csv) and the chunk texts rebuilt from the corpus files by the
documented rules (docs/schema.md's rendered text; fixed windows of `size` words starting every
`size - overlap` words, or one chunk per clause)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from conftest import CHUNK_SWEEP, cli_in
from toy import TINY, TOY


def rendered_tokens(doc: dict) -> tuple[list[str], list[list[str]]]:
    """The whitespace tokens of a wording's rendered text, and of each clause's span
    (`<section> <heading>` line and text), in document order (docs/schema.md)."""
    tokens = doc["title"].split()
    clauses = []
    for part in doc["parts"]:
        tokens += f"{part['number']}. {part['title']}".split()
        for clause in part["clauses"]:
            words = f"{clause['section']} {clause['heading']}\n{clause['text']}".split()
            clauses.append(words)
            tokens += words
    return tokens, clauses


def chunk_words(corpus: Path, chunker: str, size: int | None, overlap: int) -> dict[str, int]:
    """Chunk id (`<doc>#<n>`) -> words in that chunk, for every wording of `corpus`."""
    out = {}
    for path in sorted(corpus.glob("*.json")):
        doc_id = path.stem
        tokens, clauses = rendered_tokens(json.loads(path.read_text()))
        if chunker == "section":
            assert size is None  # one chunk per clause, whatever its length
            sizes = [len(c) for c in clauses]
        else:
            step, n, sizes = size - overlap, len(tokens), []
            first = 0
            while True:
                sizes.append(min(size, n - first))
                if first + size >= n:
                    break
                first += step
        out.update({f"{doc_id}#{i}": words for i, words in enumerate(sizes)})
    return out


def expected_prompt_words(per_question: pd.DataFrame, words: dict[str, int], k: int) -> float:
    per_q = [sum(words[c] for c in json.loads(r)[:k]) for r in per_question["ranked"]]
    assert len(per_q) == len(per_question) and all(per_q)
    return sum(per_q) / len(per_q)


@pytest.fixture(scope="module")
def chunk_sweep(swept):
    return swept(*CHUNK_SWEEP).ok()


@pytest.mark.slow
def test_every_configuration_logs_its_costs(chunk_sweep):
    by_value = chunk_sweep.store.by_value("sweep:chunker.size")
    assert sorted(by_value, key=int) == ["16", "32", "64", "128"]
    for value, run in by_value.items():
        m = run.data.metrics
        assert math.isfinite(m["cost/index_build_seconds"]), value
        assert m["cost/index_build_seconds"] >= 0, value
        assert m["cost/index_size_bytes"] > 0, value
        assert 0 < m["cost/latency_p50_ms"] <= m["cost/latency_p95_ms"], value
    # smaller chunks mean more of them to index: a bigger index
    sizes = [by_value[v].data.metrics["cost/index_size_bytes"] for v in ("16", "32", "64", "128")]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1], sizes


@pytest.mark.slow
def test_prompt_words_are_the_words_of_the_top_passages_of_each_question(chunk_sweep, tmp_path):
    for value, run in chunk_sweep.store.by_value("sweep:chunker.size").items():
        params = run.data.params
        k = int(params["eval.k_prompt"])
        assert k == 1
        words = chunk_words(
            TINY / "corpus", "fixed", int(params["chunker.size"]), int(params["chunker.overlap"])
        )
        table = chunk_sweep.store.per_question(run.info.run_id, tmp_path / value)
        expected = expected_prompt_words(table, words, k)
        assert run.data.metrics["cost/prompt_words_mean"] == pytest.approx(expected), value


@pytest.mark.slow
def test_bigger_chunks_cost_the_generator_more_words(chunk_sweep):
    by_value = chunk_sweep.store.by_value("sweep:chunker.size")
    words = [by_value[v].data.metrics["cost/prompt_words_mean"] for v in ("16", "32", "64", "128")]
    assert all(a < b for a, b in zip(words, words[1:], strict=False)), words


@pytest.mark.parametrize(
    ("overrides", "chunker", "size", "overlap"),
    [
        (["chunker.size=24", "chunker.overlap=4", "eval.k_prompt=5"], "fixed", 24, 4),
        (["chunker=section", "eval.k_prompt=3", "retriever.filter=false"], "section", None, 0),
    ],
)
def test_prompt_words_of_one_run_sum_its_top_k_prompt_passages(
    workdir, store, overrides, chunker, size, overlap
):
    cli_in(workdir, *TOY, *overrides).ok()
    run = store.only_run()
    k = int(run.data.params["eval.k_prompt"])
    table = store.per_question(run.info.run_id, workdir / "dl")
    words = chunk_words(TINY / "corpus", chunker, size, overlap)
    assert all(len(json.loads(r)) >= k for r in table["ranked"])  # k passages to count
    expected = expected_prompt_words(table, words, k)
    assert run.data.metrics["cost/prompt_words_mean"] == pytest.approx(expected)
