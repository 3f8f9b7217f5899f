"""What /openapi.json says about the insights (docs/reference/staff-api.md "Insights")."""

from __future__ import annotations

from gatehouse.domain.principals import Role
from gatehouse.insights import InsightsView
from gatehouse.web.openapi import Op, OperationTable, Query

MOMENT = {"type": "string", "format": "date-time"}

OPERATIONS: OperationTable = {
    ("GET", "/staff/v1/insights"): Op(
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
    ),
}
