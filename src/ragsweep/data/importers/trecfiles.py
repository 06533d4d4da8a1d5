"""Read TREC collections: documents, topics and qrels (named `trecfiles` beside
`ragsweep.scoring.trec`, which reads and writes qrels and run files and whose `read_qrels` this
module uses).

- Documents (`--docs`): TREC SGML, `<DOC><DOCNO>id</DOCNO> ... <TEXT>body</TEXT></DOC>`, or a
  `docid<TAB>text` TSV (no header line). The format is told by content: SGML when the first
  non-blank character is `<`. In SGML the title is the first `<TITLE>`, `<HEADLINE>`, `<HEAD>` or
  `<HL>` element, the body all `<TEXT>` elements (without one, everything but DOCNO and the
  title); tags inside are removed and HTML entities decoded.
- Topics (`--topics`): classic TREC `<top><num> Number: 301 <title> ... <desc> Description: ...
  </top>` (closing field tags optional), or a `qid<TAB>text` TSV. `field` picks the query text:
  `title`, `desc` or `title+desc`.
- Qrels (`--qrels`): TREC qrels `qid iter docid grade`, read by `ragsweep.data.trec.read_qrels`;
  graded by the threshold rule (>= 2 -> 2, 1 -> 1, <= 0 -> 0).

Query ids made only of digits are compared by number (`051` in a topics file is `51` in its
qrels, as in TREC-1/2) and written without leading zeros. Document ids are compared exactly.
"""

from __future__ import annotations

import bisect
import gzip
import html
import re
from collections.abc import Iterator
from pathlib import Path

from ragsweep.data.importers.grades import THRESHOLD_RULE
from ragsweep.data.importers.reading import numbered_lines, read_text
from ragsweep.data.importers.records import Collection, Judgement, SourceDoc, SourceQuery
from ragsweep.data.importers.registry import Importer, Option, path_option
from ragsweep.data.trec import read_qrels
from ragsweep.errors import DatasetError

TOPIC_FIELDS = ("title", "desc", "title+desc")

_DOC = re.compile(r"<DOC(?:\s[^>]*)?>(.*?)</DOC>", re.I | re.S)
_DOC_OPEN = re.compile(r"<DOC(?:\s[^>]*)?>", re.I)
_DOCNO = re.compile(r"<DOCNO>(.*?)</DOCNO>", re.I | re.S)
_TEXT = re.compile(r"<TEXT>(.*?)</TEXT>", re.I | re.S)
_TITLE = re.compile(r"<(TITLE|HEADLINE|HEAD|HL)>(.*?)</\1>", re.I | re.S)
_TAG = re.compile(r"<[^>]*>")
_TOP = re.compile(r"<top>(.*?)</top>", re.I | re.S)
_TOP_OPEN = re.compile(r"<top>", re.I)
_FIELD = re.compile(r"<([a-z]+)>(.*?)(?=</?[a-z]+>|\Z)", re.I | re.S)
_PREFIX = {
    "num": re.compile(r"^\s*number\s*:", re.I),
    "title": re.compile(r"^\s*topic\s*:", re.I),
    "desc": re.compile(r"^\s*description\s*:", re.I),
    "narr": re.compile(r"^\s*narrative\s*:", re.I),
}
_TSV_HEADERS = frozenset({"id", "_id", "docid", "doc_id", "docno", "qid", "query_id", "topic"})


def normalise_qid(qid: str) -> str:
    """A query id as compared and written: digits-only ids lose their leading zeros."""
    return str(int(qid)) if qid.isdigit() and qid.isascii() else qid


def _is_sgml(text: str) -> bool:
    return text.lstrip().startswith("<")


class _Lines:
    """Character offset -> 1-based line number, by bisection over newline offsets."""

    def __init__(self, text: str) -> None:
        self.starts = [m.start() for m in re.finditer("\n", text)]

    def __call__(self, offset: int) -> int:
        return bisect.bisect_left(self.starts, offset) + 1


