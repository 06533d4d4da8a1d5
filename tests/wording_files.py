"""Policy wordings written as Word and PDF files for the import tests: python-docx (Word's
automatic numbering, which is not in the text) and fpdf2 (font sizes, bold runs, a running
footer). A wording is a list of items: ("title", text), ("para", text), ("part", title),
("clause heading", heading) followed by its ("para", text), ("clause", heading, text) (a
heading ending in "." is run in, bold, before the text; else it stands on its own line),
("sub", text) for (a), (b), ..., and ("table", rows) (Word only: a PDF table is only text in
lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

Items = list[tuple[Any, ...]]

W_URI = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W = f'xmlns:w="{W_URI}"'
#: a Word multilevel list: parts `1.`, clauses `1.1`, sub-clauses `(a)`
LEGAL_LIST = f"""<w:abstractNum {W} w:abstractNumId="90">
  <w:multiLevelType w:val="multilevel"/>
  <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/>
  </w:lvl>
  <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/>
  </w:lvl>
  <w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%3)"/>
  </w:lvl>
</w:abstractNum>"""


def write_docx(path: Path, items: Items) -> None:
    """The wording as Word writes it: Title and Heading styles, numbers from a numbering list."""
    import docx
    from docx.oxml import parse_xml

    document = docx.Document()
    numbering = document.part.numbering_part.element
    numbering.find(f"{{{W_URI}}}num").addprevious(parse_xml(LEGAL_LIST))
    numbering.append(parse_xml(f'<w:num {W} w:numId="90"><w:abstractNumId w:val="90"/></w:num>'))

    def number(paragraph: Any, level: int) -> None:
        num_pr = paragraph._p.get_or_add_pPr().get_or_add_numPr()
        num_pr.get_or_add_ilvl().val = level
        num_pr.get_or_add_numId().val = 90

    for item in items:
        kind = item[0]
        if kind == "title":
            document.add_heading(item[1], level=0)
        elif kind == "part":
            number(document.add_heading(item[1], level=1), 0)
        elif kind == "clause heading":
            number(document.add_heading(item[1], level=2), 1)
        elif kind == "clause":
            p = document.add_paragraph()
            p.add_run(item[1]).bold = True
            p.add_run(" " + item[2])
            number(p, 1)
        elif kind == "sub":
            number(document.add_paragraph(item[1], style="List Paragraph"), 2)
        elif kind == "table":
            table = document.add_table(rows=len(item[1]), cols=len(item[1][0]))
            for r, row in enumerate(item[1]):
                for c, text in enumerate(row):
                    table.cell(r, c).text = text
        else:
            document.add_paragraph(item[1])
    document.save(str(path))


def write_pdf(path: Path, items: Items, footer: str) -> None:
    """The wording as a PDF: a large title, part headings in 14 pt, clause numbers typed in
    bold, one part per page, `footer` (the form code) and the page number on every page."""
    from fpdf import FPDF

    class Wording(FPDF):
        def footer(self) -> None:
            self.set_y(-30)
            self.set_font("Helvetica", size=8)
            self.cell(0, 10, f"{footer} - page {self.page_no()}")

    pdf = Wording(unit="pt", format="A4")
    pdf.set_margins(56, 56)
    pdf.add_page()
    part = clause = sub = 0

    def text(body: str, *, bold: str = "") -> None:
        pdf.set_font("Helvetica", size=11)
        md = f"**{bold}** {body}" if bold else body
        pdf.multi_cell(0, 14, md, markdown=bool(bold), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(8)

    for item in items:
        kind = item[0]
        if kind == "title":
            pdf.set_font("Helvetica", style="B", size=18)
            pdf.multi_cell(0, 24, item[1], new_x="LMARGIN", new_y="NEXT")
            pdf.ln(10)
        elif kind == "part":
            part, clause = part + 1, 0
            if part > 1:
                pdf.add_page()
            pdf.set_font("Helvetica", style="B", size=14)
            pdf.multi_cell(0, 20, f"{part}. {item[1]}", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(6)
        elif kind == "clause heading":
            clause += 1
            pdf.set_font("Helvetica", style="B", size=11)
            pdf.multi_cell(0, 14, f"{part}.{clause} {item[1]}", new_x="LMARGIN", new_y="NEXT")
        elif kind == "clause":
            clause, sub = clause + 1, 0
            if item[1].endswith("."):  # a run-in heading: bold, then the text on the same line
                text(item[2], bold=f"{part}.{clause} {item[1]}")
            else:  # the heading on its own line
                pdf.set_font("Helvetica", style="B", size=11)
                heading = f"{part}.{clause} {item[1]}"
                pdf.multi_cell(0, 14, heading, new_x="LMARGIN", new_y="NEXT")
                text(item[2])
        elif kind == "sub":
            sub += 1
            text(f"({'abcdefgh'[sub - 1]}) {item[1]}")
        elif kind == "para":
            text(item[1])
        # tables: a PDF table is only text in lines; the fixture has none
    pdf.output(str(path))
