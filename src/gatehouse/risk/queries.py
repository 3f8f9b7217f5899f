"""All SQL of risk: the stored assessment and override, and the queue's filter on it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.screening import RiskLevel
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import StaffMember
from gatehouse.storage.tables.screening import ApplicationRisk


async def stored(
    session: AsyncSession, application_id: str, *, for_update: bool = False
) -> ApplicationRisk | None:
    return await session.get(ApplicationRisk, application_id, with_for_update=for_update)


async def application(
    session: AsyncSession, application_id: str, *, for_update: bool = False
) -> Application | None:
    return await session.get(Application, application_id, with_for_update=for_update)


async def staff_email(session: AsyncSession, staff_id: str | None) -> str | None:
    if not staff_id:
        return None
    return await session.scalar(select(StaffMember.email).where(StaffMember.id == staff_id))


async def level_figures(session: AsyncSession, chosen: Any) -> dict[str, int]:
    """How many of the applications `chosen` selects are at each effective level (low
    without an assessment)."""
    level = func.coalesce(ApplicationRisk.level, RiskLevel.LOW.value)
    rows = await session.execute(
        select(level, func.count())
        .select_from(Application)
        .outerjoin(ApplicationRisk, ApplicationRisk.application_id == Application.id)
        .where(Application.id.in_(chosen))
        .group_by(level)
    )
    return {str(name): int(count) for name, count in rows.all()}


def level_of(application_id: Any) -> Any:
    """A correlated read of an application's effective level (low without an assessment)."""
    return func.coalesce(
        select(ApplicationRisk.level)
        .where(ApplicationRisk.application_id == application_id)
        .scalar_subquery(),
        RiskLevel.LOW.value,
    )
