"""GET /v1/intakes (spec 1 §4.5)."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from gatehouse.http.dependencies import ReadApplications, RuntimeDep
from gatehouse.http.responses import json_response
from gatehouse.services.intakes import list_intake_labels

router = APIRouter(tags=["intakes"])


@router.get("/v1/intakes")
async def get_intakes(principal: ReadApplications, runtime: RuntimeDep) -> Response:
    """Attached labels by order ascending (null as zero), ties by creation."""
    async with runtime.db.read() as session:
        view = await list_intake_labels(session, principal.tenant_id)
    return json_response(200, view)
