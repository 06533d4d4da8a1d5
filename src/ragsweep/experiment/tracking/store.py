"""Where the tracking store is: the `Store` a config or the environment names (the default: a local
sqlite store under ./mlruns), and what is refused before any work. No MLflow here. docs/server.md.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragsweep.errors import UserError

DEFAULT_DIR = "mlruns"


#: how long (seconds) a call waits for a tracking server that stopped answering before giving
#: up (`tracking.wait` in the config): a restart, a short outage
WAIT_SECONDS = 120.0


@dataclass(frozen=True)
class Store:
    """A resolved tracking store: URI plus the artifact root for experiments we create, and how
    long a call waits for a tracking server that stopped answering (`WAIT_SECONDS`)."""

    uri: str
    artifact_root: str | None  # file URI for the default local store; None = let the server decide
    wait: float = WAIT_SECONDS


class StoreUnreachable(UserError):
    """A tracking server that does not answer: at the first question (`reach`), or for longer
    than `Store.wait` seconds later on. `what` is the message without its fix."""

    def __init__(self, what: str, fix: str) -> None:
        super().__init__(f"{what}; {fix}")
        self.what = what


def resolve_store(
    uri: str | None = None, workdir: str | Path | None = None, wait: float | None = None
) -> Store:
    """`uri` if given, else $MLFLOW_TRACKING_URI, else the local sqlite store under `workdir`;
    `wait` seconds through an outage of a tracking server (default `WAIT_SECONDS`)."""
    uri = uri or os.environ.get("MLFLOW_TRACKING_URI") or None
    wait = WAIT_SECONDS if wait is None else float(wait)
    if uri:
        return Store(uri=uri, artifact_root=None, wait=wait)
    base = Path(workdir or Path.cwd()).resolve() / DEFAULT_DIR
    return Store(f"sqlite:///{base / 'mlflow.db'}", (base / "artifacts").as_uri(), wait)


def is_server(uri: str) -> bool:
    """Whether `uri` names a tracking server (http or https)."""
    return uri.startswith(SERVER_SCHEMES)


#: the schemes of a tracking server (`tracking=server` takes nothing else)
SERVER_SCHEMES = ("http://", "https://")


def wait_seconds(tracking_cfg: Mapping[str, Any]) -> float:
    """The config's `tracking.wait` (seconds through a tracking server's outage), checked."""
    value = tracking_cfg.get("wait", WAIT_SECONDS)
    try:
        seconds = float(WAIT_SECONDS if value is None else value)
    except (TypeError, ValueError):
        seconds = math.nan
    if not 0 <= seconds < math.inf:
        raise UserError(
            f"tracking.wait={value!r}: give the seconds to wait for a tracking server that "
            f"stopped answering, a number >= 0 (default {WAIT_SECONDS:.0f})"
        )
    return seconds


def _has_password(uri: str) -> bool:
    from urllib.parse import urlsplit

    try:
        return bool(urlsplit(uri).password)
    except ValueError:
        return False


def local_db(uri: str) -> Path | None:
    if uri.startswith("sqlite:///"):
        return Path(uri[len("sqlite:///") :])
    return None


def missing_store(store: Store) -> Path | None:
    """The file of a local sqlite store that does not exist (None: it exists, or the store is
    not a local file): readers refuse it rather than create an empty store."""
    db = local_db(store.uri)
    return db if db is not None and not db.exists() else None
