"""What /openapi.json says about the `/staff/v1` case work: applications, decisions,
information requests, notes, assignment, audit trails, documents and erasure
(docs/api-reference.md)."""

from __future__ import annotations

from typing import Any

from gatehouse.applications import (
    APPLICATION_EXAMPLE,
    INFO_REQUEST_EXAMPLE,
    SUMMARY_EXAMPLE,
    InfoRequest,
)
from gatehouse.cases import (
    Assignment,
    AuditPage,
    AuditRecord,
    Note,
    NotePage,
    StaffApplication,
    StaffApplicationPage,
)
from gatehouse.domain.info_requests import ItemType
from gatehouse.domain.principals import Role
from gatehouse.domain.screening import RISK_LEVELS
from gatehouse.domain.status import ApplicationStatus, DecisionAction
from gatehouse.erasure import Erased
from gatehouse.staff.openapi_tenants import TENANT_FILTER
from gatehouse.web.openapi import (
    BINARY,
    CURSOR,
    LIMIT,
    Op,
    OperationTable,
    Query,
    listing,
    nullable,
    page,
    status_filter,
)

ANALYST = Role.ANALYST.value
ADMIN = Role.ADMIN.value

STAFF_SUMMARY_EXAMPLE = {
    **SUMMARY_EXAMPLE,
    "tenantId": "ten_4d3c2b1a0f9e",
    "risk": "low",
    "openHits": 0,
}
RISK_FILTER = Query(
    "risk", "Only applications at this risk level.", {"type": "string", "enum": list(RISK_LEVELS)}
)
SCREENING_FILTER = Query(
    "screening",
    "`hits`: only applications with an open screening hit.",
    {"type": "string", "enum": ["hits"]},
)
AUDIT_ENTRY_EXAMPLE: AuditRecord = {
    "at": "2026-11-22T10:00:00.000Z",
    "actor": "staff:stf_1a2b3c4d5e6f",
    "action": "info_request.raise",
    "target": "ir_5c1e0f7a2d9b",
    "requestId": "req_7d6c5b4a3f2e",
    "seq": 1042,
    "hash": "9f2c" + "0" * 60,
}
NOTE_EXAMPLE: Note = {
    "noteId": "note_3c4d5e6f7a8b",
    "clientId": "app_8f2k1c9d0a7b",
    "authorStaffId": "stf_1a2b3c4d5e6f",
    "authorEmail": "analyst@operator.example",
    "text": "Called the applicant; bill follows.",
    "createdAt": "2026-11-22T10:00:00.000Z",
}
RAISE_FIELDS: dict[str, Any] = {
    "comment": {"type": "string", "minLength": 1, "maxLength": 4000},
    "items": {
        "type": "array",
        "minItems": 1,
        "maxItems": 50,
        "items": {
            "type": "object",
            "required": ["type", "prompt"],
            "properties": {
                "type": {"type": "string", "enum": list(ItemType)},
                "prompt": {"type": "string", "minLength": 1, "maxLength": 2000},
            },
        },
    },
}
APPLICATION_STATUS = status_filter("applications", ApplicationStatus)


def _info_request_op(operation_id: str, summary: str) -> Op:
    """A staff move on an information request or one of its items: it answers the request."""
    return Op(
        operation_id,
        summary,
        {200: InfoRequest},
        access=ANALYST,
        errors=(410,),
        answer_example=INFO_REQUEST_EXAMPLE,
    )


