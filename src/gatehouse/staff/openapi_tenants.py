"""What /openapi.json says about the `/staff/v1` operations on tenants, their API keys, intakes
and webhook deliveries, and staff notifications (docs/api-reference.md)."""

from __future__ import annotations

from typing import Any

from gatehouse.accounts import CreatedApiKey, RevokedApiKey, TenantPage, TenantView
from gatehouse.domain.principals import Role, Scope
from gatehouse.domain.webhooks import DeliveryStatus
from gatehouse.intakes import StaffIntake
from gatehouse.web.openapi import (
    Op,
    OperationTable,
    Query,
    listing,
    nullable,
    status_filter,
)
from gatehouse.webhooks import NotificationList, StaffDelivery, StaffDeliveryPage

ANALYST = Role.ANALYST.value
ADMIN = Role.ADMIN.value

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

OPERATIONS: OperationTable = {
    ("POST", "/staff/v1/tenants"): Op(
        "createTenant",
        "Create a tenant (live or sandbox)",
        {201: TenantView},
        access=ADMIN,
        body_fields={"environment": nullable({"type": "string", "enum": ["live", "sandbox"]})},
        example={"name": "Acme Bank", "environment": "live"},
        answer_example=TENANT_EXAMPLE,
    ),
    ("GET", "/staff/v1/tenants"): listing(
        "listTenants", "List tenants, newest first", TenantPage, ANALYST, TENANT_EXAMPLE
    ),
    ("GET", "/staff/v1/tenants/{tenant_id}"): Op(
        "getTenant",
        "Get a tenant",
        {200: TenantView},
        access=ANALYST,
        answer_example=TENANT_EXAMPLE,
    ),
    ("PATCH", "/staff/v1/tenants/{tenant_id}"): Op(
        "updateTenant",
        "Change a tenant's name or webhook endpoint cap",
        {200: TenantView},
        access=ADMIN,
        body_fields={"retention": RETENTION_FIELD},
        example={"webhookEndpointCap": 10},
    ),
    ("POST", "/staff/v1/tenants/{tenant_id}/suspend"): Op(
        "suspendTenant",
        "Suspend a tenant",
        {200: TenantView},
        access=ADMIN,
        answer_example={**TENANT_EXAMPLE, "status": "suspended"},
    ),
    ("POST", "/staff/v1/tenants/{tenant_id}/reactivate"): Op(
        "reactivateTenant",
        "Reactivate a suspended tenant",
        {200: TenantView},
        access=ADMIN,
        answer_example=TENANT_EXAMPLE,
    ),
    ("PUT", "/staff/v1/tenants/{tenant_id}/logo"): Op(
        "setTenantLogo",
        "Set the tenant's portal logo (the image is the body)",
        {200: TenantView},
        access=ADMIN,
        errors=(415,),
        answer_example={**TENANT_EXAMPLE, "logoUrl": "/portal/logo/ten_4d3c2b1a0f9e/5b1f"},
    ),
    ("DELETE", "/staff/v1/tenants/{tenant_id}/logo"): Op(
        "removeTenantLogo",
        "Remove the tenant's portal logo",
        {200: TenantView},
        access=ADMIN,
        answer_example=TENANT_EXAMPLE,
    ),
    ("POST", "/staff/v1/tenants/{tenant_id}/api-keys"): Op(
        "createApiKey",
        "Create an API key for a tenant (shown once)",
        {201: CreatedApiKey},
        access=ADMIN,
        body_fields={
            "scopes": nullable({"type": "array", "items": {"type": "string", "enum": list(Scope)}})
        },
        example={"name": "crm", "scopes": ["applications:write", "applications:read"]},
    ),
    ("POST", "/staff/v1/api-keys/{key_id}/revoke"): Op(
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
    ("GET", "/staff/v1/deliveries"): listing(
        "listAllDeliveries",
        "List deliveries of every tenant, newest first",
        StaffDeliveryPage,
        ADMIN,
        STAFF_DELIVERY_EXAMPLE,
        filters=(status_filter("deliveries", DeliveryStatus), TENANT_FILTER),
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
}
