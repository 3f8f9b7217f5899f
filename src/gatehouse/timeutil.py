"""UTC time and the RFC 3339 millisecond format of docs/reference/tenant-api.md §2.1"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import overload

# The last value `format_ts` formatted and its text (held, so `is` cannot meet a new
# object at a reused address); one tuple, swapped whole, so threads see a matching pair.
_LAST_FORMATTED: tuple[object, str] = (object(), "")

# RFC 3339 §5.6 date-time: full date, `T`, full time with seconds, optional fraction, and
# `Z` or a numeric offset. `datetime.fromisoformat` alone takes much more of ISO 8601
# (week dates, basic format, no seconds, `,` fractions, offsets without a colon).
_RFC3339 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"
)


def utcnow() -> datetime:
    """Now, UTC, truncated to milliseconds (what the API can show)."""
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


@overload
def format_ts(value: datetime) -> str: ...
@overload
def format_ts(value: None) -> None: ...
@overload
def format_ts(value: datetime | None) -> str | None: ...
def format_ts(value: datetime | None) -> str | None:
    """`2026-11-22T10:00:00.000Z`, or None."""
    global _LAST_FORMATTED
    if value is None:
        return None
    last = _LAST_FORMATTED
    if value is last[0]:
        # The same object again: a row's updatedAt that a read shares with its createdAt
        # (storage/prepared.py converts a value met twice in one result once).
        return last[1]
    text = _format_ts(value)
    _LAST_FORMATTED = (value, text)
    return text


def _format_ts(value: datetime) -> str:
    # A list page formats 200 timestamps: isoformat is C code, and its arguments are
    # given by position (keyword arguments cost more than the formatting itself).
    # Values read back are aware UTC (`UTC` itself on both databases): the first test.
    tz = value.tzinfo
    if tz is not UTC:
        if tz is None:
            value = value.replace(tzinfo=UTC)
        elif value.utcoffset():
            value = value.astimezone(UTC)
        else:
            # Another zero-offset zone: formatted as UTC ("+00:00" cut below).
            value = value.replace(tzinfo=UTC)
    return value.isoformat("T", "milliseconds")[:-6] + "Z"


def parse_ts(text: str) -> datetime:
    """Parse an RFC 3339 timestamp (with offset or Z) into an aware UTC datetime.

    Raises ValueError for anything else, including a timestamp without offset.
    """
    value = text.strip()
    if _RFC3339.fullmatch(value) is None:
        raise ValueError("not an RFC 3339 timestamp")
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:  # the shape is right, the values are not: 2026-02-30, 07:10:60
        raise ValueError("not an RFC 3339 timestamp") from None
    if parsed.tzinfo is None:
        raise ValueError("timestamp needs a UTC offset")
    try:
        return parsed.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00, 9999-12-31T23:59:59-01:00
        raise ValueError("timestamp is outside the years 1 to 9999 in UTC") from None
