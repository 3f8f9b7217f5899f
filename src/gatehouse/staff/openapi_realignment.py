"""What /openapi.json says about moving a case to another intake and repairing its status
(docs/reference/staff-api.md "Intake change and repair")."""

from __future__ import annotations

from gatehouse.applications import APPLICATION_EXAMPLE
from gatehouse.cases import StaffApplication
from gatehouse.domain.principals import Role
from gatehouse.realignment import RepairResult
from gatehouse.web.openapi import Op, OperationTable, nullable

OPERATIONS: OperationTable = {
    ("POST", "/staff/v1/applications/{client_id}/intake"): Op(
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
    ),
    ("POST", "/staff/v1/applications/{client_id}/repair"): Op(
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
    ),
}
