"""The data layer: dataset folders (schema, loading and validation per file kind), the
dev/held-out split and the importers. Other layers import from here, never from the modules
inside, so the layout below can change without touching them."""

from ragsweep.data.dataset import (
    PART_KINDS,
    SCHEMA_VERSION,
    SUBSETS,
    Clause,
    Dataset,
    Document,
    check_dataset,
    clause_id,
    labels_hash,
    load_dataset,
    render,
    sample_path,
    snapshot_hash,
    statistics,
    swap_in_folder,
)

__all__ = [
    "PART_KINDS",
    "SCHEMA_VERSION",
    "SUBSETS",
    "Clause",
    "Dataset",
    "Document",
    "check_dataset",
    "clause_id",
    "labels_hash",
    "load_dataset",
    "render",
    "sample_path",
    "snapshot_hash",
    "statistics",
    "swap_in_folder",
]
