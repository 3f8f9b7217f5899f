"""The webhooks page of the dashboard (issue 6; CONTRACT §2, §4, §6): endpoints
per tenant with their health, dead deliveries with replay, notifications."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import select
from starlette.responses import Response

from gatehouse.dashboard import queries
from gatehouse.dashboard.rendering import render, see_other
from gatehouse.dashboard.sessions import Viewer, checked_form, require_viewer
from gatehouse.http.auth import runtime_of
from gatehouse.http.errors import ApiError, request_id_of
from gatehouse.storage.tables.core import Notification
from gatehouse.webhooks.deliveries import replay_delivery
from gatehouse.webhooks.health import dead_deliveries, endpoint_health

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
        stmt = select(Notification)
        if tenant_id:
            stmt = stmt.where(Notification.tenant_id == tenant_id)
        notifications = list(
            (
                await session.scalars(
                    stmt.order_by(Notification.created_at.desc(), Notification.id.desc()).limit(
                        NOTIFICATIONS_SHOWN
                    )
                )
            ).all()
        )
        tenants = await queries.tenant_choices(session)
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
            "can_replay": viewer.principal.at_least("admin"),
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
    viewer = await require_viewer(request, "admin")
    if isinstance(viewer, Response):
        return viewer
    form = await checked_form(request, viewer)
    if isinstance(form, Response):
        return form
    runtime = runtime_of(request)
    try:
        async with runtime.db.write() as session:
            await replay_delivery(
                session,
                delivery_id=delivery_id,
                now=runtime.now(),
                actor=viewer.principal.actor,
                request_id=request_id_of(request) or None,
            )
    except ApiError as error:
        return await render_webhooks(
            request, viewer, problem=error.message, status_code=error.status_code
        )
    return see_other("/dashboard/webhooks?done=replayed")
