"""The dashboard's screening and risk forms (docs/screening.md): on the case page, resolve
a hit in place, screen now, override the risk; on the tenant page, an intake's mapping and
rules. Each mirrors its staff API route and calls the same service
function in one write transaction; a refusal is shown beside the form."""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse import intakes
from gatehouse.dashboard.case_routes import render_case
from gatehouse.dashboard.forms import Refused, Render, form_action
from gatehouse.dashboard.sessions import Viewer
from gatehouse.dashboard.tenants_routes import render_tenant
from gatehouse.domain.principals import Role
from gatehouse.errors import invalid_argument
from gatehouse.intakes import update_intake
from gatehouse.risk import override_risk
from gatehouse.screening import application_of_hit, resolve_hit, run_screening
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.rendering import see_other

router = APIRouter(include_in_schema=False)


def _text(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _again(request: Request, client_id: str | None, default_error: str) -> Render:
    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        if client_id is None:
            return see_other("/dashboard")
        errors = refused.errors or {default_error: refused.message}
        return await render_case(
            request,
            viewer,
            client_id,
            errors=errors,
            form=dict(form),
            status_code=refused.status_code,
        )

    return again


@router.post("/dashboard/screening-hits/{hit_id}/resolve")
async def resolve(request: Request, hit_id: str) -> Response:
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        client_id = await application_of_hit(session, hit_id)

    async def run(viewer: Viewer, form: FormData) -> Response:
        async with runtime.db.write() as session:
            await resolve_hit(
                session,
                write_context(request, viewer.principal),
                viewer.principal,
                hit_id,
                resolution=_text(form, "resolution"),
                comment=_text(form, "comment"),
            )
        return see_other(f"/dashboard/applications/{client_id}#h-screening")

    again = _again(request, client_id, "screening")
    return await form_action(
        request,
        again,
        run,
        fields={"comment": "comment", "resolution": "resolution"},
        default="screening",
    )


@router.post("/dashboard/applications/{client_id}/screening/run")
async def screen_now(request: Request, client_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        async with runtime.db.write() as session:
            await run_screening(session, write_context(request, viewer.principal), client_id)
        return see_other(f"/dashboard/applications/{client_id}#h-screening")

    again = _again(request, client_id, "screening")
    return await form_action(request, again, run, default="screening")


@router.post("/dashboard/applications/{client_id}/risk/override")
async def override(request: Request, client_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        async with runtime.db.write() as session:
            await override_risk(
                session,
                write_context(request, viewer.principal),
                viewer.principal,
                client_id,
                level=_text(form, "level") or None,
                reason=_text(form, "reason"),
            )
        return see_other(f"/dashboard/applications/{client_id}#h-risk")

    again = _again(request, client_id, "reason")
    return await form_action(
        request,
        again,
        run,
        role=Role.MLRO,
        fields={"reason": "reason", "level": "reason"},
        default="reason",
    )


def _json(form: FormData, name: str) -> object:
    try:
        return json.loads(_text(form, name) or "null")
    except ValueError:
        raise invalid_argument(f"{name} is not valid JSON.", name) from None


@router.post("/dashboard/intakes/{label_id}/screening")
async def intake_screening(request: Request, label_id: str) -> Response:
    """An intake's screening mapping and risk rules, as JSON (admin+)."""
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        tenant_id = await intakes.tenant_of_intake(session, label_id)

    async def run(viewer: Viewer, form: FormData) -> Response:
        changes = {"screening": _json(form, "screening"), "riskRules": _json(form, "riskRules")}
        async with runtime.db.write() as session:
            await update_intake(
                session, write_context(request, viewer.principal), label_id, changes
            )
        return see_other(f"/dashboard/tenants/{tenant_id}?done=intake")

    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        if tenant_id is None:
            return see_other("/dashboard/tenants")
        errors = {f"screening_{label_id}": refused.message}
        return await render_tenant(
            request, viewer, tenant_id, errors=errors, status_code=refused.status_code
        )

    return await form_action(request, again, run, role=Role.ADMIN)
