"""Staff routes for webhook deliveries and notifications (docs/reference/staff-api.md §7).

`GET /staff/v1/deliveries?status&tenantId&limit&cursor` (admin+), the dead
letter view across tenants; `POST /staff/v1/deliveries/{deliveryId}/replay`
(admin+), 201 with a new pending delivery of the same event id;
`GET /staff/v1/notifications` (analyst+), newest first.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.domain.webhooks import DeliveryStatus
from gatehouse.paging import query_values
from gatehouse.staff.examples import ADMIN, ANALYST, STAFF_DELIVERY_EXAMPLE, TENANT_FILTER
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, StaffAdmin, StaffAnalyst
from gatehouse.web.openapi import Op, listing, status_filter
from gatehouse.web.responses import json_response
from gatehouse.webhooks import deliveries
from gatehouse.webhooks.health import recent_notifications
from gatehouse.webhooks.schemas import (
    NotificationList,
    StaffDelivery,
    StaffDeliveryPage,
    notification_view,
)

router = APIRouter(prefix="/staff/v1", tags=["staff: webhooks"])

NOTIFICATION_LIMIT = 200


@router.get("/deliveries")
@listing(
    "listAllDeliveries",
    "List deliveries of every tenant, newest first",
    StaffDeliveryPage,
    ADMIN,
    STAFF_DELIVERY_EXAMPLE,
    filters=(status_filter("deliveries", DeliveryStatus), TENANT_FILTER),
)
async def list_deliveries(request: Request, staff: StaffAdmin, runtime: RuntimeDep) -> Response:
    """Deliveries of every tenant (filter by `status`, `tenantId`), newest first."""
    query = deliveries.parse_delivery_query(
        request.query_params.multi_items(), allowed=frozenset({"tenantId"})
    )
    async with runtime.db.read() as session:
        page = await deliveries.staff_deliveries(session, runtime.crypto, query)
    return json_response(200, page)


@router.post("/deliveries/{delivery_id}/replay", status_code=201)
@Op(
    "replayDelivery",
    "Deliver the same event again to the same endpoint",
    {201: StaffDelivery},
    access=ADMIN,
    answer_example={
        **STAFF_DELIVERY_EXAMPLE,
        "status": "pending",
        "attempts": 0,
        "lastAttemptAt": None,
        "nextAttemptAt": "2026-11-22T10:00:00.000Z",
        "lastHttpStatus": None,
        "replayOf": "dlv_9e8d7c6b5a4f",
        "id": "dlv_1b2c3d4e5f6a",
    },
)
async def replay_delivery(
    delivery_id: str, request: Request, staff: StaffAdmin, runtime: RuntimeDep
) -> Response:
    """201: a new delivery of the same event id to the same endpoint."""
    async with runtime.db.write() as session:
        view = await deliveries.replay_delivery(session, write_context(request, staff), delivery_id)
    return json_response(201, view)


@router.get("/notifications")
@Op(
    "listNotifications",
    "List staff notifications, newest first",
    {200: NotificationList},
    access=ANALYST,
    query=(TENANT_FILTER,),
    answer_example={
        "data": [
            {
                "id": "ntf_2a3b4c5d6e7f",
                "kind": "endpoint_disabled",
                "tenantId": "ten_4d3c2b1a0f9e",
                "endpointId": "we_3f9a0b1c2d4e",
                "reason": "consecutive_failures",
                "createdAt": "2026-11-22T10:00:00.000Z",
            }
        ]
    },
)
async def list_notifications(
    request: Request, staff: StaffAnalyst, runtime: RuntimeDep
) -> Response:
    """`{data: [{id, kind, tenantId, endpointId, reason, createdAt}]}`, newest first."""
    params = query_values(request.query_params.multi_items(), ("tenantId",))
    async with runtime.db.read() as session:
        rows = await recent_notifications(session, params.get("tenantId"), NOTIFICATION_LIMIT)
    return json_response(200, {"data": [notification_view(n) for n in rows]})
