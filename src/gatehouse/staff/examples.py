"""The staff API's (`/staff/v1`) shared pieces of /openapi.json (docs/api-reference.md): the
roles each route's `Op` names, the query parameters and body fields several routes share, and
the examples (checked against their schemas by tests/api/test_openapi.py). Each route's own
`Op` stands on the route, in staff/*.py."""

from __future__ import annotations

from typing import Any

from gatehouse.accounts.schemas import Invite, PersonalToken, StaffMemberView, TenantView
from gatehouse.applications.examples import SUMMARY_EXAMPLE
from gatehouse.cases.schemas import AuditRecord, Note
from gatehouse.domain.info_requests import ItemType
from gatehouse.domain.principals import Role
from gatehouse.domain.screening import RISK_LEVELS
from gatehouse.domain.status import ApplicationStatus
from gatehouse.domain.verification import CallbackStatus
from gatehouse.records import AuditHead
from gatehouse.risk.schemas import Risk
from gatehouse.screening.schemas import Hit
from gatehouse.verification.schemas import StaffCustomer
from gatehouse.web.openapi import Query, nullable, status_filter

# The least role an operation needs (`x-required-role`).
ANALYST = Role.ANALYST.value
MLRO = Role.MLRO.value
ADMIN = Role.ADMIN.value


# -- tenants -------------------------------------------------------------------------------------


TENANT_FILTER = Query("tenantId", "Only this tenant's.")

TENANT_EXAMPLE: TenantView = {
    "tenantId": "ten_4d3c2b1a0f9e",
    "name": "Acme Bank",
    "status": "active",
    "createdAt": "2026-11-01T08:00:00.000Z",
    "updatedAt": "2026-11-01T08:00:00.000Z",
    "webhookEndpointCap": 5,
    "environment": "live",
    "displayName": None,
    "accentColor": None,
    "logoUrl": None,
    "retention": {"rejectedDays": None, "abandonedDays": None},
}
# `retention` of PATCH /staff/v1/tenants/{tenantId} (docs/operations.md, "Retention").
RETENTION_DAYS = nullable({"type": "integer", "minimum": 1, "maximum": 3650})
RETENTION_FIELD = nullable(
    {
        "type": "object",
        "properties": {"rejectedDays": RETENTION_DAYS, "abandonedDays": RETENTION_DAYS},
        "additionalProperties": False,
    }
)
STAFF_DELIVERY_EXAMPLE = {
    "id": "dlv_9e8d7c6b5a4f",
    "eventId": "evt_0a1b2c3d4e5f",
    "eventType": "application.submitted",
    "status": "dead",
    "attempts": 12,
    "createdAt": "2026-11-21T16:03:10.600Z",
    "lastAttemptAt": "2026-11-22T09:03:11.020Z",
    "nextAttemptAt": None,
    "lastHttpStatus": 500,
    "lastError": "HTTP 500",
    "endpointId": "we_3f9a0b1c2d4e",
    "tenantId": "ten_4d3c2b1a0f9e",
    "replayOf": None,
}
CHECKLIST = nullable({"type": "array", "items": {"$ref": "#/components/schemas/ChecklistEntry"}})
FORM_FIELDS = nullable({"type": "array", "items": {"$ref": "#/components/schemas/FormField"}})
INTAKE_FIELDS: dict[str, Any] = {"checklist": CHECKLIST, "formFields": FORM_FIELDS}


# -- identity ------------------------------------------------------------------------------------


STAFF_EXAMPLE: StaffMemberView = {
    "staffId": "stf_1a2b3c4d5e6f",
    "email": "analyst@operator.example",
    "role": "analyst",
    "status": "active",
    "createdAt": "2026-11-01T08:00:00.000Z",
    "lastSignInAt": None,
    "mfa": True,
    "factors": ["totp"],
    "passwordSet": True,
}
INVITE_EXAMPLE: Invite = {
    "inviteUrl": "https://onboarding.example.com/dashboard/invite/Hq2…",
    "inviteExpiresAt": "2026-11-25T10:00:00.000Z",
}
TOKEN_EXAMPLE: PersonalToken = {
    "tokenId": "stk_9f8e7d6c5b4a",
    "name": "reporting script",
    "status": "active",
    "createdAt": "2026-11-01T08:00:00.000Z",
    "expiresAt": "2027-01-30T08:00:00.000Z",
    "revokedAt": None,
}
ROLE = {"type": "string", "enum": list(Role)}
# Personal tokens need no role: any staff member manages their own (the security names none).
OWN_TOKENS = "Any staff member, for their own tokens only (docs/reference/staff-api.md §9.6)."


