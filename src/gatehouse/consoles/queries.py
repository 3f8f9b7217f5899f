"""The SQL of console links and sessions (docs/console.md): lookups by keyed digest, with the
key's (and tenant's) state as it is now, and the guarded updates that make a link single-use
and a session end once. No rules; `service.py` decides."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.storage.tables.console import ConsoleLink, ConsoleSession
from gatehouse.storage.tables.core import ApiKey, Tenant


async def link_with_key_status(
    session: AsyncSession, digests: Iterable[str]
) -> tuple[ConsoleLink, str] | None:
    """The link one of `digests` names, with its key's status."""
    row = (
        await session.execute(
            select(ConsoleLink, ApiKey.status)
            .join(ApiKey, ApiKey.id == ConsoleLink.key_id)
            .where(ConsoleLink.token_hash.in_(list(digests)))
        )
    ).first()
    return None if row is None else (row[0], row[1])


async def link_by_digest(
    session: AsyncSession, digests: Iterable[str], *, lock: bool
) -> ConsoleLink | None:
    """The link one of `digests` names; row-locked when `lock`."""
    stmt = select(ConsoleLink).where(ConsoleLink.token_hash.in_(list(digests)))
    if lock:
        stmt = stmt.with_for_update()
    return await session.scalar(stmt)


async def claim_link(session: AsyncSession, link_id: str, now: datetime) -> bool:
    """Mark the link used unless it already is; whether this call did (one of two wins)."""
    claimed = await session.execute(
        update(ConsoleLink)
        .where(ConsoleLink.id == link_id, ConsoleLink.used_at.is_(None))
        .values(used_at=now)
    )
    return getattr(claimed, "rowcount", 0) == 1


async def session_with_key(
    session: AsyncSession, digests: Iterable[str]
) -> tuple[ConsoleSession, str, list[str] | None, str] | None:
    """The session one of `digests` names, with its key's status and scopes and its tenant's
    status."""
    row = (
        await session.execute(
            select(ConsoleSession, ApiKey.status, ApiKey.scopes, Tenant.status)
            .join(ApiKey, ApiKey.id == ConsoleSession.key_id)
            .join(Tenant, Tenant.id == ConsoleSession.tenant_id)
            .where(ConsoleSession.token_hash.in_(list(digests)))
        )
    ).first()
    return None if row is None else (row[0], row[1], row[2], row[3])


async def touch_session(session: AsyncSession, session_id: str, now: datetime) -> None:
    """`last_seen_at` moves to `now` unless the session has ended."""
    await session.execute(
        update(ConsoleSession)
        .where(ConsoleSession.id == session_id, ConsoleSession.ended_at.is_(None))
        .values(last_seen_at=now)
    )


async def close_session(session: AsyncSession, session_id: str, now: datetime) -> None:
    """The session ends at `now` unless it already has."""
    await session.execute(
        update(ConsoleSession)
        .where(ConsoleSession.id == session_id, ConsoleSession.ended_at.is_(None))
        .values(ended_at=now)
    )


async def keep_flash(session: AsyncSession, session_id: str, sealed: str) -> None:
    """Keep a sealed value on the session for its next page."""
    await session.execute(
        update(ConsoleSession).where(ConsoleSession.id == session_id).values(flash_encrypted=sealed)
    )
