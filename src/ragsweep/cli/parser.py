"""The argument parser of every `ragsweep` verb: a usage error is one line and exit code 2 (a
`UserError`, which `ragsweep.cli.run_verb` prints after `ragsweep VERB: error:`), like every other
bad input, never argparse's usage block above it."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from ragsweep.errors import UserError


class Parser(argparse.ArgumentParser):
    """`argparse.ArgumentParser` whose usage errors raise a one-line `UserError` naming the
    subcommand (the words of `prog` after `ragsweep VERB`) and where its help is."""

    def error(self, message: str) -> NoReturn:
        sub = " ".join(self.prog.split()[2:])
        raise UserError(f"{sub + ': ' if sub else ''}{message}; see `{self.prog} --help`")


def whole(low: int) -> Any:
    """An argparse type: a whole number >= `low`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= {low}")
        return value

    return parse
