"""The application status machine (spec 1 §2.2, §3.1; CONTRACT §4 "Decision actions", §6).

Pure rules: which staff decision actions are allowed from which status, by
which role, what status results, which decision-history action is recorded
and which events the transition causes. No HTTP, no SQL.
"""

from __future__ import annotations

from dataclasses import dataclass

PENDING = "pending"
NEEDS_INFO = "needs_info"
HOLD = "hold"
PENDING_APPROVAL = "pending_approval"
ACTIVE = "active"
REJECTED = "rejected"

STATUSES = (PENDING, NEEDS_INFO, HOLD, PENDING_APPROVAL, ACTIVE, REJECTED)

STAFF_ROLES = ("analyst", "mlro", "admin", "super_admin")

# Decision actions staff send (CONTRACT §4).
APPROVE = "approve"
COUNTERSIGN = "countersign"
REJECT_PROPOSAL = "reject_proposal"
REJECT = "reject"
HOLD_ACTION = "hold"
RELEASE = "release"

DECISION_ACTIONS = (APPROVE, COUNTERSIGN, REJECT_PROPOSAL, REJECT, HOLD_ACTION, RELEASE)

# The least staff role each decision action needs.
REQUIRED_ROLE = {
    APPROVE: "analyst",
    COUNTERSIGN: "mlro",
    REJECT_PROPOSAL: "mlro",
    REJECT: "analyst",
    HOLD_ACTION: "analyst",
    RELEASE: "analyst",
}

# Events of CONTRACT §2.2.
EVENT_STATUS_CHANGED = "application.status.changed"
EVENT_SUBMITTED = "application.submitted"
EVENT_PROPOSED = "application.decision.proposed"
EVENT_APPROVED = "application.decision.approved"
EVENT_PROPOSAL_REJECTED = "application.decision.proposal_rejected"
EVENT_REJECTED = "application.decision.rejected"
EVENT_HOLD = "application.decision.hold"

# `reason` values of application.status.changed.
REASON_DECISION = "decision"
REASON_INFO_REQUEST = "info_request"


class CaseRuleError(Exception):
    """A rule of the case machine refused a move; `kind` says which answer it gets."""

    kind = "failed_precondition"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class MoveNotAllowed(CaseRuleError):
    """The current state does not allow the move (400 failed-precondition)."""

    kind = "failed_precondition"


class NotPermitted(CaseRuleError):
    """The actor may not make this move (403 permission-denied)."""

    kind = "permission_denied"


class InvalidInput(CaseRuleError):
    """The input itself is wrong (400 invalid-argument)."""

    kind = "invalid_argument"


def role_rank(role: str) -> int:
    return STAFF_ROLES.index(role) if role in STAFF_ROLES else -1


@dataclass(frozen=True, slots=True)
class CaseState:
    """What the machine needs to know about an application."""

    status: str
    status_before_proposal: str | None = None
    proposed_by: str | None = None


@dataclass(frozen=True, slots=True)
class DecisionMove:
    """The outcome of an allowed decision action."""

    from_status: str
    to_status: str
    # The decision-history action (spec 1 §2.3 `decision.action`).
    history_action: str
    # The specific event (none for release); application.status.changed
    # follows whenever the status moved.
    event_type: str | None
    status_before_proposal: str | None
    proposed_by: str | None
    rejection_reason: str | None

    @property
    def status_changed(self) -> bool:
        return self.from_status != self.to_status


def decide(
    state: CaseState,
    action: str,
    *,
    actor_id: str,
    actor_role: str,
    rejection_reason: str | None = None,
) -> DecisionMove:
    """Apply one decision action of CONTRACT §4 to `state`.

    Order of checks: a known action (invalid-argument), the actor's role
    (permission-denied), the action's own input, the state (failed-precondition),
    then the four-eyes rule of countersigning (permission-denied, CONTRACT §6).
    """
    if action not in DECISION_ACTIONS:
        raise InvalidInput(f"action must be one of {', '.join(DECISION_ACTIONS)}.", field="action")
    needed = REQUIRED_ROLE[action]
    if role_rank(actor_role) < role_rank(needed):
        raise NotPermitted(f"The {action} action needs the {needed} role or higher.")
    current = state.status
    if action == APPROVE:
        if current == PENDING_APPROVAL:
            raise MoveNotAllowed("An approval is already proposed for this application.")
        return DecisionMove(
            current, PENDING_APPROVAL, APPROVE, EVENT_PROPOSED, current, actor_id, None
        )
    if action == COUNTERSIGN:
        if current != PENDING_APPROVAL:
            raise MoveNotAllowed(
                "Only a proposed approval (pending_approval) can be countersigned."
            )
        if state.proposed_by is not None and state.proposed_by == actor_id:
            raise NotPermitted("The proposer cannot countersign their own proposal.")
        return DecisionMove(current, ACTIVE, "approved", EVENT_APPROVED, None, None, None)
    if action == REJECT_PROPOSAL:
        if current != PENDING_APPROVAL:
            raise MoveNotAllowed("Only a proposed approval (pending_approval) can be rejected.")
        back = state.status_before_proposal
        if back is None or back == PENDING_APPROVAL or back not in STATUSES:
            back = PENDING
        return DecisionMove(
            current, back, "proposal_rejected", EVENT_PROPOSAL_REJECTED, None, None, None
        )
    if action == REJECT:
        reason = (rejection_reason or "").strip()
        if not reason:
            raise InvalidInput("rejectionReason is required to reject.", field="rejectionReason")
        if current == REJECTED:
            raise MoveNotAllowed("The application is already rejected.")
        return DecisionMove(current, REJECTED, REJECT, EVENT_REJECTED, None, None, reason)
    if action == HOLD_ACTION:
        if current == HOLD:
            raise MoveNotAllowed("The application is already on hold.")
        return DecisionMove(current, HOLD, HOLD_ACTION, EVENT_HOLD, None, None, None)
    # RELEASE
    if current != HOLD:
        raise MoveNotAllowed("Only an application on hold can be released.")
    return DecisionMove(current, PENDING, RELEASE, None, None, None, None)


def after_info_request_raised(status: str) -> str:
    """Raising an information request moves any status to needs_info (spec 1 §3.1)."""
    return NEEDS_INFO


def after_request_responded(status: str, other_open_requests: int) -> str:
    """A needs_info application returns to pending once nothing is owed (CONTRACT §4)."""
    if status == NEEDS_INFO and other_open_requests == 0:
        return PENDING
    return status
