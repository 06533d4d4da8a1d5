"""The process lifecycle of a sweep: who owns a run and whether it lives, the locks, the workers'
warm-up, the Ray checks, and the tracking server's process. The rest of ragsweep uses it through
these names only (an import-linter contract keeps it so); docs/architecture.md, "experiment".

- A run's owner: `owner_tags(owner)` (the tags a new run carries), `OWNER_TAG`, `me()`,
  `alive(tags)`, `describe(tags)`, `mark_killed(mc, run_id, why)`.
- A launch: `SweepLock(path)` (one launch per sweep in this folder; `.beat` keeps a heartbeat
  on its runs, `.reserve` space for ending them), `taking_over(store, experiment_id, ours)`
  (under the store's lock: a live launch refused, a dead one's runs marked KILLED),
  `kill_orphans(...)` (the runs its dead workers left RUNNING), `Warmup(args)` and
  `watch_workers()` (workers started early, each watching the launcher), `check_workers(...)`
  (on Ray: every node reaches what it needs), `joblib_arguments(args)`.
- A worker: `watch(owner, remote_alive)` (exit when the launcher is gone).
- A server process: `port_free`, `free_port`, `answers`, `signal_group`, `stop_group`,
  `stop_tree`.
"""

from ragsweep.experiment.lifecycle.claims import SweepLock, kill_orphans, taking_over
from ragsweep.experiment.lifecycle.cluster import check_workers
from ragsweep.experiment.lifecycle.owners import (
    OWNER_TAG,
    alive,
    describe,
    mark_killed,
    me,
    owner_tags,
    watch,
)
from ragsweep.experiment.lifecycle.processes import (
    answers,
    free_port,
    port_free,
    signal_group,
    stop_group,
    stop_tree,
)
from ragsweep.experiment.lifecycle.warm import Warmup, joblib_arguments, watch_workers

__all__ = [
    "OWNER_TAG",
    "SweepLock",
    "Warmup",
    "alive",
    "answers",
    "check_workers",
    "describe",
    "free_port",
    "joblib_arguments",
    "kill_orphans",
    "mark_killed",
    "me",
    "owner_tags",
    "port_free",
    "signal_group",
    "stop_group",
    "stop_tree",
    "taking_over",
    "watch",
    "watch_workers",
]
