"""Schema-safe document ids for an imported collection: a source id that already fits
`[a-z0-9][a-z0-9_.-]*` is kept, any other is cleaned one to one (docs/importing.md, "What maps
to what").
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence

from ragsweep.errors import UserError

#: longest document id written; longer safe ids are cut and given a hash suffix
MAX_ID = 100

_SAFE_ID = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_UNSAFE_RUN = re.compile(r"[^a-z0-9_.-]+")


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def _clean(docid: str) -> str:
    s = _UNSAFE_RUN.sub("_", docid.lower())
    if not _SAFE_ID.match(s):
        s = "d" + s
    if len(s) > MAX_ID:
        s = f"{s[: MAX_ID - 9]}-{_short_hash(docid)}"
    return s


def safe_document_ids(docids: Sequence[str]) -> dict[str, str]:
    """Map source document ids to schema document ids (`[a-z0-9][a-z0-9_.-]*`), one to one.

    An id that already fits (and is at most `MAX_ID` characters) is kept. Otherwise it is
    lower-cased, every run of other characters becomes `_`, a `d` is put in front when it would
    not start with a letter or digit, and an id longer than `MAX_ID` is cut and ends with `-` and
    8 hex digits of its sha256. When that form equals another document's id, it gets the same
    `-<8 hex>` suffix. Depends only on the set of ids, never on their order.
    """
    distinct = sorted(set(docids))
    kept = {d for d in distinct if _SAFE_ID.fullmatch(d) and len(d) <= MAX_ID}
    cleaned = {d: _clean(d) for d in distinct if d not in kept}
    counts = Counter(cleaned.values())
    out: dict[str, str] = {d: d for d in kept}
    for d, s in cleaned.items():
        if s in kept or counts[s] > 1:
            s = f"{s[: MAX_ID - 9]}-{_short_hash(d)}"
        out[d] = s
    if len(set(out.values())) != len(out):  # pragma: no cover - a sha256 prefix collision
        raise UserError("two document ids map to the same safe id; rename one in the source")
    return {d: out[d] for d in docids}
