"""Structured wordings (`ragsweep data import --format markdown|html|docx|pdf`).

One small home wording in two versions (2025 changes clause 2.2's text, adds a Flood exclusion
as 3.3 and so renumbers Pets from 3.3 to 3.4) is written in each format: Markdown and HTML
fixtures are committed (tests/fixtures/wordings), the Word and PDF files are written here with
python-docx (Word's automatic numbering, which is not in the text) and fpdf2 (font sizes, bold
runs, a running footer). Each must import to the same clauses, ids, headings and texts, and pass
`data check`; one import is swept end to end; labels check carries the labels of the kept
clauses to 2025 and names the changed and the renumbered one; bad input gives one line naming
the file, the field and the fix, exit code 2, and leaves no folder behind.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from rapidfuzz import fuzz

from conftest import Store, cli_in
from ragsweep.data import load_dataset
from ragsweep.data.importers.wordings.blocks import Block, Line
from ragsweep.data.importers.wordings.convert import read_wordings
from ragsweep.data.importers.wordings.markdown import blocks_of
from ragsweep.data.importers.wordings.structure import structure
from ragsweep.data.split import assign
from ragsweep.labelling.sameclause import SAME_TEXT_MIN_RATIO, normalise
from ragsweep.labelling.upkeep import Blocked, Carry, check_labels
from wording_files import W_URI, W, write_docx, write_pdf

FIX = Path(__file__).parents[1] / "fixtures" / "wordings"
TITLE = "Home Insurance Policy Wording"
PREAMBLE = "This wording and your schedule make up your contract with Kestrel General."
EXCESS = {
    "2024": "You must pay the first £350 of every claim.",
    "2025": "You must pay the first £500 of every claim, or £1,000 for escape of water.",
}
PETS = (
    "We will not pay for damage caused by pets chewing, scratching or fouling. See 3.1 for "
    "wear and tear."
)
FLOOD = "We will not pay for flood damage to gates, fences or hedges."
TELLING = "Call us within 30 days of discovering the loss; see 3.2 for theft."
TABLE = "Claim type | Phone\nTheft | 0800 123 456"


def expected(version: str, fmt: str) -> list[dict[str, Any]]:
    """The parts and clauses every format's fixture of `version` must import to."""
    pets = "3.4" if version == "2025" else "3.3"
    flood = [("3.3", "Flood", FLOOD)] if version == "2025" else []
    telling = TELLING if fmt == "pdf" else f"{TELLING}\n{TABLE}"  # the PDF has no table
    parts = [
        ("0", "Introduction", "other", [("0", "Introduction", PREAMBLE)]),
        ("1", "Definitions", "definitions", [
            ("1.1", "Excess", "The first part of any claim that you must pay yourself. The "
             "amounts are in section 2."),
            ("1.2", "Unoccupied", "Your home is unoccupied when nobody has lived in it for more "
             "than 30 days in a row."),
        ]),
        ("2", "Limits and excesses", "limits", [
            ("2.1", "Valuables limit", "The most we will pay for any one item of jewellery or "
             "watches is £2,000."),
            ("2.2", "Standard excess", EXCESS[version]),
        ]),
        ("3", "What is not covered", "exclusions", [
            ("3", "What is not covered", "This part lists what we will not pay for."),
            ("3.1", "Wear and tear", "We will not pay for loss or damage caused by wear and "
             "tear, gradual deterioration, rust or moths."),
            ("3.2", "Theft", "We will not pay for theft:"),
            ("3.2(a)", "Theft", "when your home is unoccupied; or"),
            ("3.2(b)", "Theft", "by anyone you let into your home, unless they forced their way "
             "in."),
            *flood,
            (pets, "Pets", PETS),
        ]),
        ("4", "Making a claim", "claims", [("4.1", "Telling us", telling)]),
    ]  # fmt: skip
    return [
        {
            "number": n,
            "title": t,
            "kind": k,
            "clauses": [{"section": s, "heading": h, "text": x} for s, h, x in clauses],
        }
        for n, t, k, clauses in parts
    ]


