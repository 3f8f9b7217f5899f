"""Queries over applications and the rows that hang off them.

Small async functions over an `AsyncSession`, shared by the tenant API
services; they hold no rules, only SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from gatehouse.domain.info_requests import ACTIVE_REQUEST_STATES, OWED_ITEM_STATES
from gatehouse.storage.tables.applications import (
    Application,
    Decision,
    Document,
    InfoRequest,
    InfoRequestItem,
    LoginLink,
    Member,
    PortalSession,
)

# Request states in which a request is "current" for the application read.
CURRENT_REQUEST_STATES = ACTIVE_REQUEST_STATES


def _is_sqlite(session: AsyncSession) -> bool:
    return session.get_bind().dialect.name == "sqlite"


async def application_by_id(
    session: AsyncSession, client_id: str, *, for_update: bool = False
) -> Application | None:
    """The application row; row-locked on PostgreSQL when `for_update`."""
    stmt = select(Application).where(Application.id == client_id)
    if for_update and not _is_sqlite(session):
        stmt = stmt.with_for_update()
    if for_update:
        # Re-read the row under the lock rather than trusting the identity map.
        stmt = stmt.execution_options(populate_existing=True)
    return (await session.execute(stmt)).scalar_one_or_none()


async def application_by_identity(
    session: AsyncSession, tenant_id: str, identity: str, *, for_update: bool = False
) -> Application | None:
    stmt = select(Application).where(
        Application.tenant_id == tenant_id, Application.identity == identity
    )
    if for_update and not _is_sqlite(session):
        stmt = stmt.with_for_update()
    stmt = stmt.execution_options(populate_existing=True)
    return (await session.execute(stmt)).scalar_one_or_none()


async def members_of(session: AsyncSession, application_id: str) -> list[Member]:
    """Members in joining order (ties by uid)."""
    result = await session.execute(
        select(Member)
        .where(Member.application_id == application_id)
        .order_by(Member.joined_at, Member.id)
    )
    return list(result.scalars())


async def member_count(session: AsyncSession, application_id: str) -> int:
    count = await session.scalar(
        select(func.count()).select_from(Member).where(Member.application_id == application_id)
    )
    return int(count or 0)


async def latest_decision(session: AsyncSession, application_id: str) -> Decision | None:
    """Newest decision; ties on time broken by id, descending (docs/reference/tenant-api.md)."""
    result = await session.execute(
        select(Decision)
        .where(Decision.application_id == application_id)
        .order_by(Decision.at.desc(), Decision.id.desc())
        .limit(1)
    )
    return result.scalar_one_or_none()


async def decisions_of(session: AsyncSession, application_id: str) -> list[Decision]:
    result = await session.execute(
        select(Decision)
        .where(Decision.application_id == application_id)
        .order_by(Decision.at.desc(), Decision.id.desc())
    )
    return list(result.scalars())


async def current_info_request(session: AsyncSession, application_id: str) -> InfoRequest | None:
    """The request with the highest seq that is open or responded
    (docs/reference/tenant-api.md §2.4).
    """
    result = await session.execute(
        select(InfoRequest)
        .where(
            InfoRequest.application_id == application_id,
            InfoRequest.status.in_(CURRENT_REQUEST_STATES),
        )
        .order_by(InfoRequest.seq.desc())
        .limit(1)
    )
    return result.scalar_one_or_none()


async def info_requests_of(session: AsyncSession, application_id: str) -> list[InfoRequest]:
    """Every request of the application, highest seq first (docs/reference/tenant-api.md §5.4)."""
    result = await session.execute(
        select(InfoRequest)
        .where(InfoRequest.application_id == application_id)
        .order_by(InfoRequest.seq.desc())
    )
    return list(result.scalars())


async def owed_items(
    session: AsyncSession, application_id: str, item_ids: Sequence[str]
) -> list[InfoRequestItem]:
    """Those of `item_ids` still owed (open or reopened) on the application's requests."""
    if not item_ids:
        return []
    result = await session.execute(
        select(InfoRequestItem)
        .join(InfoRequest, InfoRequest.id == InfoRequestItem.request_id)
        .where(InfoRequest.application_id == application_id)
        .where(InfoRequestItem.id.in_(list(item_ids)))
        .where(InfoRequestItem.status.in_(sorted(OWED_ITEM_STATES)))
    )
    return list(result.scalars())


async def items_of(
    session: AsyncSession, request_ids: Sequence[str]
) -> dict[str, list[InfoRequestItem]]:
    """Items per request id, in the staff's order."""
    grouped: dict[str, list[InfoRequestItem]] = {request_id: [] for request_id in request_ids}
    if not request_ids:
        return grouped
    result = await session.execute(
        select(InfoRequestItem)
        .where(InfoRequestItem.request_id.in_(list(request_ids)))
        .order_by(InfoRequestItem.request_id, InfoRequestItem.position, InfoRequestItem.id)
    )
    for item in result.scalars():
        grouped.setdefault(item.request_id, []).append(item)
    return grouped


async def revoke_unused_links(
    session: AsyncSession, application_id: str, at: datetime, *, member_id: str | None = None
) -> None:
    """Invalidate every unused, unrevoked sign-in link (of one member, if given)."""
    stmt = update(LoginLink).where(
        LoginLink.application_id == application_id,
        LoginLink.used_at.is_(None),
        LoginLink.revoked_at.is_(None),
    )
    if member_id is not None:
        stmt = stmt.where(LoginLink.member_id == member_id)
    await session.execute(stmt.values(revoked_at=at))


async def end_portal_sessions(
    session: AsyncSession, application_id: str, at: datetime, *, member_id: str | None = None
) -> None:
    """End every live portal session (of one member, if given)."""
    stmt = update(PortalSession).where(
        PortalSession.application_id == application_id, PortalSession.ended_at.is_(None)
    )
    if member_id is not None:
        stmt = stmt.where(PortalSession.member_id == member_id)
    await session.execute(stmt.values(ended_at=at))


async def documents_of(session: AsyncSession, application_id: str) -> list[Document]:
    """The application's documents, oldest upload first; only the metadata columns are
    loaded (contents stay in the database)."""
    result = await session.execute(
        select(Document)
        .options(defer(Document.content))
        .where(Document.application_id == application_id)
        .order_by(Document.uploaded_at, Document.id)
    )
    return list(result.scalars())


async def first_uploads(session: AsyncSession, application_id: str) -> dict[str, datetime]:
    """Document type -> when the first document of that type was uploaded."""
    rows = await session.execute(
        select(Document.type, func.min(Document.uploaded_at))
        .where(Document.application_id == application_id)
        .group_by(Document.type)
    )
    return {doc_type: at for doc_type, at in rows.all()}
