"""`ragsweep reproduce RUN_ID`: rebuild a logged run from MLflow alone and compare every metric.

Exit 0 when every metric is identical, 1 with a table of differences otherwise, 2 when the run
cannot be reproduced here (unknown run, or its snapshot, labels or split differ from this data).
"""

from __future__ import annotations

from ragsweep.cli.parser import Parser
from ragsweep.experiment.reproduce import print_reproduction, reproduce


def main(argv: list[str]) -> int:
    parser = Parser(
        prog="ragsweep reproduce",
        description="Re-run a logged configuration or confirm run from its MLflow artifacts and "
        "compare every metric with the logged values.",
    )
    parser.add_argument("run_id", help="the MLflow run id to reproduce")
    parser.add_argument(
        "--uri",
        default=None,
        help="tracking URI (default: $MLFLOW_TRACKING_URI, else ./mlruns/mlflow.db)",
    )
    parser.add_argument(
        "--no-log",
        action="store_true",
        help="compare only; do not log the reproduction as a new run",
    )
    args = parser.parse_args(argv)
    rep = reproduce(args.run_id, uri=args.uri, log=not args.no_log)
    print_reproduction(rep)
    return 0 if rep.identical else 1
