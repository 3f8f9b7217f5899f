"""The `webhooks` section of /openapi.json (docs/api-reference.md): every event type of the
catalogue (envelope and `data`) and the verification callback, as POSTs the receiver gets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gatehouse.domain.event_types import EventType
from gatehouse.web.openapi_components import Schemas

GATEHOUSE_DELIVERY_HEADERS: tuple[tuple[str, str], ...] = (
    ("Gatehouse-Event-Id", "The event id."),
    ("Gatehouse-Event-Type", "The event type."),
    ("Gatehouse-Timestamp", "Unix seconds at which this attempt was signed."),
    ("Gatehouse-Attempt", "Attempt number, from 1."),
    ("Gatehouse-Signature", "`v1=<hex HMAC-SHA256 of <timestamp>.<body>>` per active secret."),
    ("webhook-id", "Standard Webhooks: the event id."),
    ("webhook-timestamp", "Standard Webhooks: the same seconds as Gatehouse-Timestamp."),
    (
        "webhook-signature",
        "Standard Webhooks: `v1,<base64 HMAC-SHA256 of <id>.<timestamp>.<body>>` per active "
        "secret that decodes as base64 (docs/reference/webhooks.md §10).",
    ),
)


@dataclass(frozen=True)
class Webhook:
    """One entry of the `webhooks` section: a POST the receiver gets.

    `body` is the TypedDict of the whole body; for an event, `body` is the envelope and
    `data` the TypedDict of its `data`, with `event_type` the envelope's `type`.
    """

    operation_id: str
    summary: str
    body: Any
    data: Any = None
    event_type: str | None = None
    headers: Sequence[tuple[str, str]] = ()
    description: str | None = None
    example: Any = None


def _answers(event_type: str | None) -> dict[str, Any]:
    """What the receiver's answer means. A real event: any 2xx is delivered, 410 disables the
    endpoint, anything else is tried again (429 or 503 may say when). A test send is posted
    once and its answer only reported. A verification callback (no event type) is retried."""
    if event_type is None:
        return {
            "2XX": {"description": "Received; any 2xx counts as delivered."},
            "default": {"description": "Not received; the callback is tried again."},
        }
    if event_type == EventType.WEBHOOK_TEST:
        return {
            "2XX": {"description": "Received: the test answers `success: true`."},
            "default": {
                "description": "Reported in the test's answer (`httpStatus`, "
                "`responseSnippet`); never retried, and nothing changes on the endpoint "
                "(docs/reference/webhooks.md §4.10)."
            },
        }
    return {
        "2XX": {"description": "Received; any 2xx counts as delivered."},
        "410": {
            "description": "Gone for good: the endpoint is disabled at once (`receiver_gone`) "
            "and its pending deliveries become dead (docs/reference/webhooks.md §6.6)."
        },
        "default": {
            "description": "Not received; the delivery is tried again on its schedule. A 429 "
            "or 503 may say when with `Retry-After` (docs/reference/webhooks.md §6.4, §6.5)."
        },
    }


def webhook_item(hook: Webhook, schemas: Schemas) -> dict[str, Any]:
    envelope = schemas.of(hook.body)
    if hook.data is not None:
        schema: dict[str, Any] = {
            "allOf": [
                envelope,
                {
                    "type": "object",
                    "properties": {
                        "type": {"const": hook.event_type},
                        "data": schemas.of(hook.data),
                    },
                },
            ]
        }
    else:
        schema = envelope
    media: dict[str, Any] = {"schema": schema}
    if hook.example is not None:
        media["example"] = hook.example
    operation: dict[str, Any] = {
        "operationId": hook.operation_id,
        "summary": hook.summary,
        "parameters": [
            {
                "name": name,
                "in": "header",
                "required": name != "webhook-signature",
                "description": text,
                "schema": {"type": "string"},
            }
            for name, text in hook.headers
        ],
        "requestBody": {"required": True, "content": {"application/json": media}},
        "responses": _answers(hook.event_type),
    }
    if hook.description:
        operation["description"] = hook.description
    if not operation["parameters"]:
        operation.pop("parameters")
    return {"post": operation}
