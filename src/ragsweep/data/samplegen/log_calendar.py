"""When the query log's sessions happen (2024-01-15 to 2025-12-19, quieter at weekends and at
night, growing over the two years) and which wording version a policyholder holds on a day: the
2024 form until the policy's first start or renewal on or after the 2025 form's start date
(`ProductDef.starts["2025"]`). See docs/sample.md.
"""

from __future__ import annotations

import datetime as dt
import random

from ragsweep.data.samplegen.spec import VERSIONS, ProductDef

START = dt.date(2024, 1, 15)
END = dt.date(2025, 12, 19)

_N_DAYS = (END - START).days + 1
_DAYS = list(range(_N_DAYS))
# weekends quieter, traffic growing over the two years
_DAY_WEIGHTS = [
    (0.55 if (START + dt.timedelta(d)).weekday() >= 5 else 1.0) * (0.6 + 1.0 * d / (_N_DAYS - 1))
    for d in _DAYS
]
_HOURS = list(range(23))  # no session starts after 23:00, so every session ends on its day
# fmt: off
_HOUR_WEIGHTS = [0.1, 0.05, 0.03, 0.03, 0.03, 0.1, 0.3, 0.8, 1.2, 1.5, 1.5, 1.4, 1.3, 1.4, 1.4,
                 1.3, 1.2, 1.1, 1.2, 1.3, 1.1, 0.8, 0.5]
# fmt: on


def session_start(rng: random.Random) -> tuple[dt.date, int]:
    """A session's day and its start in seconds since START midnight UTC."""
    day = START + dt.timedelta(rng.choices(_DAYS, _DAY_WEIGHTS)[0])
    ts = (day - START).days * 86400 + rng.choices(_HOURS, _HOUR_WEIGHTS)[0] * 3600
    return day, ts + rng.randrange(3600)


def _start_date(product: ProductDef, version: str) -> dt.date:
    return dt.datetime.strptime(product.starts[version], "%d %B %Y").date()


def version_on(product: ProductDef, day: dt.date, renews: tuple[int, int]) -> str:
    """The form of a policy renewing every year on `renews` (month, day), on `day`."""
    month, mday = renews
    term = dt.date(day.year, month, min(mday, 28))
    if term > day:
        term = term.replace(year=day.year - 1)
    return VERSIONS[1] if term >= _start_date(product, VERSIONS[1]) else VERSIONS[0]


def in_force(product: ProductDef, day: dt.date) -> str:
    """The form a policy bought on `day` would be on."""
    return VERSIONS[1] if day >= _start_date(product, VERSIONS[1]) else VERSIONS[0]
