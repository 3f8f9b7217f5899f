"""All SQL of the records area: the chain head, unsealed and sealed audit entries."""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.storage.tables.core import AuditEntry
from gatehouse.storage.tables.records import AuditChain

HEAD_ID = 1


class SealedRow(NamedTuple):
    """A sealed entry as stored: its seq, the fields its hash covers, its hash."""

    seq: int
    at: datetime
    actor: str
    action: str
    target: str
    tenant_id: str | None
    application_id: str | None
    request_id: str | None
    hash: str


class UnsealedRow(NamedTuple):
    id: str
    at: datetime
    actor: str
    action: str
    target: str
    tenant_id: str | None
    application_id: str | None
    request_id: str | None


# The columns a hash covers, in the order `chain.chained_fields` takes them.
CHAINED = (
    AuditEntry.at,
    AuditEntry.actor,
    AuditEntry.action,
    AuditEntry.target,
    AuditEntry.tenant_id,
    AuditEntry.application_id,
    AuditEntry.request_id,
)


async def lock_head(session: AsyncSession) -> AuditChain:
    """The chain head, locked until the transaction ends: the sealers' one lock
    (a row lock on PostgreSQL; SQLite's write transaction holds the whole file)."""
    locking = select(AuditChain).where(AuditChain.id == HEAD_ID).with_for_update()
    head = await session.scalar(locking)
    if head is None:  # the migration inserts it; a database emptied without it gets it back
        try:
            async with session.begin_nested():
                session.add(AuditChain(id=HEAD_ID, seq=0, hash="0" * 64, sealed_at=None))
        except IntegrityError:  # another sealer put it back first
            pass
        head = await session.scalar(locking)
    if head is None:
        raise RuntimeError("the audit chain's head row cannot be read")
    return head


async def read_head(session: AsyncSession) -> AuditChain | None:
    return await session.get(AuditChain, HEAD_ID)


async def unsealed(session: AsyncSession, limit: int) -> list[UnsealedRow]:
    """Entries not yet in the chain, oldest first."""
    stmt = (
        select(AuditEntry.id, *CHAINED)
        .where(AuditEntry.seq.is_(None))
        .order_by(AuditEntry.at, AuditEntry.id)
        .limit(limit)
    )
    return [UnsealedRow(*row) for row in (await session.execute(stmt)).tuples()]


async def write_seals(session: AsyncSession, seals: list[dict[str, Any]]) -> None:
    """Set `seq` and `hash` of entries, by id (one executemany)."""
    await session.execute(update(AuditEntry), seals)


def _sealed_columns() -> tuple[Any, ...]:
    return (AuditEntry.seq, *CHAINED, AuditEntry.hash)


def _sealed(result: Any) -> list[SealedRow]:
    return [SealedRow(*row) for row in result.tuples()]


async def sealed_after(
    session: AsyncSession,
    after: int,
    upto: int,
    limit: int,
    *,
    since: datetime | None = None,
    before: datetime | None = None,
    tenant_id: str | None = None,
) -> list[SealedRow]:
    """Sealed entries with `after < seq <= upto`, in seq order."""
    stmt = select(*_sealed_columns()).where(AuditEntry.seq > after, AuditEntry.seq <= upto)
    if since is not None:
        stmt = stmt.where(AuditEntry.at >= since)
    if before is not None:
        stmt = stmt.where(AuditEntry.at < before)
    if tenant_id is not None:
        stmt = stmt.where(AuditEntry.tenant_id == tenant_id)
    return _sealed(await session.execute(stmt.order_by(AuditEntry.seq).limit(limit)))


async def sealed_between(session: AsyncSession, low: int, high: int) -> list[SealedRow]:
    """Sealed entries with `low <= seq <= high`, in seq order."""
    stmt = select(*_sealed_columns()).where(AuditEntry.seq >= low, AuditEntry.seq <= high)
    return _sealed(await session.execute(stmt.order_by(AuditEntry.seq)))


async def hash_at(session: AsyncSession, seq: int) -> str | None:
    """The stored hash of the entry sealed as `seq` (the genesis value for 0)."""
    if seq == 0:
        return "0" * 64
    return await session.scalar(select(AuditEntry.hash).where(AuditEntry.seq == seq))


async def application_entries(session: AsyncSession, application_id: str) -> list[SealedRow]:
    """An application's sealed entries, in seq order."""
    stmt = (
        select(*_sealed_columns())
        .where(AuditEntry.application_id == application_id, AuditEntry.seq.is_not(None))
        .order_by(AuditEntry.seq)
    )
    return _sealed(await session.execute(stmt))


async def hashes_of(session: AsyncSession, seqs: list[int]) -> dict[int, str]:
    """The stored hashes of the entries sealed as `seqs`."""
    if not seqs:
        return {}
    rows = await session.execute(
        select(AuditEntry.seq, AuditEntry.hash).where(AuditEntry.seq.in_(seqs))
    )
    return {seq: hash_ for seq, hash_ in rows.tuples() if seq is not None and hash_ is not None}
