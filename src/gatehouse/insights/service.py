"""The insights of `GET /staff/v1/insights` and `/dashboard/insights` (docs/insights.md): one
read transaction. The whole UTC days of the period come from the daily summary (summary.py),
the moments before the first and after the last of them straight from the applications
(queries.py); the sums are the figures, exactly as a count over the applications gives them.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.insights import queries
from gatehouse.insights.queries import summary
from gatehouse.insights.rules import (
    AGE_BUCKETS,
    DECISION_EDGES,
    DURATION_BUCKETS,
    PERCENTILES,
    Filters,
    Split,
    bucket_of,
    decision_range,
    midnight,
    rank_of,
    split,
)
from gatehouse.insights.schemas import Insights, RiskFigures, ScreeningFigures


def _add(total: list[int], more: list[int]) -> list[int]:
    return [a + b for a, b in zip(total, more, strict=True)]


def _span(cut: Split) -> tuple[date, date] | None:
    return None if cut.first is None or cut.last is None else (cut.first, cut.last)


def _age_bounds() -> list[int]:
    """Every age (days) that starts or ends a bucket, youngest first."""
    lowers = {lower for _label, lower, _upper in AGE_BUCKETS}
    return sorted(lowers | {upper for _label, _lower, upper in AGE_BUCKETS if upper is not None})


def _open_by_age(before: list[int], within: list[int]) -> list[tuple[str, int]]:
    """Open applications by age: how many were created at or before each bound (now - an
    age of _age_bounds()), `before` the bound's day (the summary) and `within` that day up to
    the bound (the applications); a bucket is the difference of two bounds."""
    upto = {days: a + b for days, a, b in zip(_age_bounds(), before, within, strict=True)}
    return [
        (label, upto[lower] - (0 if upper is None else upto[upper]))
        for label, lower, upper in AGE_BUCKETS
    ]


async def _durations(session: AsyncSession, filters: Filters, cut: Split) -> queries.Durations:
    """Nearest-rank percentiles and the distribution of the time to decision: the ranges of
    DECISION_EDGES counted, the range holding each percentile's rank found, and the value at
    that rank within it read from the applications."""
    counts = [0] * (len(DECISION_EDGES) + 1)
    if (span := _span(cut)) is not None:
        counts = await summary.decision_buckets(session, filters, *span)
    if cut.fringes:
        counts = _add(counts, await queries.decision_histogram(session, filters, cut.fringes))
    total = sum(counts)
    places: dict[int, tuple[int, int]] = {}
    for percent in PERCENTILES:
        if total:
            rank, before, index = rank_of(total, percent), 0, 0
            while before + counts[index] < rank:
                before += counts[index]
                index += 1
            places[percent] = (index, rank - before - 1)
    values = await queries.nth_decisions(session, filters, list(places.values()))
    found = dict(zip(places, values, strict=True))
    percentiles = {percent: found.get(percent) for percent in PERCENTILES}
    distribution = {label: 0 for label, _, _ in DURATION_BUCKETS}
    for index, count in enumerate(counts):
        distribution[bucket_of(decision_range(index)[0], DURATION_BUCKETS)] += count
    return queries.Durations(percentiles, distribution)


async def _by_staff(
    session: AsyncSession, filters: Filters, cut: Split
) -> list[queries.StaffDecisions]:
    counts: dict[str, list[int]] = {}
    if (span := _span(cut)) is not None:
        counts = await summary.staff_counts(session, filters, *span)
    if cut.fringes:
        for staff, values in (await queries.staff_counts(session, filters, cut.fringes)).items():
            counts[staff] = _add(counts.get(staff, [0, 0, 0]), values)
    return await queries.staff_figures(session, counts)


async def compute_insights(session: AsyncSession, filters: Filters, now: datetime) -> Insights:
    """Every figure for `filters`; ages are measured at `now`."""
    await queries.plain_plans(session)
    cut = split(filters)
    moments = [now - timedelta(days=days) for days in _age_bounds()]
    whole, before = await summary.day_figures(
        session, filters, _span(cut), [moment.date() for moment in moments]
    )
    ages = [(midnight(moment.date()), moment) for moment in moments]
    fringes = await queries.fringes_and_ages(session, filters, cut.fringes, ages)
    days = dict(zip(summary.DAY_COLUMNS, _add(whole, fringes.days), strict=True))
    # Screening and risk of the applications the funnel counts (docs/screening.md): every
    # hit of their latest runs and how many were resolved each way; their effective levels
    # (an application without an assessment is low).
    screening: ScreeningFigures = {
        "hits": days["hits"],
        "match": days["hits_match"],
        "noMatch": days["hits_no_match"],
    }
    risk: RiskFigures = {
        "low": days["created"] - days["risk_medium"] - days["risk_high"],
        "medium": days["risk_medium"],
        "high": days["risk_high"],
    }
    funnel = queries.Funnel(
        created=days["created"],
        signed_in=days["signed_in"],
        submitted=days["submitted"],
        decided=days["approved"] + days["rejected"],
        approved=days["approved"],
        rejected=days["rejected"],
    )
    return Insights(
        filters=filters,
        funnel=funnel,
        durations=await _durations(session, filters, cut),
        open_by_age=_open_by_age(before, fringes.open_within),
        by_staff=await _by_staff(session, filters, cut),
        screening=screening,
        risk=risk,
    )
