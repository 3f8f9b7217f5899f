"""The insights computed in Python from the rows themselves, with no summary and no SQL
aggregate: what the summary-based answers must equal (docs/insights.md "What each figure
counts"), and the summary tables a rebuild from the rows would hold."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select

from gatehouse.domain.sandbox import SANDBOX
from gatehouse.insights import Filters, nearest_rank
from gatehouse.insights.rules import AGE_BUCKETS, DECISION_EDGES, DURATION_BUCKETS, bucket_of
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Decision
from gatehouse.storage.tables.core import StaffMember, Tenant
from gatehouse.storage.tables.insights import InsightsDay, InsightsDecisionDay, InsightsStaffDay
from gatehouse.storage.tables.screening import ApplicationRisk, ScreeningHit

DECIDED = ("active", "rejected")
ACTIONS = {"approve": "proposals", "approved": "countersignatures", "reject": "rejections"}


@dataclass
class Rows:
    applications: list[Application]
    decisions: list[Decision]
    levels: dict[str, str]
    hits: list[ScreeningHit]
    sandbox: set[str]
    emails: dict[str, str]


async def read_rows(runtime: Runtime) -> Rows:
    async with runtime.db.read() as session:
        apps = list((await session.scalars(select(Application))).all())
        decisions = list((await session.scalars(select(Decision))).all())
        risks = (await session.scalars(select(ApplicationRisk))).all()
        hits = list((await session.scalars(select(ScreeningHit))).all())
        tenants = (await session.scalars(select(Tenant))).all()
        staff = (await session.scalars(select(StaffMember))).all()
    return Rows(
        apps,
        decisions,
        {r.application_id: r.level for r in risks},
        hits,
        {t.id for t in tenants if t.environment == SANDBOX},
        {s.id: s.email for s in staff},
    )


def took(app: Application) -> int:
    return max(0, int(app.status_changed_at.timestamp()) - int(app.created_at.timestamp()))


def _in_scope(app: Application, rows: Rows, filters: Filters) -> bool:
    if filters.tenant_id is None and app.tenant_id in rows.sandbox:
        return False
    if filters.tenant_id is not None and app.tenant_id != filters.tenant_id:
        return False
    return filters.label_id is None or app.label_id == filters.label_id


def _is_open(app: Application) -> bool:
    return app.status not in DECIDED and app.erased_at is None


def expected(rows: Rows, filters: Filters, now: datetime) -> dict[str, Any]:
    """Every figure of GET /staff/v1/insights but `from` and `to`."""
    scope = [a for a in rows.applications if _in_scope(a, rows, filters)]
    made = [a for a in scope if filters.start <= a.created_at < filters.end]
    decided = [took(a) for a in made if a.status in DECIDED]
    ids = {a.id for a in made}
    hits = [h for h in rows.hits if h.application_id in ids and h.current]
    levels = Counter(rows.levels.get(a.id, "low") for a in made)
    staff: dict[str, Counter[str]] = defaultdict(Counter)
    by_id = {a.id: a for a in scope}
    for d in rows.decisions:
        counted = d.application_id in by_id and d.by_staff_id and d.action in ACTIONS
        if counted and d.by_staff_id and d.action and filters.start <= d.at < filters.end:
            staff[d.by_staff_id][ACTIONS[d.action]] += 1
    people = [
        {
            "staffId": who,
            "email": rows.emails.get(who),
            **{name: counts[name] for name in ACTIONS.values()},
        }
        for who, counts in staff.items()
    ]
    people.sort(
        key=lambda p: (-sum(p[n] for n in ACTIONS.values()), p["email"] or "", p["staffId"])
    )
    return {
        "funnel": {
            "created": len(made),
            "signedIn": sum(a.signed_in_at is not None for a in made),
            "submitted": sum(a.submitted_at is not None for a in made),
            "decided": len(decided),
            "approved": sum(a.status == "active" for a in made),
            "rejected": sum(a.status == "rejected" for a in made),
        },
        "timeToDecision": {
            "p50Seconds": nearest_rank(decided, 50),
            "p90Seconds": nearest_rank(decided, 90),
        },
        "distribution": dict(Counter(bucket_of(s, DURATION_BUCKETS) for s in decided)),
        "openByAge": [
            {"bucket": label, "count": sum(_aged(a, now, lower, upper) for a in scope)}
            for label, lower, upper in AGE_BUCKETS
        ],
        "decisionsByStaff": people,
        "screening": {
            "hits": len(hits),
            "match": sum(h.status == "match" for h in hits),
            "noMatch": sum(h.status == "no_match" for h in hits),
        },
        "risk": {level: levels[level] for level in ("low", "medium", "high")},
    }


def _aged(app: Application, now: datetime, lower: int, upper: int | None) -> bool:
    if not _is_open(app) or app.created_at > now - timedelta(days=lower):
        return False
    return upper is None or app.created_at > now - timedelta(days=upper)


def _bucket(seconds: int) -> int:
    return sum(seconds >= edge for edge in DECISION_EDGES)


def rebuilt(rows: Rows) -> dict[str, set[tuple[Any, ...]]]:
    """The rows of the three summary tables, from the applications, their history, risk and
    hits (rows whose counts are all zero left out)."""
    days: dict[tuple[Any, ...], Counter[str]] = defaultdict(Counter)
    buckets: Counter[tuple[Any, ...]] = Counter()
    staff: dict[tuple[Any, ...], Counter[str]] = defaultdict(Counter)
    apps = {a.id: a for a in rows.applications}
    for a in rows.applications:
        key = (a.tenant_id, a.label_id or "", a.created_at.date())
        counts = days[key]
        counts["created"] += 1
        counts["signed_in"] += a.signed_in_at is not None
        counts["submitted"] += a.submitted_at is not None
        counts["approved"] += a.status == "active"
        counts["rejected"] += a.status == "rejected"
        counts["open_count"] += _is_open(a)
        counts["risk_medium"] += rows.levels.get(a.id) == "medium"
        counts["risk_high"] += rows.levels.get(a.id) == "high"
        if a.status in DECIDED:
            buckets[(*key, _bucket(took(a)))] += 1
    for h in rows.hits:
        a = apps[h.application_id]
        counts = days[(a.tenant_id, a.label_id or "", a.created_at.date())]
        counts["hits"] += bool(h.current)
        counts["hits_match"] += bool(h.current) and h.status == "match"
        counts["hits_no_match"] += bool(h.current) and h.status == "no_match"
    for d in rows.decisions:
        if d.by_staff_id and d.action in ACTIONS:
            a = apps[d.application_id]
            key = (a.tenant_id, a.label_id or "", d.at.date(), d.by_staff_id)
            staff[key][ACTIONS[d.action]] += 1
    return {
        "days": {(*k, *(c[n] for n in DAY_NAMES)) for k, c in days.items() if any(c.values())},
        "buckets": {(*k, n) for k, n in buckets.items() if n},
        "staff": {
            (*k, *(c[n] for n in ACTIONS.values())) for k, c in staff.items() if any(c.values())
        },
    }


DAY_NAMES = (
    "created", "signed_in", "submitted", "approved", "rejected", "open_count",
    "risk_medium", "risk_high", "hits", "hits_match", "hits_no_match",
)  # fmt: skip


async def stored(runtime: Runtime) -> dict[str, set[tuple[Any, ...]]]:
    """The rows of the three summary tables as the triggers keep them (zeros left out)."""
    async with runtime.db.read() as session:
        days = (await session.scalars(select(InsightsDay))).all()
        buckets = (await session.scalars(select(InsightsDecisionDay))).all()
        staff = (await session.scalars(select(InsightsStaffDay))).all()
    return {
        "days": {
            (d.tenant_id, d.label_id, d.day, *(getattr(d, n) for n in DAY_NAMES))
            for d in days
            if any(getattr(d, n) for n in DAY_NAMES)
        },
        "buckets": {
            (b.tenant_id, b.label_id, b.day, b.bucket, b.decided) for b in buckets if b.decided
        },
        "staff": {
            (s.tenant_id, s.label_id, s.day, s.staff_id, *(getattr(s, n) for n in ACTIONS.values()))
            for s in staff
            if s.proposals or s.countersignatures or s.rejections
        },
    }
