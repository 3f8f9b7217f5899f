"""The application status machine (docs/reference/tenant-api.md §3.1; docs/reference/staff-api.md
§6.2, §6.3).

Pure rules: which staff decision actions are allowed from which status, by
which role, what status results, which decision-history action is recorded
and which events the transition causes. No HTTP, no SQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from gatehouse.domain.event_types import EventType
from gatehouse.domain.principals import Role, role_rank
from gatehouse.errors import (
    FAILED_PRECONDITION,
    INVALID_ARGUMENT,
    PERMISSION_DENIED,
    ErrorKind,
    GatehouseError,
)


class ApplicationStatus(StrEnum):
    """An application's status (docs/reference/tenant-api.md §2.3)."""

    PENDING = "pending"
    NEEDS_INFO = "needs_info"
    HOLD = "hold"
    PENDING_APPROVAL = "pending_approval"
    ACTIVE = "active"
    REJECTED = "rejected"


class DecisionAction(StrEnum):
    """The decision actions staff send (docs/reference/staff-api.md §6.2)."""

    APPROVE = "approve"
    COUNTERSIGN = "countersign"
    REJECT_PROPOSAL = "reject_proposal"
    REJECT = "reject"
    HOLD = "hold"
    RELEASE = "release"


class HistoryAction(StrEnum):
    """The `action` of a decision-history entry (docs/reference/tenant-api.md §5.12)."""

    APPROVE = "approve"
    APPROVED = "approved"
    PROPOSAL_REJECTED = "proposal_rejected"
    REJECT = "reject"
    HOLD = "hold"
    RELEASE = "release"
    NEEDS_INFO = "needs_info"
    # A staff member moved the case to another intake and the status moved with it
    # (docs/case-work.md "Changing the intake").
    PAIR_CHANGE = "pair_change"
    # The status was brought back in line with the case's facts (docs/case-work.md
    # "Checking a status").
    REPAIR = "repair"


class StatusChangeReason(StrEnum):
    """`reason` of application.status.changed (docs/reference/webhooks.md §5.2)."""

    DECISION = "decision"
    INFO_REQUEST = "info_request"
    PAIR_CHANGE = "pair_change"
    REPAIR = "repair"


# Short names for the members above, used across the features.
PENDING = ApplicationStatus.PENDING
NEEDS_INFO = ApplicationStatus.NEEDS_INFO
HOLD = ApplicationStatus.HOLD
PENDING_APPROVAL = ApplicationStatus.PENDING_APPROVAL
ACTIVE = ApplicationStatus.ACTIVE
REJECTED = ApplicationStatus.REJECTED

STATUSES: tuple[str, ...] = tuple(ApplicationStatus)

APPROVE = DecisionAction.APPROVE
COUNTERSIGN = DecisionAction.COUNTERSIGN
REJECT_PROPOSAL = DecisionAction.REJECT_PROPOSAL
REJECT = DecisionAction.REJECT
HOLD_ACTION = DecisionAction.HOLD
RELEASE = DecisionAction.RELEASE

DECISION_ACTIONS: tuple[str, ...] = tuple(DecisionAction)

# Each decision action in words, for the refusals people read (the dashboard shows them as
# they are; the staff API's `details` name the field).
ACTION_WORDS: dict[str, str] = {
    APPROVE: "Proposing approval",
    COUNTERSIGN: "Countersigning an approval",
    REJECT_PROPOSAL: "Turning down a proposed approval",
    REJECT: "Rejecting an application",
    HOLD_ACTION: "Putting an application on hold",
    RELEASE: "Releasing an application from hold",
}
UNKNOWN_ACTION = (
    "Choose one of the decisions: approve, countersign, reject_proposal, reject, hold or release."
)
PROPOSER_COUNTERSIGNING = (
    "You proposed this approval, so you cannot countersign it: "
    "a second staff member (mlro or above) must countersign."
)

