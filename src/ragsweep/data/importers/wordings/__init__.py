"""Structured wordings: Markdown, HTML, Word and PDF policy wordings into dataset folders.

Each format module (`markdown`, `html`, `docx`, `pdf`) reads a file into format-neutral blocks
(`blocks`); `structure` finds the title, parts, clauses and sub-clauses in them by one set of
rules, the clause ids being the printed clause numbers; `manifest` says what each file is
(document, version, product, effective date); `convert` reads a folder, adds the labelled set
and writes the dataset all or nothing. The rules and where they fail: docs/importing.md.

    from ragsweep.data.importers.wordings.convert import (
        convert_wordings, read_wordings, write_wordings)
    wordings = read_wordings("markdown", "wordings/")
    converted = convert_wordings(wordings, name="home", fmt="markdown",
                                 questions="questions.jsonl", labels="labels.jsonl")
    report = write_wordings(converted, "data/home")
"""