OPERATIONS: OperationTable = {
    ("GET", "/staff/v1/applications"): Op(
        "listStaffApplications",
        "List applications across tenants, most recently changed first",
        {200: StaffApplicationPage},
        access=ANALYST,
        query=(TENANT_FILTER, APPLICATION_STATUS, RISK_FILTER, SCREENING_FILTER, LIMIT, CURSOR),
        answer_example=page(STAFF_SUMMARY_EXAMPLE),
    ),
    ("GET", "/staff/v1/applications/{client_id}"): Op(
        "getStaffApplication",
        "Get an application",
        {200: StaffApplication},
        access=ANALYST,
        answer_example={**APPLICATION_EXAMPLE, "tenantId": "ten_4d3c2b1a0f9e"},
    ),
    ("POST", "/staff/v1/applications/{client_id}/decisions"): Op(
        "makeDecision",
        "Make a decision: approve, countersign, reject_proposal, reject, hold or release",
        {200: StaffApplication},
        access=ANALYST,
        errors=(410,),
        body_fields={"action": {"type": "string", "enum": list(DecisionAction)}},
        description="countersign and reject_proposal need the mlro role; the proposer cannot "
        "countersign (docs/reference/staff-api.md §6.2).",
        example={"action": "approve", "comment": "Documents verified."},
    ),
    ("POST", "/staff/v1/applications/{client_id}/info-requests"): Op(
        "raiseInfoRequest",
        "Raise an information request",
        {201: InfoRequest},
        access=ANALYST,
        errors=(410,),
        body_fields=RAISE_FIELDS,
        example={
            "comment": "Please send a recent utility bill.",
            "items": [{"type": "document", "prompt": "A utility bill from the last 3 months."}],
        },
        answer_example=INFO_REQUEST_EXAMPLE,
    ),
    ("POST", "/staff/v1/info-requests/{request_id}/items/{item_id}/accept"): _info_request_op(
        "acceptInfoRequestItem", "Accept an item of an information request"
    ),
    ("POST", "/staff/v1/info-requests/{request_id}/items/{item_id}/reopen"): _info_request_op(
        "reopenInfoRequestItem", "Reopen an item of an information request"
    ),
    ("POST", "/staff/v1/info-requests/{request_id}/close"): _info_request_op(
        "closeInfoRequest", "Close an information request"
    ),
    ("POST", "/staff/v1/info-requests/{request_id}/cancel"): _info_request_op(
        "cancelInfoRequest", "Cancel an information request"
    ),
    ("POST", "/staff/v1/info-requests/{request_id}/remind"): _info_request_op(
        "remindInfoRequest", "Remind the applicant of an open information request"
    ),
    ("POST", "/staff/v1/applications/{client_id}/erase"): Op(
        "eraseApplication",
        "Erase an application's personal data",
        {200: Erased},
        access=ADMIN,
        errors=(410,),
        answer_example={"clientId": "app_8f2k1c9d0a7b", "erased": True},
    ),
    ("GET", "/staff/v1/applications/{client_id}/audit"): listing(
        "listApplicationAudit",
        "An application's audit trail, newest first",
        AuditPage,
        ANALYST,
        AUDIT_ENTRY_EXAMPLE,
    ),
    ("GET", "/staff/v1/tenants/{tenant_id}/audit"): listing(
        "listTenantAudit",
        "A tenant's audit trail, newest first",
        AuditPage,
        ANALYST,
        AUDIT_ENTRY_EXAMPLE,
    ),
    ("POST", "/staff/v1/applications/{client_id}/notes"): Op(
        "addCaseNote",
        "Add an internal note to a case",
        {201: Note},
        access=ANALYST,
        errors=(410,),
        body_fields={"text": {"type": "string", "minLength": 1}},
        example={"text": "Called the applicant; bill follows."},
    ),
    ("GET", "/staff/v1/applications/{client_id}/notes"): listing(
        "listCaseNotes", "A case's internal notes, newest first", NotePage, ANALYST, NOTE_EXAMPLE
    ),
    ("POST", "/staff/v1/applications/{client_id}/assignment"): Op(
        "assignCase",
        "Assign a case to a staff member, or unassign it (null)",
        {200: Assignment},
        access=ANALYST,
        errors=(410,),
        body_fields={"staffId": nullable({"type": "string", "minLength": 1})},
        example={"staffId": "stf_1a2b3c4d5e6f"},
    ),
    ("GET", "/staff/v1/documents/{document_id}/content"): Op(
        "getDocumentContent",
        "Download a document's original bytes (audited)",
        {200: BINARY},
        access=ANALYST,
        errors=(410,),
    ),
}
