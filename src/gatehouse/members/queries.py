"""The SQL of members (docs/reference/tenant-api.md §5.6-§5.8): the member lists and links are
the applications feature's rows (`applications/queries/rows.py`); removing one is here."""

from __future__ import annotations

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.storage.tables.applications import Member


async def delete_member(session: AsyncSession, application_id: str, uid: str) -> None:
    """Remove the member `uid` of the application (nothing when it is not one of them)."""
    await session.execute(
        delete(Member).where(Member.id == uid, Member.application_id == application_id)
    )
