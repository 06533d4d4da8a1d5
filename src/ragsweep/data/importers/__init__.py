"""Importers: BEIR folders, TREC files and SMART collections, and folders of policy wordings
(Markdown, HTML, Word, PDF: the `wordings` package), into ragsweep dataset folders.

Each format module declares its `--format` names and options (`registry`). A collection format
(`beir`, `trecfiles`, `smart`) reads its files into a `records.Collection`; `convert` maps it
onto the dataset schema and `write` writes it all or nothing. The wording formats find parts and
clauses in each file and take the labelled set as given. The rules: docs/importing.md.

    from ragsweep.data.importers.convert import convert
    from ragsweep.data.importers.smart import read_smart_collection
    from ragsweep.data.importers.write import write_dataset
    coll = read_smart_collection("cran.all.1400", "cran.qry", "cranqrel", "cranfield")
    report = write_dataset(convert(coll, name="cranfield"), "data/cranfield")
"""
