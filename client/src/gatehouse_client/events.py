"""Webhook event envelopes and their typed payloads (README: "Typed events").

`Event` is the envelope; `Event.payload` is the typed `data` of its event
type (one frozen dataclass per type of the catalogue). Unfamiliar event types
and fields are kept, never rejected, and nothing here treats an unfamiliar
status as approval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, ClassVar

from gatehouse_client._event_data import (
    EVENT_DATA_TYPES,
    ApplicationEventData,
    ApplicationStatusChanged,
    ApplicationSubmitted,
    DecisionApproved,
    DecisionEventData,
    DecisionHold,
    DecisionProposalRejected,
    DecisionProposed,
    DecisionRejected,
    EventData,
    InfoRequestClosed,
    InfoRequestEventData,
    InfoRequestRaised,
    InfoRequestReminder,
    InfoRequestResponded,
    UnknownEventData,
    WebhookTest,
    parse_event_data,
)
from gatehouse_client._fields import ApplicationStatus, parse_timestamp

__all__ = [
    "ENVIRONMENTS",
    "EVENT_DATA_TYPES",
    "EVENT_TYPES",
    "ApplicationEventData",
    "ApplicationStatusChanged",
    "ApplicationSubmitted",
    "DecisionApproved",
    "DecisionEventData",
    "DecisionHold",
    "DecisionProposalRejected",
    "DecisionProposed",
    "DecisionRejected",
    "Event",
    "EventData",
    "InfoRequestClosed",
    "InfoRequestEventData",
    "InfoRequestRaised",
    "InfoRequestReminder",
    "InfoRequestResponded",
    "UnknownEventData",
    "WebhookTest",
    "parse_event_data",
]

# The values of the envelope's `environment` (absent from older payloads).
ENVIRONMENTS: frozenset[str] = frozenset({"live", "sandbox"})

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
        "application.info_request.reminder",
        "webhook.test",
    }
)


@dataclass(frozen=True)
class Event:
    """A verified event. `raw` is the parsed body, whole; `data` its `data` object,
    and `payload` the same object typed for the event type.

    `environment` is `live` or `sandbox` as sent (None for payloads from servers
    that predate it): a production receiver should not act on sandbox events.
    """

    KNOWN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "id",
            "type",
            "apiVersion",
            "occurredAt",
            "tenantId",
            "idempotencyKey",
            "environment",
            "data",
        }
    )

    id: str
    type: str
    tenant_id: str | None
    api_version: str | None
    occurred_at: datetime | None
    idempotency_key: str | None
    data: dict[str, Any]
    raw: dict[str, Any] = field(repr=False, compare=False)
    # From the delivery headers: Gatehouse-Attempt and the verified timestamp.
    attempt: int | None = None
    timestamp: int | None = None
    environment: str | None = None
    # Which header set `verify` checked: "gatehouse" or "standard-webhooks".
    signature_scheme: str | None = None

    @property
    def is_known_type(self) -> bool:
        return self.type in EVENT_TYPES

    @property
    def is_sandbox(self) -> bool:
        """True only when the envelope says exactly `sandbox`."""
        return self.environment == "sandbox"

    @cached_property
    def payload(self) -> EventData:
        """The typed `data`: e.g. `DecisionApproved`, `InfoRequestRaised`, `WebhookTest`;
        `UnknownEventData` (the object kept whole) for a type this version does not know.
        """
        return parse_event_data(self.type, self.data)

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
        order, not status order (README: "Typed events")."""
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
        cls,
        body: dict[str, Any],
        *,
        attempt: int | None = None,
        timestamp: int | None = None,
        signature_scheme: str | None = None,
    ) -> Event:
        """The envelope from a parsed body. This checks nothing: use `verify` on
        deliveries, or this on bodies you verified and stored yourself."""

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
            environment=text("environment"),
            signature_scheme=signature_scheme,
        )
