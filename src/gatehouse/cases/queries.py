"""Staff reads of applications (docs/reference/staff-api.md §6.1): one application, and the
list across tenants, keyset paged on (updatedAt desc, clientId desc) like the tenant list
(docs/reference/tenant-api.md §4.7), erased applications excluded.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications import (
    application_for_read,
    application_summary_view,
    load_application_view,
)
from gatehouse.cases.schemas import StaffApplication, staff_application_view
from gatehouse.crypto import Crypto
from gatehouse.paging import (
    STAFF,
    CursorScope,
    PageRequest,
    keyset_after,
    page_of,
    read_position,
)
from gatehouse.risk import level_of
from gatehouse.screening import open_hits_of
from gatehouse.storage.tables.applications import Application

CURSOR_KIND = "staff_applications"


async def read_application(session: AsyncSession, client_id: str) -> StaffApplication:
    """`GET /staff/v1/applications/{clientId}`: the tenant read's shape; erased is 404."""
    application = await application_for_read(session, client_id)
    return staff_application_view(application, await load_application_view(session, application))


async def list_applications(
    session: AsyncSession,
    crypto: Crypto,
    *,
    tenant_id: str | None,
    status: str | None,
    page: PageRequest,
    risk: str | None = None,
    with_open_hits: bool = False,
) -> dict[str, Any]:
    """`GET /staff/v1/applications?tenantId&status&risk&screening&limit&cursor`, newest
    change first; each element with its risk level and open screening hits."""
    filters: dict[str, Any] = {"tenantId": tenant_id, "status": status}
    if risk is not None or with_open_hits:
        filters |= {"risk": risk, "screening": "hits" if with_open_hits else None}
    scope = CursorScope(CURSOR_KIND, STAFF, filters)
    level, open_hits = level_of(Application.id), open_hits_of(Application.id)
    stmt = select(Application, level, open_hits).where(Application.erased_at.is_(None))
    if tenant_id is not None:
        stmt = stmt.where(Application.tenant_id == tenant_id)
    if status is not None:
        stmt = stmt.where(Application.status == status)
    if risk is not None:
        stmt = stmt.where(level == risk)
    if with_open_hits:
        stmt = stmt.where(open_hits > 0)
    position = read_position(crypto, scope, page.cursor)
    stmt = keyset_after(stmt, Application.updated_at, Application.id, position)
    rows = list((await session.execute(stmt.limit(page.limit + 1))).all())
    return page_of(
        rows,
        page,
        crypto=crypto,
        scope=scope,
        position_of=lambda row: (row[0].updated_at, row[0].id),
        view=lambda row: {
            **staff_application_view(row[0], application_summary_view(row[0])),
            "risk": row[1],
            "openHits": int(row[2] or 0),
        },
    )
