"""Staff reads of applications (CONTRACT §4): one application, and the list across
tenants, keyset paged on (updatedAt desc, clientId desc) like the tenant list
(spec 1 §4.11), erased applications excluded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.crypto import Crypto
from gatehouse.http.cursors import decode_cursor, encode_cursor
from gatehouse.http.errors import invalid_argument
from gatehouse.services.application_reads import load_application_view
from gatehouse.services.case_access import application_for_read
from gatehouse.services.views import application_summary_view
from gatehouse.storage.tables.applications import Application
from gatehouse.timeutil import format_ts, parse_ts

CURSOR_KIND = "staff_applications"


@dataclass(frozen=True, slots=True)
class Page:
    limit: int
    cursor: str | None


def staff_application_view(application: Application, view: dict[str, Any]) -> dict[str, Any]:
    """The tenant shape, plus the tenant the application belongs to."""
    return {**view, "tenantId": application.tenant_id}


async def read_application(session: AsyncSession, client_id: str) -> dict[str, Any]:
    """`GET /staff/v1/applications/{clientId}`: the tenant read's shape; erased is 404."""
    application = await application_for_read(session, client_id)
    return staff_application_view(application, await load_application_view(session, application))


async def list_applications(
    session: AsyncSession,
    crypto: Crypto,
    *,
    tenant_id: str | None,
    status: str | None,
    page: Page,
) -> dict[str, Any]:
    """`GET /staff/v1/applications?tenantId&status&limit&cursor`, newest change first."""
    filters = {"tenantId": tenant_id, "status": status}
    stmt = select(Application).where(Application.erased_at.is_(None))
    if tenant_id is not None:
        stmt = stmt.where(Application.tenant_id == tenant_id)
    if status is not None:
        stmt = stmt.where(Application.status == status)
    if page.cursor is not None:
        position = decode_cursor(crypto, CURSOR_KIND, filters, page.cursor)
        try:
            updated_at = parse_ts(str(position[0]))
            last_id = str(position[1])
        except (IndexError, ValueError):
            raise invalid_argument(
                "The cursor is not valid for this request.", "cursor", "invalid cursor"
            ) from None
        stmt = stmt.where(
            or_(
                Application.updated_at < updated_at,
                and_(Application.updated_at == updated_at, Application.id < last_id),
            )
        )
    stmt = stmt.order_by(Application.updated_at.desc(), Application.id.desc()).limit(page.limit + 1)
    rows = list((await session.execute(stmt)).scalars())
    has_more = len(rows) > page.limit
    rows = rows[: page.limit]
    next_cursor = None
    if has_more:
        last = rows[-1]
        next_cursor = encode_cursor(
            crypto, CURSOR_KIND, filters, [format_ts(last.updated_at), last.id]
        )
    return {
        "data": [staff_application_view(a, application_summary_view(a)) for a in rows],
        "nextCursor": next_cursor,
        "hasMore": has_more,
    }
