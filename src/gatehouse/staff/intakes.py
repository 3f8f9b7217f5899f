"""Staff intake configuration (docs/reference/staff-api.md §5): create and update intake labels.

`POST /staff/v1/tenants/{tenantId}/intakes` and `PATCH /staff/v1/intakes/{labelId}`,
admin and above. The checklist drives the tenant checklist read
(docs/reference/tenant-api.md §5.13); the optional `formFields` drive the portal form.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict
from starlette.responses import Response

from gatehouse.domain.principals import Role
from gatehouse.intakes.schemas import StaffIntake
from gatehouse.intakes.service import create_intake, staff_intake_read, update_intake
from gatehouse.staff.examples import ADMIN, INTAKE_FIELDS
from gatehouse.web.auth import require_role
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, StaffUser
from gatehouse.web.openapi import Op
from gatehouse.web.responses import json_response

router = APIRouter(tags=["staff intakes"])


class IntakeCreateBody(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")

    name: str
    order: int | None = None
    attached: bool = True
    checklist: list[Any] | None = None
    formFields: list[Any] | None = None
    screening: Any = None
    riskRules: Any = None


class IntakeUpdateBody(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")

    name: str | None = None
    order: int | None = None
    attached: bool | None = None
    checklist: list[Any] | None = None
    formFields: list[Any] | None = None
    screening: Any = None
    riskRules: Any = None


@router.post("/staff/v1/tenants/{tenant_id}/intakes", openapi_extra=body_schema(IntakeCreateBody))
@Op(
    "createIntake",
    "Create an intake for a tenant",
    {201: StaffIntake},
    access=ADMIN,
    body_fields=INTAKE_FIELDS,
    example={
        "name": "Company",
        "order": 1,
        "checklist": [
            {"key": "passport", "label": "Passport", "kind": "document", "required": True}
        ],
    },
)
async def post_intake(
    tenant_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """201 `{labelId, name, order, attached, checklist, formFields, screening, riskRules}`."""
    require_role(staff, Role.ADMIN)
    body = await parse_body(request, IntakeCreateBody)
    async with runtime.db.write() as session:
        intake = await create_intake(
            session,
            write_context(request, staff),
            tenant_id=tenant_id,
            name=body.name,
            order=body.order,
            attached=body.attached,
            checklist=body.checklist,
            form_fields=body.formFields,
            screening=body.screening,
            risk_rules=body.riskRules,
        )
        view = await staff_intake_read(session, intake)
    return json_response(201, view)


@router.patch("/staff/v1/intakes/{label_id}", openapi_extra=body_schema(IntakeUpdateBody))
@Op(
    "updateIntake",
    "Change an intake",
    {200: StaffIntake},
    access=ADMIN,
    body_fields=INTAKE_FIELDS,
    example={"attached": False},
)
async def patch_intake(
    label_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """200 with the intake; only the fields sent change (`order: null` clears it)."""
    require_role(staff, Role.ADMIN)
    body = await parse_body(request, IntakeUpdateBody)
    changes = {name: getattr(body, name) for name in body.model_fields_set}
    async with runtime.db.write() as session:
        intake = await update_intake(session, write_context(request, staff), label_id, changes)
        view = await staff_intake_read(session, intake)
    return json_response(200, view)