# The least staff role each decision action needs.
REQUIRED_ROLE: dict[str, Role] = {
    APPROVE: Role.ANALYST,
    COUNTERSIGN: Role.MLRO,
    REJECT_PROPOSAL: Role.MLRO,
    REJECT: Role.ANALYST,
    HOLD_ACTION: Role.ANALYST,
    RELEASE: Role.ANALYST,
}

EVENT_STATUS_CHANGED = EventType.STATUS_CHANGED
EVENT_SUBMITTED = EventType.SUBMITTED
EVENT_PROPOSED = EventType.DECISION_PROPOSED
EVENT_APPROVED = EventType.DECISION_APPROVED
EVENT_PROPOSAL_REJECTED = EventType.DECISION_PROPOSAL_REJECTED
EVENT_REJECTED = EventType.DECISION_REJECTED
EVENT_HOLD = EventType.DECISION_HOLD

REASON_DECISION = StatusChangeReason.DECISION
REASON_INFO_REQUEST = StatusChangeReason.INFO_REQUEST
REASON_PAIR_CHANGE = StatusChangeReason.PAIR_CHANGE
REASON_REPAIR = StatusChangeReason.REPAIR


class CaseRuleError(GatehouseError):
    """A rule of the case machine refused a move; the subclass says which answer it gets."""

    kind: ErrorKind = FAILED_PRECONDITION

    def __init__(self, message: str, field: str | None = None) -> None:
        details = [{"field": field, "issue": message}] if field else None
        super().__init__(self.kind, message, details=details)


class MoveNotAllowed(CaseRuleError):
    """The current state does not allow the move (400 failed-precondition)."""

    kind = FAILED_PRECONDITION


class NotPermitted(CaseRuleError):
    """The actor may not make this move (403 permission-denied)."""

    kind = PERMISSION_DENIED


class InvalidInput(CaseRuleError):
    """The input itself is wrong (400 invalid-argument)."""

    kind = INVALID_ARGUMENT


class TextTooLong(InvalidInput):
    """A text is longer than its limit (400 invalid-argument): a form says "too long" rather
    than "fill this in"."""


@dataclass(frozen=True, slots=True)
class CaseState:
    """What the machine needs to know about an application."""

    status: str
    status_before_proposal: str | None = None
    proposed_by: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionMove:
    """The outcome of an allowed decision action."""

    from_status: str
    to_status: str
    # The decision-history action (docs/reference/tenant-api.md §2.5 `action`).
    history_action: HistoryAction
    # The specific event (none for release); application.status.changed
    # follows whenever the status moved.
    event_type: EventType | None
    # Set by a proposal only: where reject_proposal returns, and who proposed.
    status_before_proposal: str | None = None
    proposed_by: str | None = None
    rejection_reason: str | None = None

    @property
    def status_changed(self) -> bool:
        return self.from_status != self.to_status


def refusal(
    state: CaseState, action: str, *, actor_id: str, actor_role: str
) -> CaseRuleError | None:
    """Why `actor` may not make the decision `action` from `state` now, or None when it may.

    The one rule of who may make which move: the dashboard offers exactly the moves it
    allows (`allowed_moves`) and `decide` enforces it for every surface. Checked in order:
    a known action, the actor's role, the state, then the four-eyes rule of countersigning
    (docs/reference/staff-api.md §6.2, §6.3).
    """
    if action not in DECISION_ACTIONS:
        return InvalidInput(UNKNOWN_ACTION, field="action")
    needed = REQUIRED_ROLE[action]
    if role_rank(actor_role) < role_rank(needed):
        return role_refusal(action)
    return _state_refusal(state, action, actor_id)


def role_refusal(action: str) -> NotPermitted:
    """The refusal of an action to a role below the one it needs, in words."""
    return NotPermitted(f"{ACTION_WORDS[action]} needs the {REQUIRED_ROLE[action]} role or above.")


