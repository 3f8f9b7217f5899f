"""The webhook event catalogue (docs/reference/webhooks.md §5.2): every event type Gatehouse
sends, and the wildcards an endpoint may subscribe to (§5.1)."""

from __future__ import annotations

from enum import StrEnum


class EventType(StrEnum):
    """Every event type the service emits, in the order of the catalogue."""

    SUBMITTED = "application.submitted"
    STATUS_CHANGED = "application.status.changed"
    DECISION_PROPOSED = "application.decision.proposed"
    DECISION_APPROVED = "application.decision.approved"
    DECISION_PROPOSAL_REJECTED = "application.decision.proposal_rejected"
    DECISION_REJECTED = "application.decision.rejected"
    DECISION_HOLD = "application.decision.hold"
    INFO_REQUEST_RAISED = "application.info_request.raised"
    INFO_REQUEST_RESPONDED = "application.info_request.responded"
    INFO_REQUEST_CLOSED = "application.info_request.closed"
    INFO_REQUEST_REMINDER = "application.info_request.reminder"
    WEBHOOK_TEST = "webhook.test"


class EventWildcard(StrEnum):
    """The only wildcards of an `events` filter, each allowed only as the sole entry."""

    ALL = "*"
    APPLICATION = "application.*"
    DECISION = "application.decision.*"
    INFO_REQUEST = "application.info_request.*"


# The prefix of the event types each wildcard matches.
WILDCARD_PREFIXES: dict[str, str] = {
    EventWildcard.ALL: "",
    EventWildcard.APPLICATION: "application.",
    EventWildcard.DECISION: "application.decision.",
    EventWildcard.INFO_REQUEST: "application.info_request.",
}
