"""Staff reads of applications (docs/reference/staff-api.md §6.1): one application, and the
list across tenants, keyset paged on (updatedAt desc, clientId desc) like the tenant list
(docs/reference/tenant-api.md §4.7), erased applications excluded.
"""

from __future__ import annotations

from typing import Any, overload

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications.schemas import Application as ApplicationView
from gatehouse.applications.schemas import ApplicationSummary
from gatehouse.applications.service.reads import load_application_view
from gatehouse.applications.views import application_summary_view
from gatehouse.cases.schemas import StaffApplication, StaffApplicationSummary
from gatehouse.cases.service import application_for_read
from gatehouse.crypto import Crypto
from gatehouse.paging import (
    STAFF,
    CursorScope,
    PageRequest,
    keyset_after,
    page_of,
    read_position,
)
from gatehouse.storage.tables.applications import Application

CURSOR_KIND = "staff_applications"


@overload
def staff_application_view(application: Application, view: ApplicationView) -> StaffApplication: ...
@overload
def staff_application_view(
    application: Application, view: ApplicationSummary
) -> StaffApplicationSummary: ...
def staff_application_view(
    application: Application, view: ApplicationView | ApplicationSummary
) -> StaffApplication | StaffApplicationSummary:
    """The tenant shape, plus the tenant the application belongs to."""
    return {**view, "tenantId": application.tenant_id}  # type: ignore[typeddict-item]


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
) -> dict[str, Any]:
    """`GET /staff/v1/applications?tenantId&status&limit&cursor`, newest change first."""
    scope = CursorScope(CURSOR_KIND, STAFF, {"tenantId": tenant_id, "status": status})
    stmt = select(Application).where(Application.erased_at.is_(None))
    if tenant_id is not None:
        stmt = stmt.where(Application.tenant_id == tenant_id)
    if status is not None:
        stmt = stmt.where(Application.status == status)
    position = read_position(crypto, scope, page.cursor)
    stmt = keyset_after(stmt, Application.updated_at, Application.id, position)
    rows = list((await session.execute(stmt.limit(page.limit + 1))).scalars())
    return page_of(
        rows,
        page,
        crypto=crypto,
        scope=scope,
        position_of=lambda application: (application.updated_at, application.id),
        view=lambda application: staff_application_view(
            application, application_summary_view(application)
        ),
    )
