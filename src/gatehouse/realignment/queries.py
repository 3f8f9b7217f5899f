"""What an intake change and a repair read of a case (docs/case-work.md "Changing the intake",
"Checking a status"): the newest decision-history entry and whether an active information
request still holds an item the applicant owes, for one case or for a batch of cases."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.info_requests import ACTIVE_REQUEST_STATES, OWED_ITEM_STATES
from gatehouse.domain.realignment import LastEntry
from gatehouse.storage.tables.applications import (
    Application,
    Decision,
    InfoRequest,
    InfoRequestItem,
)


async def last_entries(
    session: AsyncSession, application_ids: Sequence[str]
) -> dict[str, LastEntry]:
    """The newest decision-history entry of each case that has one (ties on time by id,
    descending, as the history reads)."""
    if not application_ids:
        return {}
    ranked = (
        select(
            Decision.application_id,
            Decision.action,
            Decision.from_status,
            Decision.by_staff_id,
            Decision.at,
            func.row_number()
            .over(
                partition_by=Decision.application_id,
                order_by=(Decision.at.desc(), Decision.id.desc()),
            )
            .label("rank"),
        )
        .where(Decision.application_id.in_(list(application_ids)))
        .subquery()
    )
    rows = await session.execute(
        select(
            ranked.c.application_id,
            ranked.c.action,
            ranked.c.from_status,
            ranked.c.by_staff_id,
            ranked.c.at,
        ).where(ranked.c.rank == 1)
    )
    return {
        row.application_id: LastEntry(row.action, row.from_status, row.by_staff_id, row.at)
        for row in rows
    }


async def owing_answers(session: AsyncSession, application_ids: Sequence[str]) -> set[str]:
    """The cases among `application_ids` with an active request (open or responded) that holds
    an open or reopened item."""
    if not application_ids:
        return set()
    rows = await session.scalars(
        select(InfoRequest.application_id)
        .join(InfoRequestItem, InfoRequestItem.request_id == InfoRequest.id)
        .where(
            InfoRequest.application_id.in_(list(application_ids)),
            InfoRequest.status.in_(ACTIVE_REQUEST_STATES),
            InfoRequestItem.status.in_(OWED_ITEM_STATES),
        )
        .distinct()
    )
    return set(rows)


async def live_application_ids(
    session: AsyncSession, *, after: str | None, limit: int
) -> list[str]:
    """A batch of ids of the applications not erased, in id order, after `after`."""
    stmt = select(Application.id).where(Application.erased_at.is_(None))
    if after is not None:
        stmt = stmt.where(Application.id > after)
    rows = await session.scalars(stmt.order_by(Application.id).limit(limit))
    return list(rows)


async def applications_of(
    session: AsyncSession, application_ids: Sequence[str]
) -> dict[str, tuple[str, str]]:
    """The tenant and the status of each application named, by id."""
    if not application_ids:
        return {}
    rows = await session.execute(
        select(Application.id, Application.tenant_id, Application.status).where(
            Application.id.in_(list(application_ids))
        )
    )
    return {row.id: (row.tenant_id, row.status) for row in rows}
