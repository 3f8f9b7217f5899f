"""Shapes of retention and legal holds (docs/reference/staff-api.md §16.6)."""

from __future__ import annotations

from typing_extensions import TypedDict

from gatehouse.storage.tables.records import LegalHold
from gatehouse.timeutil import format_ts


class LegalHoldView(TypedDict):
    """`POST /staff/v1/applications/{clientId}/legal-hold`'s answer."""

    clientId: str
    legalHold: bool
    reason: str | None


class HoldDetails(TypedDict):
    """A hold as the case page and the evidence pack show it."""

    reason: str
    placedBy: str
    placedAt: str


class PlannedErasure(TypedDict):
    """One line of `gatehouse retention plan`."""

    clientId: str
    tenantId: str
    status: str
    rule: str
    since: str


def hold_details(hold: LegalHold | None) -> HoldDetails | None:
    if hold is None:
        return None
    return {
        "reason": hold.reason,
        "placedBy": hold.placed_by,
        "placedAt": format_ts(hold.placed_at),
    }
