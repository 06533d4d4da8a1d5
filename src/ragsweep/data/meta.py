"""dataset.json: the schema version, the name, the slices in report order, the generator, and
optionally each slice's share of production traffic (`traffic_weights`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragsweep.conventions import ALL, reserved_slice
from ragsweep.data.reader import DataFile, Spec, describe
from ragsweep.data.schema import META_FILE, SCHEMA_VERSION

_SPEC: Spec = {
    "schema_version": ("int", False),
    "name": ("str", False),
    "description": ("str", False),
    "slices": ("list", False),
    "generator": ("object", True),
    "notes": ("object", False),
    "traffic_weights": ("object", False),
}
_GENERATOR: Spec = {"name": ("str", False), "version": ("str", False), "seed": ("int", True)}


def load_meta(root: Path) -> dict[str, Any]:
    """dataset.json of the folder `root`, checked, as read. The schema version is checked
    before anything else: a newer dataset gets "upgrade ragsweep", not a field-by-field list."""
    f = DataFile(root, META_FILE)
    meta = f.json_object(f.read("name, slices, schema_version"))
    version = meta.get("schema_version")
    if "schema_version" not in meta:
        f.fail(f'missing; add "schema_version": {SCHEMA_VERSION}', field="schema_version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        f.fail(
            f"unknown schema version {version!r}: this ragsweep reads version "
            f"{SCHEMA_VERSION}; upgrade ragsweep or convert the dataset",
            field="schema_version",
        )
    f.fields(meta, _SPEC, optional=("notes", "traffic_weights"))
    f.nonblank(meta["name"], None, "name")
    _check_slices(f, meta["slices"])
    if "traffic_weights" in meta:
        _check_weights(f, meta["traffic_weights"], meta["slices"])
    if meta["generator"] is not None:
        f.fields(meta["generator"], _GENERATOR, prefix="generator.")
    return meta


def _check_slices(f: DataFile, slices: list[Any]) -> None:
    """Non-empty, distinct, non-blank strings, none named after a summary row of the reports
    (`ragsweep.conventions.reserved_slice`)."""
    if not slices:
        f.fail(
            f'is empty; list at least one slice (an unsliced set uses ["{ALL}"])', field="slices"
        )
    seen: set[str] = set()
    for i, s in enumerate(slices):
        where = f"slices[{i}]"
        if not isinstance(s, str) or not s.strip():
            f.fail(f"expected a non-empty string, got {describe(s)}", field=where)
        if s in seen:
            f.fail(f"slice {s!r} is listed twice; list each once", field=where)
        if reserved_slice(s, len(slices)):
            f.fail(
                f"slice name {s!r} is reserved for the report's summary rows"
                + (" (allowed only as the only slice)" if s == ALL else "")
                + "; rename the slice",
                field=where,
            )
        seen.add(s)


def _check_weights(f: DataFile, weights: dict[str, Any], slices: list[str]) -> None:
    """Each listed slice's share of traffic, a number >= 0, some > 0; slices left out get 0."""
    for s, w in weights.items():
        where = f"traffic_weights.{s}"
        if s not in slices:
            f.fail(f"names no slice of this set (its slices: {', '.join(slices)})", field=where)
        if isinstance(w, bool) or not isinstance(w, int | float) or not 0 <= w < float("inf"):
            f.fail(f"expected a share >= 0, got {describe(w)}", field=where)
    if not any(w > 0 for w in weights.values()):
        f.fail("gives no slice a share > 0; give each slice its share", field="traffic_weights")