# -- cases ---------------------------------------------------------------------------------------


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


# -- verification --------------------------------------------------------------------------------


CUSTOMER_EXAMPLE: StaffCustomer = {
    "id": 17,
    "uuid": "0b5f1c3e-8a52-4e1b-9d7e-2f4a6c8e0b13",
    "email": "holder@example.com",
    "phone": "+971500000000",
    "status": 5,
    "statusName": "Pending",
    "updatedAt": "2026-11-22T10:00:00.000Z",
    "documents": [{"type": "passport", "expiresAt": "2030-01-01T00:00:00.000Z"}],
    "clientUuid": "7c2e9a41-1f0b-4b6e-8d3a-5e9c0f2a7b64",
    "clientId": None,
    "reason": None,
    "createdAt": "2026-11-22T10:00:00.000Z",
}
CALLBACK_RECORD_EXAMPLE = {
    "callbackId": "vcb_4e5f6a7b8c9d",
    "clientUuid": "7c2e9a41-1f0b-4b6e-8d3a-5e9c0f2a7b64",
    "customerUuid": "0b5f1c3e-8a52-4e1b-9d7e-2f4a6c8e0b13",
    "event": "customer_status_changed",
    "newStatus": 6,
    "expiryWarningFor": [],
    "status": CallbackStatus.SUCCEEDED,
    "attempts": 1,
    "lastStatusCode": 200,
    "lastError": None,
    "nextAttemptAt": None,
    "createdAt": "2026-11-22T10:00:00.000Z",
    "completedAt": "2026-11-22T10:00:00.400Z",
    "attemptLog": [],
}


# -- records -------------------------------------------------------------------------------------

TIME = {"type": "string", "format": "date-time"}
HEAD_EXAMPLE: AuditHead = {
    "seq": 1042,
    "hash": "9f2c" + "0" * 60,
    "at": "2026-11-26T18:00:02.000Z",
    "signature": "a1b2c3.5e" + "0" * 62,
}

EXPORT = (
    '{"seq":1,"at":"2026-11-26T18:00:00.000Z","actor":"staff:stf_1a2b3c4d5e6f",'
    '"action":"tenant.updated","target":"ten_4d3c2b1a0f9e","tenantId":"ten_4d3c2b1a0f9e",'
    '"applicationId":null,"requestId":"req_7d6c5b4a3f2e","prevHash":"' + "0" * 64 + '",'
    '"hash":"' + "9f2c" + "0" * 60 + '"}\n'
    '{"head":{"seq":1,"hash":"' + "9f2c" + "0" * 60 + '","at":"2026-11-26T18:00:02.000Z",'
    '"signature":"a1b2c3.' + "5e" + "0" * 62 + '"}}\n'
)


# -- screening -----------------------------------------------------------------------------------


HIT_EXAMPLE: Hit = {
    "hitId": "hit_5c1e0f7a2d9b",
    "subject": {"kind": "person", "name": "Vladimir Putin", "field": "directorName"},
    "list": "opensanctions",
    "entityId": "Q7747",
    "entityName": "Владимир Владимирович Путин",
    "schema": "Person",
    "topics": ["role.pep", "sanction"],
    "score": 0.91,
    "explanation": [
        "['vladimir'≈'vladimir' symbolMatch: 1.00] ['putin'≈'putin' symbolMatch: 1.00]"
    ],
    "status": "open",
    "comment": None,
    "resolvedBy": None,
    "resolvedAt": None,
    "entity": {
        "names": ["Владимир Владимирович Путин", "Vladimir Putin"],
        "birthDates": ["1952-10-07"],
        "countries": ["ru"],
        "topics": ["role.pep", "sanction"],
    },
}
RISK_EXAMPLE: Risk = {
    "level": "high",
    "score": 25,
    "factors": [{"rule": "offshore", "label": "Registered offshore", "points": 25}],
    "computedLevel": "high",
    "override": None,
}
COMMENT: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 4000}


# -- insights ------------------------------------------------------------------------------------

MOMENT = {"type": "string", "format": "date-time"}
