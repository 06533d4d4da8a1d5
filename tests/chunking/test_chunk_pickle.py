"""A chunk pickles as a call with its fields (what the stage cache writes and reads for every
chunk): it reads back equal, still frozen, with no state dictionary set after the call."""

from __future__ import annotations

import dataclasses
import pickle
import pickletools

import pytest

from ragsweep.chunking.chunkers import Chunk, FixedTokenChunker, chunk_corpus
from ragsweep.data import load_dataset
from toy import TINY


def test_chunks_read_back_equal_and_frozen_from_a_call_with_their_fields() -> None:
    chunks = chunk_corpus(load_dataset(TINY).documents, FixedTokenChunker(size=32, overlap=8))
    unnamed = Chunk("d#0", "d", "Doc", "v1", None, 0, 4, "text")  # no product
    data = pickle.dumps([*chunks, unnamed], protocol=5)
    back = pickle.loads(data)
    assert back == [*chunks, unnamed] and len(back) > 10
    assert all(type(c) is Chunk for c in back) and back[-1].product is None
    ops = {op.name for op, _, _ in pickletools.genops(data)}
    assert "BUILD" not in ops and "NEWOBJ" not in ops  # the slots' state is not pickled
    with pytest.raises(dataclasses.FrozenInstanceError):
        back[0].text = "changed"  # type: ignore[misc]
