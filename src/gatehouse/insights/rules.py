"""The pure rules of the insights (docs/insights.md): the period, the age and duration
buckets, the nearest-rank percentile. No I/O.

Percentiles are nearest-rank: the p-th percentile of n sorted values is the value at rank
⌈p·n/100⌉ (1-based), always one of the values, never an interpolation, so SQLite and
PostgreSQL (which compute it in SQL, `queries.py`) and this reference agree to the second.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from gatehouse.errors import invalid_argument
from gatehouse.timeutil import parse_ts

DEFAULT_PERIOD = timedelta(days=30)
DAY = timedelta(days=1)
HOUR = 3600

# Open applications by age (now - created): [lower, upper) in days; None: no upper bound.
AGE_BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("<1d", 0, 1),
    ("1-3d", 1, 3),
    ("3-7d", 3, 7),
    ("7-30d", 7, 30),
    (">30d", 30, None),
)
# Time to decision, for the page's distribution chart: [lower, upper) in seconds.
DURATION_BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("under 1 hour", 0, HOUR),
    ("1 hour to 1 day", HOUR, 24 * HOUR),
    ("1 to 3 days", 24 * HOUR, 72 * HOUR),
    ("3 to 7 days", 72 * HOUR, 168 * HOUR),
    ("7 to 30 days", 168 * HOUR, 720 * HOUR),
    ("over 30 days", 720 * HOUR, None),
)
PERCENTILES = (50, 90)
# The finer ranges of the time to decision the daily summary counts (migration 0019 holds the
# same): range i is [DECISION_EDGES[i-1], DECISION_EDGES[i]) seconds, the first from 0, the
# last from 365 days on. Every bound of DURATION_BUCKETS is one of them, so the page's
# distribution is a sum of ranges; a percentile is found in its range, then read exactly.
DECISION_EDGES = (
    60, 300, 600, 1800, 3600, 7200, 14400, 28800, 43200, 64800, 86400, 129600, 172800,
    216000, 259200, 345600, 432000, 518400, 604800, 864000, 1209600, 1814400, 2592000,
    5184000, 7776000, 15552000, 31536000,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Filters:
    """What the figures are about: a period [start, end) and optionally a tenant and an
    intake."""

    start: datetime
    end: datetime
    tenant_id: str | None = None
    label_id: str | None = None


def _moment(value: str | None, field: str) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_ts(value)
    except ValueError:
        raise invalid_argument(
            f"{field} must be an RFC 3339 timestamp, such as 2026-11-01T00:00:00Z.",
            field,
            "not an RFC 3339 timestamp",
        ) from None


def _id(value: str | None, field: str) -> str | None:
    if value is not None and not value.strip():
        raise invalid_argument(f"{field} must not be empty.", field, "empty")
    return value


def filters_of(values: dict[str, str], now: datetime) -> Filters:
    """The filters of `GET /staff/v1/insights?tenantId&labelId&from&to`: `to` defaults to
    now, `from` to 30 days before `to`; `from` must come before `to`."""
    end = _moment(values.get("to"), "to") or now
    start = _moment(values.get("from"), "from") or end - DEFAULT_PERIOD
    if start >= end:
        raise invalid_argument("from must be before to.", "from", "not before to")
    return Filters(
        start, end, _id(values.get("tenantId"), "tenantId"), _id(values.get("labelId"), "labelId")
    )


def nearest_rank(values: Sequence[int], percent: int) -> int | None:
    """The nearest-rank percentile of `values` (the reference the SQL must match)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(percent * len(ordered) / 100))
    return ordered[rank - 1]


def bucket_of(value: int, buckets: Sequence[tuple[str, int, int | None]]) -> str:
    """The label of the bucket [lower, upper) that holds `value`."""
    for label, lower, upper in buckets:
        if value >= lower and (upper is None or value < upper):
            return label
    return buckets[0][0]


def decision_range(index: int) -> tuple[int, int | None]:
    """[lower, upper) seconds of the range `index` of DECISION_EDGES."""
    lower = 0 if index == 0 else DECISION_EDGES[index - 1]
    upper = DECISION_EDGES[index] if index < len(DECISION_EDGES) else None
    return lower, upper


def rank_of(count: int, percent: int) -> int:
    """The 1-based nearest rank of the `percent`-th percentile of `count` values."""
    return max(1, math.ceil(percent * count / 100))


def midnight(day: date) -> datetime:
    return datetime.combine(day, time(), tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Split:
    """A period cut where the daily summary can answer: the whole UTC days [first, last)
    inside it (none when `first` is None), and the moments at either end outside them
    (`fringes`, [from, to) each), which the applications answer directly."""

    first: date | None
    last: date | None
    fringes: tuple[tuple[datetime, datetime], ...]


def split(filters: Filters) -> Split:
    start, end = filters.start.astimezone(UTC), filters.end.astimezone(UTC)
    first = start.date() if midnight(start.date()) == start else start.date() + DAY
    last = end.date()
    if first >= last:
        return Split(None, None, ((start, end),))
    edges = ((start, midnight(first)), (midnight(last), end))
    return Split(first, last, tuple((a, b) for a, b in edges if a < b))
