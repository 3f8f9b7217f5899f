"""The insights of `GET /staff/v1/insights` and `/dashboard/insights` (docs/insights.md): one
read transaction, four aggregate statements."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.screening import HitStatus, RiskLevel
from gatehouse.insights import queries
from gatehouse.insights.rules import Filters
from gatehouse.insights.schemas import Insights, RiskFigures, ScreeningFigures
from gatehouse.risk import level_figures
from gatehouse.screening import hit_figures


async def compute_insights(session: AsyncSession, filters: Filters, now: datetime) -> Insights:
    """Every figure for `filters`; ages are measured at `now`."""
    # Screening and risk of the applications the funnel counts (docs/screening.md): every
    # hit of their latest runs and how many were resolved each way; their effective levels.
    chosen = queries.created_in(filters)
    hits = await hit_figures(session, chosen)
    screening: ScreeningFigures = {
        "hits": sum(hits.values()),
        "match": hits.get(HitStatus.MATCH, 0),
        "noMatch": hits.get(HitStatus.NO_MATCH, 0),
    }
    levels = await level_figures(session, chosen)
    risk: RiskFigures = {
        "low": levels.get(RiskLevel.LOW, 0),
        "medium": levels.get(RiskLevel.MEDIUM, 0),
        "high": levels.get(RiskLevel.HIGH, 0),
    }
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
