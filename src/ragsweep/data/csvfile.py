"""CSV files ragsweep wrote (a run's `per_question.csv` and `metrics.csv`, a report's
`report.csv`), read back with every number exactly as written: the report of logged runs is
then the sweep's own, to the bit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

#: pandas 2's default float parser can read a value one ulp off (-0.33333333333333337 as
#: -0.3333333333333333); its round-trip parser reads what `to_csv` wrote. pandas 3 parses
#: exactly by default and deprecates the option.
_EXACT: dict[str, Any] = (
    {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
)


def read_csv_exact(path: str | Path, **kwargs: Any) -> pd.DataFrame:
    """`pandas.read_csv(path, **kwargs)`, every float as written."""
    return pd.read_csv(path, **kwargs, **_EXACT)
