"""Response shapes of endpoints, deliveries and notifications, and the event envelopes
(docs/reference/webhooks.md §2, §5; docs/reference/staff-api.md §7).

Each shape is a `TypedDict`: the views stay plain dicts, and the same types describe the
answers and the `webhooks` section of /openapi.json (docs/api-reference.md).
"""

from __future__ import annotations

from typing import Any, Literal, cast

from typing_extensions import TypedDict

from gatehouse.domain.event_types import EventType
from gatehouse.domain.status import HistoryAction, StatusChangeReason
from gatehouse.domain.webhooks import DeliveryStatus, DisabledReason, EndpointStatus
from gatehouse.storage.tables.core import Notification as NotificationRow
from gatehouse.storage.tables.webhooks import Delivery as DeliveryRow
from gatehouse.storage.tables.webhooks import WebhookEndpoint as EndpointRow
from gatehouse.timeutil import format_ts


class WebhookEndpoint(TypedDict):
    """A webhook endpoint; never its secret (docs/reference/webhooks.md §2.1)."""

    id: str
    url: str
    events: list[str]
    status: EndpointStatus
    description: str
    createdAt: str
    updatedAt: str
    disabledReason: DisabledReason | None
    consecutiveFailures: int


class CreatedWebhookEndpoint(WebhookEndpoint):
    """The answer of registering an endpoint: its signing secret, shown this once."""

    secret: str


class WebhookEndpointList(TypedDict):
    data: list[WebhookEndpoint]


class RotatedSecret(TypedDict):
    """The new secret; the previous one stays active until `previousSecretExpiresAt`."""

    secret: str
    previousSecretExpiresAt: str


class WebhookTestResult(TypedDict):
    """What one synchronous `webhook.test` send did (docs/reference/webhooks.md §4.10)."""

    success: bool
    httpStatus: int | None
    latencyMs: int
    responseSnippet: str | None
    sentHeaders: dict[str, str]
    error: str | None


class Delivery(TypedDict):
    """One event's delivery to one endpoint; no secrets, signatures or response bodies."""

    id: str
    eventId: str
    eventType: str
    status: DeliveryStatus
    attempts: int
    createdAt: str
    lastAttemptAt: str | None
    nextAttemptAt: str | None
    lastHttpStatus: int | None
    lastError: str | None


class DeliveryHistoryEntry(Delivery):
    """A delivery as the tenant console lists it: the tenant shape and how long its last
    attempt took (docs/console.md)."""

    lastLatencyMs: int | None


class DeliveryPage(TypedDict):
    data: list[Delivery]
    nextCursor: str | None
    hasMore: bool


class StaffDelivery(Delivery):
    """The tenant shape plus where the delivery goes (staff API)."""

    endpointId: str
    tenantId: str
    replayOf: str | None


class StaffDeliveryPage(TypedDict):
    data: list[StaffDelivery]
    nextCursor: str | None
    hasMore: bool


class Notification(TypedDict):
    """A staff notification; kind `endpoint_disabled` for automatic disabling."""

    id: str
    kind: str
    tenantId: str | None
    endpointId: str | None
    reason: str | None
    createdAt: str


class NotificationList(TypedDict):
    data: list[Notification]


# -- event envelopes and their `data` (docs/reference/webhooks.md §5) ------------------------


class EventEnvelope(TypedDict):
    """The body of every delivery; `data` depends on `type`."""

    id: str
    type: str
    apiVersion: str
    occurredAt: str
    tenantId: str
    environment: Literal["live", "sandbox"]
    idempotencyKey: str
    data: dict[str, Any]


class ApplicationEventData(TypedDict):
    """The `data` fields every application event carries."""

    clientId: str
    externalRef: str | None
    status: str
    # null on application.submitted; equal to `status` when the status did not change.
    previousStatus: str | None
    sequence: int


class StatusChangedData(ApplicationEventData):
    reason: StatusChangeReason


class DecisionEventData(ApplicationEventData):
    action: HistoryAction
    actorRole: str
    comment: str | None


class RejectedEventData(DecisionEventData):
    rejectionReason: str | None


class EventItem(TypedDict):
    """An item as events show it: no answers, no files."""

    itemId: str
    type: str
    prompt: str


class InfoRequestEventData(ApplicationEventData):
    requestId: str
    requestSeq: int
    round: int
    openItems: int
    comment: str | None
    items: list[EventItem]


class WebhookTestData(TypedDict):
    endpointId: str


# The `data` of each event type of the catalogue.
EVENT_DATA: dict[EventType, type] = {
    EventType.SUBMITTED: ApplicationEventData,
    EventType.STATUS_CHANGED: StatusChangedData,
    EventType.DECISION_PROPOSED: DecisionEventData,
    EventType.DECISION_APPROVED: DecisionEventData,
    EventType.DECISION_PROPOSAL_REJECTED: DecisionEventData,
    EventType.DECISION_REJECTED: RejectedEventData,
    EventType.DECISION_HOLD: DecisionEventData,
    EventType.INFO_REQUEST_RAISED: InfoRequestEventData,
    EventType.INFO_REQUEST_RESPONDED: InfoRequestEventData,
    EventType.INFO_REQUEST_CLOSED: InfoRequestEventData,
    EventType.INFO_REQUEST_REMINDER: InfoRequestEventData,
    EventType.WEBHOOK_TEST: WebhookTestData,
}


