"""Records on the case page (docs/audit-and-evidence.md; docs/operations.md, "Retention"): the
evidence pack's download and the legal hold, for MLROs and above. Each calls the service of the
staff API route it mirrors, so both are audited the same way."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse.dashboard.forms import Refused, form_action
from gatehouse.dashboard.queue_routes import render_case
from gatehouse.dashboard.sessions import Viewer, require_viewer
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
