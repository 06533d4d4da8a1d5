"""`ragsweep confirm SWEEP`: re-score a sweep's winner and baseline on the held-out questions.

Exit 0 when the winner is confirmed, 1 when it is not or when no configuration qualified.
"""

from __future__ import annotations

from ragsweep.cli.parser import Parser


def main(argv: list[str]) -> int:
    parser = Parser(
        prog="ragsweep confirm",
        description="Pick a sweep's winner by the declared rule (best decision metric on dev "
        "among configurations better than the baseline beyond noise that pass the guard "
        "slices), then compare it with the baseline on held-out questions.",
    )
    parser.add_argument("sweep", help="sweep name (experiment sweep:<name>) or parent run id")
    parser.add_argument(
        "--tracking-uri",
        metavar="URI",
        help="MLflow store (default: $MLFLOW_TRACKING_URI, else ./mlruns/mlflow.db)",
    )
    args = parser.parse_args(argv)
    from ragsweep.experiment import tracking
    from ragsweep.experiment.confirm import CONFIRMED, confirm_sweep

    store = tracking.resolve_store(args.tracking_uri)
    return 0 if confirm_sweep(args.sweep, store=store).verdict == CONFIRMED else 1
