"""The experiment layer, the only one that talks to MLflow: tracking, single runs, sweeps
(plan, launch, worker, finish), the confirm stage and reproduction; the process lifecycle
(owners, locks, warm-up, cluster checks) in `lifecycle` (docs/architecture.md)."""
