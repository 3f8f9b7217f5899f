"""The SQL of the insights (docs/insights.md): each figure is one aggregate statement over
the applications (and the decision history), the same statement on SQLite and PostgreSQL but
for how a moment becomes whole seconds since 1970.

The funnel reads the applications created in the period (`ix_applications_insights_created`
holds every column it needs), the time to decision the decided ones
(`ix_applications_insights_decided`, a partial index of them alone), the decisions by staff the
history entries made in it (`ix_decisions_insights_at`), the ageing the open applications
(`ix_applications_insights_open`, partial too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    BigInteger,
    Integer,
    and_,
    case,
    cast,
    func,
    literal,
    select,
    text,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from gatehouse.domain.sandbox import SANDBOX
from gatehouse.domain.status import ACTIVE, REJECTED, HistoryAction
from gatehouse.insights.rules import AGE_BUCKETS, DURATION_BUCKETS, PERCENTILES, Filters
from gatehouse.storage.tables.applications import (
    DECIDED_PREDICATE,
    OPEN_PREDICATE,
    Application,
    Decision,
)
from gatehouse.storage.tables.core import StaffMember, Tenant

DECIDED = (ACTIVE, REJECTED)
STAFF_ACTIONS = {
    "proposals": HistoryAction.APPROVE,
    "countersignatures": HistoryAction.APPROVED,
    "rejections": HistoryAction.REJECT,
}


def _count_if(condition: ColumnElement[bool]) -> ColumnElement[Any]:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def _scope(filters: Filters) -> list[ColumnElement[bool]]:
    """The tenant and intake filters on `applications`. Without a tenant, sandbox tenants'
    test applications are left out (docs/insights.md "Which applications")."""
    where: list[ColumnElement[bool]] = []
    if filters.tenant_id is not None:
        where.append(Application.tenant_id == filters.tenant_id)
    else:
        sandbox = select(Tenant.id).where(Tenant.environment == SANDBOX)
        where.append(Application.tenant_id.not_in(sandbox.scalar_subquery()))
    if filters.label_id is not None:
        where.append(Application.label_id == filters.label_id)
    return where


def _applications_of(filters: Filters) -> ColumnElement[bool]:
    """The history entries of the applications the tenant and intake filters select, without
    joining the applications when only the sandbox tenants are to be left out (few rows)."""
    if filters.tenant_id is None and filters.label_id is None:
        sandbox = select(Tenant.id).where(Tenant.environment == SANDBOX)
        played = select(Application.id).where(Application.tenant_id.in_(sandbox.scalar_subquery()))
        return Decision.application_id.not_in(played.scalar_subquery())
    chosen = select(Application.id).where(*_scope(filters))
    return Decision.application_id.in_(chosen.scalar_subquery())


async def plain_plans(session: AsyncSession) -> None:
    """On PostgreSQL, no just-in-time compilation for the rest of this read transaction: the
    aggregates over 100,000 rows cross its cost threshold, and compiling them takes longer
    than it saves (bench/RESULTS.md "Insights")."""
    if session.get_bind().dialect.name == "postgresql":
        await session.execute(text("SET LOCAL jit = off"))


def _created_in(filters: Filters) -> list[ColumnElement[bool]]:
    return [
        Application.created_at >= filters.start,
        Application.created_at < filters.end,
        *_scope(filters),
    ]


@dataclass(frozen=True, slots=True)
class Funnel:
    created: int
    signed_in: int
    submitted: int
    decided: int
    approved: int
    rejected: int


async def funnel(session: AsyncSession, filters: Filters) -> Funnel:
    """Applications created in the period, and how far each got."""
    row = (
        await session.execute(
            select(
                func.count(),
                _count_if(Application.signed_in_at.is_not(None)),
                _count_if(Application.submitted_at.is_not(None)),
                _count_if(Application.status.in_(DECIDED)),
                _count_if(Application.status == ACTIVE),
                _count_if(Application.status == REJECTED),
            ).where(*_created_in(filters))
        )
    ).one()
    return Funnel(*(int(value or 0) for value in row))


def epoch_seconds(session: AsyncSession, column: Any) -> ColumnElement[Any]:
    """Whole seconds since 1970 of a stored moment: the one place the two databases differ."""
    if session.get_bind().dialect.name == "sqlite":
        return cast(func.strftime("%s", column), Integer)
    return cast(func.floor(func.extract("epoch", column)), BigInteger)


@dataclass(frozen=True, slots=True)
class Durations:
    percentiles: dict[int, int | None]
    # Decided applications per DURATION_BUCKETS label.
    distribution: dict[str, int]


async def time_to_decision(session: AsyncSession, filters: Filters) -> Durations:
    """Seconds from creation to the decision (the moment the status became active or
    rejected) of the applications created in the period and decided now: nearest-rank
    percentiles and the distribution, in one statement."""
    seconds = epoch_seconds(session, Application.status_changed_at) - epoch_seconds(
        session, Application.created_at
    )
    clamped = case((seconds < 0, literal(0)), else_=seconds).label("seconds")
    decided = select(clamped).where(*_created_in(filters), text(DECIDED_PREDICATE)).subquery()
    ranked = select(
        decided.c.seconds,
        func.row_number().over(order_by=decided.c.seconds).label("rank"),
        func.count().over().label("n"),
    ).subquery()
    columns: list[ColumnElement[Any]] = [
        func.min(case((ranked.c.rank * 100 >= percent * ranked.c.n, ranked.c.seconds)))
        for percent in PERCENTILES
    ]
    for _label, lower, upper in DURATION_BUCKETS:
        condition = ranked.c.seconds >= lower
        if upper is not None:
            condition = and_(condition, ranked.c.seconds < upper)
        columns.append(_count_if(condition))
    row = (await session.execute(select(*columns))).one()
    values = list(row)
    percentiles = {
        percent: None if value is None else int(value)
        for percent, value in zip(PERCENTILES, values, strict=False)
    }
    counts = values[len(PERCENTILES) :]
    return Durations(
        percentiles,
        {
            label: int(count or 0)
            for (label, _, _), count in zip(DURATION_BUCKETS, counts, strict=True)
        },
    )


async def open_by_age(
    session: AsyncSession, filters: Filters, now: datetime
) -> list[tuple[str, int]]:
    """Open applications (not active, not rejected, not erased) by age now, whenever they
    were created."""
    columns = []
    for _label, lower, upper in AGE_BUCKETS:
        condition = Application.created_at <= now - timedelta(days=lower)
        if upper is not None:
            condition = and_(condition, Application.created_at > now - timedelta(days=upper))
        columns.append(_count_if(condition))
    row = (
        await session.execute(select(*columns).where(text(OPEN_PREDICATE), *_scope(filters)))
    ).one()
    return [(label, int(count or 0)) for (label, _, _), count in zip(AGE_BUCKETS, row, strict=True)]


@dataclass(frozen=True, slots=True)
class StaffDecisions:
    staff_id: str
    email: str | None
    proposals: int
    countersignatures: int
    rejections: int


async def decisions_by_staff(session: AsyncSession, filters: Filters) -> list[StaffDecisions]:
    """Proposals, countersignatures and rejections each staff member made in the period, on
    the applications the tenant and intake filters select; busiest first, then by email."""
    counted = [_count_if(Decision.action == action) for action in STAFF_ACTIONS.values()]
    rows = (
        await session.execute(
            select(Decision.by_staff_id, *counted)
            .where(
                Decision.at >= filters.start,
                Decision.at < filters.end,
                Decision.action.in_(list(STAFF_ACTIONS.values())),
                Decision.by_staff_id.is_not(None),
                _applications_of(filters),
            )
            .group_by(Decision.by_staff_id)
        )
    ).all()
    emails = await _emails(session, [row[0] for row in rows])
    found = [
        StaffDecisions(row[0], emails.get(row[0]), int(row[1]), int(row[2]), int(row[3]))
        for row in rows
    ]
    return sorted(
        found,
        key=lambda s: (
            -(s.proposals + s.countersignatures + s.rejections),
            s.email or "",
            s.staff_id,
        ),
    )


async def _emails(session: AsyncSession, staff_ids: Sequence[str]) -> dict[str, str]:
    if not staff_ids:
        return {}
    rows = await session.execute(
        select(StaffMember.id, StaffMember.email).where(StaffMember.id.in_(list(staff_ids)))
    )
    return {row.id: row.email for row in rows}
