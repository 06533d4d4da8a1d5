"""query_log.jsonl: the optional raw query log (timestamp, session, text), for traffic shares.

A dataset load checks the file and keeps only its number of entries: the raw texts stay in
their file (a `Dataset` is pickled into every sweep folder). The log is read for its
texts only by `ragsweep labels sample`, which scrubs each one as it is read."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ragsweep.data.reader import DataFile, Spec
from ragsweep.data.schema import QUERY_LOG_FILE

_SPEC: Spec = {"ts": ("str", False), "session": ("str", False), "text": ("str", False)}
#: optional session context: the assistant's product and the policyholder's wording form code
_OPTIONAL: Spec = {"product": ("str", True), "form": ("str", True)}


def check_query_log(root: Path) -> int | None:
    """The number of entries of `root`/query_log.jsonl, every line checked; None when absent.
    Nothing of the texts is returned or kept."""
    f = DataFile(root, QUERY_LOG_FILE, private=True)  # raw user text: never quoted in errors
    data = f.read_optional()
    if data is None:
        return None
    rows = f.jsonl(data)
    for n, entry in enumerate(rows, start=1):
        f.fields(entry, {**_SPEC, **_OPTIONAL}, n, optional=list(_OPTIONAL))
        try:
            datetime.fromisoformat(entry["ts"])
        except ValueError:
            f.fail("is not an ISO timestamp; write e.g. 2025-06-01T09:13:22Z", n, "ts")
    return len(rows)
