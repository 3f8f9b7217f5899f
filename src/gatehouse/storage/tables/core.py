"""Tenants, credentials, staff, idempotency records, audit trail, event outbox."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from gatehouse.storage.base import Base, UTCDateTime


class Tenant(Base):
    __tablename__ = "tenants"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(20), default="active")  # active | suspended
    webhook_endpoint_cap: Mapped[int] = mapped_column(Integer, default=5)
    # live | sandbox, fixed at creation (docs/sandbox.md); migration 0008.
    environment: Mapped[str] = mapped_column(String(20), default="live", server_default="live")
    # What the applicant portal shows of the tenant (docs/reference/portal.md, "Branding");
    # migration 0009. The logo's bytes are in `tenant_logos`; `logo_digest` names them.
    display_name: Mapped[str | None] = mapped_column(String(100))
    accent_color: Mapped[str | None] = mapped_column(String(7))
    logo_type: Mapped[str | None] = mapped_column(String(40))
    logo_digest: Mapped[str | None] = mapped_column(String(64), index=True)
    # Retention (docs/operations.md, "Retention"): days after which a rejected case, or a case
    # never submitted, is erased by the retention sweep; null keeps it.
    retention_rejected_days: Mapped[int | None] = mapped_column(Integer)
    retention_abandoned_days: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class TenantLogo(Base):
    """A tenant's logo as uploaded (PNG, JPEG or WebP, sniffed), served by the portal."""

    __tablename__ = "tenant_logos"

    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id"), primary_key=True)
    content: Mapped[bytes] = mapped_column(LargeBinary)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ApiKey(Base):
    """`service_<id>_<secret>`: only a keyed hash of the secret is kept."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id"), index=True)
    name: Mapped[str | None] = mapped_column(String(200))
    scopes: Mapped[list[str]] = mapped_column(JSON)
    secret_hash: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(20), default="active")  # active | revoked
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class StaffMember(Base):
    """A staff account; roles analyst < mlro < admin < super_admin. Its `staff_<id>_<secret>`
    bearer tokens are digests in `staff_tokens` (migration 0011 dropped the copy of the first
    token's digest that was kept here)."""

    __tablename__ = "staff_members"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    role: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20), default="active")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class IdempotencyRecord(Base):
    """One write intent per (tenant, Idempotency-Key) (docs/reference/tenant-api.md §4.6).

    `state` is `in_flight` while the first request runs (committed on its own,
    so a concurrent retry sees it and gets 409 aborted) and `done` once the
    response is stored, in the same transaction as the operation's effects.
    `application_id` names the application the answer is about (the path's `clientId`, or
    the `clientId` of the answer); erasing that application turns the record's state to
    `erased` and drops the stored answer (migration 0010, docs/documents.md §6).
    """

    __tablename__ = "idempotency_records"
    __table_args__ = (UniqueConstraint("tenant_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(40))
    key: Mapped[str] = mapped_column(String(255))
    fingerprint: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(20))
    status_code: Mapped[int | None] = mapped_column(Integer)
    response_encrypted: Mapped[str | None] = mapped_column(Text)  # headers + body, AES-GCM
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    # An in-flight marker older than this belongs to a request that died.
    lease_until: Mapped[datetime] = mapped_column(UTCDateTime)
    application_id: Mapped[str | None] = mapped_column(String(40), index=True)


class AuditEntry(Base):
    """Append-only trail of staff actions and tenant writes; ids only, no secrets."""

    __tablename__ = "audit_log"
    __table_args__ = (
        Index("ix_audit_application", "application_id", "at", "id"),
        Index("ix_audit_tenant", "tenant_id", "at", "id"),
        Index("ix_audit_seq", "seq", unique=True),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    actor: Mapped[str] = mapped_column(
        String(80)
    )  # "staff:<id>" or "api_key:<id>" or "applicant:<uid>"
    action: Mapped[str] = mapped_column(String(80))
    target: Mapped[str] = mapped_column(String(80))
    tenant_id: Mapped[str | None] = mapped_column(String(40))
    application_id: Mapped[str | None] = mapped_column(String(40))
    request_id: Mapped[str | None] = mapped_column(String(40))
    # The hash chain (docs/audit-and-evidence.md): null until the sealer links the entry.
    seq: Mapped[int | None] = mapped_column(BigInteger)
    hash: Mapped[str | None] = mapped_column(String(64))


class Event(Base):
    """The outbox: one row per event, written in the transaction of the change.

    `body` holds the exact JSON envelope bytes (as text) that every delivery
    signs and sends, so the payload is serialised once.
    """

    __tablename__ = "events"
    __table_args__ = (Index("ix_events_application", "application_id", "sequence"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id"), index=True)
    application_id: Mapped[str | None] = mapped_column(String(40))
    type: Mapped[str] = mapped_column(String(80))
    sequence: Mapped[int | None] = mapped_column(Integer)
    occurred_at: Mapped[datetime] = mapped_column(UTCDateTime)
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Notification(Base):
    """Staff notifications (docs/reference/tenant-api.md): kind `endpoint_disabled` for now."""

    __tablename__ = "notifications"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    kind: Mapped[str] = mapped_column(String(40))
    tenant_id: Mapped[str | None] = mapped_column(String(40), index=True)
    endpoint_id: Mapped[str | None] = mapped_column(String(40))
    reason: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    acknowledged: Mapped[bool] = mapped_column(Boolean, default=False)
