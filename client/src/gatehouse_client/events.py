"""Webhook event envelopes (spec 2 §2.2, §6; CONTRACT §2.2).

Unfamiliar event types and fields are kept, never rejected (spec 2 §9), and
nothing here treats an unfamiliar status as approval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from gatehouse_client._fields import ApplicationStatus, parse_timestamp

__all__ = ["EVENT_TYPES", "Event"]

EVENT_TYPES: frozenset[str] = frozenset(
    {
        "application.submitted",
        "application.status.changed",
        "application.decision.proposed",
        "application.decision.approved",
        "application.decision.proposal_rejected",
        "application.decision.rejected",
        "application.decision.hold",
        "application.info_request.raised",
        "application.info_request.responded",
        "application.info_request.closed",
        "webhook.test",
    }
)


@dataclass(frozen=True)
class Event:
    """A verified event. `raw` is the parsed body, whole; `data` its `data` object."""

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "type", "apiVersion", "occurredAt", "tenantId", "idempotencyKey", "data"}
    )

    id: str
    type: str
    tenant_id: str | None
    api_version: str | None
    occurred_at: datetime | None
    idempotency_key: str | None
    data: dict[str, Any]
    raw: dict[str, Any] = field(repr=False, compare=False)
    # From the delivery headers: Gatehouse-Attempt and Gatehouse-Timestamp.
    attempt: int | None = None
    timestamp: int | None = None

    @property
    def is_known_type(self) -> bool:
        return self.type in EVENT_TYPES

    @property
    def client_id(self) -> str | None:
        value = self.data.get("clientId")
        return value if isinstance(value, str) else None

    @property
    def external_ref(self) -> str | None:
        value = self.data.get("externalRef")
        return value if isinstance(value, str) else None

    @property
    def status(self) -> ApplicationStatus | None:
        """The resulting application status (approved only when exactly `active`).

        For current state, read the application: `sequence` is allocation
        order, not status order (spec 2 §6.4 rule 2)."""
        value = self.data.get("status")
        return ApplicationStatus(value) if isinstance(value, str) else None

    @property
    def previous_status(self) -> ApplicationStatus | None:
        value = self.data.get("previousStatus")
        return ApplicationStatus(value) if isinstance(value, str) else None

    @property
    def sequence(self) -> int | None:
        value = self.data.get("sequence")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def extra(self) -> dict[str, Any]:
        return {k: v for k, v in self.raw.items() if k not in self.KNOWN_FIELDS}

    @classmethod
    def from_json(
        cls, body: dict[str, Any], *, attempt: int | None = None, timestamp: int | None = None
    ) -> Event:
        def text(key: str) -> str | None:
            value = body.get(key)
            return value if isinstance(value, str) else None

        data = body.get("data")
        return cls(
            id=text("id") or "",
            type=text("type") or "",
            tenant_id=text("tenantId"),
            api_version=text("apiVersion"),
            occurred_at=parse_timestamp(body.get("occurredAt")),
            idempotency_key=text("idempotencyKey"),
            data=data if isinstance(data, dict) else {},
            raw=body,
            attempt=attempt,
            timestamp=timestamp,
        )
