"""Webhooks (docs/webhooks.md): endpoints and their secrets, the outbox (`publish`), the
delivery worker, deliveries' history and replay, endpoint health, the event catalogue.

What others may use: `publish` (every feature that emits an event) and `environment_of`, the
endpoints' use cases and shapes, the deliveries' reads, health and notifications, the catalogue,
and the worker (composition).
"""

from __future__ import annotations

import asyncio

from gatehouse.runtime import Runtime
from gatehouse.webhooks.catalogue import EventTypeList, catalogue
from gatehouse.webhooks.deliveries import (
    endpoint_deliveries,
    parse_delivery_query,
    replay_delivery,
    staff_deliveries,
)
from gatehouse.webhooks.health import endpoint_health
from gatehouse.webhooks.outbox import environment_of, publish
from gatehouse.webhooks.queries import dead_deliveries, recent_notifications
from gatehouse.webhooks.schemas import (
    EVENT_DATA,
    CreatedWebhookEndpoint,
    DeliveryPage,
    EventEnvelope,
    NotificationList,
    RotatedSecret,
    StaffDelivery,
    StaffDeliveryPage,
    WebhookEndpoint,
    WebhookEndpointList,
    WebhookTestResult,
    endpoint_view,
    event_example,
    notification_view,
)
from gatehouse.webhooks.service import (
    CreateWebhookBody,
    UpdateWebhookBody,
    create_endpoint,
    delete_endpoint,
    disable,
    enable,
    list_endpoints,
    load_endpoint,
    record_test_send,
    rotate_secret,
    send_test_event,
    update_endpoint,
    validated_create,
    validated_update,
)


# The worker's modules load when composition first calls them, not when a surface imports
# the face.
async def run_delivery_worker(runtime: Runtime, stop: asyncio.Event) -> None:
    """The webhook delivery worker (`webhooks/delivery/loop.py`), until `stop` is set."""
    from gatehouse.webhooks import delivery

    await delivery.run_delivery_worker(runtime, stop)


async def sample_queue(runtime: Runtime) -> None:
    """Set the webhook delivery queue's gauges (`webhooks/delivery/claims.py`)."""
    from gatehouse.webhooks import delivery

    await delivery.sample_queue(runtime)


__all__ = [
    "EVENT_DATA",
    "CreateWebhookBody",
    "CreatedWebhookEndpoint",
    "DeliveryPage",
    "EventEnvelope",
    "EventTypeList",
    "NotificationList",
    "RotatedSecret",
    "StaffDelivery",
    "StaffDeliveryPage",
    "UpdateWebhookBody",
    "WebhookEndpoint",
    "WebhookEndpointList",
    "WebhookTestResult",
    "catalogue",
    "create_endpoint",
    "dead_deliveries",
    "delete_endpoint",
    "disable",
    "enable",
    "endpoint_deliveries",
    "endpoint_health",
    "endpoint_view",
    "environment_of",
    "event_example",
    "list_endpoints",
    "load_endpoint",
    "notification_view",
    "parse_delivery_query",
    "publish",
    "recent_notifications",
    "record_test_send",
    "replay_delivery",
    "rotate_secret",
    "run_delivery_worker",
    "sample_queue",
    "send_test_event",
    "staff_deliveries",
    "update_endpoint",
    "validated_create",
    "validated_update",
]
