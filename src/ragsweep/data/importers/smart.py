"""Read SMART collections (Cranfield, MED, CISI, CACM ...): documents, queries and qrels.

A SMART file is a list of records. A record starts with a line `.I <id>`; field markers are
lines `.X` (X one capital letter) with the field's text on the following lines (text on the
marker line itself is kept as the field's first line). Documents use `.T` (title) and `.W`
(body); `.A`, `.B` and any other field are read and ignored. Queries use `.W` (or `.T` when
`.W` is empty). Empty fields and empty records are allowed. A text line that itself starts with
`.X ` would read as a marker: that ambiguity is SMART's own.

Qrels formats (`qrels_format`):
- `plain`: `qid docid [code]`, whitespace-separated (no code: 1); qids match the queries' `.I`
  ids, digits-only ids compared by number; codes graded by the threshold rule.
- `trec`: `qid iter docid grade` (`ragsweep.data.trec.read_qrels`), matched and graded as
  `plain`.
- `rel`: the `.REL` layout of CISI, CACM and other classic SMART collections,
  `qid docid 0 0.000000`: being listed means relevant (code 1, so grade 1 by the threshold
  rule); the third and fourth columns are placeholders, not grades, and must be 0 (a file with
  other values there is most likely `qid iter docid grade`: `trec`). Matched as `plain`.
- `cranfield`: `qid docid code` where qid is the query's ordinal position in the queries file
  (1 = first `.I`), codes 1 (complete answer) .. 4 (minimum interest) and -1 (one per query,
  unexplained): graded by `CRANFIELD_RULE` (1, 2 -> 2; 3, 4 -> 1; -1 -> 0). Questions are
  written with the ordinal qid (as the qrels and ir_datasets number them); the `.I` ids are kept
  in dataset.json's notes (`source_query_ids`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ragsweep.data.importers.grades import CRANFIELD_RULE, THRESHOLD_RULE
from ragsweep.data.importers.reading import numbered_lines, read_text
from ragsweep.data.importers.records import Collection, Judgement, SourceDoc, SourceQuery
from ragsweep.data.importers.registry import Importer, Option
from ragsweep.data.importers.trecfiles import (
    input_files,
    normalise_qid,
    read_trec_judgements,
)
from ragsweep.errors import DatasetError, UserError

QRELS_FORMATS = ("plain", "trec", "rel", "cranfield")

#: the hint every qrels error gives when the file may be the `.REL` layout
REL_HINT = (
    "if the lines are 'qid docid 0 0.000000' (the .REL layout of CISI, CACM), pass "
    "--qrels-format rel"
)

_MARKER = re.compile(r"\.([A-Z])(?:[ \t]+(.*))?")


@dataclass(frozen=True)
class SmartRecord:
    """One `.I` record: its id, the line of its `.I`, and its fields' text by marker letter."""

    ident: str
    line: int
    fields: dict[str, str]

    def get(self, marker: str) -> str:
        return self.fields.get(marker, "")


def read_smart(path: str | Path, what: str) -> list[SmartRecord]:
    """Parse a SMART file into records (a field's lines joined by `\\n`, then stripped)."""
    p = Path(path)
    records: list[SmartRecord] = []
    ident: str | None = None
    start = 0
    fields: dict[str, list[str]] = {}
    current: list[str] | None = None

    def close() -> None:
        if ident is not None:
            records.append(
                SmartRecord(
                    ident, start, {k: "\n".join(v).strip() for k, v in sorted(fields.items())}
                )
            )

    for number, raw in numbered_lines(read_text(p, what)):
        line = raw.rstrip()
        m = _MARKER.fullmatch(line)
        if m and m.group(1) == "I":
            parts = (m.group(2) or "").split()
            if len(parts) != 1:
                raise DatasetError(
                    p, "a record starts with '.I <id>' (one id)", line=number, field=".I"
                )
            close()
            ident, start, fields, current = parts[0], number, {}, None
        elif m:
            if ident is None:
                raise DatasetError(
                    p, f"field .{m.group(1)} before the first '.I <id>' line", line=number
                )
            current = fields.setdefault(m.group(1), [])
            if m.group(2):
                current.append(m.group(2))
        elif line.strip():
            if current is None:
                where = "the first '.I <id>' line" if ident is None else "a field marker (.T, .W)"
                raise DatasetError(p, f"text before {where}; is this a SMART file?", line=number)
            current.append(line)
        elif current is not None:
            current.append("")
    close()
    return records


