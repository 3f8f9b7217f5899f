"""Webhook endpoints, their signing secrets and deliveries (docs/reference/webhooks.md).

Owned by the webhooks area; its tables are created by migration 0002.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from gatehouse.storage.base import Base, UTCDateTime


class WebhookEndpoint(Base):
    """A tenant's receiver registration (docs/reference/webhooks.md §2.1).

    Deleted endpoints keep their row (`deleted_at` set) so delivery history
    stays consistent; every read leaves them out.
    """

    __tablename__ = "webhook_endpoints"
    __table_args__ = (Index("ix_webhook_endpoints_tenant", "tenant_id", "created_at", "id"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id"))
    url: Mapped[str] = mapped_column(Text)
    events: Mapped[list[str]] = mapped_column(JSON)
    description: Mapped[str] = mapped_column(String(500), default="")
    status: Mapped[str] = mapped_column(String(20), default="enabled")  # enabled | disabled
    disabled_reason: Mapped[str | None] = mapped_column(String(40))
    consecutive_failures: Mapped[int] = mapped_column(Integer, default=0)
    # First dead delivery since the last success (docs/reference/webhooks.md, `failing_24h`).
    failing_since: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_success_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class WebhookSecret(Base):
    """A signing secret, encrypted at rest; active while `expires_at` is null or later."""

    __tablename__ = "webhook_secrets"
    __table_args__ = (Index("ix_webhook_secrets_endpoint", "endpoint_id", "generation"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    endpoint_id: Mapped[str] = mapped_column(ForeignKey("webhook_endpoints.id"))
    # Increases with each rotation: newest first when signing (docs/reference/webhooks.md §6).
    generation: Mapped[int] = mapped_column(Integer)
    secret_encrypted: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Delivery(Base):
    """One event for one endpoint, across all its attempts (docs/reference/webhooks.md §6.3).

    `attempts` counts attempts started: a claim increments it and sets a
    lease (`lease_until`, `claim_token`) before the POST, so a worker that
    dies mid-attempt leaves a delivery that is claimed again once the lease
    runs out, and only the holder of the current claim may record an outcome.
    """

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
        Index("ix_webhook_deliveries_endpoint", "endpoint_id", "created_at", "id"),
        Index("ix_webhook_deliveries_tenant", "tenant_id", "status", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    event_id: Mapped[str] = mapped_column(ForeignKey("events.id"), index=True)
    endpoint_id: Mapped[str] = mapped_column(ForeignKey("webhook_endpoints.id"))
    tenant_id: Mapped[str] = mapped_column(String(40))
    event_type: Mapped[str] = mapped_column(String(80))
    # pending | succeeded | dead | cancelled
    status: Mapped[str] = mapped_column(String(20), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    first_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    claim_token: Mapped[str | None] = mapped_column(String(40))
    last_http_status: Mapped[int | None] = mapped_column(Integer)
    # How long the last attempt took, in milliseconds (shown by the tenant console).
    last_latency_ms: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(String(300))
    # The delivery this one replays (staff replay), if any.
    replay_of: Mapped[str | None] = mapped_column(String(40))
