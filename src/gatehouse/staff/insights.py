"""Staff API: the insights (docs/reference/staff-api.md "Insights"; docs/insights.md)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse import insights
from gatehouse.domain.principals import Role
from gatehouse.paging import query_values
from gatehouse.web.auth import require_role
from gatehouse.web.dependencies import RuntimeDep, StaffUser
from gatehouse.web.responses import json_response

router = APIRouter(prefix="/staff/v1", tags=["staff: insights"])

QUERY = ("tenantId", "labelId", "from", "to")


@router.get("/insights")
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
