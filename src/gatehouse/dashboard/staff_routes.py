"""The staff page (admin+; docs/staff-identity.md "For administrators"): who has access,
invites, roles, deactivation, reactivation and resets, through the same services as the
staff API. Invite links are shown once, on the answer to the form that made them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse import accounts
from gatehouse.dashboard.sessions import Viewer, checked_form, require_viewer
from gatehouse.domain.principals import STAFF_ROLES, Role
from gatehouse.errors import GatehouseError, permission_denied
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.rendering import render, see_other

router = APIRouter(include_in_schema=False)

STAFF = "/dashboard/staff"
NOTICES = {
    "role": "Role changed. Their sessions have ended.",
    "deactivated": "Account deactivated. Every session ended and every token was revoked.",
    "reactivated": "Account reactivated.",
}


async def render_staff(
    request: Request,
    viewer: Viewer,
    *,
    errors: dict[str, str] | None = None,
    invite: dict[str, Any] | None = None,
    problem: str | None = None,
    status_code: int = 200,
) -> Response:
    listing = await accounts.list_staff(runtime_of(request))
    role = viewer.principal.role
    return render(
        request,
        "dashboard/staff.html",
        {
            "viewer": viewer,
            "section": "staff",
            "title": "Staff",
            "staff": listing["data"],
            "roles": [r for r in STAFF_ROLES if accounts.may_manage(role, r)],
            "role_options": [
                (r, r.replace("_", " ")) for r in STAFF_ROLES if accounts.may_manage(role, r)
            ],
            "manageable": {
                row["staffId"]
                for row in listing["data"]
                if accounts.may_manage(role, row["role"])
                and row["staffId"] != viewer.principal.staff_id
            },
            "invite": invite,
            "errors": errors or {},
            "problem": problem,
            "notice": NOTICES.get(request.query_params.get("done") or ""),
        },
        status_code=status_code,
    )


@router.get(STAFF)
async def staff_page(request: Request) -> Response:
    viewer = await require_viewer(request, Role.ADMIN)
    if isinstance(viewer, Response):
        return viewer
    return await render_staff(request, viewer)


async def _admin_form(request: Request) -> tuple[Viewer, Any] | Response:
    viewer = await require_viewer(request, Role.ADMIN)
    if isinstance(viewer, Response):
        return viewer
    form = await checked_form(request, viewer)
    if isinstance(form, Response):
        return form
    return viewer, form


def _status(error: GatehouseError) -> int:
    return error.status_code


@router.post(STAFF)
async def invite_staff(request: Request) -> Response:
    guarded = await _admin_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, form = guarded
    email, role = form.get("email"), form.get("role")
    try:
        if isinstance(role, str) and not accounts.may_manage(viewer.role, role):
            raise permission_denied(
                f"Inviting a staff member with the {role} role needs the "
                f"{accounts.role_needed_for(role)} role."
            )
        created = await accounts.create_staff_member(
            runtime_of(request), email, role, write_context(request, viewer.principal)
        )
    except GatehouseError as error:
        field = error.field or "email"
        return await render_staff(
            request, viewer, errors={field: error.message}, status_code=_status(error)
        )
    invite = {"email": created["email"], "url": created["inviteUrl"], "kind": "invite"}
    return await render_staff(request, viewer, invite=invite)


async def _change(request: Request, staff_id: str, action: str) -> Response:
    guarded = await _admin_form(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, form = guarded
    runtime = runtime_of(request)
    ctx = write_context(request, viewer.principal)
    try:
        if action == "role":
            await accounts.change_role(runtime, viewer.principal, staff_id, form.get("role"), ctx)
        elif action == "deactivated":
            await accounts.deactivate(runtime, viewer.principal, staff_id, ctx)
        elif action == "reactivated":
            await accounts.reactivate(runtime, viewer.principal, staff_id, ctx)
        else:
            issued = await accounts.reset_staff_member(runtime, viewer.principal, staff_id, ctx)
            invite = {"staffId": staff_id, "url": issued["inviteUrl"], "kind": "reset"}
            return await render_staff(request, viewer, invite=invite)
    except GatehouseError as error:
        return await render_staff(
            request, viewer, problem=error.message, status_code=_status(error)
        )
    return see_other(f"{STAFF}?done={action}")


@router.post(STAFF + "/{staff_id}/role")
async def change_role(staff_id: str, request: Request) -> Response:
    return await _change(request, staff_id, "role")


@router.post(STAFF + "/{staff_id}/deactivate")
async def deactivate(staff_id: str, request: Request) -> Response:
    return await _change(request, staff_id, "deactivated")


@router.post(STAFF + "/{staff_id}/reactivate")
async def reactivate(staff_id: str, request: Request) -> Response:
    return await _change(request, staff_id, "reactivated")


@router.post(STAFF + "/{staff_id}/reset")
async def reset(staff_id: str, request: Request) -> Response:
    return await _change(request, staff_id, "reset")