def _state_refusal(state: CaseState, action: str, actor_id: str) -> CaseRuleError | None:
    current = state.status
    if action == APPROVE and current == PENDING_APPROVAL:
        return MoveNotAllowed("An approval is already proposed for this application.")
    if action == COUNTERSIGN:
        if current != PENDING_APPROVAL:
            return MoveNotAllowed(
                "Only a proposed approval (pending_approval) can be countersigned."
            )
        if state.proposed_by is not None and state.proposed_by == actor_id:
            return NotPermitted(PROPOSER_COUNTERSIGNING)
    if action == REJECT_PROPOSAL and current != PENDING_APPROVAL:
        return MoveNotAllowed("Only a proposed approval (pending_approval) can be turned down.")
    if action == REJECT and current == REJECTED:
        return MoveNotAllowed("The application is already rejected.")
    if action == HOLD_ACTION and current == HOLD:
        return MoveNotAllowed("The application is already on hold.")
    if action == RELEASE and current != HOLD:
        return MoveNotAllowed("Only an application on hold can be released.")
    return None


def allowed_moves(state: CaseState, *, actor_id: str, actor_role: str) -> tuple[str, ...]:
    """The decision actions `actor` may take from `state`, in `DECISION_ACTIONS` order."""
    return tuple(
        action
        for action in DECISION_ACTIONS
        if refusal(state, action, actor_id=actor_id, actor_role=actor_role) is None
    )


def decide(
    state: CaseState,
    action: str,
    *,
    actor_id: str,
    actor_role: str,
    rejection_reason: str | None = None,
) -> DecisionMove:
    """Apply one decision action (docs/reference/staff-api.md §6.3) to `state`.

    Order of checks: a known action (invalid-argument), the actor's role
    (permission-denied), the action's own input (invalid-argument), then `refusal`: the
    state (failed-precondition) and the four-eyes rule of countersigning (permission-denied).
    """
    if action not in DECISION_ACTIONS:
        raise InvalidInput(UNKNOWN_ACTION, field="action")
    needed = REQUIRED_ROLE[action]
    if role_rank(actor_role) < role_rank(needed):
        raise role_refusal(action)
    reason = None
    if action == REJECT:
        reason = (rejection_reason or "").strip()
        if not reason:
            raise InvalidInput(
                "Give a reason for the rejection: the applicant and the tenant will see it.",
                field="rejectionReason",
            )
    refused = refusal(state, action, actor_id=actor_id, actor_role=actor_role)
    if refused is not None:
        raise refused
    current = state.status
    if action == APPROVE:
        return DecisionMove(
            from_status=current,
            to_status=PENDING_APPROVAL,
            history_action=HistoryAction.APPROVE,
            event_type=EVENT_PROPOSED,
            status_before_proposal=current,
            proposed_by=actor_id,
        )
    if action == COUNTERSIGN:
        return DecisionMove(
            from_status=current,
            to_status=ACTIVE,
            history_action=HistoryAction.APPROVED,
            event_type=EVENT_APPROVED,
        )
    if action == REJECT_PROPOSAL:
        back = state.status_before_proposal
        if back is None or back == PENDING_APPROVAL or back not in STATUSES:
            back = PENDING
        return DecisionMove(
            from_status=current,
            to_status=back,
            history_action=HistoryAction.PROPOSAL_REJECTED,
            event_type=EVENT_PROPOSAL_REJECTED,
        )
    if action == REJECT:
        return DecisionMove(
            from_status=current,
            to_status=REJECTED,
            history_action=HistoryAction.REJECT,
            event_type=EVENT_REJECTED,
            rejection_reason=reason,
        )
    if action == HOLD_ACTION:
        return DecisionMove(
            from_status=current,
            to_status=HOLD,
            history_action=HistoryAction.HOLD,
            event_type=EVENT_HOLD,
        )
    return DecisionMove(
        from_status=current,
        to_status=PENDING,
        history_action=HistoryAction.RELEASE,
        event_type=None,
    )


def after_info_request_raised(status: str) -> str:
    """Raising an information request moves any status to needs_info
    (docs/reference/tenant-api.md §3.1)."""
    return NEEDS_INFO


def after_request_responded(status: str, other_open_requests: int) -> str:
    """A needs_info application returns to pending once nothing is owed
    (docs/reference/tenant-api.md §3.3)."""
    if status == NEEDS_INFO and other_open_requests == 0:
        return PENDING
    return status
