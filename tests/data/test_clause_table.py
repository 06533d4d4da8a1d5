"""`ClauseTable`: a corpus's clauses in flat arrays, document by document; a `Dataset` builds its
own once and keeps it while its documents stay the same."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ragsweep.data import load_dataset
from ragsweep.data.clause_table import ClauseTable

TINY = Path(__file__).parents[1] / "fixtures" / "tiny"


def doc(document: str, sections: list[str], spans: list[tuple[int, int]]) -> SimpleNamespace:
    clauses = [SimpleNamespace(clause_id=f"{document}/{s}@1") for s in sections]
    return SimpleNamespace(doc_id=f"{document}@1", clauses=clauses, spans=spans)


def test_rows_follow_the_documents_and_equal_ids_share_a_rank() -> None:
    docs = [
        doc("b", ["2", "1"], [(5, 9), (0, 4)]),
        doc("empty", [], []),
        doc("a", ["1"], [(0, 3)]),
        doc("b", ["1"], [(0, 2)]),  # the same doc_id again: one document with b's first one
    ]
    table = ClauseTable.of(docs)
    assert table.documents is docs
    assert table.number == {"b@1": 0, "empty@1": 1, "a@1": 2}
    assert table.first.tolist() == [0, 3, 3, 4]
    assert table.clause_ids == ("b/2@1", "b/1@1", "b/1@1", "a/1@1")
    assert table.spans.tolist() == [[5, 9], [0, 4], [0, 2], [0, 3]]
    assert table.rank.tolist() == [2, 1, 1, 0]  # a/1 < b/1 < b/2
    assert table.spans.dtype == table.first.dtype == table.rank.dtype == np.int64


def test_no_document_gives_an_empty_table() -> None:
    table = ClauseTable.of([])
    assert table.first.tolist() == [0] and table.clause_ids == ()
    assert table.spans.shape == (0, 2) and table.rank.shape == (0,)


def test_a_dataset_keeps_its_table_while_its_documents_stay() -> None:
    ds = load_dataset(TINY)
    table = ds.clause_table
    assert list(table.number) == [d.doc_id for d in ds.documents]
    assert table.clause_ids == tuple(c.clause_id for d in ds.documents for c in d.clauses)
    assert table.spans.tolist() == [list(s) for d in ds.documents for s in d.spans]
    assert dataclasses.replace(ds, meta={}).clause_table is table
    turned = dataclasses.replace(ds, documents=tuple(reversed(ds.documents)))
    assert list(turned.clause_table.number) == [d.doc_id for d in reversed(ds.documents)]
    back = pickle.loads(pickle.dumps(ds))
    assert back.clause_table.documents is back.documents
    assert back.clause_table.clause_ids == table.clause_ids


def test_a_dataset_without_wordings_scores_by_the_same_table() -> None:
    ds = load_dataset(TINY)
    table = ds.clause_table
    light = ds.without_wordings()
    assert light.documents == () and ds.documents  # the original keeps its wordings
    assert light.clause_table is not None
    assert light.clause_table.clause_ids == table.clause_ids
    assert light.clause_table.spans.tolist() == table.spans.tolist()
    assert light.clause_table.first.tolist() == table.first.tolist()
    assert light.clause_table.number == table.number
    # kept, not rebuilt from no documents, through a replace and a pickle
    assert dataclasses.replace(light, meta={}).clause_table is light.clause_table
    back = pickle.loads(pickle.dumps(light))
    assert back.clause_table.clause_ids == table.clause_ids
    # new documents still get their own table
    again = dataclasses.replace(light, documents=ds.documents)
    assert again.clause_table.documents is ds.documents
