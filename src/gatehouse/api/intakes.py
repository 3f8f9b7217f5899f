"""GET /v1/intakes (docs/reference/tenant-api.md §5.5)."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from gatehouse.api.examples import READ
from gatehouse.intakes.schemas import IntakeList
from gatehouse.intakes.service import list_intake_labels
from gatehouse.web.dependencies import ReadApplications, RuntimeDep
from gatehouse.web.openapi import Op
from gatehouse.web.responses import json_response

router = APIRouter(tags=["intakes"])


@router.get("/v1/intakes")
@Op(
    "listIntakes",
    "List the tenant's attached intakes",
    {200: IntakeList},
    access=READ,
    answer_example={"data": [{"labelId": "lbl_2b7d9e1f0c3a", "name": "Company", "order": 1}]},
)
async def get_intakes(principal: ReadApplications, runtime: RuntimeDep) -> Response:
    """Attached labels by order ascending (null as zero), ties by creation."""
    async with runtime.db.read() as session:
        view = await list_intake_labels(session, principal.tenant_id)
    return json_response(200, view)
