"""relevance.md: the optional written relevance rule, what grades 2, 1 and 0 mean for this
dataset, with examples. Judges read it; its bytes are part of the labelled-set hash, so a
tightened rule is a recorded change of the labels (docs/schema.md)."""

from __future__ import annotations

from pathlib import Path

from ragsweep.data.reader import DataFile
from ragsweep.data.schema import RELEVANCE_FILE


def load_relevance(root: Path) -> tuple[bytes, str] | None:
    """(bytes, text) of `root`/relevance.md, checked (UTF-8, not blank); None when absent.
    The bytes are hashed as they are: the text is not normalised."""
    f = DataFile(root, RELEVANCE_FILE)
    data = f.read_optional()
    if data is None:
        return None
    text = f.decode(data)
    if not text.strip():
        f.fail(
            "is empty; write the rule judges apply (what grades 2, 1 and 0 mean, with "
            "examples) or remove the file"
        )
    return data, text