def manifest(files: dict[str, str]) -> str:
    """A manifest for the home wordings named `files` (version -> file name)."""
    items = [
        f'  - file: {name}\n    document: home\n    version: "{version}"\n    product: home\n'
        f"    effective: {version}-01-01\n    form_code: HH-PW-{version}/01\n"
        for version, name in files.items()
    ]
    return "wordings:\n" + "".join(items)


# ---------------------------------------------------------------------------------------------
# the wording's content, written as Word and PDF


def content(version: str) -> list[tuple[Any, ...]]:
    """The wording as a list of items, for the writers below."""
    flood = [("clause", "Flood.", FLOOD)] if version == "2025" else []
    return [
        ("title", TITLE),
        ("para", PREAMBLE),
        ("part", "Definitions"),
        ("clause", "Excess.", "The first part of any claim that you must pay yourself. The "
         "amounts are in section 2."),
        ("clause", "Unoccupied.", "Your home is unoccupied when nobody has lived in it for more "
         "than 30 days in a row."),
        ("part", "Limits and excesses"),
        ("clause heading", "Valuables limit"),
        ("para", "The most we will pay for any one item of jewellery or watches is £2,000."),
        ("clause heading", "Standard excess"),
        ("para", EXCESS[version]),
        ("part", "What is not covered"),
        ("para", "This part lists what we will not pay for."),
        ("clause", "Wear and tear", "We will not pay for loss or damage caused by wear and tear, "
         "gradual deterioration, rust or moths."),
        ("clause", "Theft", "We will not pay for theft:"),
        ("sub", "when your home is unoccupied; or"),
        ("sub", "by anyone you let into your home, unless they forced their way in."),
        *flood,
        ("clause", "Pets.", PETS),
        ("part", "Making a claim"),
        ("clause", "Telling us", TELLING),
        ("table", [["Claim type", "Phone"], ["Theft", "0800 123 456"]]),
    ]  # fmt: skip


def wordings(fmt: str, folder: Path) -> Path:
    """A --source folder of both versions in `fmt`."""
    if fmt in ("markdown", "html"):
        return FIX / fmt
    src = folder / f"{fmt}-wordings"
    src.mkdir()
    for version in ("2024", "2025"):
        if fmt == "docx":
            write_docx(src / f"home-{version}.{fmt}", content(version))
        else:
            write_pdf(src / f"home-{version}.{fmt}", content(version), f"HH-PW-{version}/01")
    (src / "manifest.yaml").write_text(
        manifest({v: f"home-{v}.{fmt}" for v in ("2024", "2025")}), encoding="utf-8"
    )
    return src


def run_import(folder: Path, *args: Any) -> Any:
    return cli_in(folder, "data", "import", *(str(a) for a in args))


def labelled(*extra: Any) -> list[Any]:
    return ["--questions", FIX / "questions.jsonl", "--labels", FIX / "labels.jsonl", *extra]


def corpus(out: Path, doc_id: str) -> dict[str, Any]:
    return json.loads((out / "corpus" / f"{doc_id}.json").read_text(encoding="utf-8"))


