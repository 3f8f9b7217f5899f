"""What the dashboard pages read (issue 6): the queue across tenants and one
case with everything staff look at. Reads only; every change goes through
the services of its area."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.crypto import Crypto
from gatehouse.http.cursors import decode_cursor, encode_cursor
from gatehouse.services import applications_repo as repo
from gatehouse.services.application_reads import documents_of, read_checklist
from gatehouse.storage.tables.applications import (
    Application,
    Decision,
    Document,
    InfoRequest,
    InfoRequestItem,
    Intake,
    Member,
)
from gatehouse.storage.tables.core import Event, Tenant
from gatehouse.timeutil import format_ts, parse_ts

QUEUE_PAGE_SIZE = 25
STATUSES = ("pending", "needs_info", "hold", "pending_approval", "active", "rejected")


@dataclass(frozen=True, slots=True)
class QueueFilters:
    tenant_id: str | None = None
    status: str | None = None
    updated_since: datetime | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "tenantId": self.tenant_id,
            "status": self.status,
            "updatedSince": format_ts(self.updated_since),
        }


@dataclass(frozen=True, slots=True)
class QueueRow:
    application: Application
    tenant_name: str


@dataclass(frozen=True, slots=True)
class QueuePage:
    rows: list[QueueRow]
    next_cursor: str | None


def parse_queue_filters(
    tenant_id: str | None, status: str | None, updated_since: str | None
) -> tuple[QueueFilters, dict[str, str]]:
    """Filters from the query string, and an error per field that is wrong."""
    errors: dict[str, str] = {}
    chosen_status = status or None
    if chosen_status is not None and chosen_status not in STATUSES:
        errors["status"] = "Choose one of the listed statuses."
        chosen_status = None
    since: datetime | None = None
    if updated_since:
        text = updated_since.strip()
        try:
            since = parse_ts(text if "T" in text else text + "T00:00:00Z")
        except ValueError:
            errors["updated"] = "Use a date like 2026-11-22."
    return QueueFilters(tenant_id or None, chosen_status, since), errors


async def queue_page(
    session: AsyncSession, crypto: Crypto, filters: QueueFilters, cursor: str | None
) -> QueuePage:
    """Applications across tenants, recently updated first; erased ones never."""
    stmt = (
        select(Application, Tenant.name)
        .join(Tenant, Tenant.id == Application.tenant_id)
        .where(Application.erased_at.is_(None))
    )
    if filters.tenant_id:
        stmt = stmt.where(Application.tenant_id == filters.tenant_id)
    if filters.status:
        stmt = stmt.where(Application.status == filters.status)
    if filters.updated_since:
        stmt = stmt.where(Application.updated_at >= filters.updated_since)
    if cursor:
        position = decode_cursor(crypto, "dashboard-queue", filters.as_dict(), cursor)
        at, last_id = parse_ts(str(position[0])), str(position[1])
        stmt = stmt.where(
            (Application.updated_at < at)
            | ((Application.updated_at == at) & (Application.id < last_id))
        )
    stmt = stmt.order_by(Application.updated_at.desc(), Application.id.desc()).limit(
        QUEUE_PAGE_SIZE + 1
    )
    rows = [QueueRow(app, name) for app, name in (await session.execute(stmt)).all()]
    next_cursor = None
    if len(rows) > QUEUE_PAGE_SIZE:
        rows = rows[:QUEUE_PAGE_SIZE]
        last = rows[-1].application
        next_cursor = encode_cursor(
            crypto, "dashboard-queue", filters.as_dict(), [format_ts(last.updated_at), last.id]
        )
    return QueuePage(rows, next_cursor)


async def tenant_choices(session: AsyncSession) -> list[tuple[str, str]]:
    rows = (await session.execute(select(Tenant.id, Tenant.name).order_by(Tenant.name))).all()
    return [(tenant_id, f"{name} ({tenant_id})") for tenant_id, name in rows]


@dataclass(frozen=True, slots=True)
class RequestWithItems:
    request: InfoRequest
    items: list[InfoRequestItem]


@dataclass(frozen=True, slots=True)
class EventSent:
    event: Event
    summary: dict[str, Any]


@dataclass
class CaseFile:
    """One application with everything the application page shows."""

    application: Application
    tenant: Tenant
    intake: Intake | None
    members: list[Member]
    checklist: list[dict[str, Any]]
    documents: list[Document]
    requests: list[RequestWithItems]
    decisions: list[Decision]
    events: list[EventSent]
    proposer_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


async def checklist_for(session: AsyncSession, application: Application) -> list[dict[str, Any]]:
    """The intake's checklist as the tenant reads it (spec 1 §4.13); none once erased."""
    if application.erased_at is not None:
        return []
    checklist = await read_checklist(session, application.tenant_id, application.id)
    items: list[dict[str, Any]] = checklist["data"]
    return items


async def case_file(session: AsyncSession, client_id: str) -> CaseFile | None:
    application = await repo.application_by_id(session, client_id)
    if application is None:
        return None
    tenant = await session.get(Tenant, application.tenant_id)
    assert tenant is not None
    intake = await session.get(Intake, application.label_id) if application.label_id else None
    requests = await repo.info_requests_of(session, application.id)
    items = await repo.items_of(session, [request.id for request in requests])
    events = (
        await session.execute(
            select(Event)
            .where(Event.application_id == application.id)
            .order_by(Event.occurred_at.desc(), Event.id.desc())
            .limit(100)
        )
    ).scalars()
    return CaseFile(
        application=application,
        tenant=tenant,
        intake=intake,
        members=await repo.members_of(session, application.id),
        checklist=await checklist_for(session, application),
        documents=await documents_of(session, application.id),
        requests=[RequestWithItems(request, items[request.id]) for request in requests],
        decisions=await repo.decisions_of(session, application.id),
        events=[EventSent(event, _event_summary(event)) for event in events],
        proposer_id=application.proposed_by,
    )


def _event_summary(event: Event) -> dict[str, Any]:
    """The envelope's `data` (status, previousStatus, reason…) for display."""
    try:
        envelope = orjson.loads(event.body)
    except orjson.JSONDecodeError:
        return {}
    data = envelope.get("data") if isinstance(envelope, dict) else None
    return data if isinstance(data, dict) else {}
