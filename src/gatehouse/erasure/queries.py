"""The SQL of erasure (docs/reference/staff-api.md §6.7): the bulk clears over one
application's rows. Each runs in the caller's transaction; the order is the service's."""

from __future__ import annotations

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.storage.tables.applications import (
    Decision,
    Document,
    InfoRequest,
    InfoRequestItem,
    Member,
)
from gatehouse.storage.tables.workstation import CaseNote


async def clear_personal_rows(session: AsyncSession, application_id: str) -> None:
    """Members go; item answers, document contents and file names are cleared (the
    documents marked erased)."""
    await session.execute(delete(Member).where(Member.application_id == application_id))
    request_ids = select(InfoRequest.id).where(InfoRequest.application_id == application_id)
    await session.execute(
        update(InfoRequestItem)
        .where(InfoRequestItem.request_id.in_(request_ids))
        .values(answer=None, draft=None)
    )
    await session.execute(
        update(Document)
        .where(Document.application_id == application_id)
        .values(content=None, filename=None, status="erased")
    )


async def clear_staff_text(session: AsyncSession, application_id: str) -> None:
    """Staff free text about the applicant: internal notes go, and the reasons given for
    proposing approval with unsatisfied items are cleared."""
    await session.execute(delete(CaseNote).where(CaseNote.application_id == application_id))
    await session.execute(
        update(Decision)
        .where(Decision.application_id == application_id)
        .values(acknowledgement=None)
    )
