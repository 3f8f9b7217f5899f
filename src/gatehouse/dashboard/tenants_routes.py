"""Tenant administration pages: tenants, suspension, API keys (shown once), intakes and the
webhook endpoint cap (docs/portal-and-dashboard.md; docs/reference/staff-api.md §4, §5)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.datastructures import FormData, UploadFile
from starlette.responses import Response

from gatehouse import accounts
from gatehouse.accounts import (
    CreatedApiKey,
    check_endpoint_cap,
    create_api_key,
    create_tenant,
    revoke_api_key,
    set_tenant_status,
    update_tenant,
)
from gatehouse.dashboard.forms import Refused, Render, form_action
from gatehouse.dashboard.sessions import Viewer, require_viewer
from gatehouse.domain.branding import palette
from gatehouse.domain.principals import ALL_SCOPES, Role
from gatehouse.errors import invalid_argument
from gatehouse.intakes import (
    create_intake,
    intakes_of,
    staff_intake_read,
    tenant_of_intake,
    update_intake,
    valid_order,
)
from gatehouse.retention import holds_in_tenant
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.rendering import render, see_other

router = APIRouter(include_in_schema=False)

CHECKLIST_ROWS = 3
CHECKLIST_KINDS = (("document", "Document"), ("verification", "Verification"), ("form", "Form"))
# A sandbox tenant simulates the applicant's and the staff's steps (docs/sandbox.md).
ENVIRONMENT_CHOICES = (("live", "Live"), ("sandbox", "Sandbox (test integrations)"))


def _text(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


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
        tenants = await accounts.tenants_by_name(session)
    return render(
        request,
        "dashboard/tenants.html",
        {
            "viewer": viewer,
            "section": "tenants",
            "title": "Tenants",
            "tenants": tenants,
            "errors": errors or {},
            "can_admin": viewer.principal.at_least(Role.ADMIN),
            "environments": ENVIRONMENT_CHOICES,
        },
        status_code=status_code,
    )


@router.post("/dashboard/tenants")
async def create_tenant_submit(request: Request) -> Response:
    async def run(viewer: Viewer, form: FormData) -> Response:
        ctx = write_context(request, viewer.principal)
        created = await create_tenant(
            runtime_of(request),
            _text(form, "name"),
            ctx=ctx,
            environment=_text(form, "environment") or None,
        )
        return see_other(f"/dashboard/tenants/{created['tenantId']}?done=created")

    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        return await render_tenants(
            request, viewer, errors=refused.errors, status_code=refused.status_code
        )

    return await form_action(
        request, again, run, role=Role.ADMIN, fields={"environment": "environment"}, default="name"
    )


async def render_tenant(
    request: Request,
    viewer: Viewer,
    tenant_id: str,
    *,
    errors: dict[str, str] | None = None,
    new_key: CreatedApiKey | None = None,
    status_code: int = 200,
) -> Response:
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        tenant = await accounts.tenant_by_id(session, tenant_id)
        keys = await accounts.api_keys_of(session, tenant_id)
        intakes = await intakes_of(session, tenant_id)
        legal_holds = await holds_in_tenant(session, tenant_id)
        # Each intake's screening mapping and risk rules (docs/screening.md).
        intake_views = {i.id: await staff_intake_read(session, i) for i in intakes}
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
            "intake_views": intake_views,
            "all_scopes": ALL_SCOPES,
            "kinds": CHECKLIST_KINDS,
            "checklist_rows": CHECKLIST_ROWS,
            "errors": errors or {},
            "new_key": new_key,
            "can_admin": viewer.principal.at_least(Role.ADMIN),
            "palette": palette(tenant.accent_color),
            "logo_url": accounts.logo_url(tenant),
            "logo_max_kib": accounts.LOGO_MAX_BYTES // 1024,
            "notice": _NOTICES.get(request.query_params.get("done") or ""),
            "legal_holds": legal_holds,
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
    "branding": "Portal branding saved.",
    "logo": "Logo saved.",
    "logo-removed": "Logo removed.",
    "retention": "Retention saved.",
}


@router.get("/dashboard/tenants/{tenant_id}")
async def tenant_page(request: Request, tenant_id: str) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    return await render_tenant(request, viewer, tenant_id)


def _tenant_page(request: Request, tenant_id: str) -> Render:
    """The tenant page again, with a refused form's error beside its field."""

    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        return await render_tenant(
            request, viewer, tenant_id, errors=refused.errors, status_code=refused.status_code
        )

    return again


