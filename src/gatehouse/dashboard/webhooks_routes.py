"""The webhooks page of the dashboard: endpoints per tenant with their health, dead deliveries
with replay, notifications (docs/portal-and-dashboard.md; docs/reference/staff-api.md §7)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse import cases
from gatehouse.dashboard.forms import Refused, form_action
from gatehouse.dashboard.sessions import Viewer, require_viewer
from gatehouse.domain.principals import Role
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.rendering import render, see_other
from gatehouse.webhooks import (
    dead_deliveries,
    endpoint_health,
    recent_notifications,
    replay_delivery,
)

router = APIRouter(include_in_schema=False)

NOTIFICATIONS_SHOWN = 50


async def render_webhooks(
    request: Request, viewer: Viewer, *, problem: str | None = None, status_code: int = 200
) -> Response:
    runtime = runtime_of(request)
    tenant_id = request.query_params.get("tenant") or None
    async with runtime.db.read() as session:
        endpoints = await endpoint_health(session, tenant_id)
        dead = await dead_deliveries(session, tenant_id)
        notifications = await recent_notifications(session, tenant_id, NOTIFICATIONS_SHOWN)
        tenants = await cases.tenant_choices(session)
    names = {tenant: label for tenant, label in tenants}
    return render(
        request,
        "dashboard/webhooks.html",
        {
            "viewer": viewer,
            "section": "webhooks",
            "title": "Webhooks",
            "endpoints": endpoints,
            "dead": dead,
            "notifications": notifications,
            "tenants": tenants,
            "tenant_names": names,
            "tenant_id": tenant_id,
            "can_replay": viewer.principal.at_least(Role.ADMIN),
            "problem": problem,
            "notice": "Replay queued: a new delivery of the same event."
            if request.query_params.get("done") == "replayed"
            else None,
        },
        status_code=status_code,
    )


@router.get("/dashboard/webhooks")
async def webhooks_page(request: Request) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    return await render_webhooks(request, viewer)


@router.post("/dashboard/deliveries/{delivery_id}/replay")
async def replay(request: Request, delivery_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        async with runtime.db.write() as session:
            ctx = write_context(request, viewer.principal)
            await replay_delivery(session, ctx, delivery_id)
        return see_other("/dashboard/webhooks?done=replayed")

    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        return await render_webhooks(
            request, viewer, problem=refused.message, status_code=refused.status_code
        )

    return await form_action(request, again, run, role=Role.ADMIN)
