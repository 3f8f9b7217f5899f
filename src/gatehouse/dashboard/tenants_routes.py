"""Tenant administration pages (issue 6; CONTRACT §4): tenants, suspension,
API keys (shown once), intakes and the webhook endpoint cap."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy import select
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse import audit
from gatehouse.dashboard.rendering import render, see_other
from gatehouse.dashboard.sessions import Viewer, checked_form, require_viewer
from gatehouse.http.auth import ALL_SCOPES, runtime_of
from gatehouse.http.errors import ApiError, request_id_of
from gatehouse.services.intakes import create_intake, update_intake
from gatehouse.staff.accounts import (
    Actor,
    create_api_key,
    create_tenant,
    revoke_api_key,
    set_tenant_status,
    update_tenant,
)
from gatehouse.storage.tables.applications import Intake
from gatehouse.storage.tables.core import ApiKey, Tenant

router = APIRouter(include_in_schema=False)

CHECKLIST_ROWS = 3
CHECKLIST_KINDS = (("document", "Document"), ("verification", "Verification"), ("form", "Form"))


def _text(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _actor(request: Request, viewer: Viewer) -> Actor:
    return Actor(viewer.principal.actor, request_id_of(request))


def _field_errors(error: ApiError, default: str) -> dict[str, str]:
    if error.details:
        return {d.get("field") or default: d.get("issue") or error.message for d in error.details}
    return {default: error.message}


async def _admin_form(request: Request) -> tuple[Viewer, FormData] | Response:
    viewer = await require_viewer(request, "admin")
    if isinstance(viewer, Response):
        return viewer
    form = await checked_form(request, viewer)
    if isinstance(form, Response):
        return form
    return viewer, form


@router.get("/dashboard/tenants")
async def tenants_page(request: Request) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    return await render_tenants(request, viewer)


async def render_tenants(
    request: Request,
    viewer: Viewer,
    *,
    errors: dict[str, str] | None = None,
    status_code: int = 200,
) -> Response:
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        tenants = list((await session.scalars(select(Tenant).order_by(Tenant.name))).all())
    return render(
        request,
        "dashboard/tenants.html",
        {
            "viewer": viewer,
            "section": "tenants",
            "title": "Tenants",
            "tenants": tenants,
            "errors": errors or {},
            "can_admin": viewer.principal.at_least("admin"),
        },
        status_code=status_code,
    )


@router.post("/dashboard/tenants")
async def create_tenant_submit(request: Request) -> Response:
    guarded = await _admin_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, form = guarded
    try:
        created = await create_tenant(
            runtime_of(request), _text(form, "name"), by=_actor(request, viewer)
        )
    except ApiError as error:
        return await render_tenants(
            request, viewer, errors=_field_errors(error, "name"), status_code=400
        )
    return see_other(f"/dashboard/tenants/{created['tenantId']}?done=created")


async def render_tenant(
    request: Request,
    viewer: Viewer,
    tenant_id: str,
    *,
    errors: dict[str, str] | None = None,
    new_key: dict[str, object] | None = None,
    status_code: int = 200,
) -> Response:
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        tenant = await session.get(Tenant, tenant_id)
        keys = list(
            (
                await session.scalars(
                    select(ApiKey)
                    .where(ApiKey.tenant_id == tenant_id)
                    .order_by(ApiKey.created_at.desc(), ApiKey.id.desc())
                )
            ).all()
        )
        intakes = list(
            (
                await session.scalars(
                    select(Intake).where(Intake.tenant_id == tenant_id).order_by(Intake.position)
                )
            ).all()
        )
    if tenant is None:
        return render(
            request,
            "dashboard/not_found.html",
            {"viewer": viewer, "reason": "No such tenant."},
            status_code=404,
        )
    return render(
        request,
        "dashboard/tenant.html",
        {
            "viewer": viewer,
            "section": "tenants",
            "title": tenant.name,
            "tenant": tenant,
            "keys": keys,
            "intakes": intakes,
            "all_scopes": ALL_SCOPES,
            "kinds": CHECKLIST_KINDS,
            "checklist_rows": CHECKLIST_ROWS,
            "errors": errors or {},
            "new_key": new_key,
            "can_admin": viewer.principal.at_least("admin"),
            "notice": _NOTICES.get(request.query_params.get("done") or ""),
        },
        status_code=status_code,
        # A page that shows a new key must never be kept anywhere.
        headers={"Cache-Control": "no-store"},
    )


_NOTICES = {
    "created": "Tenant created.",
    "suspended": "Tenant suspended: its writes are refused until reactivated.",
    "active": "Tenant reactivated.",
    "cap": "Webhook endpoint cap saved.",
    "revoked": "API key revoked; it fails at once.",
    "intake": "Intake saved.",
}


@router.get("/dashboard/tenants/{tenant_id}")
async def tenant_page(request: Request, tenant_id: str) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    return await render_tenant(request, viewer, tenant_id)


@router.post("/dashboard/tenants/{tenant_id}/status")
async def change_status(request: Request, tenant_id: str) -> Response:
    guarded = await _admin_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, form = guarded
    status = _text(form, "status")
    if status not in ("suspended", "active"):
        return await render_tenant(
            request, viewer, tenant_id, errors={"status": "Unknown status."}, status_code=400
        )
    try:
        await set_tenant_status(runtime_of(request), tenant_id, status, _actor(request, viewer))
    except ApiError as error:
        return await render_tenant(
            request, viewer, tenant_id, errors={"status": error.message}, status_code=400
        )
    return see_other(f"/dashboard/tenants/{tenant_id}?done={status}")


@router.post("/dashboard/tenants/{tenant_id}/cap")
async def change_cap(request: Request, tenant_id: str) -> Response:
    guarded = await _admin_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, form = guarded
    raw = _text(form, "webhookEndpointCap")
    cap: object = int(raw) if raw.isdigit() else raw
    try:
        await update_tenant(
            runtime_of(request), tenant_id, {"webhookEndpointCap": cap}, _actor(request, viewer)
        )
    except ApiError as error:
        return await render_tenant(
            request,
            viewer,
            tenant_id,
            errors=_field_errors(error, "webhookEndpointCap"),
            status_code=error.status_code,
        )
    return see_other(f"/dashboard/tenants/{tenant_id}?done=cap")


@router.post("/dashboard/tenants/{tenant_id}/api-keys")
async def new_api_key(request: Request, tenant_id: str) -> Response:
    guarded = await _admin_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, form = guarded
    scopes = [s for s in form.getlist("scopes") if isinstance(s, str)]
    try:
        created = await create_api_key(
            runtime_of(request),
            tenant_id,
            _text(form, "key_name") or None,
            scopes,
            by=_actor(request, viewer),
        )
    except ApiError as error:
        return await render_tenant(
            request, viewer, tenant_id, errors=_field_errors(error, "scopes"), status_code=400
        )
    # Shown once, on this answer only; it is stored hashed.
    return await render_tenant(request, viewer, tenant_id, new_key=created, status_code=201)


@router.post("/dashboard/api-keys/{key_id}/revoke")
async def revoke_key(request: Request, key_id: str) -> Response:
    guarded = await _admin_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, _form = guarded
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        tenant_id = await session.scalar(select(ApiKey.tenant_id).where(ApiKey.id == key_id))
    if tenant_id is None:
        return see_other("/dashboard/tenants")
    await revoke_api_key(runtime, key_id, _actor(request, viewer))
    return see_other(f"/dashboard/tenants/{tenant_id}?done=revoked")


def _checklist_from(form: FormData) -> list[dict[str, Any]]:
    rows = []
    for index in range(CHECKLIST_ROWS):
        key = _text(form, f"check_key_{index}")
        label = _text(form, f"check_label_{index}")
        if not key and not label:
            continue
        rows.append(
            {
                "key": key,
                "label": label,
                "kind": _text(form, f"check_kind_{index}"),
                "required": form.get(f"check_required_{index}") == "yes",
            }
        )
    return rows


def _order_from(form: FormData, errors: dict[str, str]) -> int | None:
    raw = _text(form, "order")
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        errors["order"] = "Enter a whole number, or leave it empty."
        return None


@router.post("/dashboard/tenants/{tenant_id}/intakes")
async def new_intake(request: Request, tenant_id: str) -> Response:
    guarded = await _admin_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, form = guarded
    runtime = runtime_of(request)
    errors: dict[str, str] = {}
    order = _order_from(form, errors)
    if errors:
        return await render_tenant(request, viewer, tenant_id, errors=errors, status_code=400)
    now = runtime.now()
    try:
        async with runtime.db.write() as session:
            intake = await create_intake(
                session,
                tenant_id=tenant_id,
                name=_text(form, "intake_name"),
                order=order,
                attached=form.get("attached") == "yes",
                checklist=_checklist_from(form),
                form_fields=[],
                now=now,
            )
            audit.record(
                session,
                at=now,
                actor=viewer.principal.actor,
                action="intake.create",
                target=intake.id,
                tenant_id=tenant_id,
                request_id=request_id_of(request),
            )
    except ApiError as error:
        errors = _field_errors(error, "intake_name")
        if "name" in errors:
            errors["intake_name"] = errors.pop("name")
        return await render_tenant(request, viewer, tenant_id, errors=errors, status_code=400)
    return see_other(f"/dashboard/tenants/{tenant_id}?done=intake")


@router.post("/dashboard/intakes/{label_id}")
async def edit_intake(request: Request, label_id: str) -> Response:
    guarded = await _admin_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, form = guarded
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        tenant_id = await session.scalar(select(Intake.tenant_id).where(Intake.id == label_id))
    if tenant_id is None:
        return see_other("/dashboard/tenants")
    errors: dict[str, str] = {}
    order = _order_from(form, errors)
    if errors:
        return await render_tenant(
            request,
            viewer,
            tenant_id,
            errors={f"order_{label_id}": errors["order"]},
            status_code=400,
        )
    now = runtime.now()
    async with runtime.db.write() as session:
        intake = await update_intake(
            session,
            label_id,
            {"order": order, "attached": form.get("attached") == "yes"},
            now,
        )
        audit.record(
            session,
            at=now,
            actor=viewer.principal.actor,
            action="intake.update",
            target=intake.id,
            tenant_id=intake.tenant_id,
            request_id=request_id_of(request),
        )
    return see_other(f"/dashboard/tenants/{tenant_id}?done=intake")
