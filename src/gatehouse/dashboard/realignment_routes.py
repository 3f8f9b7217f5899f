"""The case page's "Change intake" and "Check status" forms (docs/case-work.md "Changing the
intake", "Checking a status"; docs/portal-and-dashboard.md).

Each post checks the session's CSRF token and the viewer's role, then calls the one service
function the staff API route calls, inside one write transaction; a refusal draws the case
page again with the refusal beside its form.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse import realignment
from gatehouse.dashboard.case_routes import render_case
from gatehouse.dashboard.forms import Refused, Render, form_action
from gatehouse.dashboard.sessions import Viewer
from gatehouse.domain.principals import Role
from gatehouse.errors import invalid_argument
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.rendering import see_other

router = APIRouter(include_in_schema=False)

# The service's field names → the intake form's.
INTAKE_FIELDS = {"labelId": "label_id", "comment": "intake_comment", "confirm": "intake_confirm"}


def _text(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _again(request: Request, client_id: str, anchor_error: str) -> Render:
    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        return await render_case(
            request,
            viewer,
            client_id,
            errors=refused.errors or {anchor_error: refused.message},
            form=dict(form),
            status_code=refused.status_code,
        )

    return again


@router.post("/dashboard/applications/{client_id}/intake")
async def change_intake(request: Request, client_id: str) -> Response:
    """Move the case to another intake (mlro+), once the consequences shown are confirmed."""
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        label_id = _text(form, "label_id")
        if not label_id:
            raise invalid_argument("Choose the intake to move the case to.", "labelId")
        if _text(form, "intake_confirm") != "yes":
            raise invalid_argument(
                "Confirm that you have read what changing the intake does.", "confirm"
            )
        async with runtime.db.write() as session:
            await realignment.change_intake(
                session,
                write_context(request, viewer.principal),
                viewer.principal,
                client_id,
                label_id=label_id,
                comment=_text(form, "intake_comment") or None,
            )
        return see_other(f"/dashboard/applications/{client_id}?done=intake_changed#h-intake")

    return await form_action(
        request,
        _again(request, client_id, "label_id"),
        run,
        role=Role.MLRO,
        fields=INTAKE_FIELDS,
        default="label_id",
    )


@router.post("/dashboard/applications/{client_id}/repair")
async def check_status(request: Request, client_id: str) -> Response:
    """Check the status against the case's facts and repair it when they disagree (admin+)."""
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        async with runtime.db.write() as session:
            result = await realignment.repair_application(
                session,
                write_context(request, viewer.principal),
                client_id,
                actor_role=viewer.principal.role,
                actor_id=viewer.principal.staff_id,
            )
        done = "repaired" if result["changed"] else "status_ok"
        return see_other(f"/dashboard/applications/{client_id}?done={done}#h-intake")

    return await form_action(
        request, _again(request, client_id, "repair"), run, role=Role.ADMIN, default="repair"
    )
