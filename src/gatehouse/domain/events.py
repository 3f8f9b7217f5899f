"""Pure construction of event `data` (docs/reference/webhooks.md §5.2).

The outbox adds the common fields `clientId`, `externalRef` and `sequence`;
these functions build the rest: `status`, `previousStatus` (null on
submitted, equal to `status` when the status did not change) and the extra
fields of each event type.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gatehouse.domain.event_types import EventType
from gatehouse.domain.info_requests import open_items
from gatehouse.domain.status import HistoryAction

# Decision events and the `action` each carries (docs/reference/webhooks.md §5.2).
DECISION_EVENT_ACTIONS: dict[str, HistoryAction] = {
    EventType.DECISION_PROPOSED: HistoryAction.APPROVE,
    EventType.DECISION_APPROVED: HistoryAction.APPROVED,
    EventType.DECISION_PROPOSAL_REJECTED: HistoryAction.PROPOSAL_REJECTED,
    EventType.DECISION_REJECTED: HistoryAction.REJECT,
    EventType.DECISION_HOLD: HistoryAction.HOLD,
}


@dataclass(frozen=True, slots=True)
class ItemSummary:
    """An item as webhook payloads show it: no answers, no files."""

    item_id: str
    type: str
    prompt: str
    status: str


def status_changed(status: str, previous_status: str, reason: str) -> dict[str, Any]:
    """`application.status.changed`: `reason` is decision, info_request, pair_change or repair."""
    return {"status": status, "previousStatus": previous_status, "reason": reason}


def submitted(status: str) -> dict[str, Any]:
    """`application.submitted`: common fields only, `previousStatus` null."""
    return {"status": status, "previousStatus": None}


def decision(
    event_type: str,
    *,
    status: str,
    previous_status: str,
    actor_role: str,
    comment: str | None,
    rejection_reason: str | None = None,
) -> dict[str, Any]:
    """A decision event: `action`, `actorRole`, `comment`, and `rejectionReason` on rejected."""
    data: dict[str, Any] = {
        "status": status,
        "previousStatus": previous_status,
        "action": DECISION_EVENT_ACTIONS[event_type],
        "actorRole": actor_role,
        "comment": comment,
    }
    if event_type == EventType.DECISION_REJECTED:
        data["rejectionReason"] = rejection_reason
    return data


def info_request(
    *,
    status: str,
    previous_status: str,
    request_id: str,
    request_seq: int,
    round_: int,
    comment: str | None,
    items: Sequence[ItemSummary],
) -> dict[str, Any]:
    """Information-request events: requestId, requestSeq, round, openItems, comment,
    items [{itemId, type, prompt}] in the order staff listed them."""
    return {
        "status": status,
        "previousStatus": previous_status,
        "requestId": request_id,
        "requestSeq": request_seq,
        "round": round_,
        "openItems": open_items(item.status for item in items),
        "comment": comment,
        "items": [
            {"itemId": item.item_id, "type": item.type, "prompt": item.prompt} for item in items
        ],
    }
