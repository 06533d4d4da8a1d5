"""The scrubbing rules file (ragsweep.labelling.scrub_rules): a broken one is named in one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragsweep.errors import UserError
from ragsweep.labelling.scrub_rules import load_rules


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("keep: [1", "not valid YAML"),
        ("keep: ['(']", "field 'keep[0]': invalid regex"),
        ("phone_regions: [XX]", "field 'phone_regions'"),
        ("- a list", "needs a mapping"),
    ],
)
def test_bad_rules_are_named(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "scrub.yaml").write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=re.escape(message)):
        load_rules(tmp_path / "scrub.yaml")
