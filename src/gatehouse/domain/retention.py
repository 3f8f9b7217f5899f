"""Retention periods and which applications they erase (docs/operations.md, "Retention").

Pure rules. A tenant's `retention` is `{rejectedDays, abandonedDays}`, each null (keep, the
default) or a whole number of days from 1 to 3,650. The sweep erases an application `rejected`
for longer than `rejectedDays` (counted from its last status change), and one never submitted,
still `pending`, and not updated for longer than `abandonedDays`; never one on legal hold and
never one in any other status.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from gatehouse.domain.numbers import parse_int
from gatehouse.errors import invalid_argument

MIN_DAYS = 1
MAX_DAYS = 3650
FIELDS = ("rejectedDays", "abandonedDays")


class RetentionRule(StrEnum):
    """Why the retention sweep erases an application."""

    REJECTED = "rejected"
    ABANDONED = "abandoned"


@dataclass(frozen=True, slots=True)
class Retention:
    rejected_days: int | None = None
    abandoned_days: int | None = None


def check_retention(value: object, current: Retention) -> Retention:
    """The tenant's retention after a PATCH of `retention`: null keeps everything; an object
    changes the fields it names; anything else is 400 naming the field."""
    if value is None:
        return Retention()
    if not isinstance(value, dict):
        raise invalid_argument(
            "retention must be an object {rejectedDays, abandonedDays}.",
            "retention",
            "not an object",
        )
    unknown = sorted(set(value) - set(FIELDS))
    if unknown:
        raise invalid_argument(
            f"retention takes rejectedDays and abandonedDays only, not {unknown[0]}.",
            f"retention.{unknown[0]}",
            "unknown field",
        )
    days = {"rejectedDays": current.rejected_days, "abandonedDays": current.abandoned_days}
    for name in FIELDS:
        if name in value:
            given = value[name]
            days[name] = None if given is None else _days(given, f"retention.{name}")
    return Retention(days["rejectedDays"], days["abandonedDays"])


def _days(value: object, field: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise invalid_argument(
            f"{field} must be null or a whole number of days from {MIN_DAYS} to {MAX_DAYS}.",
            field,
            "not a whole number",
        )
    return parse_int(value, field, MIN_DAYS, MAX_DAYS)


def cutoff(as_of: datetime, days: int) -> datetime:
    """The moment before which a period of `days` ending at `as_of` began."""
    return as_of - timedelta(days=days)


def rule_for(
    retention: Retention,
    *,
    status: str,
    submitted: bool,
    status_changed_at: datetime,
    updated_at: datetime,
    as_of: datetime,
) -> RetentionRule | None:
    """The rule that erases this application at `as_of`, or None (the legal hold and erasure
    are the caller's to check)."""
    rejected, abandoned = retention.rejected_days, retention.abandoned_days
    was_rejected = status == "rejected" and rejected is not None
    if was_rejected and status_changed_at < cutoff(as_of, rejected):  # type: ignore[arg-type]
        return RetentionRule.REJECTED
    never_submitted = status == "pending" and not submitted
    if never_submitted and abandoned is not None and updated_at < cutoff(as_of, abandoned):
        return RetentionRule.ABANDONED
    return None


MAX_HOLD_REASON = 4000


def check_hold(hold: object, reason: object) -> tuple[bool, str]:
    """A legal hold request: `hold` true or false, `reason` 1 to 4,000 characters (trimmed)."""
    if not isinstance(hold, bool):
        raise invalid_argument("hold must be true or false.", "hold", "required")
    if not isinstance(reason, str) or not reason.strip():
        raise invalid_argument("Give the reason for the legal hold.", "reason", "required")
    cleaned = reason.strip()
    if len(cleaned) > MAX_HOLD_REASON:
        raise invalid_argument(
            f"reason can be at most {MAX_HOLD_REASON} characters.", "reason", "too long"
        )
    return hold, cleaned
