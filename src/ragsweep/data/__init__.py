"""The data layer: dataset folders (schema, loading and validation per file kind), the
dev/held-out split, TREC files and the importers. The names most callers need are exported here;
modules with a job of their own (schema, reader, write, manifest, trec, the importers, the
sample generator) are imported by their path.

Names are imported when first used (`from ragsweep.data import load_dataset` works as usual),
so reading a TREC file through `ragsweep.data.trec` does not load pandas.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "labels_hash": "ragsweep.data.hashing",
    "snapshot_hash": "ragsweep.data.hashing",
    "check_dataset": "ragsweep.data.load",
    "copy_dataset": "ragsweep.data.load",
    "load_dataset": "ragsweep.data.load",
    "sample_path": "ragsweep.data.load",
    "statistics": "ragsweep.data.load",
    "PART_KINDS": "ragsweep.data.schema",
    "SCHEMA_VERSION": "ragsweep.data.schema",
    "SUBSETS": "ragsweep.data.schema",
    "Clause": "ragsweep.data.schema",
    "admits": "ragsweep.data.schema",
    "Dataset": "ragsweep.data.schema",
    "Document": "ragsweep.data.schema",
    "clause_id": "ragsweep.data.schema",
    "render": "ragsweep.data.schema",
    "version_key": "ragsweep.data.schema",
    "swap_in_folder": "ragsweep.data.write",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ragsweep.data' has no attribute {name!r}")
