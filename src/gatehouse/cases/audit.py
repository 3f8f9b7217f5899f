"""Reading the audit trail (docs/reference/staff-api.md §6.8): per application and per
tenant, `{data: [{at, actor, action, target, requestId}], nextCursor, hasMore}`, newest first
with ties broken by id descending, keyset paged (`gatehouse.paging`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import applications
from gatehouse.cases.schemas import audit_entry_view
from gatehouse.crypto import Crypto
from gatehouse.errors import not_found
from gatehouse.paging import (
    STAFF,
    CursorScope,
    PageRequest,
    keyset_after,
    page_of,
    read_position,
)
from gatehouse.storage.tables.core import AuditEntry, Tenant


async def _page(
    session: AsyncSession, crypto: Crypto, scope: CursorScope, condition: Any, page: PageRequest
) -> dict[str, Any]:
    position = read_position(crypto, scope, page.cursor)
    stmt = keyset_after(select(AuditEntry).where(condition), AuditEntry.at, AuditEntry.id, position)
    rows = list((await session.execute(stmt.limit(page.limit + 1))).scalars())
    return page_of(
        rows,
        page,
        crypto=crypto,
        scope=scope,
        position_of=lambda entry: (entry.at, entry.id),
        view=audit_entry_view,
    )


async def application_audit(
    session: AsyncSession, crypto: Crypto, client_id: str, page: PageRequest
) -> dict[str, Any]:
    """`GET /staff/v1/applications/{clientId}/audit`.

    The trail outlives erasure (it holds ids only), so an erased application's
    trail stays readable; an unknown clientId is 404.
    """
    if await applications.application_by_id(session, client_id) is None:
        raise not_found("No application with this clientId.")
    scope = CursorScope("staff_audit_application", STAFF, {"clientId": client_id})
    return await _page(session, crypto, scope, AuditEntry.application_id == client_id, page)


async def tenant_audit(
    session: AsyncSession, crypto: Crypto, tenant_id: str, page: PageRequest
) -> dict[str, Any]:
    """`GET /staff/v1/tenants/{tenantId}/audit`; an unknown tenant is 404."""
    if await session.get(Tenant, tenant_id) is None:
        raise not_found("No tenant with this tenantId.")
    scope = CursorScope("staff_audit_tenant", STAFF, {"tenantId": tenant_id})
    return await _page(session, crypto, scope, AuditEntry.tenant_id == tenant_id, page)


async def latest_entries(
    session: AsyncSession, application_id: str, limit: int
) -> list[AuditEntry]:
    """The newest `limit` entries of an application's trail, for the case page's timeline."""
    stmt = keyset_after(
        select(AuditEntry).where(AuditEntry.application_id == application_id),
        AuditEntry.at,
        AuditEntry.id,
        None,
    )
    return list((await session.execute(stmt.limit(limit))).scalars())
