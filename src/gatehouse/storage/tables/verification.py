"""Verification clients, customers, documents and callbacks (docs/reference/verification.md).

Owned by the verification area; its tables are created by migration 0003.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from gatehouse.domain.verification import CallbackStatus
from gatehouse.storage.base import Base, UTCDateTime


class VerificationClient(Base):
    """A client of the verification interface (docs/reference/verification.md §5.3).

    The secret is kept as a keyed hash; the callback passphrase is encrypted,
    because every callback must carry it back (docs/reference/verification.md §5.1).
    """

    __tablename__ = "verification_clients"

    uuid: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    secret_hash: Mapped[str] = mapped_column(String(64))
    customer_created_events: Mapped[bool] = mapped_column(Boolean, default=False)
    # A sandbox client may drive its own customers through /verify/sandbox (docs/sandbox.md).
    sandbox: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    callback_url: Mapped[str | None] = mapped_column(Text)
    callback_passphrase_encrypted: Mapped[str | None] = mapped_column(Text)
    callback_registered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Customer(Base):
    """A verified person; `id` is the payload's internal number, `uuid` its external key.

    `application_id` links the customer to an application (`clientId`), whose
    checklist items of kind `verification` it satisfies while Accepted;
    `accepted_at` is when it last became Accepted (6), None outside 6.
    """

    __tablename__ = "verification_customers"
    __table_args__ = (
        Index("ix_verification_customers_client", "client_uuid", "id"),
        Index("ix_verification_customers_application", "application_id", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    client_uuid: Mapped[str] = mapped_column(ForeignKey("verification_clients.uuid"))
    email: Mapped[str] = mapped_column(String(320))
    phone: Mapped[str] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(Integer)
    status_reason: Mapped[str | None] = mapped_column(String(500))
    application_id: Mapped[str | None] = mapped_column(String(40))
    accepted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class CustomerDocument(Base):
    """An identity document of a customer and what the expiry sweep did about it."""

    __tablename__ = "verification_documents"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    customer_id: Mapped[int] = mapped_column(
        ForeignKey("verification_customers.id", ondelete="CASCADE"), index=True
    )
    type: Mapped[str] = mapped_column(String(40))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    warning_sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    expiry_handled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class VerificationCallback(Base):
    """One queued callback (docs/reference/verification.md §5.2), written in the transaction of its
    change.

    `payload` holds every field of docs/reference/verification.md §5.1 but `passphrase`, which is
    added
    from the client's current (encrypted) registration at each attempt, so the
    database never holds it in clear. `attempts_log` keeps one entry per
    attempt: `{at, statusCode, error, latencyMs}`.
    """

    __tablename__ = "verification_callbacks"
    __table_args__ = (
        Index("ix_verification_callbacks_due", "status", "next_attempt_at"),
        Index("ix_verification_callbacks_client", "client_uuid", "created_at", "id"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    client_uuid: Mapped[str] = mapped_column(ForeignKey("verification_clients.uuid"))
    customer_id: Mapped[int] = mapped_column(
        ForeignKey("verification_customers.id", ondelete="CASCADE"), index=True
    )
    event: Mapped[str] = mapped_column(String(40))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(20), default=CallbackStatus.PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    attempts_log: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_status_code: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
