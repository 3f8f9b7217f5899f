"""Typed views of the webhook management answers (docs/reference/webhooks.md §2.1, §4;
docs/reference/webhooks.md §4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from gatehouse_client._fields import (
    Model,
    bool_of,
    int_of,
    list_of_values,
    models_of,
    object_of,
    parse_timestamp,
    text_of,
)

__all__ = ["Delivery", "DeliveryPage", "RotatedSecret", "WebhookEndpoint", "WebhookTestResult"]


@dataclass(frozen=True)
class WebhookEndpoint(Model):
    """A webhook endpoint (docs/reference/webhooks.md §2.1, docs/reference/webhooks.md §4).

    `secret` is only set on the create answer; it is left out of `repr`.
    """

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "id",
            "url",
            "events",
            "status",
            "description",
            "createdAt",
            "updatedAt",
            "disabledReason",
            "consecutiveFailures",
            "secret",
        }
    )

    id: str = ""
    url: str = ""
    events: list[str] = field(default_factory=list)
    status: str = ""
    description: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    disabled_reason: str | None = None
    consecutive_failures: int = 0
    secret: str | None = field(default=None, repr=False)

    @property
    def enabled(self) -> bool:
        return self.status == "enabled"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WebhookEndpoint:
        return cls(
            raw=data,
            id=text_of(data, "id") or "",
            url=text_of(data, "url") or "",
            events=[e for e in list_of_values(data, "events") if isinstance(e, str)],
            status=text_of(data, "status") or "",
            description=text_of(data, "description"),
            created_at=parse_timestamp(data.get("createdAt")),
            updated_at=parse_timestamp(data.get("updatedAt")),
            disabled_reason=text_of(data, "disabledReason"),
            consecutive_failures=int_of(data, "consecutiveFailures") or 0,
            secret=text_of(data, "secret"),
        )


@dataclass(frozen=True)
class RotatedSecret(Model):
    """The rotate-secret answer (docs/reference/webhooks.md §4.9). Keep the old secret on the
    receiver
    until `previous_secret_expires_at`."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"secret", "previousSecretExpiresAt"})

    secret: str = field(default="", repr=False)
    previous_secret_expires_at: datetime | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RotatedSecret:
        return cls(
            raw=data,
            secret=text_of(data, "secret") or "",
            previous_secret_expires_at=parse_timestamp(data.get("previousSecretExpiresAt")),
        )


@dataclass(frozen=True)
class WebhookTestResult(Model):
    """The test-send answer (docs/reference/webhooks.md §4.10): check `success` even when the
    call succeeded.
    """

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"success", "httpStatus", "latencyMs", "responseSnippet", "sentHeaders", "error"}
    )

    success: bool = False
    http_status: int | None = None
    latency_ms: int | None = None
    response_snippet: str | None = None
    sent_headers: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WebhookTestResult:
        latency = data.get("latencyMs")
        return cls(
            raw=data,
            success=bool(bool_of(data, "success")),
            http_status=int_of(data, "httpStatus"),
            latency_ms=int(latency) if isinstance(latency, int | float) else None,
            response_snippet=text_of(data, "responseSnippet"),
            sent_headers=object_of(data, "sentHeaders") or {},
            error=text_of(data, "error"),
        )


@dataclass(frozen=True)
class Delivery(Model):
    """A delivery record (docs/reference/webhooks.md §4); `status` is kept even when unfamiliar."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "id",
            "eventId",
            "eventType",
            "status",
            "attempts",
            "createdAt",
            "lastAttemptAt",
            "nextAttemptAt",
            "lastHttpStatus",
            "lastError",
        }
    )

    id: str = ""
    event_id: str | None = None
    event_type: str | None = None
    status: str = ""
    attempts: int = 0
    created_at: datetime | None = None
    last_attempt_at: datetime | None = None
    next_attempt_at: datetime | None = None
    last_http_status: int | None = None
    last_error: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Delivery:
        return cls(
            raw=data,
            id=text_of(data, "id") or "",
            event_id=text_of(data, "eventId"),
            event_type=text_of(data, "eventType"),
            status=text_of(data, "status") or "",
            attempts=int_of(data, "attempts") or 0,
            created_at=parse_timestamp(data.get("createdAt")),
            last_attempt_at=parse_timestamp(data.get("lastAttemptAt")),
            next_attempt_at=parse_timestamp(data.get("nextAttemptAt")),
            last_http_status=int_of(data, "lastHttpStatus"),
            last_error=text_of(data, "lastError"),
        )


@dataclass(frozen=True)
class DeliveryPage(Model):
    """One page of an endpoint's delivery history (docs/reference/webhooks.md §4)."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset({"data", "nextCursor", "hasMore"})

    data: list[Delivery] = field(default_factory=list)
    next_cursor: str | None = None
    has_more: bool = False

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DeliveryPage:
        return cls(
            raw=data,
            data=models_of(Delivery, list_of_values(data, "data")),
            next_cursor=text_of(data, "nextCursor"),
            has_more=bool(bool_of(data, "hasMore")),
        )
