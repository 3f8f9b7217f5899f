"""The staff queue across tenants (docs/workstation.md "The queue"): search, filters, sorts,
assignment, the work state of each case (cases/queue_states.py) and the age of each case and
of its current state, keyset paged with the shared cursor kit (`gatehouse.paging`) for every
order. Reads only; the case page is cases/case_file.py.

Search is LIKE on the lowered company name, applicant email and external ref (a substring
anywhere), or the exact client id (a text shaped like one is looked up by id alone); on
PostgreSQL trigram indexes serve it (migration 0007).
Sandbox tenants' cases stay out unless asked for, or unless their tenant is chosen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, String, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.cases.queue_states import state_counts, state_of
from gatehouse.crypto import Crypto
from gatehouse.domain.info_requests import REQUEST_OPEN
from gatehouse.domain.sandbox import SANDBOX
from gatehouse.domain.screening import RISK_LEVELS
from gatehouse.domain.status import NEEDS_INFO, STATUSES
from gatehouse.domain.work_state import WORK_STATES, Reviewer
from gatehouse.domain.workstation import (
    ASSIGNEE_ME,
    ASSIGNEE_NONE,
    KEY_COMPANY,
    KEY_CREATED,
    KEY_STATE,
    KEY_UPDATED,
    QUEUE_SORTS,
    SORT_UPDATED,
    SORTS,
    WAITING_STATUSES,
    age_words,
    is_client_id,
    like_pattern,
    reminder_due,
    search_text,
    waiting_on,
)
from gatehouse.paging import (
    STAFF,
    TIME_AND_ID,
    CursorScope,
    PageRequest,
    keyset_after,
    page_of,
    read_position,
)
from gatehouse.risk import level_of
from gatehouse.screening import open_hits_of
from gatehouse.storage.explain import estimated_rows
from gatehouse.storage.tables.applications import Application, InfoRequest, Intake
from gatehouse.storage.tables.core import StaffMember, Tenant
from gatehouse.timeutil import format_ts, parse_ts

QUEUE_PAGE_SIZE = 25
# Searches the planner expects to match at most this many rows sort their matches
# (docs/workstation.md "Speed"; measured in bench/queue.py).
SORT_MATCHES_UP_TO = 20_000


@dataclass(frozen=True, slots=True)
class QueueFilters:
    """What the queue shows. `assignee` is a staff id, `none` (unassigned), or None (anyone);
    the dashboard turns `me` into the viewer's id before it gets here."""

    tenant_id: str | None = None
    status: str | None = None
    updated_since: datetime | None = None
    search: str | None = None
    label_id: str | None = None
    assignee: str | None = None
    waiting: str | None = None
    sort: str = SORT_UPDATED
    include_sandbox: bool = False
    state: str | None = None
    risk: str | None = None
    open_hits: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The filters a cursor is bound to (all of them: a page belongs to one query)."""
        return {
            "tenantId": self.tenant_id,
            "status": self.status,
            "updatedSince": format_ts(self.updated_since),
            "q": self.search,
            "labelId": self.label_id,
            "assignee": self.assignee,
            "waiting": self.waiting,
            "sort": self.sort,
            "sandbox": self.include_sandbox,
            "state": self.state,
            "risk": self.risk,
            "hits": self.open_hits,
        }


@dataclass(frozen=True, slots=True)
class QueueRow:
    application: Application
    tenant_name: str
    assignee_email: str | None = None
    # Filled by `queue_page` from `now`: the case's age, the age of its current state, who
    # it waits on, and whether the waiting applicant is due a reminder.
    age: str = ""
    state_age: str = ""
    updated_age: str = ""
    waiting: str | None = None
    reminder_due: bool = False
    # The effective risk level and the open screening hits (docs/screening.md).
    risk: str = "low"
    open_hits: int = 0
    # The work state for the viewer (docs/workstation.md "Work states").
    state: str = ""


@dataclass(frozen=True, slots=True)
class QueuePage:
    rows: list[QueueRow]
    next_cursor: str | None


def parse_queue_filters(
    params: Mapping[str, str], viewer_id: str | None = None
) -> tuple[QueueFilters, dict[str, str]]:
    """Filters from the query string (`q`, `tenant`, `status`, `state`, `waiting`, `intake`,
    `assignee`, `risk`, `hits`, `sort`, `sandbox`, `updated`), and a human message per field
    that is wrong (that filter is then left out). `assignee=me` means `viewer_id`."""
    errors: dict[str, str] = {}
    state = params.get("state") or None
    if state is not None and state not in WORK_STATES:
        errors["state"] = "Choose one of the listed work states."
        state = None
    risk = params.get("risk") or None
    if risk is not None and risk not in RISK_LEVELS:
        errors["risk"] = "Choose low, medium or high."
        risk = None
    status = params.get("status") or None
    if status is not None and status not in STATUSES:
        errors["status"] = "Choose one of the listed statuses."
        status = None
    waiting = params.get("waiting") or None
    if waiting is not None and waiting not in WAITING_STATUSES:
        errors["waiting"] = "Choose the applicant or staff."
        waiting = None
    sort = params.get("sort") or SORT_UPDATED
    if sort not in SORTS:
        errors["sort"] = "Choose one of the listed orders."
        sort = SORT_UPDATED
    since: datetime | None = None
    updated = (params.get("updated") or "").strip()
    if updated:
        try:
            since = parse_ts(updated if "T" in updated else updated + "T00:00:00Z")
        except ValueError:
            errors["updated"] = "Use a date like 2026-11-22."
    assignee = params.get("assignee") or None
    if assignee == ASSIGNEE_ME:
        assignee = viewer_id
    filters = QueueFilters(
        tenant_id=params.get("tenant") or None,
        status=status,
        updated_since=since,
        search=search_text(params.get("q")),
        label_id=params.get("intake") or None,
        assignee=assignee,
        waiting=waiting,
        sort=sort,
        include_sandbox=params.get("sandbox") == "1",
        state=state,
        risk=risk,
        open_hits=params.get("hits") == "1",
    )
    return filters, errors


async def sandbox_tenants(session: AsyncSession) -> list[str]:
    """The sandbox tenants' ids (a handful): their cases stay out of the default queue."""
    rows = await session.execute(select(Tenant.id).where(Tenant.environment == SANDBOX))
    return list(rows.scalars())


