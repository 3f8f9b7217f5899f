"""Staff routes for webhook deliveries and notifications (docs/reference/staff-api.md §7).

`GET /staff/v1/deliveries?status&tenantId&limit&cursor` (admin+), the dead
letter view across tenants; `POST /staff/v1/deliveries/{deliveryId}/replay`
(admin+), 201 with a new pending delivery of the same event id;
`GET /staff/v1/notifications` (analyst+), newest first.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse import webhooks
from gatehouse.paging import query_values
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, StaffAdmin, StaffAnalyst
from gatehouse.web.responses import json_response
from gatehouse.webhooks import notification_view, recent_notifications

router = APIRouter(prefix="/staff/v1", tags=["staff: webhooks"])

NOTIFICATION_LIMIT = 200


@router.get("/deliveries")
async def list_deliveries(request: Request, staff: StaffAdmin, runtime: RuntimeDep) -> Response:
    """Deliveries of every tenant (filter by `status`, `tenantId`), newest first."""
    query = webhooks.parse_delivery_query(
        request.query_params.multi_items(), allowed=frozenset({"tenantId"})
    )
    async with runtime.db.read() as session:
        page = await webhooks.staff_deliveries(session, runtime.crypto, query)
    return json_response(200, page)


@router.post("/deliveries/{delivery_id}/replay", status_code=201)
async def replay_delivery(
    delivery_id: str, request: Request, staff: StaffAdmin, runtime: RuntimeDep
) -> Response:
    """201: a new delivery of the same event id to the same endpoint."""
    async with runtime.db.write() as session:
        view = await webhooks.replay_delivery(session, write_context(request, staff), delivery_id)
    return json_response(201, view)


@router.get("/notifications")
async def list_notifications(
    request: Request, staff: StaffAnalyst, runtime: RuntimeDep
) -> Response:
    """`{data: [{id, kind, tenantId, endpointId, reason, createdAt}]}`, newest first."""
    params = query_values(request.query_params.multi_items(), ("tenantId",))
    async with runtime.db.read() as session:
        rows = await recent_notifications(session, params.get("tenantId"), NOTIFICATION_LIMIT)
    return json_response(200, {"data": [notification_view(n) for n in rows]})
