"""All SQL of retention and legal holds."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from sqlalchemy import and_, delete, exists, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.retention import Retention, cutoff
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import Tenant
from gatehouse.storage.tables.records import LegalHold


async def tenants_with_retention(session: AsyncSession) -> list[tuple[str, Retention]]:
    rows = await session.execute(
        select(Tenant.id, Tenant.retention_rejected_days, Tenant.retention_abandoned_days)
        .where(
            or_(
                Tenant.retention_rejected_days.is_not(None),
                Tenant.retention_abandoned_days.is_not(None),
            )
        )
        .order_by(Tenant.id)
    )
    return [(tenant_id, Retention(rejected, abandoned)) for tenant_id, rejected, abandoned in rows]


async def tenant_retention(session: AsyncSession, tenant_id: str) -> Retention:
    row = (
        await session.execute(
            select(Tenant.retention_rejected_days, Tenant.retention_abandoned_days).where(
                Tenant.id == tenant_id
            )
        )
    ).first()
    return Retention(row[0], row[1]) if row is not None else Retention()


class Candidate(NamedTuple):
    id: str
    status: str
    submitted_at: datetime | None
    status_changed_at: datetime
    updated_at: datetime


async def candidates(
    session: AsyncSession,
    tenant_id: str,
    retention: Retention,
    as_of: datetime,
    limit: int | None = None,
) -> list[Candidate]:
    """The tenant's applications a rule of `retention` erases at `as_of`: not erased, not on
    legal hold, oldest change first (at most `limit`)."""
    rules = []
    if retention.rejected_days is not None:
        rules.append(
            and_(
                Application.status == "rejected",
                Application.status_changed_at < cutoff(as_of, retention.rejected_days),
            )
        )
    if retention.abandoned_days is not None:
        rules.append(
            and_(
                Application.status == "pending",
                Application.submitted_at.is_(None),
                Application.updated_at < cutoff(as_of, retention.abandoned_days),
            )
        )
    if not rules:
        return []
    held = exists().where(LegalHold.application_id == Application.id)
    stmt = (
        select(
            Application.id,
            Application.status,
            Application.submitted_at,
            Application.status_changed_at,
            Application.updated_at,
        )
        .where(
            Application.tenant_id == tenant_id,
            Application.erased_at.is_(None),
            ~held,
            or_(*rules),
        )
        .order_by(Application.updated_at, Application.id)
        .limit(limit)
    )
    return [Candidate(*row) for row in (await session.execute(stmt)).tuples()]


async def hold_of(session: AsyncSession, application_id: str) -> LegalHold | None:
    return await session.get(LegalHold, application_id)


async def place_hold(
    session: AsyncSession, application_id: str, reason: str, by: str, at: datetime
) -> None:
    held = await session.get(LegalHold, application_id, with_for_update=True)
    if held is None:
        session.add(
            LegalHold(application_id=application_id, reason=reason, placed_by=by, placed_at=at)
        )
    else:
        held.reason, held.placed_by, held.placed_at = reason, by, at
    await session.flush()


async def release_hold(session: AsyncSession, application_id: str) -> None:
    await session.execute(delete(LegalHold).where(LegalHold.application_id == application_id))


async def holds_in_tenant(session: AsyncSession, tenant_id: str) -> list[LegalHold]:
    """The tenant's applications on legal hold, newest hold first."""
    stmt = (
        select(LegalHold)
        .join(Application, Application.id == LegalHold.application_id)
        .where(Application.tenant_id == tenant_id)
        .order_by(LegalHold.placed_at.desc(), LegalHold.application_id)
    )
    return list((await session.scalars(stmt)).all())
