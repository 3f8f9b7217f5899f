"""Staff API: the insights (docs/reference/staff-api.md "Insights"; docs/insights.md)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse import insights
from gatehouse.domain.principals import Role
from gatehouse.insights import InsightsView
from gatehouse.paging import query_values
from gatehouse.staff.examples import MOMENT
from gatehouse.web.auth import require_role
from gatehouse.web.dependencies import RuntimeDep, StaffUser
from gatehouse.web.openapi import Op, Query
from gatehouse.web.responses import json_response

router = APIRouter(prefix="/staff/v1", tags=["staff: insights"])

QUERY = ("tenantId", "labelId", "from", "to")


@router.get("/insights")
@Op(
    "getInsights",
    "How onboarding is going: funnel, time to decision, ageing, decisions by staff",
    {200: InsightsView},
    access=Role.MLRO.value,
    query=(
        Query(
            "tenantId",
            "Only this tenant's applications (sandbox tenants are left out unless named here).",
        ),
        Query("labelId", "Only this intake's applications."),
        Query(
            "from",
            "Start of the period (RFC 3339, included); default 30 days before `to`.",
            MOMENT,
        ),
        Query("to", "End of the period (RFC 3339, excluded); default now.", MOMENT),
    ),
    description="The funnel and the time to decision count applications created in "
    "[from, to); decisionsByStaff counts history entries made in it; openByAge counts "
    "the applications open now, whenever created (docs/insights.md).",
    answer_example={
        "from": "2026-10-27T00:00:00.000Z",
        "to": "2026-11-26T00:00:00.000Z",
        "funnel": {
            "created": 120,
            "signedIn": 97,
            "submitted": 80,
            "decided": 61,
            "approved": 52,
            "rejected": 9,
        },
        "timeToDecision": {"p50Seconds": 93600, "p90Seconds": 432000},
        "openByAge": [
            {"bucket": "<1d", "count": 6},
            {"bucket": "1-3d", "count": 11},
            {"bucket": "3-7d", "count": 14},
            {"bucket": "7-30d", "count": 22},
            {"bucket": ">30d", "count": 6},
        ],
        "decisionsByStaff": [
            {
                "staffId": "stf_1a2b3c4d5e6f",
                "email": "mlro@operator.example",
                "proposals": 4,
                "countersignatures": 40,
                "rejections": 5,
            }
        ],
        "screening": {"hits": 0, "match": 0, "noMatch": 0},
        "risk": {"low": 0, "medium": 0, "high": 0},
    },
)
async def read_insights(request: Request, staff: StaffUser, runtime: RuntimeDep) -> Response:
    """The funnel, time to decision, open cases by age and decisions by staff member for a
    period (mlro+)."""
    require_role(staff, Role.MLRO)
    values = query_values(request.query_params.multi_items(), QUERY)
    now = runtime.now()
    filters = insights.filters_of(values, now)
    async with runtime.db.read() as session:
        found = await insights.compute_insights(session, filters, now)
    return json_response(200, insights.insights_view(found))
