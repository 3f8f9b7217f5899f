"""Reading the audit trail (CONTRACT §4): per application and per tenant,
`{data: [{at, actor, action, target, requestId}], nextCursor, hasMore}`,
newest first with ties broken by id descending (CONTRACT §6), keyset paged.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.crypto import Crypto
from gatehouse.http.cursors import decode_cursor, encode_cursor
from gatehouse.http.errors import invalid_argument, not_found
from gatehouse.services import applications_repo as repo
from gatehouse.services.case_reads import Page
from gatehouse.storage.tables.core import AuditEntry, Tenant
from gatehouse.timeutil import format_ts, parse_ts


def audit_entry_view(entry: AuditEntry) -> dict[str, Any]:
    return {
        "at": format_ts(entry.at),
        "actor": entry.actor,
        "action": entry.action,
        "target": entry.target,
        "requestId": entry.request_id,
    }


async def _page(
    session: AsyncSession,
    crypto: Crypto,
    *,
    kind: str,
    filters: dict[str, str],
    condition: Any,
    page: Page,
) -> dict[str, Any]:
    stmt = select(AuditEntry).where(condition)
    if page.cursor is not None:
        position = decode_cursor(crypto, kind, filters, page.cursor)
        try:
            at = parse_ts(str(position[0]))
            last_id = str(position[1])
        except (IndexError, ValueError):
            raise invalid_argument(
                "The cursor is not valid for this request.", "cursor", "invalid cursor"
            ) from None
        stmt = stmt.where(
            or_(AuditEntry.at < at, and_(AuditEntry.at == at, AuditEntry.id < last_id))
        )
    stmt = stmt.order_by(AuditEntry.at.desc(), AuditEntry.id.desc()).limit(page.limit + 1)
    rows = list((await session.execute(stmt)).scalars())
    has_more = len(rows) > page.limit
    rows = rows[: page.limit]
    next_cursor = (
        encode_cursor(crypto, kind, filters, [format_ts(rows[-1].at), rows[-1].id])
        if has_more
        else None
    )
    return {
        "data": [audit_entry_view(e) for e in rows],
        "nextCursor": next_cursor,
        "hasMore": has_more,
    }


async def application_audit(
    session: AsyncSession, crypto: Crypto, client_id: str, page: Page
) -> dict[str, Any]:
    """`GET /staff/v1/applications/{clientId}/audit`.

    The trail outlives erasure (it holds ids only), so an erased application's
    trail stays readable; an unknown clientId is 404.
    """
    if await repo.application_by_id(session, client_id) is None:
        raise not_found("No application with this clientId.")
    return await _page(
        session,
        crypto,
        kind="staff_audit_application",
        filters={"clientId": client_id},
        condition=AuditEntry.application_id == client_id,
        page=page,
    )


async def tenant_audit(
    session: AsyncSession, crypto: Crypto, tenant_id: str, page: Page
) -> dict[str, Any]:
    """`GET /staff/v1/tenants/{tenantId}/audit`; an unknown tenant is 404."""
    if await session.get(Tenant, tenant_id) is None:
        raise not_found("No tenant with this tenantId.")
    return await _page(
        session,
        crypto,
        kind="staff_audit_tenant",
        filters={"tenantId": tenant_id},
        condition=AuditEntry.tenant_id == tenant_id,
        page=page,
    )
