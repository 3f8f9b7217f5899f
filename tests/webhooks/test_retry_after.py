"""Reading a receiver's `Retry-After` (docs/reference/webhooks.md §6.5): whatever it holds,
the rule returns, and only ASCII delta-seconds or an HTTP date count. No database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gatehouse.webhooks import rules

NOW = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 120\t", 120.0),
        ("0", 0.0),
        ("999999999999", 999999999999.0),
        ("Sun, 22 Nov 2026 10:05:00 GMT", 300.0),
        ("Sun, 22 Nov 2026 09:00:00 GMT", 0.0),  # in the past: no wait
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),
        (
            "Fri, 31 Dec 9999 23:59:59 GMT",
            (datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC) - NOW).total_seconds(),
        ),
    ],
)
def test_valid_values(value: str, seconds: float) -> None:
    assert rules.parse_retry_after(value, NOW) == seconds


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "   ",
        "²",
        "٣",
        "١٢٠",
        "12²",
        "9" * 13,
        "9" * 400,
        "9" * 5000,
        "-5",
        "+5",
        "1.5",
        "1e3",
        "0x10",
        "soon",
        "ÿþý",
        "120 120",
        "Sun, 22 Nov 2026 10:05:00",  # no zone
        "Sun, 22 Nov 2026 10:05:00 -0000",  # no known zone
        "Sun, 31 Nov 2026 10:05:00 GMT",  # no such day
        "Sun, 22 Nov 20266 10:05:00 GMT",
        "Sun, 22 Nov 2026 10:05:00 GMT" + " " * 100,
    ],
)
def test_anything_else_is_ignored(value: str | None) -> None:
    assert rules.parse_retry_after(value, NOW) is None


@pytest.mark.parametrize(
    "value",
    ["²", "٣", "9" * 20, "9" * 400, "9" * 5000, "Fri, 31 Dec 9999 23:59:59 -2359", "soon"],
)
@pytest.mark.parametrize("status", [429, 503])
def test_an_ignored_or_unreachable_value_leaves_the_normal_schedule(
    value: str, status: int
) -> None:
    step = rules.next_step(
        rules.Attempted(status=status, error=f"HTTP {status}", retry_after=value),
        attempts_made=1,
        first_attempt_at=NOW,
        now=NOW,
        max_attempts=12,
        scale=1.0,
    )
    assert step.status == "pending"
    assert step.retry_at is not None
    assert timedelta(seconds=15) <= step.retry_at - NOW <= timedelta(seconds=30)


def test_a_value_inside_the_scaled_bound_replaces_the_schedule_and_one_past_it_does_not() -> None:
    def retry_at(value: str, now: datetime) -> datetime | None:
        return rules.next_step(
            rules.Attempted(status=503, error="HTTP 503", retry_after=value),
            attempts_made=2,
            first_attempt_at=NOW,
            now=now,
            max_attempts=12,
            scale=0.001,  # the bound: first attempt + 86.4 s
        ).retry_at

    later = NOW + timedelta(seconds=80)
    assert retry_at("6", later) == later + timedelta(seconds=6)
    assert retry_at("7", later) != later + timedelta(seconds=7)  # 87 s > 86.4 s
