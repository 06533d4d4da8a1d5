"""Importers: BEIR folders, TREC files and SMART collections, and folders of policy wordings
(Markdown, HTML, Word, PDF: the `wordings` package), into ragsweep dataset folders.

Each collection format module reads its files into a `common.Collection`; `common.convert` maps
it onto the dataset schema and `common.write_dataset` writes it all-or-nothing. The wording
formats find parts and clauses in each file (`wordings.structure`) and take the labelled set as
given (`wordings.convert`). `ragsweep.cli.data_import` is `ragsweep data import`. The mapping
rules are in docs/importing.md.

    from ragsweep.data.importers.common import convert, write_dataset
    from ragsweep.data.importers.smart import read_smart_collection
    coll = read_smart_collection("cran.all.1400", "cran.qry", "cranqrel", "cranfield")
    report = write_dataset(convert(coll, name="cranfield"), "data/cranfield")
"""
