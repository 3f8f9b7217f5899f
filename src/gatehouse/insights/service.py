"""The insights of `GET /staff/v1/insights` and `/dashboard/insights` (docs/insights.md): one
read transaction, four aggregate statements."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.insights import queries
from gatehouse.insights.rules import Filters
from gatehouse.insights.schemas import Insights, RiskFigures, ScreeningFigures


async def compute_insights(session: AsyncSession, filters: Filters, now: datetime) -> Insights:
    """Every figure for `filters`; ages are measured at `now`."""
    # Screening and risk are counted here once those areas exist; until then no application
    # has a hit or a risk level, and both read zero.
    screening: ScreeningFigures = {"hits": 0, "match": 0, "noMatch": 0}
    risk: RiskFigures = {"low": 0, "medium": 0, "high": 0}
    await queries.plain_plans(session)
    return Insights(
        filters=filters,
        funnel=await queries.funnel(session, filters),
        durations=await queries.time_to_decision(session, filters),
        open_by_age=await queries.open_by_age(session, filters, now),
        by_staff=await queries.decisions_by_staff(session, filters),
        screening=screening,
        risk=risk,
    )