def read_smart_docs(path: str | Path) -> list[SourceDoc]:
    """Documents: id `.I` (compared exactly), title `.T`, body `.W`."""
    return [
        SourceDoc(r.ident, r.get("T"), r.get("W"), str(path), r.line)
        for r in read_smart(path, "documents file (SMART .I/.T/.W)")
    ]


def read_smart_queries(path: str | Path, ordinal: bool) -> tuple[list[SourceQuery], list[str]]:
    """Queries and their `.I` ids in file order; qid = ordinal position (1-based) when `ordinal`,
    else the `.I` id (digits-only ids without leading zeros)."""
    records = read_smart(path, "queries file (SMART .I/.W)")
    queries = [
        SourceQuery(
            str(i) if ordinal else normalise_qid(r.ident),
            r.get("W") or r.get("T"),
            str(path),
            r.line,
        )
        for i, r in enumerate(records, start=1)
    ]
    return queries, [r.ident for r in records]


def _int(path: Path, number: int, value: str, field: str, fmt: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise DatasetError(
            path, f"{value!r} is not a whole number; {fmt}", line=number, field=field
        ) from None


def read_plain_qrels(path: str | Path) -> list[Judgement]:
    """`qid docid [code]` lines (no code means 1); blank lines skipped."""
    p = Path(path)
    fmt = "each qrels line is 'qid docid [code]'"
    out = []
    for number, line in numbered_lines(read_text(p, "qrels file")):
        fields = line.split()
        if not fields:
            continue
        if len(fields) not in (2, 3):
            also = f"; {REL_HINT}" if len(fields) == 4 else ""
            raise DatasetError(
                p, f"{len(fields)} fields where 2 or 3 are expected; {fmt}{also}", line=number
            )
        code = _int(p, number, fields[2], "code", fmt) if len(fields) == 3 else 1
        out.append(Judgement(normalise_qid(fields[0]), fields[1], code, str(p), number))
    return out


def _zero(path: Path, number: int, value: str, column: str, kind: type) -> None:
    """A `.REL` placeholder column: `value` must read as `kind` and be 0."""
    try:
        ok = kind(value) == 0
    except ValueError:
        ok = False
    if not ok:
        raise DatasetError(
            path,
            f"{value!r} where the .REL layout 'qid docid 0 0.000000' has 0 (its third and fourth "
            "columns are not grades); if the file is 'qid iter docid grade', pass "
            "--qrels-format trec",
            line=number,
            field=column,
        )


def read_rel_qrels(path: str | Path) -> list[Judgement]:
    """`.REL` lines `qid docid 0 0.000000`: each listed pair is relevant (code 1)."""
    p = Path(path)
    fmt = "each .REL qrels line is 'qid docid 0 0.000000'"
    out = []
    for number, line in numbered_lines(read_text(p, "qrels file")):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise DatasetError(p, f"{len(fields)} fields where 4 are expected; {fmt}", line=number)
        _zero(p, number, fields[2], "column 3", int)
        _zero(p, number, fields[3], "column 4", float)
        out.append(Judgement(normalise_qid(fields[0]), fields[1], 1, str(p), number))
    return out


def _trec_qrels(path: Path) -> list[Judgement]:
    """`read_trec_judgements`, whose refusal of a fractional grade names the `.REL` layout."""
    try:
        return read_trec_judgements(path)
    except DatasetError as err:
        if err.field == "grade" and "is not an integer" in err.detail:
            raise DatasetError(
                err.path, f"{err.detail}; {REL_HINT}", line=err.line, field=err.field
            ) from None
        raise


def read_cranfield_qrels(path: str | Path, n_queries: int) -> list[Judgement]:
    """Cranfield `qid docid code` lines, qid the 1-based position of the query in its file."""
    p = Path(path)
    fmt = "each Cranfield qrels line is 'qid docid code'"
    out = []
    for number, line in numbered_lines(read_text(p, "qrels file")):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 3:
            raise DatasetError(p, f"{len(fields)} fields where 3 are expected; {fmt}", line=number)
        qid = _int(p, number, fields[0], "qid", fmt)
        if not 1 <= qid <= n_queries:
            raise DatasetError(
                p,
                f"query number {qid} is outside 1..{n_queries}: with "
                "--qrels-format cranfield a qid is the query's position in the "
                "queries file; check that the files belong together",
                line=number,
                field="qid",
            )
        code = _int(p, number, fields[2], "code", fmt)
        out.append(Judgement(str(qid), fields[1], code, str(p), number))
    return out


def _check_not_ordinal(
    judgements: list[Judgement], queries: list[SourceQuery], qrels: Path
) -> None:
    """Refuse the Cranfield trap: qrels numbering queries 1..N while the `.I` ids differ."""
    n = len(queries)
    ordinals = {str(i) for i in range(1, n + 1)}
    judged = {j.qid for j in judgements}
    ids = {q.qid for q in queries}
    if judged - ids and judged <= ordinals and ids != ordinals:
        raise UserError(
            f"{qrels}: the qrels number queries 1..{n} but the queries' .I ids are not 1..{n} "
            f"(e.g. {', '.join(q.qid for q in queries[:4])}): the qrels most likely count "
            "queries by position; pass --qrels-format cranfield"
        )


def read_smart_collection(
    docs: str | Path, queries: str | Path, qrels: str | Path, qrels_format: str = "plain"
) -> Collection:
    """A SMART collection from its documents, queries and qrels files (see the module doc)."""
    if qrels_format not in QRELS_FORMATS:
        raise UserError(
            f"--qrels-format {qrels_format!r} is unknown; use one of {', '.join(QRELS_FORMATS)}"
        )
    docs_p, queries_p, qrels_p = Path(docs), Path(queries), Path(qrels)
    cranfield = qrels_format == "cranfield"
    source_docs = read_smart_docs(docs_p)
    source_queries, idents = read_smart_queries(queries_p, ordinal=cranfield)
    details: dict[str, object] = {"qrels_format": qrels_format}
    if cranfield:
        judgements = read_cranfield_qrels(qrels_p, len(source_queries))
        details["query_ids"] = (
            "qid = position of the query in the queries file (1-based), as "
            "the qrels number them; source_query_ids[i - 1] is its .I id"
        )
        details["source_query_ids"] = idents
    else:
        readers = {"trec": _trec_qrels, "rel": read_rel_qrels, "plain": read_plain_qrels}
        judgements = readers[qrels_format](qrels_p)
        _check_not_ordinal(judgements, source_queries, qrels_p)
    return Collection(
        format="smart",
        docs=tuple(source_docs),
        queries=tuple(source_queries),
        judgements=tuple(judgements),
        rule=CRANFIELD_RULE if cranfield else THRESHOLD_RULE,
        sources=(("docs", docs_p), ("queries", queries_p), ("qrels", qrels_p)),
        details=details,
    )


IMPORTERS = (
    Importer(
        "smart",
        options=(
            *input_files(".I/.T/.W records", ".I/.W records", "see --qrels-format"),
            Option(
                ("--qrels-format",),
                "plain = 'qid docid [code]' (default); trec = 'qid iter docid grade'; rel = 'qid "
                "docid 0 0.000000' (the .REL layout of CISI, CACM: listed means relevant); "
                "cranfield = 'qid docid code' with qid the query's position and codes 1 (best) "
                ".. 4, -1",
                argparse={"choices": QRELS_FORMATS},
            ),
        ),
        read=lambda args: read_smart_collection(
            args.docs, args.queries, args.qrels, args.qrels_format or "plain"
        ),
    ),
)
