"""UTC time and the RFC 3339 millisecond format of docs/reference/tenant-api.md §2.1"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import overload


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
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    elif value.utcoffset():
        value = value.astimezone(UTC)
    # isoformat is C code (a list page formats 200 timestamps); "+00:00" becomes "Z".
    return value.isoformat(timespec="milliseconds")[:-6] + "Z"


def parse_ts(text: str) -> datetime:
    """Parse an RFC 3339 timestamp (with offset or Z) into an aware UTC datetime.

    Raises ValueError for anything else, including a timestamp without offset.
    """
    value = text.strip()
    if "T" not in value and "t" not in value:
        raise ValueError("not an RFC 3339 timestamp")
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError("timestamp needs a UTC offset")
    return parsed.astimezone(UTC)
