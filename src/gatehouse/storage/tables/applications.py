"""Intakes, applications, members, sign-in links, portal sessions, decisions,
information requests and documents (spec 1; CONTRACT §1, §4, §5)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
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


class Intake(Base):
    """An intake label (`lbl_`) and its configuration.

    `position` keeps creation order for ties in `order` (CONTRACT §1.1).
    `checklist` is a list of `{key, label, kind, required}`; `form_fields` a
    list of `{key, label, type, required}` for the portal form.
    """

    __tablename__ = "intakes"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(200))
    order: Mapped[int | None] = mapped_column(Integer)
    attached: Mapped[bool] = mapped_column(Boolean, default=True)
    checklist: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    form_fields: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Application(Base):
    """An onboarding application (`app_`).

    `identity` is `ref:<externalRef>` or `email:<email>`; unique per tenant so
    concurrent first provisioning calls make one application (spec 1 §4.1 rule 1).
    `event_sequence` and `request_sequence` allocate webhook `data.sequence` and
    information-request `seq` under the application's row lock.
    """

    __tablename__ = "applications"
    __table_args__ = (
        UniqueConstraint("tenant_id", "identity"),
        Index("ix_applications_list", "tenant_id", "updated_at", "id"),
        Index("ix_applications_status", "tenant_id", "status", "updated_at", "id"),
        Index("ix_applications_ref", "tenant_id", "external_ref"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id"))
    identity: Mapped[str] = mapped_column(String(330))
    external_ref: Mapped[str | None] = mapped_column(String(200))
    applicant_email: Mapped[str | None] = mapped_column(String(320))
    company_name: Mapped[str | None] = mapped_column(String(200))
    label_id: Mapped[str | None] = mapped_column(ForeignKey("intakes.id"))
    status: Mapped[str] = mapped_column(String(40), default="pending")
    owner_uid: Mapped[str | None] = mapped_column(String(40))
    locked: Mapped[bool] = mapped_column(Boolean, default=False)
    erased_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    rejection_reason: Mapped[str | None] = mapped_column(Text)
    # Status before an approval proposal, restored by reject_proposal.
    status_before_proposal: Mapped[str | None] = mapped_column(String(40))
    proposed_by: Mapped[str | None] = mapped_column(String(40))
    status_before_hold: Mapped[str | None] = mapped_column(String(40))
    form_data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    event_sequence: Mapped[int] = mapped_column(Integer, default=0)
    request_sequence: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Member(Base):
    """Portal access for one person (`mem_`); role `applicant` or `teammate`."""

    __tablename__ = "members"
    __table_args__ = (UniqueConstraint("application_id", "email"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"), index=True)
    email: Mapped[str] = mapped_column(String(320))
    role: Mapped[str] = mapped_column(String(20))
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime)


class LoginLink(Base):
    """A single-use sign-in link; only a hash of its token is stored."""

    __tablename__ = "login_links"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"), index=True)
    member_id: Mapped[str] = mapped_column(String(40), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    redirect_path: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class PortalSession(Base):
    """An applicant's portal session, named by a hashed cookie token."""

    __tablename__ = "portal_sessions"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"), index=True)
    member_id: Mapped[str] = mapped_column(String(40), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Decision(Base):
    """One entry of the decision history (spec 1 §2.3 `decision`)."""

    __tablename__ = "decisions"
    __table_args__ = (Index("ix_decisions_application", "application_id", "at", "id"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"))
    action: Mapped[str | None] = mapped_column(String(40))
    from_status: Mapped[str | None] = mapped_column(String(40))
    to_status: Mapped[str | None] = mapped_column(String(40))
    by_role: Mapped[str | None] = mapped_column(String(20))
    by_staff_id: Mapped[str | None] = mapped_column(String(40))  # never returned to tenants
    comment: Mapped[str | None] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


class InfoRequest(Base):
    """An information request (`ir_`); `status` is kept derived from its items."""

    __tablename__ = "info_requests"
    __table_args__ = (UniqueConstraint("application_id", "seq"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    round: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(20))
    comment: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    responded_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    cancelled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class InfoRequestItem(Base):
    """An item (`itm_`) of a request; `position` keeps the staff's order."""

    __tablename__ = "info_request_items"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    request_id: Mapped[str] = mapped_column(ForeignKey("info_requests.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(20))  # question | field | document
    prompt: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20))  # open | answered | accepted | reopened
    answer: Mapped[str | None] = mapped_column(Text)  # never returned to tenants
    document_id: Mapped[str | None] = mapped_column(String(40))
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Document(Base):
    """An uploaded document (`doc_`); the tenant API returns metadata only."""

    __tablename__ = "documents"
    __table_args__ = (Index("ix_documents_application", "application_id", "uploaded_at"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"))
    type: Mapped[str] = mapped_column(String(80))
    status: Mapped[str] = mapped_column(String(20), default="uploaded")
    content_type: Mapped[str] = mapped_column(String(100))
    size_bytes: Mapped[int] = mapped_column(Integer)
    filename: Mapped[str | None] = mapped_column(String(255))  # internal only
    content: Mapped[bytes | None] = mapped_column(LargeBinary)
    uploaded_by: Mapped[str | None] = mapped_column(String(40))
    uploaded_at: Mapped[datetime] = mapped_column(UTCDateTime)
