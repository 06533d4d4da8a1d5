"""Cutting the corpus into chunks, tokenizing them for BM25 and counting their terms for LSA
make many objects and no cycle: the cyclic garbage collector waits meanwhile
(`data.gc_pause.cyclic_gc_paused`), and its state is back as it was afterwards, error or not."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from ragsweep.chunking.chunkers import FixedTokenChunker, chunk_corpus
from ragsweep.data import load_dataset
from ragsweep.retrieval import bm25 as bm25_module
from ragsweep.retrieval.bm25 import BM25Retriever
from ragsweep.retrieval.dense import LSAEmbedder
from toy import TINY


class Watching(FixedTokenChunker):
    """The fixed chunker, noting whether the collector ran while it cut."""

    seen: list[bool] = []

    def chunk_many(self, documents: Any) -> list[Any]:
        Watching.seen.append(gc.isenabled())
        return super().chunk_many(documents)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_waits_while_chunks_are_cut_and_tokenized(enabled, monkeypatch):
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        Watching.seen = []
        chunks = chunk_corpus(load_dataset(TINY).documents, Watching(size=32, overlap=8))
        assert Watching.seen == [False] and gc.isenabled() is enabled
        texts = [c.text for c in chunks]
        real = bm25_module.Tokenizer.token_ids
        during: list[bool] = []

        def token_ids(self: Any, texts: Any) -> Any:
            during.append(gc.isenabled())
            return real(self, texts)

        from sklearn.feature_extraction.text import CountVectorizer

        real_count = CountVectorizer.fit_transform

        def fit_transform(self: Any, *args: Any, **kwargs: Any) -> Any:
            during.append(gc.isenabled())
            return real_count(self, *args, **kwargs)

        monkeypatch.setattr(bm25_module.Tokenizer, "token_ids", token_ids)
        monkeypatch.setattr(CountVectorizer, "fit_transform", fit_transform)
        BM25Retriever().index(texts)
        LSAEmbedder(dim=4).fit(texts)
        assert during == [False, False] and gc.isenabled() is enabled
        with pytest.raises(Exception):  # noqa: B017 - any error: the state comes back
            LSAEmbedder(dim=4).fit(["a"])
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
