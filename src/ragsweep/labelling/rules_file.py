"""The YAML data files of the labelling verbs (slice rules, scrubbing rules, generation
templates): the built-in copy beside these modules, or a team's own file, read and parsed in one
place, so each refuses an unreadable file or bad YAML alike, in one line naming the file."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ragsweep.errors import UserError, not_yaml


def builtin_text(name: str) -> str:
    """The text of the built-in data file `name` beside the labelling modules."""
    return resources.files("ragsweep.labelling").joinpath(name).read_text("utf-8")


def read_yaml(path: str | Path | None, builtin: str, what: str) -> tuple[str, Any]:
    """(the file's name as errors show it, its parsed YAML): `path`, else the built-in file
    `builtin` (`ragsweep/labelling/<builtin>`). `what` names the content in errors ("the slice
    rules")."""
    if path is None:
        source, text = f"ragsweep/labelling/{builtin}", builtin_text(builtin)
    else:
        source = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            reason = getattr(e, "strerror", None) or "not UTF-8 text"
            raise UserError(f"{source}: cannot read {what} ({reason}); fix the path") from None
    try:
        return source, yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise not_yaml(source, e, f"fix {what}") from None
