"""Read a BEIR dataset folder: `corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv`.

- corpus.jsonl: one object per line with `_id` (string or whole number), `text` (string or
  null) and optionally `title`; other keys (BEIR's `metadata`) are ignored.
- queries.jsonl: `_id` and `text` (other keys ignored). BEIR lists the queries of every split
  here; only those with a line in the chosen split's qrels are imported.
- qrels/<split>.tsv: `query-id<TAB>corpus-id<TAB>score` after an optional header line of exactly
  those names; score a whole number, graded by the threshold rule (>= 2 -> 2, 1 -> 1,
  <= 0 -> 0).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragsweep.data.importers.grades import THRESHOLD_RULE
from ragsweep.data.importers.reading import numbered_lines, read_text
from ragsweep.data.importers.records import Collection, Judgement, SourceDoc, SourceQuery
from ragsweep.data.importers.registry import Importer, Option, path_option
from ragsweep.errors import DatasetError

QRELS_HEADER = ("query-id", "corpus-id", "score")
_QRELS_FORMAT = "each qrels line is 'query-id<TAB>corpus-id<TAB>score'"


def _objects(path: Path, what: str) -> list[tuple[int, dict[str, Any]]]:
    """(line, object) of every non-blank line of a JSON Lines file."""
    out = []
    for number, line in numbered_lines(read_text(path, what)):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise DatasetError(
                path,
                f"invalid JSON at column {err.colno}: {err.msg}; each line must be one JSON object",
                line=number,
            ) from None
        if not isinstance(obj, dict):
            raise DatasetError(path, "expected one JSON object per line", line=number)
        out.append((number, obj))
    return out


def _id(path: Path, number: int, obj: dict[str, Any]) -> str:
    value = obj.get("_id")
    if isinstance(value, bool) or not isinstance(value, str | int):
        got = "missing" if value is None else f"a {type(value).__name__}"
        raise DatasetError(path, f"expected a string id, got {got}", line=number, field="_id")
    value = str(value)
    if not value.strip():
        raise DatasetError(path, "is empty; give every record an id", line=number, field="_id")
    return value


def _str(path: Path, number: int, obj: dict[str, Any], key: str, required: bool) -> str:
    if key not in obj:
        if required:
            raise DatasetError(path, "missing; add it", line=number, field=key)
        return ""
    value = obj[key]
    if value is None:
        return ""
    if not isinstance(value, str):
        raise DatasetError(
            path, f"expected a string, got a {type(value).__name__}", line=number, field=key
        )
    return value


def read_qrels_tsv(path: Path) -> list[Judgement]:
    """BEIR qrels: tab-separated `query-id corpus-id score`; optional header; blanks skipped."""
    out: list[Judgement] = []
    first = True
    for number, line in numbered_lines(read_text(path, "BEIR qrels file")):
        if not line.strip():
            continue
        fields = line.split("\t") if "\t" in line else line.split()
        fields = [f.strip() for f in fields]
        if first and tuple(fields) == QRELS_HEADER:
            first = False
            continue
        first = False
        if len(fields) != 3 or not fields[0] or not fields[1]:
            raise DatasetError(
                path, f"{len(fields)} fields where 3 are expected; {_QRELS_FORMAT}", line=number
            )
        try:
            score = int(fields[2])
        except ValueError:
            raise DatasetError(
                path,
                f"score {fields[2]!r} is not a whole number; {_QRELS_FORMAT}",
                line=number,
                field="score",
            ) from None
        out.append(Judgement(fields[0], fields[1], score, str(path), number))
    return out


def read_beir(source: str | Path, split: str = "test") -> Collection:
    """Read BEIR folder `source` for `split`; queries not in that split's qrels are left out."""
    root = Path(source)
    if not root.is_dir():
        state = "is not a folder" if root.exists() else "no such folder"
        raise DatasetError(
            root,
            f"{state}; --source is a BEIR dataset folder (corpus.jsonl, queries.jsonl, qrels/)",
        )
    qrels_path = root / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        found = sorted(p.stem for p in (root / "qrels").glob("*.tsv"))
        have = f"splits here: {', '.join(found)}" if found else "no qrels/*.tsv here"
        raise DatasetError(qrels_path, f"no such file; choose --split ({have})")
    corpus_path, queries_path = root / "corpus.jsonl", root / "queries.jsonl"

    docs = tuple(
        SourceDoc(
            _id(corpus_path, n, o),
            _str(corpus_path, n, o, "title", False),
            _str(corpus_path, n, o, "text", True),
            str(corpus_path),
            n,
        )
        for n, o in _objects(corpus_path, "BEIR corpus.jsonl")
    )
    judgements = read_qrels_tsv(qrels_path)
    in_split = {j.qid for j in judgements}
    all_queries = [
        SourceQuery(
            _id(queries_path, n, o), _str(queries_path, n, o, "text", True), str(queries_path), n
        )
        for n, o in _objects(queries_path, "BEIR queries.jsonl")
    ]
    queries = tuple(q for q in all_queries if q.qid in in_split)
    return Collection(
        format="beir",
        docs=docs,
        queries=queries,
        judgements=tuple(judgements),
        rule=THRESHOLD_RULE,
        sources=(("corpus", corpus_path), ("queries", queries_path), ("qrels", qrels_path)),
        details={"split": split, "queries_outside_split": len(all_queries) - len(queries)},
    )


IMPORTERS = (
    Importer(
        "beir",
        options=(
            path_option(
                "--source",
                help="folder with corpus.jsonl, queries.jsonl, qrels/<split>.tsv",
                metavar="DIR",
                required=True,
            ),
            Option(("--split",), "qrels split to import (default: test)"),
        ),
        read=lambda args: read_beir(args.source, args.split or "test"),
    ),
)
