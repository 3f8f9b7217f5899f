"""Staff API: moving a case to another intake and repairing its status
(docs/reference/staff-api.md "Intake change and repair").

Thin endpoints: authenticate, check the role, read the body, then one service call of
`realignment` inside one write transaction.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel
from starlette.responses import Response

from gatehouse import realignment
from gatehouse.applications.examples import APPLICATION_EXAMPLE
from gatehouse.cases.schemas import StaffApplication
from gatehouse.domain.principals import Role
from gatehouse.errors import invalid_argument
from gatehouse.realignment import RepairResult
from gatehouse.web.auth import require_role
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, StaffUser
from gatehouse.web.openapi import Op, nullable
from gatehouse.web.responses import respond

router = APIRouter(prefix="/staff/v1", tags=["staff: cases"])


class IntakeBody(BaseModel):
    """`POST /staff/v1/applications/{clientId}/intake`: the intake to move to and an optional
    comment the decision history shows. Loosely typed: the route names the field at fault."""

    labelId: Any = None
    comment: Any = None


def _label(body: IntakeBody) -> str:
    if not isinstance(body.labelId, str) or not body.labelId.strip():
        raise invalid_argument(
            "Give the labelId of the intake to move the application to.", "labelId", "required"
        )
    return body.labelId.strip()


def _comment(body: IntakeBody) -> str | None:
    if body.comment is not None and not isinstance(body.comment, str):
        raise invalid_argument("comment must be a string.", "comment", "not a string")
    return body.comment


@router.post("/applications/{client_id}/intake", openapi_extra=body_schema(IntakeBody))
@Op(
    "changeApplicationIntake",
    "Move an application to another attached intake of its tenant",
    {200: StaffApplication},
    access=Role.MLRO.value,
    errors=(410,),
    body_fields={
        "labelId": {"type": "string", "minLength": 1},
        "comment": nullable({"type": "string", "maxLength": 4000}),
    },
    description="The checklist and the form follow the new intake; a pending_approval "
    "application returns to pending (history action pair_change, "
    "application.status.changed reason pair_change). active and rejected are 400 "
    "failed-precondition; the same intake changes nothing.",
    example={"labelId": "lbl_2b7c9d1e4f6a", "comment": "Applicant is a company."},
    answer_example={**APPLICATION_EXAMPLE, "tenantId": "ten_4d3c2b1a0f9e"},
)
async def change_intake(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Move the application to another attached intake of its tenant (mlro+) → 200 the
    application."""
    require_role(staff, Role.MLRO)
    body = await parse_body(request, IntakeBody)
    label_id, comment = _label(body), _comment(body)
    async with runtime.db.write() as session:
        result = await realignment.change_intake(
            session,
            write_context(request, staff),
            staff,
            client_id,
            label_id=label_id,
            comment=comment,
        )
        return await respond(request, session, 200, result)


@router.post("/applications/{client_id}/repair")
@Op(
    "repairApplicationStatus",
    "Bring an application's status back in line with its facts",
    {200: RepairResult},
    access=Role.ADMIN.value,
    errors=(410,),
    body_required=False,
    description="A waiting proposal means pending_approval; needs_info with nothing owed "
    "becomes pending; pending with an open or reopened item becomes needs_info. When the "
    "status changes: history action repair, application.status.changed reason repair.",
    answer_example={
        "clientId": "app_8f2k1c9d0a7b",
        "previousStatus": "pending",
        "status": "needs_info",
        "changed": True,
    },
)
async def repair(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Bring the status back in line with the case's facts (admin+) → 200 `{clientId,
    previousStatus, status, changed}`."""
    require_role(staff, Role.ADMIN)
    async with runtime.db.write() as session:
        result = await realignment.repair_application(
            session,
            write_context(request, staff),
            client_id,
            actor_role=staff.role,
            actor_id=staff.staff_id,
        )
        return await respond(request, session, 200, result)
