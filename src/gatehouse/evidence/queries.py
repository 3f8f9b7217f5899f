"""All SQL of the evidence pack beyond what the case file reads."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.storage.tables.core import StaffMember


async def staff_emails(session: AsyncSession, staff_ids: set[str]) -> dict[str, str]:
    """Staff id -> email, for the ids given (staff removed since keep their row)."""
    if not staff_ids:
        return {}
    rows = await session.execute(
        select(StaffMember.id, StaffMember.email).where(StaffMember.id.in_(staff_ids))
    )
    return dict(rows.tuples().all())
