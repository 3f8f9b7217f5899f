"""Moving a case to another intake, and bringing a status back in line with the case's facts
(docs/reference/staff-api.md "Intake change and repair"; docs/case-work.md "Changing the
intake", "Checking a status").

Pure rules: which statuses may change intake and where the status goes; which answers an
intake change keeps; and the three rules of a repair. No HTTP, no SQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from gatehouse.domain.status import (
    ACTIVE,
    NEEDS_INFO,
    PENDING,
    PENDING_APPROVAL,
    REJECTED,
    HistoryAction,
    MoveNotAllowed,
)

# Statuses whose intake no longer changes: the decision is made.
DECIDED: frozenset[str] = frozenset({ACTIVE, REJECTED})


def intake_change_refusal(status: str) -> MoveNotAllowed | None:
    """Why a case in `status` may not change intake, or None when it may."""
    if status in DECIDED:
        return MoveNotAllowed(
            f"The application is {status}: its decision is made, so its intake stays."
        )
    return None


def status_after_intake_change(status: str) -> str:
    """A proposal lapses with the intake it was made under: pending_approval returns to
    pending; every other status stays."""
    return PENDING if status == PENDING_APPROVAL else status


def kept_answers(
    answers: Mapping[str, Any], old_keys: Iterable[str], new_keys: Iterable[str]
) -> dict[str, Any]:
    """The form answers that survive an intake change: those under a key both intakes' forms
    name. The rest are dropped (the new form does not ask for them)."""
    shared = set(old_keys) & set(new_keys)
    return {key: value for key, value in answers.items() if key in shared}


@dataclass(frozen=True, slots=True)
class LastEntry:
    """The newest decision-history entry of a case: what it did, from which status, by whom."""

    action: str | None
    from_status: str | None
    by_staff_id: str | None
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class CaseFacts:
    """What a repair reads of a case besides its status."""

    status: str
    # The newest decision-history entry, or None when the case has none.
    last_entry: LastEntry | None
    # Whether an active information request holds an open or reopened item.
    owes_answers: bool

    @property
    def proposal_waiting(self) -> bool:
        """A proposal waits for its countersignature when it is the newest entry of the
        history: every later move (countersigning, turning it down, a rejection, a hold,
        an information request, an intake change) writes an entry after it."""
        return self.last_entry is not None and self.last_entry.action == HistoryAction.APPROVE


def repaired_status(facts: CaseFacts) -> str:
    """The status the case's facts call for, by three rules in order:

    1. a proposal waiting for its countersignature means pending_approval;
    2. needs_info with no request holding an open or reopened item becomes pending;
    3. pending with a request holding an open or reopened item becomes needs_info.

    Any other status stays.
    """
    if facts.proposal_waiting:
        return PENDING_APPROVAL
    if facts.status == NEEDS_INFO and not facts.owes_answers:
        return PENDING
    if facts.status == PENDING and facts.owes_answers:
        return NEEDS_INFO
    return facts.status
