"""The product/version filter, read from a loaded dataset: a question with no version (or no
product) is filtered by what it does name, never by a missing value, and the filter and the
labelled set's rule (`ragsweep.data.admits`) are one rule."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ragsweep.chunking import Chunk
from ragsweep.data import admits, load_dataset
from ragsweep.retrieval.pipeline import allowed_chunks

TINY = Path(__file__).parents[1] / "fixtures" / "tiny"


def one_chunk_per_document(ds) -> list[Chunk]:
    return [
        Chunk(f"{d.doc_id}#0", d.doc_id, d.document, d.version, d.product, 0, 1, d.text[:1])
        for d in ds.documents
    ]


def test_a_question_without_a_version_is_filtered_by_its_product_only(tmp_path: Path) -> None:
    root = tmp_path / "tiny"
    shutil.copytree(TINY, root)
    rows = [json.loads(line) for line in (root / "questions.jsonl").open(encoding="utf-8")]
    rows[0]["version"] = None  # q01: home, any version
    rows[1]["product"] = rows[1]["version"] = None  # q02: anything
    (root / "questions.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    ds = load_dataset(root)
    products, versions = list(ds.questions["product"]), list(ds.questions["version"])
    assert (products[:3], versions[:3]) == (["home", None, "home"], [None, None, "2025"])
    chunks = one_chunk_per_document(ds)
    allowed = allowed_chunks(chunks, products, versions)
    ids = [None if a is None else [chunks[i].doc_id for i in a] for a in allowed]
    assert ids[:4] == [
        ["home@2024", "home@2025"],
        None,
        ["home@2025"],
        ["motor@2024"],
    ]
    for a, p, v in zip(allowed, products, versions, strict=True):
        expected = [i for i, c in enumerate(chunks) if admits(p, v, c.product, c.version)]
        assert (list(range(len(chunks))) if a is None else list(a)) == expected
