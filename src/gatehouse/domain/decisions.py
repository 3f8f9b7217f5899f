"""Decision requests and decision-history entries (docs/reference/tenant-api.md §5.12).

A staff decision names an `action`, an optional applicant-visible `comment`
and, to reject, a `rejectionReason`. Each allowed move writes one history
entry: the history action, the status transition, the actor's role (never
the staff email), the comment and the time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from gatehouse.domain.status import (
    NEEDS_INFO,
    CaseState,
    DecisionMove,
    HistoryAction,
    InvalidInput,
    decide,
)

MAX_COMMENT = 4000
MAX_REJECTION_REASON = 2000


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One row of the decision history."""

    action: str
    from_status: str
    to_status: str
    by_role: str
    by_staff_id: str | None
    comment: str | None
    at: datetime


def clean_comment(
    value: str | None,
    field: str = "comment",
    limit: int = MAX_COMMENT,
    label: str = "The comment",
) -> str | None:
    """Trimmed; an empty comment is none; longer than `limit` is invalid-argument, said in
    words (`label`), the field named in the error's details."""
    if value is None:
        return None
    text = value.strip()
    if len(text) > limit:
        raise InvalidInput(
            f"{label} can be at most {limit} characters; this one has {len(text)}.", field=field
        )
    return text or None


def plan_decision(
    state: CaseState,
    action: str,
    *,
    actor_id: str,
    actor_role: str,
    comment: str | None,
    rejection_reason: str | None,
    at: datetime,
) -> tuple[DecisionMove, HistoryEntry]:
    """The move a staff decision makes and the history entry it writes."""
    cleaned_comment = clean_comment(comment)
    cleaned_reason = clean_comment(
        rejection_reason, "rejectionReason", MAX_REJECTION_REASON, "The rejection reason"
    )
    move = decide(
        state, action, actor_id=actor_id, actor_role=actor_role, rejection_reason=cleaned_reason
    )
    entry = HistoryEntry(
        action=move.history_action,
        from_status=move.from_status,
        to_status=move.to_status,
        by_role=actor_role,
        by_staff_id=actor_id,
        comment=cleaned_comment,
        at=at,
    )
    return move, entry


def needs_info_entry(
    from_status: str, *, actor_id: str, actor_role: str, comment: str | None, at: datetime
) -> HistoryEntry:
    """The history entry of a staff move to needs_info (an information request)."""
    return HistoryEntry(
        action=HistoryAction.NEEDS_INFO,
        from_status=from_status,
        to_status=NEEDS_INFO,
        by_role=actor_role,
        by_staff_id=actor_id,
        comment=comment,
        at=at,
    )
