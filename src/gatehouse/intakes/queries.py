"""Reads of intake labels for the dashboard's tenant page (docs/portal-and-dashboard.md;
docs/reference/staff-api.md §5): plain lookups, no rules, no writes."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.storage.tables.applications import Intake


async def intakes_of(session: AsyncSession, tenant_id: str) -> list[Intake]:
    """Every intake of the tenant, attached or not, in creation order."""
    query = select(Intake).where(Intake.tenant_id == tenant_id).order_by(Intake.position)
    return list((await session.scalars(query)).all())


async def tenant_of_intake(session: AsyncSession, label_id: str) -> str | None:
    """The tenant id the intake label belongs to, or None when there is no such label."""
    return await session.scalar(select(Intake.tenant_id).where(Intake.id == label_id))