async def _conditions(session: AsyncSession, filters: QueueFilters) -> list[Any]:
    """The WHERE conditions of the filters (erased applications never)."""
    found: list[Any] = [Application.erased_at.is_(None)]
    if filters.tenant_id:
        found.append(Application.tenant_id == filters.tenant_id)
    elif not filters.include_sandbox:
        sandboxes = await sandbox_tenants(session)
        if sandboxes:
            found.append(Application.tenant_id.not_in(sandboxes))
    if filters.status:
        found.append(Application.status == filters.status)
    if filters.waiting:
        found.append(Application.status.in_(WAITING_STATUSES[filters.waiting]))
    if filters.label_id:
        found.append(Application.label_id == filters.label_id)
    if filters.assignee == ASSIGNEE_NONE:
        found.append(Application.assigned_to.is_(None))
    elif filters.assignee:
        found.append(Application.assigned_to == filters.assignee)
    if filters.updated_since:
        found.append(Application.updated_at >= filters.updated_since)
    if filters.risk:
        found.append(level_of(Application.id) == filters.risk)
    if filters.open_hits:
        found.append(open_hits_of(Application.id) > 0)
    if filters.search and is_client_id(filters.search):
        found.append(Application.id == filters.search)
    elif filters.search:
        pattern = like_pattern(filters.search)
        found.append(
            or_(
                func.lower(Application.company_name).like(pattern, escape="\\"),
                func.lower(Application.applicant_email).like(pattern, escape="\\"),
                func.lower(Application.external_ref).like(pattern, escape="\\"),
                Application.id == filters.search,
            )
        )
    return found


# The name a row is listed under (docs/workstation.md "Orders"): what its link shows, lowered
# by the database (the keyset compares the database's own values).
SORT_NAME = func.lower(
    func.coalesce(Application.company_name, Application.applicant_email, Application.id),
    type_=String(),
)
SORT_COLUMNS: dict[str, Any] = {
    KEY_UPDATED: Application.updated_at,
    KEY_CREATED: Application.created_at,
    KEY_STATE: Application.status_changed_at,
    KEY_COMPANY: SORT_NAME,
}


async def state_figures(
    session: AsyncSession, filters: QueueFilters, reviewer: Reviewer
) -> dict[str, int]:
    """How many cases are in each work state under the queue's other filters (one query)."""
    return await state_counts(session, await _conditions(session, filters), reviewer)


