"""The insights read directly from the applications and their history (docs/insights.md
"Speed"): for the moments of a period outside its whole UTC days (summary.py answers those),
and for the queue's ages. The same statements on SQLite and PostgreSQL but for how a moment
becomes whole seconds since 1970.

The funnel reads the applications created in a range (`ix_applications_insights_created`
holds every column it needs), the time to decision the decided ones
(`ix_applications_insights_decided`, a partial index of them alone), the decisions by staff the
history entries made in a range (`ix_decisions_insights_at`), the ages the open applications
(`ix_applications_insights_open`, partial too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Integer,
    and_,
    case,
    cast,
    func,
    literal,
    literal_column,
    or_,
    select,
    text,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from gatehouse.domain.sandbox import SANDBOX
from gatehouse.domain.screening import HitStatus, RiskLevel
from gatehouse.domain.status import ACTIVE, REJECTED, HistoryAction
from gatehouse.insights.rules import DECISION_EDGES, Filters, decision_range
from gatehouse.risk import level_of
from gatehouse.screening import current_hits_of
from gatehouse.storage.tables.applications import (
    DECIDED_PREDICATE,
    OPEN_PREDICATE,
    TOOK_SQL,
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


async def plain_plans(session: AsyncSession) -> None:
    """On PostgreSQL, no just-in-time compilation for the rest of this read transaction: the
    aggregates over 100,000 rows cross its cost threshold, and compiling them takes longer
    than it saves (bench/RESULTS.md "Insights")."""
    if session.get_bind().dialect.name == "postgresql":
        await session.execute(text("SET LOCAL jit = off"))


Ranges = Sequence[tuple[datetime, datetime]]


def _between(column: Any, filters: Filters, ranges: Ranges | None) -> ColumnElement[bool]:
    """`column` in [from, to) of the period, or of any of `ranges` when given."""
    chosen = [(filters.start, filters.end)] if ranges is None else ranges
    return or_(*(and_(column >= start, column < end) for start, end in chosen))


def _created_in(filters: Filters, ranges: Ranges | None = None) -> list[ColumnElement[bool]]:
    return [_between(Application.created_at, filters, ranges), *_scope(filters)]


@dataclass(frozen=True, slots=True)
class Funnel:
    created: int
    signed_in: int
    submitted: int
    decided: int
    approved: int
    rejected: int


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


def _took(session: AsyncSession) -> ColumnElement[Any]:
    """Whole seconds from creation to the decision (the last status change), never below 0."""
    seconds = epoch_seconds(session, Application.status_changed_at) - epoch_seconds(
        session, Application.created_at
    )
    return case((seconds < 0, literal(0)), else_=seconds)


async def decision_histogram(
    session: AsyncSession, filters: Filters, ranges: Ranges | None = None
) -> list[int]:
    """The applications created in the period (or the ranges) and decided now, per range of
    DECISION_EDGES."""
    took = select(_took(session).label("took")).where(
        *_created_in(filters, ranges), text(DECIDED_PREDICATE)
    )
    decided = took.subquery()
    columns = []
    for index in range(len(DECISION_EDGES) + 1):
        lower, upper = decision_range(index)
        condition = decided.c.took >= lower
        if upper is not None:
            condition = and_(condition, decided.c.took < upper)
        columns.append(_count_if(condition))
    row = (await session.execute(select(*columns))).one()
    return [int(count or 0) for count in row]


def _in_range(took: ColumnElement[Any], index: int) -> ColumnElement[bool]:
    """`took` (whole seconds, not yet clamped at 0) in the range `index` of DECISION_EDGES:
    the first range holds the negative ones too, as they count as 0."""
    lower, upper = decision_range(index)
    if index == 0:
        return took < upper if upper is not None else literal(True)
    return took >= lower if upper is None else and_(took >= lower, took < upper)


async def nth_decisions(
    session: AsyncSession, filters: Filters, places: Sequence[tuple[int, int]]
) -> list[int | None]:
    """For each (range index of DECISION_EDGES, 0-based offset): the time to decision at
    that place among the decided applications created in the period whose time falls in
    that range, shortest first. One statement, served by `ix_applications_insights_took`
    (its expression written as the index writes it)."""
    if not places:
        return []
    took: ColumnElement[Any] = literal_column(TOOK_SQL[session.get_bind().dialect.name])
    indexes = sorted({index for index, _offset in places})
    which = case(*((_in_range(took, i), literal(i)) for i in indexes), else_=literal(-1))
    chosen = (
        select(took.label("took"), which.label("range"))
        .where(
            text(DECIDED_PREDICATE),
            or_(*(_in_range(took, i) for i in indexes)),
            *_created_in(filters),
        )
        .subquery()
    )
    ranked = select(
        chosen.c.took,
        chosen.c.range,
        func.row_number().over(partition_by=chosen.c.range, order_by=chosen.c.took).label("n"),
    ).subquery()
    wanted = or_(*(and_(ranked.c.range == i, ranked.c.n == offset + 1) for i, offset in places))
    rows = await session.execute(select(ranked.c.range, ranked.c.n, ranked.c.took).where(wanted))
    found = {(int(r), int(n) - 1): max(0, int(value)) for r, n, value in rows.all()}
    return [found.get(place) for place in places]


@dataclass(frozen=True, slots=True)
class Fringes:
    """What the applications created in the fringes add to the summary's days (in the order
    of summary.DAY_COLUMNS, the open ones 0: they are counted by age), and the open
    applications created in each range of the ageing."""

    days: list[int]
    open_within: list[int]


async def fringes_and_ages(
    session: AsyncSession,
    filters: Filters,
    fringes: Ranges,
    ages: Sequence[tuple[datetime, datetime]],
) -> Fringes:
    """One statement over the applications: those created in `fringes` ([from, to) each),
    how far each got, their effective risk and their current hits; and the open ones (not
    active, not rejected, not erased) created in each of `ages` ([from, to], both included)."""
    made = _between(Application.created_at, filters, fringes) if fringes else literal(False)
    level = level_of(Application.id)

    def hits(status: str | None = None) -> ColumnElement[Any]:
        return func.coalesce(
            func.sum(case((made, current_hits_of(Application.id, status)), else_=0)), 0
        )

    columns = [
        _count_if(made),
        _count_if(and_(made, Application.signed_in_at.is_not(None))),
        _count_if(and_(made, Application.submitted_at.is_not(None))),
        _count_if(and_(made, Application.status == ACTIVE)),
        _count_if(and_(made, Application.status == REJECTED)),
        literal(0),
        _count_if(and_(made, level == RiskLevel.MEDIUM.value)),
        _count_if(and_(made, level == RiskLevel.HIGH.value)),
        hits(),
        hits(HitStatus.MATCH.value),
        hits(HitStatus.NO_MATCH.value),
    ]
    aged = [
        and_(text(OPEN_PREDICATE), Application.created_at >= lower, Application.created_at <= upper)
        for lower, upper in ages
    ]
    row = (
        await session.execute(
            select(*columns, *(_count_if(condition) for condition in aged)).where(
                *_scope(filters), or_(made, *aged)
            )
        )
    ).one()
    values = [int(value or 0) for value in row]
    return Fringes(values[: len(columns)], values[len(columns) :])


@dataclass(frozen=True, slots=True)
class StaffDecisions:
    staff_id: str
    email: str | None
    proposals: int
    countersignatures: int
    rejections: int


async def staff_counts(
    session: AsyncSession, filters: Filters, ranges: Ranges | None = None
) -> dict[str, list[int]]:
    """Proposals, countersignatures and rejections each staff member made in the period (or
    the ranges), on the applications the tenant and intake filters select."""
    counted = [_count_if(Decision.action == action) for action in STAFF_ACTIONS.values()]
    rows = (
        await session.execute(
            select(Decision.by_staff_id, *counted)
            .join(Application, Application.id == Decision.application_id)
            .where(
                _between(Decision.at, filters, ranges),
                Decision.action.in_(list(STAFF_ACTIONS.values())),
                Decision.by_staff_id.is_not(None),
                *_scope(filters),
            )
            .group_by(Decision.by_staff_id)
        )
    ).all()
    return {str(row[0]): [int(value) for value in row[1:]] for row in rows}


async def staff_figures(
    session: AsyncSession, counts: dict[str, list[int]]
) -> list[StaffDecisions]:
    """The staff members' counts with their emails; busiest first, then by email. A member
    whose counts add up to nothing is left out."""
    kept = {staff: values for staff, values in counts.items() if any(values)}
    emails = await _emails(session, list(kept))
    found = [StaffDecisions(staff, emails.get(staff), *values) for staff, values in kept.items()]
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