@router.post("/dashboard/tenants/{tenant_id}/status")
async def change_status(request: Request, tenant_id: str) -> Response:
    async def run(viewer: Viewer, form: FormData) -> Response:
        status = _text(form, "status")
        if status not in ("suspended", "active"):
            raise invalid_argument("Unknown status.", "status")
        ctx = write_context(request, viewer.principal)
        await set_tenant_status(runtime_of(request), ctx, tenant_id, status)
        return see_other(f"/dashboard/tenants/{tenant_id}?done={status}")

    page = _tenant_page(request, tenant_id)
    return await form_action(request, page, run, role=Role.ADMIN, default="status")


@router.post("/dashboard/tenants/{tenant_id}/cap")
async def change_cap(request: Request, tenant_id: str) -> Response:
    async def run(viewer: Viewer, form: FormData) -> Response:
        cap = check_endpoint_cap(_text(form, "webhookEndpointCap"))
        ctx = write_context(request, viewer.principal)
        await update_tenant(runtime_of(request), ctx, tenant_id, {"webhookEndpointCap": cap})
        return see_other(f"/dashboard/tenants/{tenant_id}?done=cap")

    page = _tenant_page(request, tenant_id)
    return await form_action(request, page, run, role=Role.ADMIN, default="webhookEndpointCap")


@router.post("/dashboard/tenants/{tenant_id}/api-keys")
async def new_api_key(request: Request, tenant_id: str) -> Response:
    async def run(viewer: Viewer, form: FormData) -> Response:
        scopes = [s for s in form.getlist("scopes") if isinstance(s, str)]
        created = await create_api_key(
            runtime_of(request),
            tenant_id,
            _text(form, "key_name") or None,
            scopes,
            ctx=write_context(request, viewer.principal),
        )
        # Shown once, on this answer only; it is stored hashed.
        return await render_tenant(request, viewer, tenant_id, new_key=created, status_code=201)

    page = _tenant_page(request, tenant_id)
    return await form_action(request, page, run, role=Role.ADMIN, default="scopes")


