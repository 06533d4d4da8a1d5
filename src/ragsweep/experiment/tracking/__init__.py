"""MLflow tracking, one module per job: where the store is (`store`), talking to a tracking server
that may go away and timing every call (`outage`), opening the store and creating experiments
(`opening`), a resource that runs out (`exhaustion`), logging a run (`runs`) and links into the
UI (`links`). Callers use the names below (`tracking.client`, `tracking.finish_run`).

MLflow is imported lazily (about 1.7 s and 200 MB): nothing that does not log pays for it. The
store and the experiment are created once, by the process that launches work (`prepare`): MLflow
3.x corrupts a brand-new sqlite store migrated by several processes at once
(tests/experiment/test_faults.py starts 8 runs at once on a fresh store). docs/server.md.
"""

from ragsweep.experiment.tracking.exhaustion import Reserve, exhaustion
from ragsweep.experiment.tracking.links import experiments_url, launch_url, runs_url
from ragsweep.experiment.tracking.opening import (
    DEFAULT_NOTE,
    check_store,
    client,
    configured_store,
    imported_meanwhile,
    opened_meanwhile,
    prepare,
    store_lock,
)
from ragsweep.experiment.tracking.outage import (
    CREATED_TAG,
    REACH_SECONDS,
    TimedClient,
    given_up,
    reach,
    reached_before,
    seconds_in_mlflow,
)
from ragsweep.experiment.tracking.runs import (
    DataInput,
    download,
    finish_run,
    flatten,
    log_inputs,
    log_run,
    log_table,
    start_run,
)
from ragsweep.experiment.tracking.store import (
    DEFAULT_DIR,
    SERVER_SCHEMES,
    WAIT_SECONDS,
    Store,
    StoreUnreachable,
    is_server,
    local_db,
    missing_store,
    resolve_store,
    wait_seconds,
)

__all__ = [
    "CREATED_TAG",
    "DEFAULT_DIR",
    "DEFAULT_NOTE",
    "REACH_SECONDS",
    "SERVER_SCHEMES",
    "WAIT_SECONDS",
    "DataInput",
    "Reserve",
    "Store",
    "StoreUnreachable",
    "TimedClient",
    "check_store",
    "client",
    "configured_store",
    "download",
    "exhaustion",
    "experiments_url",
    "finish_run",
    "flatten",
    "imported_meanwhile",
    "opened_meanwhile",
    "given_up",
    "is_server",
    "launch_url",
    "local_db",
    "log_inputs",
    "log_run",
    "log_table",
    "missing_store",
    "prepare",
    "reach",
    "reached_before",
    "resolve_store",
    "runs_url",
    "seconds_in_mlflow",
    "start_run",
    "store_lock",
    "wait_seconds",
]
