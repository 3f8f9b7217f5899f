"""The durable queue of screenings (docs/screening.md, "When screening runs").

At most one row per application: a request while one waits only raises its `seq` (and
`force`), so a burst of saved drafts screens once. Workers claim due rows with the shared
leased-queue mechanism (storage/leases.py); a job is deleted when it ran under the same
`seq`, otherwise it stays due and runs again. A worker that dies leaves its rows to be
claimed again when the lease ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, delete, func, literal, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.status import REJECTED
from gatehouse.runtime import Runtime
from gatehouse.screening.queries import upsert
from gatehouse.storage.follow_ups import APPLICATION_FACTS
from gatehouse.storage.leases import Lease, WakeChannel, claim_due
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.screening import ApplicationRisk, ScreeningJob

# Wakes the screening workers of this process (and, on PostgreSQL, of every process).
SCREENINGS = WakeChannel("gatehouse_screenings")
LEASE = timedelta(seconds=120)


@dataclass(frozen=True, slots=True)
class ClaimedJob:
    application_id: str
    seq: int
    force: bool
    reason: str
    token: str


async def enqueue(
    session: AsyncSession, application_id: str, reason: str, now: datetime, *, force: bool
) -> None:
    """Ask for a screening of one application, in the caller's transaction; its risk is
    computed again before that transaction commits (what asks for a screening changed a
    fact the rules read), and by the job after the screening."""
    statement = upsert(session, ScreeningJob).values(
        application_id=application_id,
        reason=reason,
        force=force,
        seq=1,
        due_at=now,
        attempts=0,
    )
    statement = statement.on_conflict_do_update(
        index_elements=[ScreeningJob.application_id],
        set_={
            "seq": ScreeningJob.seq + 1,
            "reason": statement.excluded.reason,
            "force": or_(ScreeningJob.force, statement.excluded.force),
        },
    )
    await session.execute(statement)
    await SCREENINGS.announce(session)
    APPLICATION_FACTS.mark(session, application_id)


async def enqueue_where(
    session: AsyncSession, condition: object, reason: str, now: datetime, *, force: bool
) -> None:
    """Ask for a screening of every application matching `condition` (not erased)."""
    chosen = select(
        Application.id, literal(reason), literal(force), literal(1), literal(now), literal(0)
    ).where(Application.erased_at.is_(None), condition)  # type: ignore[arg-type]
    statement = upsert(session, ScreeningJob).from_select(
        ["application_id", "reason", "force", "seq", "due_at", "attempts"], chosen
    )
    statement = statement.on_conflict_do_update(
        index_elements=[ScreeningJob.application_id],
        set_={
            "seq": ScreeningJob.seq + 1,
            "force": or_(ScreeningJob.force, statement.excluded.force),
        },
    )
    await session.execute(statement)
    await SCREENINGS.announce(session)


async def enqueue_monitoring(session: AsyncSession, now: datetime) -> None:
    """A list's version changed: every application not rejected (nor erased) again."""
    await enqueue_where(session, Application.status != REJECTED, "list_changed", now, force=True)


async def enqueue_stale_risk(session: AsyncSession, now: datetime) -> None:
    """Applications changed since their risk was computed (a document uploaded, anything
    that moves `updated_at`), or never computed: a job each, which screens only if the
    subjects changed and computes the risk again."""
    computed = (
        select(ApplicationRisk.computed_at)
        .where(ApplicationRisk.application_id == Application.id)
        .scalar_subquery()
    )
    stale = or_(computed.is_(None), Application.updated_at > computed)
    await enqueue_where(session, stale, "inputs_changed", now, force=False)


def _due(now: datetime) -> object:
    return or_(
        and_(ScreeningJob.lease_until.is_(None), ScreeningJob.due_at <= now),
        ScreeningJob.lease_until <= now,
    )


async def claim(runtime: Runtime, limit: int) -> list[ClaimedJob]:
    lease = Lease.take(runtime.now(), LEASE)
    statement = claim_due(
        ScreeningJob,
        ScreeningJob.application_id,
        _due(lease.taken_at),  # type: ignore[arg-type]
        order_by=[ScreeningJob.due_at, ScreeningJob.application_id],
        limit=limit,
        values={
            "lease_until": lease.until,
            "lease_token": lease.token,
            "attempts": ScreeningJob.attempts + 1,
        },
    ).returning(
        ScreeningJob.application_id, ScreeningJob.seq, ScreeningJob.force, ScreeningJob.reason
    )
    async with runtime.db.write() as session:
        rows = (await session.execute(statement)).all()
    return [
        ClaimedJob(row.application_id, int(row.seq), bool(row.force), row.reason, lease.token)
        for row in rows
    ]


async def complete(session: AsyncSession, job: ClaimedJob) -> None:
    """Delete the job if no request came while it ran; else free it to run again."""
    done = await session.execute(
        delete(ScreeningJob).where(
            ScreeningJob.application_id == job.application_id,
            ScreeningJob.lease_token == job.token,
            ScreeningJob.seq == job.seq,
        )
    )
    if not done.rowcount:  # type: ignore[attr-defined]
        await session.execute(
            update(ScreeningJob)
            .where(
                ScreeningJob.application_id == job.application_id,
                ScreeningJob.lease_token == job.token,
            )
            .values(lease_until=None, lease_token=None)
        )
        SCREENINGS.on_commit(session)


async def pending(session: AsyncSession) -> int:
    return int(await session.scalar(select(func.count()).select_from(ScreeningJob)) or 0)