def endpoint_view(endpoint: EndpointRow) -> WebhookEndpoint:
    """`{id, url, events, status, description, createdAt, updatedAt, disabledReason,
    consecutiveFailures}`; never a secret."""
    return {
        "id": endpoint.id,
        "url": endpoint.url,
        "events": list(endpoint.events),
        "status": cast(EndpointStatus, endpoint.status),
        "description": endpoint.description,
        "createdAt": format_ts(endpoint.created_at),
        "updatedAt": format_ts(endpoint.updated_at),
        "disabledReason": cast(DisabledReason | None, endpoint.disabled_reason),
        "consecutiveFailures": endpoint.consecutive_failures,
    }


def _ts(value: Any) -> str | None:
    return format_ts(value) if value is not None else None


def delivery_view(delivery: DeliveryRow) -> Delivery:
    """`{id, eventId, eventType, status, attempts, createdAt, lastAttemptAt, nextAttemptAt,
    lastHttpStatus, lastError}`; no secrets, signatures or response bodies."""
    return {
        "id": delivery.id,
        "eventId": delivery.event_id,
        "eventType": delivery.event_type,
        "status": cast(DeliveryStatus, delivery.status),
        "attempts": delivery.attempts,
        "createdAt": format_ts(delivery.created_at),
        "lastAttemptAt": _ts(delivery.last_attempt_at),
        "nextAttemptAt": _ts(delivery.next_attempt_at) if delivery.status == "pending" else None,
        "lastHttpStatus": delivery.last_http_status,
        "lastError": delivery.last_error,
    }


def history_view(delivery: DeliveryRow) -> DeliveryHistoryEntry:
    """The tenant shape and `lastLatencyMs`; never a body or a signature."""
    return {**delivery_view(delivery), "lastLatencyMs": delivery.last_latency_ms}


def staff_delivery_view(delivery: DeliveryRow) -> StaffDelivery:
    """The tenant shape plus where the delivery goes (staff API)."""
    return {
        **delivery_view(delivery),
        "endpointId": delivery.endpoint_id,
        "tenantId": delivery.tenant_id,
        "replayOf": delivery.replay_of,
    }


def notification_view(notification: NotificationRow) -> Notification:
    """`{id, kind, tenantId, endpointId, reason, createdAt}`."""
    return {
        "id": notification.id,
        "kind": notification.kind,
        "tenantId": notification.tenant_id,
        "endpointId": notification.endpoint_id,
        "reason": notification.reason,
        "createdAt": format_ts(notification.created_at),
    }


def event_example(event_type: EventType) -> dict[str, Any]:
    """An example body of `event_type` for the API reference (docs/reference/webhooks.md §5)."""
    common: dict[str, Any] = {
        "clientId": "app_8f2k1c9d0a7b",
        "externalRef": "crm-4411",
        "status": "pending",
        "previousStatus": "pending",
        "sequence": 3,
    }
    data: dict[str, Any]
    if event_type == EventType.WEBHOOK_TEST:
        data = {"endpointId": "we_3f9a0b1c2d4e"}
    elif event_type == EventType.SUBMITTED:
        data = {**common, "previousStatus": None}
    elif event_type == EventType.STATUS_CHANGED:
        data = {**common, "status": "needs_info", "reason": StatusChangeReason.INFO_REQUEST}
    elif event_type.startswith("application.decision."):
        data = {
            **common,
            "action": DECISION_EXAMPLE_ACTIONS[event_type],
            "actorRole": "analyst",
            "comment": None,
        }
        if event_type == EventType.DECISION_REJECTED:
            data.update(status="rejected", rejectionReason="Documents do not match.")
    else:
        data = {
            **common,
            "status": "needs_info",
            "requestId": "ir_5c1e0f7a2d9b",
            "requestSeq": 1,
            "round": 1,
            "openItems": 1,
            "comment": "Please send a recent utility bill.",
            "items": [
                {
                    "itemId": "itm_0f1e2d3c4b5a",
                    "type": "document",
                    "prompt": "A utility bill from the last three months.",
                }
            ],
        }
    return {
        "id": "evt_0a1b2c3d4e5f",
        "type": str(event_type),
        "apiVersion": "v1",
        "occurredAt": "2026-11-22T10:00:00.000Z",
        "tenantId": "ten_4d3c2b1a0f9e",
        "environment": "live",
        "idempotencyKey": "evt_0a1b2c3d4e5f",
        "data": data,
    }


DECISION_EXAMPLE_ACTIONS: dict[str, HistoryAction] = {
    EventType.DECISION_PROPOSED: HistoryAction.APPROVE,
    EventType.DECISION_APPROVED: HistoryAction.APPROVED,
    EventType.DECISION_PROPOSAL_REJECTED: HistoryAction.PROPOSAL_REJECTED,
    EventType.DECISION_REJECTED: HistoryAction.REJECT,
    EventType.DECISION_HOLD: HistoryAction.HOLD,
}
