"""The experiment layer, the only one that talks to MLflow: tracking, single runs, sweeps
(plan, launch, worker, finish), the confirm stage and reproduction."""
