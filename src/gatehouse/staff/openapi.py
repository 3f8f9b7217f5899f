"""What /openapi.json says about each `/staff/v1` operation (docs/api-reference.md): stable
operationIds, summaries, the answers as the TypedDicts the views return, the least role,
query parameters, errors and examples."""

from __future__ import annotations

from typing import Any

from gatehouse.accounts.schemas import (
    CreatedApiKey,
    CreatedPersonalToken,
    CreatedStaffMember,
    Invite,
    PersonalToken,
    PersonalTokenList,
    RevokedApiKey,
    StaffList,
    StaffMemberView,
    TenantPage,
    TenantView,
)
from gatehouse.applications.schemas import (
    APPLICATION_EXAMPLE,
    INFO_REQUEST_EXAMPLE,
    SUMMARY_EXAMPLE,
    InfoRequest,
)
from gatehouse.cases.schemas import (
    Assignment,
    AuditPage,
    Note,
    NotePage,
    StaffApplication,
    StaffApplicationPage,
)
from gatehouse.domain.info_requests import ItemType
from gatehouse.domain.principals import Role, Scope
from gatehouse.domain.status import ApplicationStatus, DecisionAction
from gatehouse.domain.webhooks import DeliveryStatus
from gatehouse.erasure.schemas import Erased
from gatehouse.intakes.schemas import StaffIntake
from gatehouse.verification.schemas import (
    CallbackPage,
    CreatedVerificationClient,
    CustomerPage,
    StaffCustomer,
    SweepResult,
    VerificationClientList,
)
from gatehouse.web.openapi import BINARY, Op, OperationTable, Query
from gatehouse.webhooks.schemas import NotificationList, StaffDelivery, StaffDeliveryPage

ANALYST = Role.ANALYST.value
MLRO = Role.MLRO.value
ADMIN = Role.ADMIN.value

LIMIT = Query("limit", "Page size, 1 to 100.", {"type": "integer", "minimum": 1, "maximum": 100})
CURSOR = Query("cursor", "The `nextCursor` of the previous page, with the same filters.")
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
}
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
INVITE_EXAMPLE: Invite = {
    "inviteUrl": "https://onboarding.example.com/dashboard/invite/Hq2…",
    "inviteExpiresAt": "2026-11-25T10:00:00.000Z",
}
TOKEN_EXAMPLE: PersonalToken = {
    "tokenId": "tok_9f8e7d6c5b4a",
    "name": "reporting script",
    "status": "active",
    "createdAt": "2026-11-01T08:00:00.000Z",
    "expiresAt": "2027-01-30T08:00:00.000Z",
    "revokedAt": None,
}
STAFF_SUMMARY_EXAMPLE = {**SUMMARY_EXAMPLE, "tenantId": "ten_4d3c2b1a0f9e"}
AUDIT_EXAMPLE: AuditPage = {
    "data": [
        {
            "at": "2026-11-22T10:00:00.000Z",
            "actor": "staff:stf_1a2b3c4d5e6f",
            "action": "info_request.raise",
            "target": "ir_5c1e0f7a2d9b",
            "requestId": "req_7d6c5b4a3f2e",
        }
    ],
    "nextCursor": None,
    "hasMore": False,
}
NOTE_EXAMPLE: Note = {
    "noteId": "note_3c4d5e6f7a8b",
    "clientId": "app_8f2k1c9d0a7b",
    "authorStaffId": "stf_1a2b3c4d5e6f",
    "authorEmail": "analyst@operator.example",
    "text": "Called the applicant; bill follows.",
    "createdAt": "2026-11-22T10:00:00.000Z",
}
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
CALLBACK_RECORD_EXAMPLE = {
    "callbackId": "vcb_4e5f6a7b8c9d",
    "clientUuid": "7c2e9a41-1f0b-4b6e-8d3a-5e9c0f2a7b64",
    "customerUuid": "0b5f1c3e-8a52-4e1b-9d7e-2f4a6c8e0b13",
    "event": "customer_status_changed",
    "newStatus": 6,
    "expiryWarningFor": [],
    "status": "succeeded",
    "attempts": 1,
    "lastStatusCode": 200,
    "lastError": None,
    "nextAttemptAt": None,
    "createdAt": "2026-11-22T10:00:00.000Z",
    "completedAt": "2026-11-22T10:00:00.400Z",
    "attemptLog": [],
}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


