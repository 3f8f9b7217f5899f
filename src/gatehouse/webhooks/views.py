"""Response shapes of endpoints and deliveries (spec 2 §2.1; CONTRACT §2.1, §4, §6)."""

from __future__ import annotations

from typing import Any

from gatehouse.storage.tables.core import Notification
from gatehouse.storage.tables.webhooks import Delivery, WebhookEndpoint
from gatehouse.timeutil import format_ts


def endpoint_view(endpoint: WebhookEndpoint) -> dict[str, Any]:
    """`{id, url, events, status, description, createdAt, updatedAt, disabledReason,
    consecutiveFailures}`; never a secret (spec 2 §2.1)."""
    return {
        "id": endpoint.id,
        "url": endpoint.url,
        "events": list(endpoint.events),
        "status": endpoint.status,
        "description": endpoint.description,
        "createdAt": format_ts(endpoint.created_at),
        "updatedAt": format_ts(endpoint.updated_at),
        "disabledReason": endpoint.disabled_reason,
        "consecutiveFailures": endpoint.consecutive_failures,
    }


def _ts(value: Any) -> str | None:
    return format_ts(value) if value is not None else None


def delivery_view(delivery: Delivery) -> dict[str, Any]:
    """`{id, eventId, eventType, status, attempts, createdAt, lastAttemptAt, nextAttemptAt,
    lastHttpStatus, lastError}`; no secrets, signatures or response bodies."""
    return {
        "id": delivery.id,
        "eventId": delivery.event_id,
        "eventType": delivery.event_type,
        "status": delivery.status,
        "attempts": delivery.attempts,
        "createdAt": format_ts(delivery.created_at),
        "lastAttemptAt": _ts(delivery.last_attempt_at),
        "nextAttemptAt": _ts(delivery.next_attempt_at) if delivery.status == "pending" else None,
        "lastHttpStatus": delivery.last_http_status,
        "lastError": delivery.last_error,
    }


def staff_delivery_view(delivery: Delivery) -> dict[str, Any]:
    """The tenant shape plus where the delivery goes (staff API, CONTRACT §4)."""
    return {
        **delivery_view(delivery),
        "endpointId": delivery.endpoint_id,
        "tenantId": delivery.tenant_id,
        "replayOf": delivery.replay_of,
    }


def notification_view(notification: Notification) -> dict[str, Any]:
    """`{id, kind, tenantId, endpointId, reason, createdAt}` (CONTRACT §6)."""
    return {
        "id": notification.id,
        "kind": notification.kind,
        "tenantId": notification.tenant_id,
        "endpointId": notification.endpoint_id,
        "reason": notification.reason,
        "createdAt": format_ts(notification.created_at),
    }
