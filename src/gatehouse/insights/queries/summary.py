"""The insights read from the daily summary (docs/insights.md "Speed"): sums over whole UTC
days of the counts the triggers of migration 0019 keep per tenant, intake and day, in the same
transaction as every write (so they are never behind).

Each read takes the days [first, last) and the tenant and intake filters; without a tenant,
sandbox tenants are left out as everywhere in the insights.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from sqlalchemy import and_, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from gatehouse.domain.sandbox import SANDBOX
from gatehouse.insights.rules import DECISION_EDGES, Filters
from gatehouse.storage.tables.core import Tenant
from gatehouse.storage.tables.insights import InsightsDay, InsightsDecisionDay, InsightsStaffDay

Summary = type[InsightsDay] | type[InsightsDecisionDay] | type[InsightsStaffDay]
# The columns of `insights_days` in the order day_totals gives them.
DAY_COLUMNS = (
    "created", "signed_in", "submitted", "approved", "rejected", "open_count",
    "risk_medium", "risk_high", "hits", "hits_match", "hits_no_match",
)  # fmt: skip


def _scope(table: Summary, filters: Filters) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = []
    if filters.tenant_id is not None:
        where.append(table.tenant_id == filters.tenant_id)
    else:
        sandbox = select(Tenant.id).where(Tenant.environment == SANDBOX)
        where.append(table.tenant_id.not_in(sandbox.scalar_subquery()))
    if filters.label_id is not None:
        where.append(table.label_id == filters.label_id)
    return where


def _within(table: Summary, filters: Filters, first: date, last: date) -> list[Any]:
    return [table.day >= first, table.day < last, *_scope(table, filters)]


def _sum(column: Any) -> ColumnElement[Any]:
    return func.coalesce(func.sum(column), 0)


async def day_figures(
    session: AsyncSession,
    filters: Filters,
    span: tuple[date, date] | None,
    open_days: Sequence[date],
) -> tuple[list[int], list[int]]:
    """The DAY_COLUMNS summed over the days of `span` [first, last) (zeros without one), and
    the open applications created before each of `open_days` (whatever the period), in one
    statement."""
    columns: list[ColumnElement[Any]] = []
    if span is not None:
        within = and_(InsightsDay.day >= span[0], InsightsDay.day < span[1])
        columns += [
            _sum(case((within, getattr(InsightsDay, name)), else_=0)) for name in DAY_COLUMNS
        ]
    columns += [
        _sum(case((InsightsDay.day < day, InsightsDay.open_count), else_=0)) for day in open_days
    ]
    row = [int(value) for value in (
        await session.execute(select(*columns).where(*_scope(InsightsDay, filters)))
    ).one()]  # fmt: skip
    if span is None:
        return [0] * len(DAY_COLUMNS), row
    return row[: len(DAY_COLUMNS)], row[len(DAY_COLUMNS) :]


async def decision_buckets(
    session: AsyncSession, filters: Filters, first: date, last: date
) -> list[int]:
    """The decided applications created on the days, per range of DECISION_EDGES."""
    table = InsightsDecisionDay
    rows = await session.execute(
        select(table.bucket, _sum(table.decided))
        .where(*_within(table, filters, first, last))
        .group_by(table.bucket)
    )
    counts = [0] * (len(DECISION_EDGES) + 1)
    for bucket, count in rows.all():
        counts[int(bucket)] += int(count)
    return counts


async def staff_counts(
    session: AsyncSession, filters: Filters, first: date, last: date
) -> dict[str, list[int]]:
    """Each staff member's proposals, countersignatures and rejections made on the days."""
    table = InsightsStaffDay
    rows = await session.execute(
        select(
            table.staff_id,
            _sum(table.proposals),
            _sum(table.countersignatures),
            _sum(table.rejections),
        )
        .where(*_within(table, filters, first, last))
        .group_by(table.staff_id)
    )
    return {str(row[0]): [int(value) for value in row[1:]] for row in rows.all()}
