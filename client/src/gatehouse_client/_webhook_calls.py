"""Calls of the webhook management routes (docs/reference/webhooks.md §4, §4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gatehouse_client._calls import (
    Call,
    data_items,
    drop_none,
    idempotency_key_for,
    object_body,
    segment,
)
from gatehouse_client._retry import Safety
from gatehouse_client._webhook_models import (
    DeliveryPage,
    RotatedSecret,
    WebhookEndpoint,
    WebhookTestResult,
)


def _hook_path(endpoint_id: str, *rest: str) -> str:
    return "/".join(["/v1/webhooks", segment(endpoint_id), *rest])


def _endpoint(_status: int, body: Any) -> WebhookEndpoint:
    return WebhookEndpoint.from_json(object_body(body))


def create_webhook(
    url: str,
    events: Sequence[str],
    *,
    description: str | None = None,
    idempotency_key: str | None = None,
    idempotent: bool = True,
) -> Call[WebhookEndpoint]:
    """POST /v1/webhooks (docs/reference/webhooks.md §4.2): the answer holds the secret, once.

    Repeated only with its Idempotency-Key (the server replays the same
    endpoint and secret); without one an ambiguous failure raises
    AmbiguousResult: list and reconcile before creating again.
    """
    if isinstance(events, str):
        raise TypeError("events is a list of event types")
    return Call(
        "POST",
        "/v1/webhooks",
        _endpoint,
        Safety.KEYED,
        body=drop_none({"url": url, "events": list(events), "description": description}),
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


def list_webhooks() -> Call[list[WebhookEndpoint]]:
    """GET /v1/webhooks (docs/reference/webhooks.md §4)."""
    return Call(
        "GET",
        "/v1/webhooks",
        lambda _s, b: [WebhookEndpoint.from_json(i) for i in data_items(b)],
        Safety.READ,
    )


def get_webhook(endpoint_id: str) -> Call[WebhookEndpoint]:
    """GET /v1/webhooks/{id} (docs/reference/webhooks.md §4)."""
    return Call("GET", _hook_path(endpoint_id), _endpoint, Safety.READ)


def update_webhook(
    endpoint_id: str,
    *,
    url: str | None = None,
    events: Sequence[str] | None = None,
    description: str | None = None,
    idempotency_key: str | None = None,
    idempotent: bool = True,
) -> Call[WebhookEndpoint]:
    """PATCH /v1/webhooks/{id} (docs/reference/webhooks.md §4): only the given fields change."""
    if isinstance(events, str):
        raise TypeError("events is a list of event types")
    body = drop_none(
        {
            "url": url,
            "events": list(events) if events is not None else None,
            "description": description,
        }
    )
    return Call(
        "PATCH",
        _hook_path(endpoint_id),
        _endpoint,
        Safety.KEYED,
        body=body,
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


def delete_webhook(
    endpoint_id: str, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[None]:
    """DELETE /v1/webhooks/{id} (docs/reference/webhooks.md §4): 204."""
    return Call(
        "DELETE",
        _hook_path(endpoint_id),
        lambda _s, _b: None,
        Safety.KEYED,
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


def set_webhook_enabled(
    endpoint_id: str, enabled: bool, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[WebhookEndpoint]:
    """POST /v1/webhooks/{id}/enable or /disable (docs/reference/webhooks.md §4): repeatable."""
    return Call(
        "POST",
        _hook_path(endpoint_id, "enable" if enabled else "disable"),
        _endpoint,
        Safety.REPEATABLE,
        body={},
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


def rotate_webhook_secret(
    endpoint_id: str, *, idempotency_key: str | None = None
) -> Call[RotatedSecret]:
    """POST /v1/webhooks/{id}/rotate-secret (docs/reference/webhooks.md §4.9): never
    repeated blindly.
    """
    return Call(
        "POST",
        _hook_path(endpoint_id, "rotate-secret"),
        lambda _s, b: RotatedSecret.from_json(object_body(b)),
        Safety.NEVER,
        body={},
        idempotency_key=idempotency_key_for(idempotency_key, True),
    )


def test_webhook(
    endpoint_id: str, *, idempotency_key: str | None = None, idempotent: bool = True
) -> Call[WebhookTestResult]:
    """POST /v1/webhooks/{id}/test (docs/reference/webhooks.md §4.10)."""
    return Call(
        "POST",
        _hook_path(endpoint_id, "test"),
        lambda _s, b: WebhookTestResult.from_json(object_body(b)),
        Safety.KEYED,
        body={},
        idempotency_key=idempotency_key_for(idempotency_key, idempotent),
    )


def list_webhook_deliveries(
    endpoint_id: str,
    *,
    limit: int | None = None,
    cursor: str | None = None,
    status: str | None = None,
) -> Call[DeliveryPage]:
    """GET /v1/webhooks/{id}/deliveries (docs/reference/webhooks.md §4), newest first."""
    params = drop_none(
        {"limit": str(limit) if limit is not None else None, "cursor": cursor, "status": status}
    )
    return Call(
        "GET",
        _hook_path(endpoint_id, "deliveries"),
        lambda _s, b: DeliveryPage.from_json(object_body(b)),
        Safety.READ,
        params=params,
    )