ROLE = {"type": "string", "enum": list(Role)}
CHECKLIST = _nullable({"type": "array", "items": {"$ref": "#/components/schemas/ChecklistEntry"}})
FORM_FIELDS = _nullable({"type": "array", "items": {"$ref": "#/components/schemas/FormField"}})
INTAKE_FIELDS: dict[str, Any] = {"checklist": CHECKLIST, "formFields": FORM_FIELDS}
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
APPLICATION_STATUS = Query(
    "status",
    "Only applications with this status.",
    {"type": "string", "enum": list(ApplicationStatus)},
)


def _item_move(name: str, verb: str) -> Op:
    return Op(
        f"{name}InfoRequestItem",
        f"{verb} an item of an information request",
        {200: InfoRequest},
        access=ANALYST,
        errors=(410,),
        answer_example=INFO_REQUEST_EXAMPLE,
    )


def _request_move(name: str, summary: str) -> Op:
    return Op(
        f"{name}InfoRequest",
        summary,
        {200: InfoRequest},
        access=ANALYST,
        errors=(410,),
        answer_example=INFO_REQUEST_EXAMPLE,
    )


OPERATIONS: OperationTable = {
    # -- staff members and personal tokens ---------------------------------------------------
    ("POST", "/staff/v1/staff"): Op(
        "createStaffMember",
        "Create a staff member (admin and super_admin roles: super_admin only)",
        {201: CreatedStaffMember},
        access=ADMIN,
        errors=(409,),
        body_fields={"role": ROLE},
        example={"email": "analyst@operator.example", "role": "analyst"},
    ),
    ("GET", "/staff/v1/staff"): Op(
        "listStaffMembers",
        "List staff members",
        {200: StaffList},
        access=ADMIN,
        answer_example={"data": [STAFF_EXAMPLE]},
    ),
    ("PATCH", "/staff/v1/staff/{staffId}"): Op(
        "changeStaffRole",
        "Change a staff member's role",
        {200: StaffMemberView},
        access=ADMIN,
        body_fields={"role": ROLE},
        example={"role": "mlro"},
        answer_example={**STAFF_EXAMPLE, "role": "mlro"},
    ),
    ("POST", "/staff/v1/staff/{staffId}/deactivate"): Op(
        "deactivateStaffMember",
        "Deactivate a staff member (sessions end, tokens are revoked)",
        {200: StaffMemberView},
        access=ADMIN,
        answer_example={**STAFF_EXAMPLE, "status": "deactivated"},
    ),
    ("POST", "/staff/v1/staff/{staffId}/reactivate"): Op(
        "reactivateStaffMember",
        "Reactivate a staff member",
        {200: StaffMemberView},
        access=ADMIN,
        answer_example=STAFF_EXAMPLE,
    ),
    ("POST", "/staff/v1/staff/{staffId}/reset"): Op(
        "resetStaffMember",
        "Clear a staff member's password and factors and issue a new invite",
        {200: Invite},
        access=ADMIN,
        answer_example=INVITE_EXAMPLE,
    ),
    ("GET", "/staff/v1/tokens"): Op(
        "listPersonalTokens",
        "List your own personal tokens",
        {200: PersonalTokenList},
        answer_example={"data": [TOKEN_EXAMPLE]},
    ),
    ("POST", "/staff/v1/tokens"): Op(
        "createPersonalToken",
        "Create a personal token (shown once)",
        {201: CreatedPersonalToken},
        example={"name": "reporting script", "expiresInDays": 30},
    ),
    ("POST", "/staff/v1/tokens/{tokenId}/revoke"): Op(
        "revokePersonalToken",
        "Revoke one of your personal tokens",
        {200: PersonalToken},
        answer_example={
            **TOKEN_EXAMPLE,
            "status": "revoked",
            "revokedAt": "2026-11-22T10:00:00.000Z",
        },
    ),
    # -- tenants, API keys, intakes -----------------------------------------------------------
    ("POST", "/staff/v1/tenants"): Op(
        "createTenant",
        "Create a tenant (live or sandbox)",
        {201: TenantView},
        access=ADMIN,
        body_fields={"environment": _nullable({"type": "string", "enum": ["live", "sandbox"]})},
        example={"name": "Acme Bank", "environment": "live"},
        answer_example=TENANT_EXAMPLE,
    ),
    ("GET", "/staff/v1/tenants"): Op(
        "listTenants",
        "List tenants, newest first",
        {200: TenantPage},
        access=ANALYST,
        query=(LIMIT, CURSOR),
        answer_example={"data": [TENANT_EXAMPLE], "nextCursor": None, "hasMore": False},
    ),
    ("GET", "/staff/v1/tenants/{tenantId}"): Op(
        "getTenant",
        "Get a tenant",
        {200: TenantView},
        access=ANALYST,
        answer_example=TENANT_EXAMPLE,
    ),
    ("PATCH", "/staff/v1/tenants/{tenantId}"): Op(
        "updateTenant",
        "Change a tenant's name or webhook endpoint cap",
        {200: TenantView},
        access=ADMIN,
        example={"webhookEndpointCap": 10},
    ),
    ("POST", "/staff/v1/tenants/{tenantId}/suspend"): Op(
        "suspendTenant",
        "Suspend a tenant",
        {200: TenantView},
        access=ADMIN,
        answer_example={**TENANT_EXAMPLE, "status": "suspended"},
    ),
    ("POST", "/staff/v1/tenants/{tenantId}/reactivate"): Op(
        "reactivateTenant",
        "Reactivate a suspended tenant",
        {200: TenantView},
        access=ADMIN,
        answer_example=TENANT_EXAMPLE,
    ),
    ("PUT", "/staff/v1/tenants/{tenantId}/logo"): Op(
        "setTenantLogo",
        "Set the tenant's portal logo (the image is the body)",
        {200: TenantView},
        access=ADMIN,
        errors=(415,),
        answer_example={**TENANT_EXAMPLE, "logoUrl": "/portal/logo/ten_4d3c2b1a0f9e/5b1f"},
    ),
    ("DELETE", "/staff/v1/tenants/{tenantId}/logo"): Op(
        "removeTenantLogo",
        "Remove the tenant's portal logo",
        {200: TenantView},
        access=ADMIN,
        answer_example=TENANT_EXAMPLE,
    ),
    ("POST", "/staff/v1/tenants/{tenantId}/api-keys"): Op(
        "createApiKey",
        "Create an API key for a tenant (shown once)",
        {201: CreatedApiKey},
        access=ADMIN,
        body_fields={
            "scopes": _nullable({"type": "array", "items": {"type": "string", "enum": list(Scope)}})
        },
        example={"name": "crm", "scopes": ["applications:write", "applications:read"]},
    ),
    ("POST", "/staff/v1/api-keys/{keyId}/revoke"): Op(
        "revokeApiKey",
        "Revoke an API key",
        {200: RevokedApiKey},
        access=ADMIN,
        answer_example={"keyId": "k3y1d0a1b2c3d4e5", "status": "revoked"},
    ),
    ("POST", "/staff/v1/tenants/{tenant_id}/intakes"): Op(
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
    ),
    ("PATCH", "/staff/v1/intakes/{label_id}"): Op(
        "updateIntake",
        "Change an intake",
        {200: StaffIntake},
        access=ADMIN,
        body_fields=INTAKE_FIELDS,
        example={"attached": False},
    ),
    # -- case work ------------------------------------------------------------------------------
    ("GET", "/staff/v1/applications"): Op(
        "listStaffApplications",
        "List applications across tenants, most recently changed first",
        {200: StaffApplicationPage},
        access=ANALYST,
        query=(TENANT_FILTER, APPLICATION_STATUS, LIMIT, CURSOR),
        answer_example={"data": [STAFF_SUMMARY_EXAMPLE], "nextCursor": None, "hasMore": False},
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
    ("POST", "/staff/v1/info-requests/{request_id}/items/{item_id}/accept"): _item_move(
        "accept", "Accept"
    ),
    ("POST", "/staff/v1/info-requests/{request_id}/items/{item_id}/reopen"): _item_move(
        "reopen", "Reopen"
    ),
    ("POST", "/staff/v1/info-requests/{request_id}/close"): _request_move(
        "close", "Close an information request"
    ),
    ("POST", "/staff/v1/info-requests/{request_id}/cancel"): _request_move(
        "cancel", "Cancel an information request"
    ),
    ("POST", "/staff/v1/info-requests/{request_id}/remind"): _request_move(
        "remind", "Remind the applicant of an open information request"
    ),
    ("POST", "/staff/v1/applications/{client_id}/erase"): Op(
        "eraseApplication",
        "Erase an application's personal data",
        {200: Erased},
        access=ADMIN,
        errors=(410,),
        answer_example={"clientId": "app_8f2k1c9d0a7b", "erased": True},
    ),
    ("GET", "/staff/v1/applications/{client_id}/audit"): Op(
        "listApplicationAudit",
        "An application's audit trail, newest first",
        {200: AuditPage},
        access=ANALYST,
        query=(LIMIT, CURSOR),
        answer_example=AUDIT_EXAMPLE,
    ),
    ("GET", "/staff/v1/tenants/{tenant_id}/audit"): Op(
        "listTenantAudit",
        "A tenant's audit trail, newest first",
        {200: AuditPage},
        access=ANALYST,
        query=(LIMIT, CURSOR),
        answer_example=AUDIT_EXAMPLE,
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
    ("GET", "/staff/v1/applications/{client_id}/notes"): Op(
        "listCaseNotes",
        "A case's internal notes, newest first",
        {200: NotePage},
        access=ANALYST,
        query=(LIMIT, CURSOR),
        answer_example={"data": [NOTE_EXAMPLE], "nextCursor": None, "hasMore": False},
    ),
    ("POST", "/staff/v1/applications/{client_id}/assignment"): Op(
        "assignCase",
        "Assign a case to a staff member, or unassign it (null)",
        {200: Assignment},
        access=ANALYST,
        errors=(410,),
        body_fields={"staffId": _nullable({"type": "string", "minLength": 1})},
        example={"staffId": "stf_1a2b3c4d5e6f"},
    ),
    ("GET", "/staff/v1/documents/{document_id}/content"): Op(
        "getDocumentContent",
        "Download a document's original bytes (audited)",
        {200: BINARY},
        access=ANALYST,
        errors=(410,),
    ),
    # -- webhooks ---------------------------------------------------------------------------------
    ("GET", "/staff/v1/deliveries"): Op(
        "listAllDeliveries",
        "List deliveries of every tenant, newest first",
        {200: StaffDeliveryPage},
        access=ADMIN,
        query=(
            LIMIT,
            CURSOR,
            Query(
                "status",
                "Only deliveries with this status.",
                {"type": "string", "enum": list(DeliveryStatus)},
            ),
            TENANT_FILTER,
        ),
        answer_example={"data": [STAFF_DELIVERY_EXAMPLE], "nextCursor": None, "hasMore": False},
    ),
    ("POST", "/staff/v1/deliveries/{delivery_id}/replay"): Op(
        "replayDelivery",
        "Deliver the same event again to the same endpoint",
        {201: StaffDelivery},
        access=ADMIN,
        answer_example={
            **STAFF_DELIVERY_EXAMPLE,
            "status": "pending",
            "attempts": 0,
            "lastAttemptAt": None,
            "nextAttemptAt": "2026-11-22T10:00:00.000Z",
            "lastHttpStatus": None,
            "replayOf": "dlv_9e8d7c6b5a4f",
            "id": "dlv_1b2c3d4e5f6a",
        },
    ),
    ("GET", "/staff/v1/notifications"): Op(
        "listNotifications",
        "List staff notifications, newest first",
        {200: NotificationList},
        access=ANALYST,
        query=(TENANT_FILTER,),
        answer_example={
            "data": [
                {
                    "id": "ntf_2a3b4c5d6e7f",
                    "kind": "endpoint_disabled",
                    "tenantId": "ten_4d3c2b1a0f9e",
                    "endpointId": "we_3f9a0b1c2d4e",
                    "reason": "consecutive_failures",
                    "createdAt": "2026-11-22T10:00:00.000Z",
                }
            ]
        },
    ),
    # -- verification -----------------------------------------------------------------------------
    ("POST", "/staff/v1/verification/clients"): Op(
        "createVerificationClient",
        "Create a verification client (its secret is shown once)",
        {201: CreatedVerificationClient},
        access=ADMIN,
        example={"name": "KYC provider", "customerCreatedEvents": True},
    ),
    ("GET", "/staff/v1/verification/clients"): Op(
        "listVerificationClients",
        "List verification clients",
        {200: VerificationClientList},
        access=ANALYST,
        answer_example={
            "data": [
                {
                    "clientUuid": "7c2e9a41-1f0b-4b6e-8d3a-5e9c0f2a7b64",
                    "name": "KYC provider",
                    "customerCreatedEvents": True,
                    "sandbox": False,
                    "callbackUrl": "https://kyc.example.com/gatehouse/callback",
                    "callbackRegisteredAt": "2026-11-02T08:00:00.000Z",
                    "createdAt": "2026-11-01T08:00:00.000Z",
                }
            ]
        },
    ),
    ("POST", "/staff/v1/verification/customers"): Op(
        "createVerificationCustomer",
        "Create a verification customer (status 5, Pending)",
        {201: StaffCustomer},
        access=ANALYST,
        example={
            "clientUuid": "7c2e9a41-1f0b-4b6e-8d3a-5e9c0f2a7b64",
            "email": "holder@example.com",
            "phone": "+971500000000",
            "documents": [{"type": "passport", "expiresAt": "2030-01-01"}],
        },
        answer_example=CUSTOMER_EXAMPLE,
    ),
    ("GET", "/staff/v1/verification/customers"): Op(
        "listVerificationCustomers",
        "List verification customers, newest first",
        {200: CustomerPage},
        access=ANALYST,
        query=(
            LIMIT,
            CURSOR,
            Query("clientUuid", "Only this client's customers."),
            Query(
                "status",
                "Only customers with this status code.",
                {"type": "integer", "minimum": 1, "maximum": 10},
            ),
            Query("clientId", "Only customers linked to this application."),
        ),
        answer_example={"data": [CUSTOMER_EXAMPLE], "nextCursor": None, "hasMore": False},
    ),
    ("GET", "/staff/v1/verification/customers/{customer_uuid}"): Op(
        "getVerificationCustomer",
        "Get a verification customer",
        {200: StaffCustomer},
        access=ANALYST,
        answer_example=CUSTOMER_EXAMPLE,
    ),
    ("POST", "/staff/v1/verification/customers/{customer_uuid}/status"): Op(
        "changeVerificationStatus",
        "Set a customer's status (2, 5, 6, 7, 9 or 10); the callback is sent",
        {200: StaffCustomer},
        access=ANALYST,
        example={"status": 6},
    ),
    ("GET", "/staff/v1/verification/callbacks"): Op(
        "listVerificationCallbacks",
        "The verification callback log, newest first",
        {200: CallbackPage},
        access=ANALYST,
        query=(
            LIMIT,
            CURSOR,
            Query("clientUuid", "Only this client's callbacks."),
            Query(
                "status",
                "Only callbacks in this state.",
                {"type": "string", "enum": ["pending", "delivering", "succeeded", "dropped"]},
            ),
            Query("customerUuid", "Only this customer's callbacks."),
        ),
        answer_example={"data": [CALLBACK_RECORD_EXAMPLE], "nextCursor": None, "hasMore": False},
    ),
    ("POST", "/staff/v1/verification/sweep"): Op(
        "runVerificationSweep",
        "Run the expiry sweep now",
        {200: SweepResult},
        access=ADMIN,
        answer_example={"warningsSent": 0, "movedToDraft": 0},
    ),
}

__all__ = ["MLRO", "OPERATIONS"]
