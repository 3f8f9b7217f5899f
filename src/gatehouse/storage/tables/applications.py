"""Intakes, applications, members, sign-in links, portal sessions, decisions,
information requests and documents (docs/reference/tenant-api.md;
docs/reference/staff-api.md; docs/reference/portal.md)."""

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
    func,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from gatehouse.storage.base import Base, UTCDateTime


class Intake(Base):
    """An intake label (`lbl_`) and its configuration.

    `position` keeps creation order for ties in `order` (docs/reference/tenant-api.md §5.5).
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


# The queue's search (docs/workstation.md "Search"): LIKE on the lowered columns, served on
# PostgreSQL by trigram GIN indexes. Migration 0007 makes them only where pg_trgm can be
# enabled; SQLite has none (it scans).
SEARCH_INDEXES = {
    "ix_applications_search_company": "company_name",
    "ix_applications_search_email": "applicant_email",
    "ix_applications_search_ref": "external_ref",
}


def _search_index(name: str, column: str) -> Index:
    lowered = func.lower(text(column)).label(f"{column}_lower")
    return Index(
        name,
        lowered,
        postgresql_using="gin",
        postgresql_ops={f"{column}_lower": "gin_trgm_ops"},
    ).ddl_if(dialect="postgresql")


# What the insights read of an application created in a period (the funnel, the time to
# decision), in the order of their index; and which applications are open (not decided, not
# erased), written as the partial index and the query both spell it, literally, so that
# PostgreSQL and SQLite see the query's condition imply the index's.
INSIGHTS_COLUMNS = (
    "created_at",
    "tenant_id",
    "label_id",
    "status",
    "submitted_at",
    "signed_in_at",
    "status_changed_at",
)
OPEN_PREDICATE = "status NOT IN ('active', 'rejected') AND erased_at IS NULL"
DECIDED_PREDICATE = "status IN ('active', 'rejected')"
# Whole seconds from creation to the last status change (the time to decision of a decided
# application), as each database spells it: the expression of the insights' index of decided
# applications by that time, which the query must spell the same way to use it.
TOOK_SQL = {
    "postgresql": "(floor(extract(epoch FROM (status_changed_at AT TIME ZONE 'UTC')))::bigint"
    " - floor(extract(epoch FROM (created_at AT TIME ZONE 'UTC')))::bigint)",
    "sqlite": "(CAST(strftime('%s', status_changed_at) AS INTEGER)"
    " - CAST(strftime('%s', created_at) AS INTEGER))",
}


def _created_time(context: Any) -> Any:
    """An application inserted without `status_changed_at` got its status when it was made."""
    values = context.get_current_parameters()
    return values.get("updated_at") or values.get("created_at")


class Application(Base):
    """An onboarding application (`app_`).

    `identity` is `ref:<externalRef>` or `email:<email>`; unique per tenant so
    concurrent first provisioning calls make one application (docs/reference/tenant-api.md §5.1 rule
    1).
    `event_sequence` and `request_sequence` allocate webhook `data.sequence` and
    information-request `seq` under the application's row lock.
    """

    __tablename__ = "applications"
    __table_args__ = (
        UniqueConstraint("tenant_id", "identity"),
        Index("ix_applications_list", "tenant_id", "updated_at", "id"),
        Index("ix_applications_status", "tenant_id", "status", "updated_at", "id"),
        Index("ix_applications_ref", "tenant_id", "external_ref"),
        # The staff queue (docs/workstation.md "Speed"): its sorts across tenants, and the
        # filters that select few rows; then the search's trigram indexes (PostgreSQL).
        Index("ix_applications_queue_updated", "updated_at", "id"),
        Index("ix_applications_queue_created", "created_at", "id"),
        Index("ix_applications_queue_status", "status", "created_at", "id"),
        Index("ix_applications_queue_assignee", "assigned_to", "created_at", "id"),
        Index("ix_applications_queue_intake", "label_id", "created_at", "id"),
        # The insights (docs/insights.md "Speed"): the applications created in a period with
        # every column the funnel reads (an index-only scan), the open applications by tenant
        # and age, and the decided ones with what the time to decision reads (both partial).
        Index("ix_applications_insights_created", *INSIGHTS_COLUMNS),
        Index(
            "ix_applications_insights_open",
            "tenant_id",
            "created_at",
            "label_id",
            postgresql_where=text(OPEN_PREDICATE),
            sqlite_where=text(OPEN_PREDICATE),
        ),
        Index(
            "ix_applications_insights_decided",
            "created_at",
            "tenant_id",
            "label_id",
            "status_changed_at",
            postgresql_where=text(DECIDED_PREDICATE),
            sqlite_where=text(DECIDED_PREDICATE),
        ),
        *(_search_index(name, column) for name, column in SEARCH_INDEXES.items()),
        # `ix_applications_insights_took` (TOOK_SQL, decided only) is made by migration 0019
        # on SQLite only and is not declared here: Alembic cannot compare an expression
        # index on PostgreSQL with the model's (docs/insights.md "Speed").
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
    # When `status` last changed (set with every application.status.changed), and the staff
    # member the case is assigned to: staff-only (docs/workstation.md).
    status_changed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=_created_time)
    assigned_to: Mapped[str | None] = mapped_column(String(40))
    # When a member first opened the portal through a sign-in link: the insights' funnel
    # counts it without reading the portal sessions (docs/insights.md "Speed").
    signed_in_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


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
    """One entry of the decision history (docs/reference/tenant-api.md §2.4 `decision`)."""

    __tablename__ = "decisions"
    __table_args__ = (
        Index("ix_decisions_application", "application_id", "at", "id"),
        # The insights' decisions by staff member in a period, every column they read
        # (docs/insights.md "Speed").
        Index("ix_decisions_insights_at", "at", "action", "by_staff_id", "application_id"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    application_id: Mapped[str] = mapped_column(ForeignKey("applications.id"))
    action: Mapped[str | None] = mapped_column(String(40))
    from_status: Mapped[str | None] = mapped_column(String(40))
    to_status: Mapped[str | None] = mapped_column(String(40))
    by_role: Mapped[str | None] = mapped_column(String(20))
    by_staff_id: Mapped[str | None] = mapped_column(String(40))  # never returned to tenants
    comment: Mapped[str | None] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    # A proposal made while required checklist items were unsatisfied: the staff member's
    # reason and the items' keys. Staff-only, never returned to tenants (docs/workstation.md).
    acknowledgement: Mapped[str | None] = mapped_column(Text)
    acknowledged_items: Mapped[list[str] | None] = mapped_column(JSON)


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
    # The last reminder staff sent for it (docs/workstation.md "Reminders").
    reminded_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


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
    # What the applicant typed in the item and has not sent yet, kept when another item's
    # answer is sent from the requests page (docs/reference/portal.md "Drafts"). Only the
    # portal shows it; sending the item's answer clears it.
    draft: Mapped[str | None] = mapped_column(Text)


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
