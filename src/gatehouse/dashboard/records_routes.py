"""Records on the dashboard (docs/audit-and-evidence.md; docs/operations.md, "Retention"): on the
case page the evidence pack's download and the legal hold, for MLROs and above; on the tenant
page its retention, for admins. Each calls the service of the staff API route it mirrors, so
each is audited the same way."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse.accounts import update_tenant
from gatehouse.dashboard.case_routes import render_case
from gatehouse.dashboard.forms import Refused, form_action
from gatehouse.dashboard.sessions import Viewer, require_viewer
from gatehouse.dashboard.tenants_routes import render_tenant
from gatehouse.domain.numbers import decimal_or_none
from gatehouse.domain.principals import Role
from gatehouse.errors import GatehouseError
from gatehouse.evidence import evidence_pack, render_pdf
from gatehouse.retention import set_legal_hold
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.rendering import see_other

router = APIRouter(include_in_schema=False)


@router.get("/dashboard/applications/{client_id}/evidence")
async def evidence(request: Request, client_id: str) -> Response:
    """The evidence pack as a PDF attachment (mlro+; audited as `evidence.export`)."""
    viewer = await require_viewer(request, Role.MLRO)
    if isinstance(viewer, Response):
        return viewer
    runtime = runtime_of(request)
    try:
        async with runtime.db.write() as session:
            ctx = write_context(request, viewer.principal)
            pack = await evidence_pack(session, runtime.db, runtime.crypto, ctx, client_id)
    except GatehouseError as error:
        return await render_case(
            request,
            viewer,
            client_id,
            errors={"records": error.message},
            status_code=error.status_code,
        )
    pdf = await asyncio.to_thread(render_pdf, pack)
    name = f"evidence-{pack['application']['clientId']}.pdf"
    headers = {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}
    return Response(pdf, media_type="application/pdf", headers=headers)


@router.post("/dashboard/applications/{client_id}/legal-hold")
async def legal_hold(request: Request, client_id: str) -> Response:
    """Place or release the legal hold, with a reason (mlro+)."""
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        hold = form.get("hold")
        async with runtime.db.write() as session:
            await set_legal_hold(
                session,
                write_context(request, viewer.principal),
                client_id,
                hold={"place": True, "release": False}.get(str(hold)),
                reason=form.get("hold_reason"),
            )
        return see_other(f"/dashboard/applications/{client_id}?done=hold#h-records")

    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        return await render_case(
            request,
            viewer,
            client_id,
            errors=refused.errors,
            form=dict(form),
            status_code=refused.status_code,
        )

    fields = {"reason": "hold_reason", "hold": "hold_reason"}
    return await form_action(request, again, run, role=Role.MLRO, fields=fields, default="records")


def _days(form: FormData, name: str) -> object:
    """A form's number of days: empty is null; text that is no number is left for the
    service to refuse, naming the field."""
    text = form.get(name)
    text = text.strip() if isinstance(text, str) else ""
    if not text:
        return None
    number = decimal_or_none(text)
    return text if number is None else number


@router.post("/dashboard/tenants/{tenant_id}/retention")
async def retention(request: Request, tenant_id: str) -> Response:
    """The tenant's retention periods (admin+), as `PATCH /staff/v1/tenants/{tenantId}`."""

    async def run(viewer: Viewer, form: FormData) -> Response:
        periods = {"rejectedDays": _days(form, "rejectedDays")}
        periods["abandonedDays"] = _days(form, "abandonedDays")
        ctx = write_context(request, viewer.principal)
        await update_tenant(runtime_of(request), ctx, tenant_id, {"retention": periods})
        return see_other(f"/dashboard/tenants/{tenant_id}?done=retention")

    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        return await render_tenant(
            request, viewer, tenant_id, errors=refused.errors, status_code=refused.status_code
        )

    fields = {f"retention.{name}": name for name in ("rejectedDays", "abandonedDays")}
    return await form_action(request, again, run, role=Role.ADMIN, fields=fields)