def _clean(fragment: str) -> str:
    """Tags removed, HTML entities decoded, spaces within a line collapsed, blank lines dropped."""
    text = html.unescape(_TAG.sub(" ", fragment))
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


def _check_gap(path: Path, text: str, start: int, end: int, line_of: _Lines, what: str) -> None:
    gap = text[start:end]
    if gap.strip():
        at = start + len(gap) - len(gap.lstrip())
        raise DatasetError(
            path,
            f"text outside {what}; each record must be enclosed in {what} "
            "(is a tag misspelt or unclosed?)",
            line=line_of(at),
        )


def _sgml_records(
    path: Path, text: str, record: re.Pattern[str], opening: re.Pattern[str], tag: str
) -> Iterator[tuple[int, str]]:
    """(line, body) of each `<tag>...</tag>` record of `text`; text between records and a
    record opened inside another are errors (the `<DOC>` one names the next record's line)."""
    line_of = _Lines(text)
    what = f"<{tag}>...</{tag}>"
    pos = 0
    for m in record.finditer(text):
        _check_gap(path, text, pos, m.start(), line_of, what)
        pos = m.end()
        line = line_of(m.start())
        body = m.group(1)
        inner = opening.search(body)
        if inner is not None:
            where = f" (line {line_of(m.start(1) + inner.start())})" if tag == "DOC" else ""
            raise DatasetError(
                path,
                f"this <{tag}> is not closed before the next <{tag}>{where}; add </{tag}>",
                line=line,
            )
        yield line, body
    _check_gap(path, text, pos, len(text), line_of, what)


def _read_sgml_docs(path: Path, text: str) -> list[SourceDoc]:
    docs: list[SourceDoc] = []
    for line, body in _sgml_records(path, text, _DOC, _DOC_OPEN, "DOC"):
        docnos = _DOCNO.findall(body)
        if len(docnos) != 1:
            raise DatasetError(
                path,
                f"{len(docnos)} <DOCNO> elements in this <DOC>; each "
                "document needs exactly one <DOCNO>id</DOCNO>",
                line=line,
            )
        docid = docnos[0].strip()
        if not docid or re.search(r"\s", docid):
            raise DatasetError(
                path, f"<DOCNO> {docid!r} is empty or holds whitespace", line=line, field="DOCNO"
            )
        title_m = _TITLE.search(body)
        title = _clean(title_m.group(2)) if title_m else ""
        texts = _TEXT.findall(body)
        if texts:
            main = "\n".join(_clean(t) for t in texts)
        else:
            rest = _DOCNO.sub(" ", body)
            if title_m:
                rest = rest.replace(title_m.group(0), " ", 1)
            main = _clean(rest)
        docs.append(SourceDoc(docid, title, main.strip(), str(path), line))
    return docs


def _read_tsv(path: Path, text: str, what: str) -> list[tuple[str, str, int]]:
    """(id, text, line) of each non-blank `id<TAB>text` line."""
    rows = []
    first = True
    for number, line in numbered_lines(text):
        if not line.strip():
            continue
        ident, tab, body = line.partition("\t")
        ident = ident.strip()
        if not tab or not ident:
            raise DatasetError(
                path,
                f"expected 'id<TAB>text' (a {what} TSV line) or, for SGML, a first character '<'",
                line=number,
            )
        if first and ident.lower() in _TSV_HEADERS:
            raise DatasetError(
                path,
                f"looks like a header line ({ident!r}); the TSV has no header: remove it",
                line=number,
            )
        first = False
        rows.append((ident, body.strip(), number))
    return rows


def read_trec_docs(path: str | Path) -> list[SourceDoc]:
    """Documents from TREC SGML or a `docid<TAB>text` TSV (told apart by the first character)."""
    p = Path(path)
    text = read_text(p, "documents file (TREC <DOC> SGML or docid<TAB>text)")
    if _is_sgml(text):
        return _read_sgml_docs(p, text)
    return [SourceDoc(i, "", body, str(p), n) for i, body, n in _read_tsv(p, text, "documents")]