def leftovers(folder: Path) -> list[str]:
    """Whatever an import left in `folder` besides its inputs."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith((".", "out")))


# ---------------------------------------------------------------------------------------------
# every format imports to the same clauses and passes data check


@pytest.mark.parametrize("fmt", ["markdown", "html", "docx", "pdf"])
def test_each_format_imports_to_the_expected_clauses(fmt: str, tmp_path: Path) -> None:
    src = wordings(fmt, tmp_path)
    out = tmp_path / "out"
    ran = run_import(tmp_path, "--format", fmt, "--source", src, *labelled(), "--out", out)
    assert ran.code == 0, ran.err
    for version in ("2024", "2025"):
        wording = corpus(out, f"home@{version}")
        assert {k: v for k, v in wording.items() if k != "parts"} == {
            "document": "home",
            "version": version,
            "product": "home",
            "form_code": f"HH-PW-{version}/01",
            "title": TITLE,
        }
        assert wording["parts"] == expected(version, fmt)
    assert ran.out.splitlines()[-1] == (
        "home 2024 -> 2025: 10 clauses kept, 1 changed (2.2), 1 renumbered (3.3 -> 3.4), "
        "1 added (3.3), 0 removed"
    )
    checked = cli_in(tmp_path, "data", "check", str(out), "--format", "json")
    assert checked.code == 0, checked.err
    stats = json.loads(checked.out)
    assert (stats["document_versions"], stats["clauses"], stats["questions"]) == (2, 25, 6)
    assert stats["questions_per_slice"] == {
        "limits": 2,
        "exclusions": 2,
        "procedures": 1,
        "definitions": 1,
    }
    assert stats["labels_per_grade"] == {"0": 1, "1": 2, "2": 6}
    # the labelled set is copied byte for byte: its hash is the one the files had
    ds = load_dataset(out)
    assert (out / "labels.jsonl").read_bytes() == (FIX / "labels.jsonl").read_bytes()
    assert ds.meta["notes"]["version_changes"] == [
        {
            "document": "home",
            "from": "2024",
            "to": "2025",
            "kept": 10,
            "changed": ["2.2"],
            "renumbered": [["3.3", "3.4"]],
            "added": ["3.3"],
            "removed": [],
        }
    ]


@pytest.mark.slow
def test_an_import_sweeps_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "home"
    assert run_import(tmp_path, "--format", "markdown", "--source", FIX / "markdown",
                      *labelled(), "--out", out).code == 0  # fmt: skip
    ran = cli_in(
        tmp_path,
        "-m",
        "data=folder",
        f"data.path={out}",
        "chunker.size=64,128",
        "eval.traffic_weights=null",
        "hydra.launcher.n_jobs=1",
        "confirm.enabled=false",
    )
    assert ran.code == 0, ran.err
    store = Store(tmp_path)
    runs = store.by_value("sweep:chunker.size")
    assert sorted(runs) == ["128", "64"]
    ds = load_dataset(out)
    sides = assign(list(ds.questions["qid"]), "ragsweep-v1", 0.25)  # conf/data/folder.yaml
    dev = ds.questions.loc[sides == "dev", "slice"].value_counts().to_dict()
    assert sum(dev.values()) >= 3
    for run in runs.values():
        tags, numbers = run.data.tags, store.measured(run)
        assert (tags["ragsweep.dataset"], tags["ragsweep.snapshot"], tags["ragsweep.labels"]) == (
            "home",
            ds.snapshot_hash,
            ds.labels_hash,
        )
        assert {k.split("/")[1]: v for k, v in numbers.items() if k.startswith("questions/")} == dev
        assert 0.0 <= numbers["recall_at_5/all"] <= 1.0
    assert runs["64"].data.metrics["cost/chunks"] > runs["128"].data.metrics["cost/chunks"]


# ---------------------------------------------------------------------------------------------
# version stability


def test_clause_ids_persist_so_labels_check_carries_labels(tmp_path: Path) -> None:
    """Labelled on 2024; the questions now ask about 2025. The kept clauses keep their ids, so
    their labels carry; the changed clause (2.2) and the renumbered one (Pets, 3.3 -> 3.4,
    where 3.3 is now Flood) are named and left for a judge."""
    only_2024 = tmp_path / "v2024"
    only_2024.mkdir()
    shutil.copy(FIX / "markdown" / "home-2024.md", only_2024)
    shutil.copy(FIX / "markdown" / "manifest.yaml", only_2024)
    first = tmp_path / "first"
    assert run_import(tmp_path, "--format", "markdown", "--source", only_2024, *labelled(),
                      "--out", first).code == 0  # fmt: skip

    both = tmp_path / "both"
    ran = run_import(tmp_path, "--format", "markdown", "--source", FIX / "markdown", *labelled(),
                     "--out", both)  # fmt: skip
    assert ran.code == 0, ran.err
    assert corpus(both, "home@2024") == corpus(first, "home@2024")  # the same ids and text
    kept = {c["section"] for p in corpus(both, "home@2025")["parts"] for c in p["clauses"]}
    assert {"1.1", "1.2", "2.1", "3.2(a)", "4.1"} <= kept

    move = {f"w{n}": "2025" for n in range(1, 7)}  # the questions now ask about 2025
    result = check_labels(both, move)
    old = normalise(EXCESS["2024"])
    ratio = fuzz.ratio(old, normalise(EXCESS["2025"]))
    assert ratio < SAME_TEXT_MIN_RATIO
    assert result.vanished == ()
    assert result.carries == (
        Carry("w1", "home", "2.1", "2024", "2025", 2, 100.0),
        Carry("w2", "home", "1.1", "2024", "2025", 1, 100.0),
        Carry("w3", "home", "3.3", "2024", "2025", 2, 100.0, to_section="3.4"),
        Carry("w4", "home", "3.2(a)", "2024", "2025", 2, 100.0),
        Carry("w4", "home", "1.2", "2024", "2025", 1, 100.0),
        Carry("w5", "home", "4.1", "2024", "2025", 2, 100.0),
        Carry("w6", "home", "1.2", "2024", "2025", 2, 100.0),
    )
    assert result.blocked == (
        Blocked("w2", "home", "2.2", "2024", "2025", 2, f"text changed: ratio {ratio:.1f} < 90",
                target="2.2"),
    )  # fmt: skip
    assert result.unanswered == ()  # w2 keeps its carried grade-1 label on 1.1
    printed = cli_in(tmp_path, "labels", "move", "--all", "--to", "2025", "--data", str(both))
    assert printed.out.splitlines()[0] == "moving 6 question(s) to version 2025"
    assert "carry: w3 home/3.3 -> 3.4 (renumbered) grade 2 from 2024 to 2025" in printed.out
    assert printed.out.splitlines()[-1] == (
        "0 vanished, 7 to carry, 1 not carried, 8 to retire, 0 question(s) left without a "
        "relevant label; --apply writes them"
    )


# ---------------------------------------------------------------------------------------------
# structure rules


def para(*lines: str, bold: tuple[tuple[int, int], ...] = ()) -> Block:
    return Block("paragraph", tuple(Line(s, bold if i == 0 else ()) for i, s in enumerate(lines)))


def head(text: str, level: int) -> Block:
    return Block("heading", (Line(text),), level=level)


def clauses_of(*blocks: Block) -> list[tuple[str, str, str]]:
    found = structure(list(blocks), "w.md")
    return [(c.section, c.heading, c.text) for c in found.clauses]


def _parts(found: Any) -> list[dict[str, Any]]:
    return [
        {
            "number": p.number,
            "title": p.title,
            "kind": p.kind,
            "clauses": [
                {"section": c.section, "heading": c.heading, "text": c.text} for c in p.clauses
            ],
        }
        for p in found.parts
    ]


def test_the_sample_wordings_round_trip_through_markdown_and_html(tmp_path: Path) -> None:
    """The built-in sample's six policy wordings (about 480 clauses of real length,
    cross-references, amounts), written as Markdown with clause headings and as HTML with
    numbered paragraphs whose heading is the first line, import back to exactly the sample's
    parts. (Its derived documents hold Markdown lists and tables, whose markers a Markdown
    reader turns into structure, so they are not plain-paragraph round trips.)"""
    from html import escape

    from ragsweep.data import sample_path
    from ragsweep.data.importers.wordings import html as html_reader

    wordings = [p for p in sorted((sample_path() / "corpus").glob("*.json")) if "-" not in p.stem]
    assert len(wordings) == 6
    for path in wordings:
        wording = json.loads(path.read_text(encoding="utf-8"))
        md = [f"# {wording['title']}"]
        page = [f"<html><body><h1>{escape(wording['title'])}</h1>"]
        for part in wording["parts"]:
            md.append(f"## {part['number']}. {part['title']}")
            page.append(f"<h2>{part['number']}. {escape(part['title'])}</h2>")
            for c in part["clauses"]:
                first, *more = c["text"].split("\n")
                md += [f"### {c['section']} {c['heading']}", first, *more]
                page.append(f"<p>{c['section']} {escape(c['heading'])}<br>{escape(first)}</p>")
                page += [f"<p>{escape(x)}</p>" for x in more]
        (tmp_path / "w.html").write_text("".join(page) + "</body></html>", encoding="utf-8")
        from_md = structure(blocks_of("\n\n".join(md)), "w.md")
        from_html = structure(html_reader.read_blocks(tmp_path / "w.html"), "w.html")
        assert from_md.title == from_html.title == wording["title"]
        assert _parts(from_md) == wording["parts"], path.name
        assert _parts(from_html) == wording["parts"], path.name


def test_a_sample_wording_round_trips_through_pdf(tmp_path: Path) -> None:
    """Three parts of the sample's home 2025 wording (33 clauses) as a PDF of several pages
    with a running footer: paragraphs that go on over a page break stay one paragraph."""
    from fpdf import FPDF

    from ragsweep.data import sample_path
    from ragsweep.data.importers.wordings import pdf as pdf_reader

    wording = json.loads((sample_path() / "corpus" / "home@2025.json").read_text("utf-8"))
    parts = wording["parts"][:3]

    class Wording(FPDF):
        def footer(self) -> None:
            self.set_y(-30)
            self.set_font("Helvetica", size=8)
            self.cell(0, 10, f"HM-PW-2025/01 page {self.page_no()}")

    def line(text: str, style: str, size: int, height: int) -> None:
        pdf.set_font("Helvetica", style=style, size=size)
        pdf.multi_cell(0, height, text, new_x="LMARGIN", new_y="NEXT")

    pdf = Wording(unit="pt", format="A5")
    pdf.set_margins(40, 40)
    pdf.add_page()
    line(wording["title"], "B", 16, 22)
    for part in parts:
        pdf.ln(8)
        line(f"{part['number']}. {part['title']}", "B", 13, 18)
        for c in part["clauses"]:
            line(f"{c['section']} {c['heading']}", "B", 10, 13)
            for paragraph in c["text"].split("\n"):
                line(paragraph, "", 10, 13)
                pdf.ln(6)
    pdf.output(str(tmp_path / "home.pdf"))
    assert pdf.page_no() >= 8
    found = structure(pdf_reader.read_blocks(tmp_path / "home.pdf"), "home.pdf")
    assert found.title == wording["title"]
    got = _parts(found)

    def flat(ps: list[dict]) -> list[dict]:
        return [
            dict(p, clauses=[dict(c, text=c["text"].replace("\n", " ")) for c in p["clauses"]])
            for p in ps
        ]

    assert flat(got) == flat(parts)
    # A paragraph whose last line ends a sentence at the foot of a page cannot be told from
    # one that goes on over the page: the reader starts a new paragraph there. Every other
    # clause keeps its paragraphs exactly.
    pairs = [
        (g, e)
        for gp, ep in zip(got, parts, strict=True)
        for g, e in zip(gp["clauses"], ep["clauses"], strict=True)
    ]
    exact = sum(g == e for g, e in pairs)
    assert len(pairs) == 33 and exact >= 30
    for g, e in pairs:
        assert g["text"].count("\n") >= e["text"].count("\n")  # breaks are only ever added


def test_numbers_that_are_not_clause_numbers_stay_text() -> None:
    got = clauses_of(
        head("Title", 1),
        head("Section 2 - Limits", 2),
        para("2.1 Flood defences"),
        para("2.5 metres of water is the most we cover, as 5.3 says."),
        para("2.1 Duplicate numbers that go backwards are text too."),
        para("1.4 A number of another part is text."),
        para("2.3 does not start a clause either."),
    )
    assert got == [
        (
            "2.1",
            "Flood defences",
            "2.5 metres of water is the most we cover, as 5.3 says.\n2.1 Duplicate numbers that "
            "go backwards are text too.\n1.4 A number of another part is text.\n2.3 does not "
            "start a clause either.",
        )
    ]


def test_sub_clause_lists_tell_letters_from_roman_numerals() -> None:
    letters = [f"({c}) item {c}" for c in "abcdefghi"]
    got = clauses_of(
        head("Title", 1),
        head("5 Exclusions", 2),
        para("5.1 Theft", "We will not pay for theft:", *letters[:2]),
        para("(i) by a lodger;", "(ii) by a guest;", *letters[2:], "(j) item j"),
    )
    ids = [s for s, _, _ in got]
    assert ids == [
        "5.1",
        "5.1(a)",
        "5.1(b)",
        "5.1(b)(i)",
        "5.1(b)(ii)",
        *(f"5.1({c})" for c in "cdefghi"),
        "5.1(j)",
    ]
    assert got[3] == ("5.1(b)(i)", "Theft", "by a lodger;")
    assert got[-2] == ("5.1(i)", "Theft", "item i")  # the letter after (h), not a roman one


def test_unnumbered_headings_give_slug_ids_and_headings_run_in() -> None:
    got = clauses_of(
        head("Title", 1),
        head("General conditions", 2),
        head("Cancellation", 3),
        para("You can cancel within 14 days."),
        head("7 Claims", 2),
        para("7.1 Theft. Tell the police within 24 hours."),
        para("7.2 Storm damage", "Send us photographs."),
        para("7.3", "Fire"),
    )
    assert got == [
        ("general-conditions-cancellation", "Cancellation", "You can cancel within 14 days."),
        ("7.1", "Theft", "Tell the police within 24 hours."),
        ("7.2", "Storm damage", "Send us photographs."),
        ("7.3", "Fire", "Fire"),
    ]


def test_markdown_heading_levels_and_sub_headings_inside_clauses() -> None:
    text = (
        "# Travel Policy\n\n# 1. Cover\n\n## 1.1 Medical expenses\n\n### What is covered\n\n"
        "Emergency treatment abroad.\n\n### What is not covered\n\nTreatment you planned.\n\n"
        "# Claims\n\nCall us first.\n\n## Documents\n\n1. Receipts\n2. Reports\n"
    )
    found = structure(blocks_of(text), "travel.md")
    assert found.title == "Travel Policy"  # numbered headings of its level do not stop it
    assert [(p.number, p.title, p.kind) for p in found.parts] == [
        ("1", "Cover", "cover"),
        ("2", "Claims", "claims"),  # an unnumbered part is numbered by its position
    ]
    assert [(c.section, c.heading, c.text, c.place) for c in found.clauses] == [
        (
            "1.1",
            "Medical expenses",
            "What is covered\nEmergency treatment abroad.\nWhat is not covered\nTreatment you "
            "planned.",
            "line 5",
        ),
        ("claims", "Claims", "Call us first.", "line 17"),
        ("claims-documents", "Documents", "1. Receipts\n2. Reports", "line 19"),
    ]


def test_word_numbering_linked_to_heading_styles(tmp_path: Path) -> None:
    """Word's usual multilevel list: the Heading 1 and 2 styles carry the numbering (the list
    levels name the styles), the paragraphs only their style."""
    import docx
    from docx.oxml import parse_xml

    document = docx.Document()
    linked = f"""<w:abstractNum {W} w:abstractNumId="91">
      <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/>
        <w:pStyle w:val="Heading1"/><w:lvlText w:val="%1"/></w:lvl>
      <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/>
        <w:pStyle w:val="Heading2"/><w:lvlText w:val="%1.%2"/></w:lvl>
    </w:abstractNum>"""
    numbering = document.part.numbering_part.element
    numbering.find(f"{{{W_URI}}}num").addprevious(parse_xml(linked))
    numbering.append(parse_xml(f'<w:num {W} w:numId="91"><w:abstractNumId w:val="91"/></w:num>'))
    for name in ("Heading 1", "Heading 2"):
        document.styles[
            name
        ].element.get_or_add_pPr().get_or_add_numPr().get_or_add_numId().val = 91
    document.add_heading("Motor Policy", level=0)
    for level, text in [(1, "Cover"), (2, "Fire"), (0, "We pay for fire damage to your car."),
                        (2, "Theft"), (0, "We pay if your car is stolen."), (1, "Exclusions"),
                        (2, "Racing"), (0, "We do not pay for racing or track days.")]:  # fmt: skip
        if level:
            document.add_heading(text, level=level)
        else:
            document.add_paragraph(text)
    src = tmp_path / "src"
    src.mkdir()
    document.save(str(src / "motor.docx"))
    (src / "manifest.yaml").write_text(
        "wordings:\n  - {file: motor.docx, document: motor, version: v1, effective: 2025-05-01}\n"
    )
    (wording,) = read_wordings("docx", src)
    assert wording.title == "Motor Policy"
    assert [(p.number, p.title, p.kind) for p in wording.structure.parts] == [
        ("1", "Cover", "cover"),
        ("2", "Exclusions", "exclusions"),
    ]
    assert [(c.section, c.heading, c.text, c.place) for c in wording.structure.clauses] == [
        ("1.1", "Fire", "We pay for fire damage to your car.", "paragraph 3"),
        ("1.2", "Theft", "We pay if your car is stolen.", "paragraph 5"),
        ("2.1", "Racing", "We do not pay for racing or track days.", "paragraph 8"),
    ]
    assert wording.meta.product is None


# ---------------------------------------------------------------------------------------------
# dry run and bad input


def test_dry_run_lists_the_clause_ids_and_writes_nothing(tmp_path: Path) -> None:
    ran = run_import(tmp_path, "--format", "html", "--source", FIX / "html", "--dry-run")
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    assert lines[0] == f"home@2024  {TITLE}  (home-2024.html, effective 2024-01-01)"
    assert "    home/3.2(a)@2024  Theft  (line 38)" in lines
    assert "  3. What is not covered  [exclusions]" in lines
    assert list(tmp_path.iterdir()) == []


def _copy(tmp_path: Path, fmt: str = "markdown") -> Path:
    return Path(shutil.copytree(FIX / fmt, tmp_path / "src"))


def _bad_version(src: Path) -> str:
    text = (src / "manifest.yaml").read_text()
    (src / "manifest.yaml").write_text(text.replace('    version: "2024"\n', ""))
    return f"{src / 'manifest.yaml'}:3: field 'version': missing for home-2024.md; add it"


def _undescribed(src: Path) -> str:
    (src / "home-2026.md").write_text("# Home\n\n## 1 Cover\n\n1.1 Fire\nWe pay.\n")
    return (
        f"{src / 'home-2026.md'}: no description: list it in the manifest (file, document, "
        "version, product, effective), give it YAML front matter or move it out of the folder"
    )


def _duplicate_clause(src: Path) -> str:
    text = (src / "home-2024.md").read_text()
    (src / "home-2024.md").write_text(text.replace("### 2.2 Standard", "### 2.1 Standard"))
    return (
        f"{src / 'home-2024.md'}:19: clause id '2.1' appears twice in this wording (first at "
        "line 15); number the clauses uniquely, or give the two headings different words"
    )


def _version_order(src: Path) -> str:
    text = (src / "home-2025.md").read_text()
    (src / "home-2025.md").write_text(
        text.replace("effective: 2025-01-01", "effective: 2023-06-01")
    )
    return (
        f"{src / 'home-2025.md'}:5: field 'effective': version '2025' sorts after '2024' but its "
        "effective date 2023-06-01 is not later than 2024-01-01; name versions so that they "
        "sort by date (e.g. 2025, 2025.2), as labels are carried from older to newer versions "
        "in that order"
    )


@pytest.mark.parametrize(
    "spoil",
    [_bad_version, _undescribed, _duplicate_clause, _version_order],
    ids=lambda f: f.__name__,
)
def test_bad_wordings_fail_on_one_line_and_leave_nothing(tmp_path: Path, spoil: Any) -> None:
    src = _copy(tmp_path)
    message = spoil(src)
    out = tmp_path / "out"
    ran = run_import(tmp_path, "--format", "markdown", "--source", src, *labelled(), "--out", out)
    assert ran.code == 2
    assert ran.err == f"ragsweep data: error: {message}\n"
    assert leftovers(tmp_path) == []


def test_a_label_on_a_clause_the_import_does_not_have(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    rows = (FIX / "labels.jsonl").read_text().splitlines()
    labels.write_text("\n".join([rows[0].replace('"2.1"', '"2.9"'), *rows[1:]]) + "\n")
    ran = run_import(tmp_path, "--format", "markdown", "--source", FIX / "markdown",
                     "--questions", FIX / "questions.jsonl", "--labels", labels,
                     "--out", tmp_path / "out")  # fmt: skip
    assert ran.code == 2
    assert ran.err == (
        f"ragsweep data: error: {labels}:1: field 'section': clause home/2.9@2024 is not in the "
        "corpus snapshot: corpus/home@2024.json has no section '2.9'; fix the section number "
        "(`ragsweep data import ... --dry-run` lists the imported clause ids)\n"
    )
    assert leftovers(tmp_path) == []


def test_a_scanned_pdf_is_refused(tmp_path: Path) -> None:
    from fpdf import FPDF
    from PIL import Image

    src = tmp_path / "src"
    src.mkdir()
    scan = tmp_path / "scan.png"
    Image.new("L", (200, 280), color=235).save(scan)
    pdf = FPDF()
    for _ in range(2):
        pdf.add_page()
        pdf.image(str(scan), x=10, y=10, w=190)
    pdf.output(str(src / "home-2024.pdf"))
    (src / "manifest.yaml").write_text(manifest({"2024": "home-2024.pdf"}))
    ran = run_import(tmp_path, "--format", "pdf", "--source", src, *labelled(),
                     "--out", tmp_path / "out")  # fmt: skip
    assert ran.code == 2
    assert ran.err == (
        f"ragsweep data: error: {src / 'home-2024.pdf'}: has no text layer on any of its 2 "
        "page(s) (scanned images?); ragsweep does no OCR: run OCR first (e.g. ocrmypdf) or "
        "import the wording as Word, HTML or Markdown\n"
    )
    assert leftovers(tmp_path) == []


def _locked_pdf(path: Path) -> str:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(0, 10, "1.1 Fire")
    pdf.set_encryption(owner_password="owner", user_password="secret")
    pdf.output(str(path))
    return "is password-protected; save a copy without the password and import that"


def _renamed_doc(path: Path) -> str:
    path.write_bytes(b"\xd0\xcf\x11\xe0 an old binary .doc renamed")
    return (
        "cannot be opened as a Word .docx file (PackageNotFoundError); save it from Word as "
        ".docx (a .doc or a renamed file will not do)"
    )


@pytest.mark.parametrize(("fmt", "spoil"), [("pdf", _locked_pdf), ("docx", _renamed_doc)])
def test_unreadable_files_are_named(tmp_path: Path, fmt: str, spoil: Any) -> None:
    src = tmp_path / "src"
    src.mkdir()
    message = spoil(src / f"home-2024.{fmt}")
    (src / "manifest.yaml").write_text(manifest({"2024": f"home-2024.{fmt}"}))
    ran = run_import(tmp_path, "--format", fmt, "--source", src, *labelled(),
                     "--out", tmp_path / "out")  # fmt: skip
    assert (ran.code, ran.err) == (
        2,
        f"ragsweep data: error: {src / f'home-2024.{fmt}'}: {message}\n",
    )
    assert leftovers(tmp_path) == []


def test_a_wordings_import_needs_its_labelled_set(tmp_path: Path) -> None:
    ran = run_import(tmp_path, "--format", "docx", "--source", FIX, "--out", tmp_path / "out")
    assert ran.code == 2
    assert ran.err == (
        "ragsweep data: error: --format docx needs --questions, --labels; see "
        "`ragsweep data import --help`\n"
    )
    ran = run_import(tmp_path, "--format", "pdf", "--source", FIX, *labelled("--added",
                     "2025-01-01"), "--out", tmp_path / "out")  # fmt: skip
    assert ran.err == (
        "ragsweep data: error: --added is an option of --format beir/trec/smart, not pdf; "
        "remove it\n"
    )
    assert leftovers(tmp_path) == []