async def queue_page(
    session: AsyncSession,
    crypto: Crypto,
    filters: QueueFilters,
    cursor: str | None,
    *,
    reviewer: Reviewer,
    now: datetime | None = None,
    reminder_days: int = 3,
) -> QueuePage:
    """One page of the queue; erased applications never. `now` fills in the ages."""
    conditions = await _conditions(session, filters)
    state = state_of(reviewer)
    if filters.state:
        conditions.append(state == filters.state)
    scope = CursorScope("dashboard-queue", STAFF, filters.as_dict())
    key, first = QUEUE_SORTS[filters.sort]
    position = read_position(
        crypto, scope, cursor, (str, str) if key == KEY_COMPANY else TIME_AND_ID
    )
    column = SORT_COLUMNS[key]
    order: Any = column
    if key != KEY_COMPANY and filters.search and not is_client_id(filters.search):
        # A search that finds few rows is served by the search's indexes, its matches then
        # sorted: walking the order's index and testing each row may read most of the table
        # when the matches sit far along it. Many matches: the walk stops early.
        estimate = await estimated_rows(session, select(Application.id).where(*conditions))
        if estimate is not None and estimate <= SORT_MATCHES_UP_TO:
            order = func.coalesce(column, column)  # the same order, no index for it
    stmt: Select[Application, str, str | None, str, int, str, Any] = (
        select(
            Application,
            Tenant.name,
            StaffMember.email,
            level_of(Application.id),
            open_hits_of(Application.id),
            state,
            column,
        )
        .join(Tenant, Tenant.id == Application.tenant_id)
        .outerjoin(StaffMember, StaffMember.id == Application.assigned_to)
        .where(*conditions)
    )
    stmt = keyset_after(stmt, order, Application.id, position, oldest_first=first)
    page = PageRequest(QUEUE_PAGE_SIZE, cursor)
    rows = (await session.execute(stmt.limit(page.limit + 1))).all()
    listed = page_of(
        rows,
        page,
        crypto=crypto,
        scope=scope,
        position_of=lambda row: (row[6], row[0].id),
        view=lambda row: QueueRow(
            row[0], row[1], row[2], risk=row[3], open_hits=int(row[4] or 0), state=row[5]
        ),
    )
    shown: list[QueueRow] = listed["data"]
    if now is not None:
        shown = await _with_ages(session, shown, now, reminder_days)
    return QueuePage(shown, listed["nextCursor"])


async def _with_ages(
    session: AsyncSession, rows: Sequence[QueueRow], now: datetime, reminder_days: int
) -> list[QueueRow]:
    waiting_ids = [row.application.id for row in rows if row.application.status == NEEDS_INFO]
    reminded: dict[str, datetime | None] = {}
    if waiting_ids:
        found = await session.execute(
            select(InfoRequest.application_id, func.max(InfoRequest.reminded_at))
            .where(InfoRequest.application_id.in_(waiting_ids))
            .where(InfoRequest.status == REQUEST_OPEN)
            .group_by(InfoRequest.application_id)
        )
        reminded = {application_id: at for application_id, at in found.all()}
    out = []
    for row in rows:
        a = row.application
        due = a.id in reminded and reminder_due(
            a.status, a.status_changed_at, reminded[a.id], now, reminder_days
        )
        out.append(
            QueueRow(
                a,
                row.tenant_name,
                row.assignee_email,
                age=age_words(now - a.created_at),
                state_age=age_words(now - a.status_changed_at),
                updated_age=age_words(now - a.updated_at),
                waiting=waiting_on(a.status),
                reminder_due=due,
                risk=row.risk,
                open_hits=row.open_hits,
                state=row.state,
            )
        )
    return out


async def tenant_choices(session: AsyncSession) -> list[tuple[str, str]]:
    rows = (await session.execute(select(Tenant.id, Tenant.name).order_by(Tenant.name))).all()
    return [(tenant_id, f"{name} ({tenant_id})") for tenant_id, name in rows]


async def intake_choices(session: AsyncSession) -> list[tuple[str, str]]:
    """Every intake as `(labelId, "Intake · Tenant")`, by tenant then intake name."""
    rows = await session.execute(
        select(Intake.id, Intake.name, Tenant.name)
        .join(Tenant, Tenant.id == Intake.tenant_id)
        .order_by(Tenant.name, Intake.name, Intake.id)
    )
    return [(label_id, f"{name} · {tenant}") for label_id, name, tenant in rows.all()]