def _read_sgml_topics(path: Path, text: str, field: str) -> list[SourceQuery]:
    out: list[SourceQuery] = []
    for line, body in _sgml_records(path, text, _TOP, _TOP_OPEN, "top"):
        fields: dict[str, str] = {}
        for f in _FIELD.finditer(body):
            tag = f.group(1).lower()
            value = f.group(2)
            if tag in _PREFIX:
                value = _PREFIX[tag].sub("", value, count=1)
            fields.setdefault(tag, html.unescape(value).strip())
        num = fields.get("num", "")
        if not num or re.search(r"\s", num):
            raise DatasetError(
                path,
                f"topic number {num!r} is missing, empty or holds whitespace;"
                " write '<num> Number: 301'",
                line=line,
                field="num",
            )
        parts = ("title", "desc") if field == "title+desc" else (field,)
        query = " ".join(fields.get(p, "") for p in parts).strip()
        out.append(SourceQuery(normalise_qid(num), query, str(path), line))
    if not out and _is_sgml(text):
        raise DatasetError(
            path,
            "no <top>...</top> topic found; only classic TREC topics (or a "
            "qid<TAB>text TSV) are read",
        )
    return out


def read_trec_topics(path: str | Path, field: str = "title") -> list[SourceQuery]:
    """Topics from classic TREC SGML or a `qid<TAB>text` TSV; `field` picks the SGML text."""
    if field not in TOPIC_FIELDS:
        raise ValueError(f"field must be one of {TOPIC_FIELDS}, got {field!r}")
    p = Path(path)
    text = read_text(p, "topics file (TREC <top> SGML or qid<TAB>text)")
    if _is_sgml(text):
        return _read_sgml_topics(p, text, field)
    return [
        SourceQuery(normalise_qid(i), body, str(p), n)
        for i, body, n in _read_tsv(p, text, "topics")
    ]


def _nonblank_line_numbers(path: Path) -> list[int]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [n for n, line in enumerate(fh, start=1) if line.split()]


def read_trec_judgements(path: str | Path) -> list[Judgement]:
    """TREC qrels (`qid iter docid grade`) as judgements, via `ragsweep.data.trec.read_qrels`."""
    p = Path(path)
    qrels = read_qrels(p)
    lines = _nonblank_line_numbers(p) if len(qrels) else []
    return [
        Judgement(normalise_qid(q), d, int(g), str(p), n)
        for q, d, g, n in zip(qrels.qids, qrels.docids, qrels.grades.tolist(), lines, strict=True)
    ]


def read_trec(
    docs: str | Path, topics: str | Path, qrels: str | Path, field: str = "title"
) -> Collection:
    """A TREC collection from its documents, topics and qrels files."""
    docs_p, topics_p, qrels_p = Path(docs), Path(topics), Path(qrels)
    return Collection(
        format="trec",
        docs=tuple(read_trec_docs(docs_p)),
        queries=tuple(read_trec_topics(topics_p, field)),
        judgements=tuple(read_trec_judgements(qrels_p)),
        rule=THRESHOLD_RULE,
        sources=(("docs", docs_p), ("topics", topics_p), ("qrels", qrels_p)),
        details={"topic_field": field},
    )


def input_files(docs: str, queries: str, qrels: str) -> tuple[Option, ...]:
    """`--docs`, `--topics/--queries` and `--qrels`, the three files TREC and SMART both read,
    each with what it holds in that format."""
    return (
        path_option("--docs", help=docs, required=True),
        path_option("--topics", "--queries", help=queries, required=True, dest="queries"),
        path_option("--qrels", help=qrels, required=True),
    )


IMPORTERS = (
    Importer(
        "trec",
        options=(
            *input_files(
                "<DOC> SGML or docid<TAB>text", "<top> SGML or qid<TAB>text", "qid iter docid grade"
            ),
            Option(
                ("--topic-field",),
                "which SGML topic field is the question (default: title)",
                argparse={"choices": TOPIC_FIELDS},
            ),
        ),
        read=lambda args: read_trec(
            args.docs, args.queries, args.qrels, args.topic_field or "title"
        ),
    ),
)
