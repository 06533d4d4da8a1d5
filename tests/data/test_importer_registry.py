"""The importer registry (`ragsweep.data.importers.registry`): a format declared in a module of
its own, listed in `IMPORTER_MODULES`, is offered by `ragsweep data import` with its options,
runs through the shared collection pipeline (scrubbed, mapped, validated), and its options are
refused on other formats."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ragsweep.cli import data_import as cli
from ragsweep.data import load_dataset
from ragsweep.data.importers import registry
from ragsweep.data.importers.registry import Importer, Option
from ragsweep.errors import UserError

#: a made-up format, one record per line: the whole of a new importer
FAKE_MODULE = """
from ragsweep.data.importers.grades import THRESHOLD_RULE
from ragsweep.data.importers.reading import numbered_lines, read_text
from ragsweep.data.importers.records import Collection, Judgement, SourceDoc, SourceQuery
from ragsweep.data.importers.registry import Importer, Option, path_option


def read_lines(args):
    docs, queries, judgements = [], [], []
    for n, line in numbered_lines(read_text(args.lines, "lines file")):
        kind, *rest = line.split("\\t")
        if kind == "doc":
            docs.append(SourceDoc(rest[0], "", rest[1], str(args.lines), n))
        elif kind == "query":
            queries.append(SourceQuery(rest[0], rest[1], str(args.lines), n))
        elif kind == "judge":
            judgements.append(Judgement(rest[0], rest[1], int(rest[2]), str(args.lines), n))
    return Collection(
        "lines", tuple(docs), tuple(queries), tuple(judgements), THRESHOLD_RULE,
        (("lines", args.lines),),
    )


IMPORTERS = (
    Importer(
        "lines",
        (path_option("--lines", help="doc, query and judge lines", required=True),),
        read=read_lines,
    ),
    Importer(
        "echo",
        (Option(("--word",), "the word to echo", required=True),),
        run=lambda args: f"echo {args.word} to {args.out}",
    ),
)
"""

LINES = (
    "doc\td1\tflood damage to the kitchen\n"
    "doc\td2\ttheft from a shed\n"
    "query\tq1\tis flood covered? mail jo.bloggs@example.com\n"
    "query\tq2\tis theft covered?\n"
    "query\tq3\tnobody judged this\n"
    "judge\tq1\td1\t2\n"
    "judge\tq1\td2\t0\n"
    "judge\tq2\td2\t1\n"
)


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module above on the path and listed in the registry; the lines file it reads."""
    (tmp_path / "fake_lines_format.py").write_text(FAKE_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "fake_lines_format", raising=False)
    monkeypatch.setattr(
        registry, "IMPORTER_MODULES", [*registry.IMPORTER_MODULES, "fake_lines_format"]
    )
    lines = tmp_path / "records.tsv"
    lines.write_text(LINES, encoding="utf-8")
    return lines


def test_a_new_module_is_offered_with_its_options(
    fake: Path, capsys: pytest.CaptureFixture
) -> None:
    assert cli.main(["--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert "--format {beir,trec,smart,markdown,html,docx,pdf,lines,echo}" in shown
    assert "--lines FILE lines: doc, query and judge lines" in shown
    assert "--word WORD echo: the word to echo" in shown


def test_a_new_collection_format_runs_through_the_shared_pipeline(
    fake: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "ds"
    args = ["--format", "lines", "--lines", str(fake), "--out", str(out)]
    assert cli.main([*args, "--added", "2025-03-31", "--slice-by", "best-code"]) == 0
    printed = capsys.readouterr().out
    ds = load_dataset(out)
    assert ds.questions["qid"].tolist() == ["q1", "q2"]  # q3 has no judgement
    assert ds.questions["slice"].tolist() == ["code2", "code1"]
    assert set(ds.questions["added"].astype(str)) == {"2025-03-31"}
    labels = [json.loads(s) for s in (out / "labels.jsonl").read_text().splitlines()]
    assert [(r["qid"], r["document"], r["grade"]) for r in labels] == [
        ("q1", "d1", 2),
        ("q1", "d2", 0),
        ("q2", "d2", 1),
    ]
    assert "jo.bloggs@example.com" not in (out / "questions.jsonl").read_text()
    assert "personal data scrubbed from the query texts: EMAIL 1" in printed
    assert json.loads((out / "dataset.json").read_text())["notes"]["source_format"] == "lines"


def test_a_new_format_that_runs_itself_and_its_option_errors(fake: Path, tmp_path: Path) -> None:
    assert cli.run(
        cli.build_parser().parse_args(["--format", "echo", "--word", "hi", "--out", "x"])
    ) == ("echo hi to x")
    with pytest.raises(UserError, match=r"^--format lines needs --lines, --out; see "):
        cli.main(["--format", "lines"])
    with pytest.raises(UserError, match=r"^--word is an option of --format echo, not lines; "):
        cli.main(["--format", "lines", "--lines", str(fake), "--word", "hi", "--out", "o"])
    with pytest.raises(UserError, match=r"^--grade-map is an option of --format beir/trec/smart/"
                       r"lines, not echo; remove it"):  # fmt: skip
        cli.main(["--format", "echo", "--word", "hi", "--grade-map", "1=2", "--out", "o"])
    assert not (tmp_path / "o").exists()


def test_formats_sharing_an_option_must_declare_it_alike() -> None:
    def run(args: object) -> str:
        return ""

    apart = {
        "a": Importer("a", (Option(("--x",), "a number", argparse={"type": int}),), run=run),
        "b": Importer("b", (Option(("--x",), "a word"),), run=run),
    }
    with pytest.raises(TypeError, match="importers a, b declare the option 'x' differently"):
        cli.build_parser(apart)
    with pytest.raises(TypeError, match="give exactly one of read and run"):
        Importer("c", ())