@router.post("/dashboard/api-keys/{key_id}/revoke")
async def revoke_key(request: Request, key_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        async with runtime.db.read() as session:
            tenant_id = await accounts.tenant_of_api_key(session, key_id)
        if tenant_id is None:
            return see_other("/dashboard/tenants")
        await revoke_api_key(runtime, write_context(request, viewer.principal), key_id)
        return see_other(f"/dashboard/tenants/{tenant_id}?done=revoked")

    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        return await render_tenants(
            request, viewer, errors=refused.errors, status_code=refused.status_code
        )

    return await form_action(request, again, run, role=Role.ADMIN)


# The languages an intake's labels are given in beside the plain (English) one.
TRANSLATED_LABELS = ("de", "ar")


def _checklist_from(form: FormData) -> list[dict[str, Any]]:
    rows = []
    for index in range(CHECKLIST_ROWS):
        key = _text(form, f"check_key_{index}")
        label = _text(form, f"check_label_{index}")
        if not key and not label:
            continue
        row: dict[str, Any] = {
            "key": key,
            "label": label,
            "kind": _text(form, f"check_kind_{index}"),
            "required": form.get(f"check_required_{index}") == "yes",
        }
        # The label in other languages, where given (docs/reference/portal.md).
        labels = {
            code: text
            for code in TRANSLATED_LABELS
            if (text := _text(form, f"check_label_{code}_{index}"))
        }
        if labels:
            row["labels"] = labels
        rows.append(row)
    return rows


def _order_from(form: FormData) -> int | None:
    """Empty: no order; else an integer in the database's range (docs/platform.md "Numbers")."""
    raw = _text(form, "order")
    return valid_order(raw) if raw else None


@router.post("/dashboard/tenants/{tenant_id}/intakes")
async def new_intake(request: Request, tenant_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        order = _order_from(form)
        async with runtime.db.write() as session:
            await create_intake(
                session,
                write_context(request, viewer.principal),
                tenant_id=tenant_id,
                name=_text(form, "intake_name"),
                order=order,
                attached=form.get("attached") == "yes",
                checklist=_checklist_from(form),
                form_fields=[],
            )
        return see_other(f"/dashboard/tenants/{tenant_id}?done=intake")

    page = _tenant_page(request, tenant_id)
    fields = {"order": "order", "checklist": "checklist"}
    return await form_action(
        request, page, run, role=Role.ADMIN, fields=fields, default="intake_name"
    )


async def _tenant_of_intake(request: Request, label_id: str) -> str | None:
    async with runtime_of(request).db.read() as session:
        return await tenant_of_intake(session, label_id)


@router.post("/dashboard/intakes/{label_id}")
async def edit_intake(request: Request, label_id: str) -> Response:
    async def run(viewer: Viewer, form: FormData) -> Response:
        tenant_id = await _tenant_of_intake(request, label_id)
        if tenant_id is None:
            return see_other("/dashboard/tenants")
        changes = {"order": _order_from(form), "attached": form.get("attached") == "yes"}
        async with runtime_of(request).db.write() as session:
            await update_intake(
                session, write_context(request, viewer.principal), label_id, changes
            )
        return see_other(f"/dashboard/tenants/{tenant_id}?done=intake")

    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        tenant_id = await _tenant_of_intake(request, label_id)
        if tenant_id is None:
            return see_other("/dashboard/tenants")
        return await _tenant_page(request, tenant_id)(viewer, form, refused)

    fields = {"order": f"order_{label_id}"}
    return await form_action(request, again, run, role=Role.ADMIN, fields=fields)


@router.post("/dashboard/tenants/{tenant_id}/branding")
async def change_branding(request: Request, tenant_id: str) -> Response:
    """The portal's display name and accent colour (docs/reference/portal.md, "Branding")."""

    async def run(viewer: Viewer, form: FormData) -> Response:
        changes = {
            "displayName": _text(form, "displayName") or None,
            "accentColor": _text(form, "accentColor") or None,
        }
        ctx = write_context(request, viewer.principal)
        await update_tenant(runtime_of(request), ctx, tenant_id, changes)
        return see_other(f"/dashboard/tenants/{tenant_id}?done=branding")

    page = _tenant_page(request, tenant_id)
    fields = {"displayName": "displayName", "accentColor": "accentColor"}
    return await form_action(request, page, run, role=Role.ADMIN, fields=fields)


@router.post("/dashboard/tenants/{tenant_id}/logo")
async def change_logo(request: Request, tenant_id: str) -> Response:
    """Upload (or, with `remove`, remove) the logo the portal shows."""

    async def run(viewer: Viewer, form: FormData) -> Response:
        ctx = write_context(request, viewer.principal)
        if form.get("remove") == "yes":
            await accounts.remove_logo(runtime_of(request), ctx, tenant_id)
            return see_other(f"/dashboard/tenants/{tenant_id}?done=logo-removed")
        upload = form.get("logo")
        if not isinstance(upload, UploadFile) or not upload.filename:
            raise invalid_argument("Choose an image file.", "logo", "missing file")
        content = await upload.read(accounts.LOGO_MAX_BYTES + 1)
        await accounts.set_logo(runtime_of(request), ctx, tenant_id, content, upload.content_type)
        return see_other(f"/dashboard/tenants/{tenant_id}?done=logo")

    page = _tenant_page(request, tenant_id)
    return await form_action(request, page, run, role=Role.ADMIN, fields={"logo": "logo"})
