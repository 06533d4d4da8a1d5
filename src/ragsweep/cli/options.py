"""Options several verbs share, each declared once: the TREC qrels file, the nDCG gain, the
relevance level, the output format, the folder of report files and the MLflow store. argparse
only: `ragsweep score` imports this and stays free of Hydra, pandas and MLflow.
"""

from __future__ import annotations

import argparse

from ragsweep.measures import GAINS


def add_qrels(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """`--qrels FILE`, required unless `required` is false."""
    parser.add_argument(
        "--qrels",
        required=required,
        metavar="FILE",
        help="qrels file: 'qid 0 docid grade' per line (.gz read as gzip)",
    )


def add_gain(parser: argparse.ArgumentParser, default: str) -> None:
    """`--gain exp|linear`, the nDCG gain."""
    parser.add_argument(
        "--gain",
        choices=GAINS,
        default=default,
        help=f"nDCG gain: exp = 2^g - 1, linear = g (trec_eval's); default {default}",
    )


def add_rel_level(parser: argparse.ArgumentParser) -> None:
    """`--rel-level N`, trec_eval's `-l` (checked by `measures.relevance_level`)."""
    parser.add_argument(
        "--rel-level",
        type=int,
        default=1,
        metavar="N",
        help="relevant means grade >= N for recall, P, RR and AP (trec_eval's -l; nDCG reads "
        "the grades); default 1",
    )


def add_format(parser: argparse.ArgumentParser, table: str, json: str) -> None:
    """`--format table|json`, table by default; `table` and `json` say what each prints."""
    parser.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help=f"table: {table} (default); json: {json}",
    )


def add_out(parser: argparse.ArgumentParser, files: str) -> None:
    """`--out DIR`: the report's `files` are written there too."""
    parser.add_argument("--out", metavar="DIR", help=f"also write {files} into DIR")


def add_tracking_uri(parser: argparse.ArgumentParser) -> None:
    """`--tracking-uri URI`, the MLflow store (`experiment.tracking.resolve_store`)."""
    parser.add_argument(
        "--tracking-uri",
        metavar="URI",
        help="MLflow store (default: $MLFLOW_TRACKING_URI, else ./mlruns/mlflow.db)",
    )
