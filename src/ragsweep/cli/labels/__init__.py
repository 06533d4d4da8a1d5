"""`ragsweep labels VERB`: build and keep the labelled set (docs/labelling.md).

    ragsweep labels sample [LOG] [--data DIR] [--target 80] [--since DATE] [--out FILE]
    ragsweep labels sample --write-rules slices.yaml     (then --rules slices.yaml)
    ragsweep labels scrub-rules --data DIR               (DIR/scrub.yaml: the insurer's rules)
    ragsweep labels pool [--data DIR] [--system NAME=OVERRIDES ...] [--run NAME=FILE] [--out F]
    ragsweep labels pool --sweep NAME | --runs ID ... [--depth K] [--data DIR] [--out F]
    ragsweep labels prelabel SHEET [--chat-url URL --chat-model M [--api-key-env VAR]]
    ragsweep labels generate [--data DIR] [--per-slice N] [--seed S] [--chat-url URL --chat-model M]
        [--apply]                                        (synthetic questions from the corpus)
    ragsweep labels import SHEET ... --data DIR --judge NAME [--reason TEXT] [--adjudicated]
    ragsweep labels import SHEET --data DIR --model        (a pre-labelled sheet's model labels)
    ragsweep labels add-failure --data DIR --text Q --slice S --product P --version V --clause ...
    ragsweep labels check --data DIR [--apply] [--sheet F] [--decided F] [--carry Q:D/S ...]
    ragsweep labels move --to V (QID ... | --from V | --product P | --all) --data DIR [--apply]
        (decisions, both verbs: --carry Q:D/S, --label Q:D/S=G, --retire-question Q,
         --sheet F / --decided F, --retire-unanswered)
    ragsweep labels freeze QID ... | --all-rolling --data DIR
    ragsweep labels rebaseline SWEEP [--uri URI]
    ragsweep labels assign SHEET --judges A,B[,...] --overlap 50 [--seed 0] [--out-dir DIR]
    ragsweep labels agreement A [B] [--data DIR] [--threshold 0.6] [--save]
    ragsweep labels audit MODEL [HUMAN] [--data DIR]
    ragsweep labels audit-sheet --data DIR [--share 0.2] [--seed 0] [--out audit.csv]
    ragsweep labels export-ls SHEET [--out tasks.json]

`--data` is the dataset folder (default: the built-in sample); file arguments that do not exist
as given are looked for inside it (`review/reviewer2.jsonl`, `labels.jsonl`). Each verb is a
function of `ragsweep.labelling`; these modules only parse and print. A raw log
text is never printed: the log is scrubbed as it is read.
"""

from __future__ import annotations

import argparse
import sys

from ragsweep.cli.labels import generate, judged, sample, sheets, upkeep
from ragsweep.cli.labels.common import PROG, scrubbed_kinds
from ragsweep.cli.parser import Parser

__all__ = ["PROG", "main", "scrubbed_kinds"]


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    def verb(name: str, help: str, data: bool = True) -> argparse.ArgumentParser:
        p = verbs.add_parser(name, help=help, description=help)
        if data:
            p.add_argument("--data", metavar="DIR", help="dataset folder (default: the sample)")
        return p

    for add in (  # in the order `ragsweep labels --help` lists them
        sample.add_sample,
        sheets.add_pool,
        sheets.add_prelabel,
        judged.add_import,
        generate.add_generate,
        sample.add_scrub_rules,
        upkeep.add_failure_verb,
        upkeep.add_check_and_move,
        upkeep.add_freeze,
        upkeep.add_rebaseline,
        sheets.add_assign,
        sheets.add_export_ls,
        judged.add_agreement_and_audit,
    ):
        add(verb)
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
