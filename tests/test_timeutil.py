"""`format_ts` and `parse_ts` (docs/reference/tenant-api.md §2.1): RFC 3339 UTC with
milliseconds, whatever zone the value carries, and the last-value shortcut never answers
for another value."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from gatehouse.timeutil import format_ts, parse_ts


def reference(value: datetime) -> str:
    """The format written plainly: UTC, milliseconds truncated, `Z`."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


MOMENTS = [
    datetime(2026, 11, 24, 7, 10, 0, 123456, tzinfo=UTC),
    datetime(2026, 11, 24, 7, 10, 0, tzinfo=UTC),
    datetime(2026, 11, 24, 7, 10, 0, 999999, tzinfo=UTC),
    datetime(1999, 12, 31, 23, 59, 59, 1000),  # naive: read as UTC
    datetime(2026, 3, 1, 0, 30, 0, 5000, tzinfo=timezone(timedelta(hours=2))),
    datetime(2026, 3, 1, 0, 30, 0, 5000, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
    datetime(2026, 3, 1, 0, 30, 0, 5000, tzinfo=timezone(timedelta(0), "zero")),
    datetime(2026, 7, 1, 12, 0, 0, 250000, tzinfo=ZoneInfo("Europe/Paris")),
]


@pytest.mark.parametrize("value", MOMENTS, ids=str)
def test_format_ts_is_utc_with_milliseconds(value: datetime) -> None:
    assert format_ts(value) == reference(value)
    assert format_ts(value) == reference(value)  # the same object again (the shortcut)


def test_the_last_value_shortcut_answers_only_for_the_same_object() -> None:
    first = datetime(2026, 1, 1, tzinfo=UTC)
    assert format_ts(first) == "2026-01-01T00:00:00.000Z"
    # An equal moment in another zone, then a different one: each formatted for itself.
    same_moment = first.astimezone(timezone(timedelta(hours=1)))
    assert format_ts(same_moment) == "2026-01-01T00:00:00.000Z"
    other = datetime(2026, 1, 2, 3, 4, 5, 6000, tzinfo=UTC)
    assert format_ts(other) == "2026-01-02T03:04:05.006Z"
    assert format_ts(first) == "2026-01-01T00:00:00.000Z"
    assert format_ts(None) is None


def test_parse_then_format_round_trips() -> None:
    assert format_ts(parse_ts("2026-11-24T08:10:00.123+01:00")) == "2026-11-24T07:10:00.123Z"
    assert parse_ts("2026-11-24T07:10:00Z").tzinfo is UTC
    with pytest.raises(ValueError, match="not an RFC 3339 timestamp"):
        parse_ts("2026-11-24 07:10:00")


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-24",
        "2026-11-24 07:10:00Z",
        "2026-11-24T07:10Z",
        "2026-11-24T07Z",
        "20261124T071000Z",
        "2026-W48-2T07:10:00Z",
        "2026-11-24T07:10:00,5Z",
        "2026-11-24T07:10:00+0100",
        "2026-11-24T07:10:00+01",
        "2026-11-24T07:10:00.5+01:00:30",
        "2026-11-24T07:10:00.Z",
        "\u0662\u0660\u0662\u0666-11-24T07:10:00Z",  # Arabic-Indic digits in the year
        "2026-11-24T07:10:60Z",
        "2026-02-30T07:10:00Z",
    ],
)
def test_parse_ts_takes_rfc_3339_only(text: str) -> None:
    with pytest.raises(ValueError, match="not an RFC 3339 timestamp"):
        parse_ts(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-24T07:10:00Z", "2026-11-24T07:10:00.000Z"),
        ("2026-11-24t07:10:00z", "2026-11-24T07:10:00.000Z"),
        ("2026-11-24T07:10:00.5Z", "2026-11-24T07:10:00.500Z"),
        ("2026-11-24T07:10:00.123456789Z", "2026-11-24T07:10:00.123Z"),
        ("2026-11-24T08:10:00-00:00", "2026-11-24T08:10:00.000Z"),
        ("2026-11-24T02:40:00-05:30", "2026-11-24T08:10:00.000Z"),
    ],
)
def test_parse_ts_takes_every_rfc_3339_form(text: str, expected: str) -> None:
    assert format_ts(parse_ts(text)) == expected
