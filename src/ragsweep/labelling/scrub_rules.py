"""The adaptable part of scrubbing: a `scrub.yaml` (the built-in one beside this module, or a
dataset's own copy) with the insurer's phone regions, policy and claim reference shapes, and the
codes its questions are about (`keep`). docs/scrubbing.md, "... the insurer's own rules".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import phonenumbers

from ragsweep.errors import UserError
from ragsweep.labelling.rules_file import builtin_text, read_yaml

#: the rules file beside this module, and the name of a dataset's own copy
RULES_FILE = "scrub.yaml"


@dataclass(frozen=True)
class Rules:
    """The adaptable part of scrubbing, read from a `scrub.yaml` (`load_rules`)."""

    source: str
    phone_regions: tuple[str, ...]
    policy_ref: tuple[re.Pattern[str], ...]
    claim_ref: tuple[re.Pattern[str], ...]
    keep: tuple[re.Pattern[str], ...]


def _patterns(doc: dict, key: str, source: str) -> tuple[re.Pattern[str], ...]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise UserError(f"{source}: field '{key}' must be a list of regexes; fix the rules")
    out = []
    for i, pattern in enumerate(value):
        try:
            out.append(re.compile(pattern, re.IGNORECASE))
        except re.error as e:
            raise UserError(f"{source}: field '{key}[{i}]': invalid regex ({e}); fix it") from None
    return tuple(out)


def load_rules(path: str | Path | None = None) -> Rules:
    """The rules in `path` (default: the built-in `scrub.yaml` beside this module)."""
    source, doc = read_yaml(path, RULES_FILE, "the scrubbing rules")
    if not isinstance(doc, dict):
        raise UserError(f"{source}: needs a mapping (phone_regions, policy_ref, claim_ref, keep)")
    regions = doc.get("phone_regions", ["GB"])
    known = phonenumbers.SUPPORTED_REGIONS
    if not isinstance(regions, list) or not regions or any(r not in known for r in regions):
        raise UserError(
            f"{source}: field 'phone_regions' must list region codes such as GB, US; fix it"
        )
    return Rules(
        source,
        tuple(regions),
        _patterns(doc, "policy_ref", source),
        _patterns(doc, "claim_ref", source),
        _patterns(doc, "keep", source),
    )


def rules_path(data_dir: str | Path | None) -> Path | None:
    """The dataset's own `scrub.yaml`, or None when it has none (the built-in rules apply)."""
    if data_dir is None:
        return None
    path = Path(data_dir) / RULES_FILE
    return path if path.is_file() else None


def builtin_rules_text() -> str:
    """The built-in `scrub.yaml`, to copy into a dataset folder and adapt."""
    return builtin_text(RULES_FILE)
