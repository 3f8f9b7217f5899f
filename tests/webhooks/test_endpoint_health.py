"""The endpoint health rule on its own (docs/reference/webhooks.md §6.6): no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gatehouse.webhooks import rules

NOW = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


def verdict(
    *,
    status: int | None = 500,
    dead: bool = True,
    failures: int = 0,
    since: datetime | None = None,
    scale: float = 1.0,
) -> rules.HealthVerdict:
    return rules.endpoint_health(
        http_status=status,
        dead=dead,
        consecutive_failures=failures,
        failing_since=since,
        now=NOW,
        scale=scale,
    )


def test_a_retried_failure_changes_nothing() -> None:
    assert verdict(dead=False, failures=7, since=NOW - timedelta(hours=30)) == (
        rules.HealthVerdict(7, NOW - timedelta(hours=30), None)
    )


def test_a_dead_delivery_counts_and_starts_the_failing_clock() -> None:
    assert verdict() == rules.HealthVerdict(1, NOW, None)
    earlier = NOW - timedelta(hours=1)
    assert verdict(failures=3, since=earlier) == rules.HealthVerdict(4, earlier, None)


@pytest.mark.parametrize("status", [None, 500, 503, 429, 301])
def test_the_twentieth_dead_delivery_in_a_row_disables(status: int | None) -> None:
    assert verdict(status=status, failures=18, since=NOW).disable is None
    assert verdict(status=status, failures=19, since=NOW) == rules.HealthVerdict(
        20, NOW, rules.REASON_CONSECUTIVE
    )


def test_410_disables_at_once_even_before_any_count() -> None:
    assert verdict(status=410) == rules.HealthVerdict(1, NOW, rules.REASON_GONE)
    # Before the other rules: a 410 that is also the 20th dead delivery is receiver_gone.
    assert verdict(status=410, failures=19).disable == rules.REASON_GONE


def test_failing_for_24_hours_scaled_disables() -> None:
    almost = NOW - timedelta(hours=24) + timedelta(seconds=1)
    assert verdict(failures=2, since=almost).disable is None
    assert verdict(failures=2, since=NOW - timedelta(hours=24)).disable == (
        rules.REASON_FAILING_24H
    )
    # Scaled: 24 h x 0.001 = 86.4 s.
    assert verdict(failures=2, since=NOW - timedelta(seconds=86), scale=0.001).disable is None
    assert verdict(failures=2, since=NOW - timedelta(seconds=87), scale=0.001).disable == (
        rules.REASON_FAILING_24H
    )
    # Only a dead delivery applies the count rules; a retried one never disables.
    assert verdict(dead=False, failures=25, since=NOW - timedelta(days=3)).disable is None
