"""`python -m ragsweep.cli ...`: the same as the `ragsweep` console script."""

from ragsweep.cli import main

raise SystemExit(main())
