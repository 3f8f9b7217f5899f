"""The shapes of `GET /staff/v1/insights` (docs/reference/staff-api.md "Insights") and their
view builder, and the rows of the dashboard's CSV (docs/insights.md "CSV")."""

from __future__ import annotations

from dataclasses import dataclass

from typing_extensions import TypedDict

from gatehouse.insights.queries import Durations, Funnel, StaffDecisions
from gatehouse.insights.rules import Filters
from gatehouse.timeutil import format_ts


class FunnelView(TypedDict):
    created: int
    signedIn: int
    submitted: int
    decided: int
    approved: int
    rejected: int


class TimeToDecision(TypedDict):
    p50Seconds: int | None
    p90Seconds: int | None


class AgeBucket(TypedDict):
    bucket: str
    count: int


class StaffFigures(TypedDict):
    staffId: str
    email: str | None
    proposals: int
    countersignatures: int
    rejections: int


class ScreeningFigures(TypedDict):
    hits: int
    match: int
    noMatch: int


class RiskFigures(TypedDict):
    low: int
    medium: int
    high: int


# `GET /staff/v1/insights` (`from` is a keyword of Python, hence the functional form).
InsightsView = TypedDict(
    "InsightsView",
    {
        "from": str,
        "to": str,
        "funnel": FunnelView,
        "timeToDecision": TimeToDecision,
        "openByAge": list[AgeBucket],
        "decisionsByStaff": list[StaffFigures],
        "screening": ScreeningFigures,
        "risk": RiskFigures,
    },
)


@dataclass(frozen=True, slots=True)
class Insights:
    """Every figure of one request: what the JSON shows, and the page's distribution."""

    filters: Filters
    funnel: Funnel
    durations: Durations
    open_by_age: list[tuple[str, int]]
    by_staff: list[StaffDecisions]
    screening: ScreeningFigures
    risk: RiskFigures

    def funnel_stages(self) -> list[tuple[str, str, int]]:
        """(key, words, count) of each stage, in order."""
        f = self.funnel
        return [
            ("created", "Created", f.created),
            ("signedIn", "Signed in to the portal", f.signed_in),
            ("submitted", "Submitted", f.submitted),
            ("decided", "Decided", f.decided),
            ("approved", "Approved", f.approved),
            ("rejected", "Rejected", f.rejected),
        ]


def insights_view(insights: Insights) -> InsightsView:
    return {
        "from": format_ts(insights.filters.start),
        "to": format_ts(insights.filters.end),
        "funnel": {
            "created": insights.funnel.created,
            "signedIn": insights.funnel.signed_in,
            "submitted": insights.funnel.submitted,
            "decided": insights.funnel.decided,
            "approved": insights.funnel.approved,
            "rejected": insights.funnel.rejected,
        },
        "timeToDecision": {
            "p50Seconds": insights.durations.percentiles.get(50),
            "p90Seconds": insights.durations.percentiles.get(90),
        },
        "openByAge": [{"bucket": label, "count": count} for label, count in insights.open_by_age],
        "decisionsByStaff": [
            {
                "staffId": s.staff_id,
                "email": s.email,
                "proposals": s.proposals,
                "countersignatures": s.countersignatures,
                "rejections": s.rejections,
            }
            for s in insights.by_staff
        ],
        "screening": insights.screening,
        "risk": insights.risk,
    }


CSV_HEADER = ("section", "item", "measure", "value")


def csv_rows(insights: Insights) -> list[tuple[str, str, str, str]]:
    """The same figures as the JSON, one per row: (section, item, measure, value)."""
    f = insights.filters
    rows: list[tuple[str, str, str, str]] = [
        ("period", "from", "time", format_ts(f.start)),
        ("period", "to", "time", format_ts(f.end)),
        ("filter", "tenantId", "id", f.tenant_id or ""),
        ("filter", "labelId", "id", f.label_id or ""),
    ]
    rows += [("funnel", key, "applications", str(n)) for key, _w, n in insights.funnel_stages()]
    for percent, seconds in insights.durations.percentiles.items():
        value = "" if seconds is None else str(seconds)
        rows.append(("timeToDecision", f"p{percent}", "seconds", value))
    rows += [
        ("timeToDecisionDistribution", label, "applications", str(n))
        for label, n in insights.durations.distribution.items()
    ]
    rows += [("openByAge", label, "applications", str(n)) for label, n in insights.open_by_age]
    for s in insights.by_staff:
        who = s.email or s.staff_id
        rows += [
            ("decisionsByStaff", who, "proposals", str(s.proposals)),
            ("decisionsByStaff", who, "countersignatures", str(s.countersignatures)),
            ("decisionsByStaff", who, "rejections", str(s.rejections)),
        ]
    rows += [("screening", key, "hits", str(n)) for key, n in insights.screening.items()]
    rows += [("risk", key, "applications", str(n)) for key, n in insights.risk.items()]
    return rows
