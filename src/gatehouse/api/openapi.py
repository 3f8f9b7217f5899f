"""What /openapi.json says about each `/v1` operation (docs/api-reference.md): operationIds,
summaries, the answers as the TypedDicts the views return, scopes, query parameters, errors
and examples. Request bodies come from the routes' `body_schema` (web/body.py)."""

from __future__ import annotations

from gatehouse.applications import (
    APPLICATION_EXAMPLE,
    SUMMARY_EXAMPLE,
    AccessState,
    Application,
    ApplicationPage,
    Checklist,
    DecisionList,
    DocumentList,
    InfoRequestList,
    LoginSession,
    Member,
    SignInLink,
)
from gatehouse.consoles import ConsoleLinkView
from gatehouse.domain.principals import Scope
from gatehouse.domain.sandbox import SIMULATE_ACTIONS
from gatehouse.domain.status import ApplicationStatus
from gatehouse.domain.webhooks import DeliveryStatus, EndpointStatus
from gatehouse.intakes import IntakeList
from gatehouse.web.openapi import (
    CURSOR,
    PAGE_SIZE,
    Op,
    OperationTable,
    Query,
    listing,
    status_filter,
)
from gatehouse.webhooks import (
    CreatedWebhookEndpoint,
    DeliveryPage,
    EventTypeList,
    RotatedSecret,
    WebhookEndpoint,
    WebhookEndpointList,
    WebhookTestResult,
)

WRITE = Scope.APPLICATIONS_WRITE.value
READ = Scope.APPLICATIONS_READ.value
WEBHOOKS = Scope.WEBHOOKS_MANAGE.value

PAGING = (Query("limit", "Page size, 1 to 100 (default 25).", PAGE_SIZE), CURSOR)

# -- examples (checked against their schemas by tests/api/test_openapi.py) --------------------

MEMBER_EXAMPLE: Member = {
    "uid": "mem_7a1b2c3d4e5f",
    "email": "cfo@acme.example",
    "role": "teammate",
    "joinedAt": "2026-11-22T10:05:00.000Z",
}
LINK_EXAMPLE: SignInLink = {
    "loginUrl": "https://onboarding.example.com/portal/login/Zt4…",
    "clientId": "app_8f2k1c9d0a7b",
    "expiresAt": "2026-11-25T10:00:00.000Z",
}
ENDPOINT_EXAMPLE: WebhookEndpoint = {
    "id": "we_3f9a0b1c2d4e",
    "url": "https://hooks.example.com/gatehouse",
    "events": ["application.*"],
    "status": EndpointStatus.ENABLED,
    "description": "CRM sync",
    "createdAt": "2026-11-20T09:00:00.000Z",
    "updatedAt": "2026-11-20T09:00:00.000Z",
    "disabledReason": None,
    "consecutiveFailures": 0,
}
EMAIL_BODY = {"email": "founder@acme.example", "externalRef": "crm-4411"}


OPERATIONS: OperationTable = {
    ("POST", "/v1/applications"): Op(
        "createApplication",
        "Create an application (or get the existing one for this identity)",
        {201: Application, 200: Application},
        access=WRITE,
        errors=(410,),
        ok_descriptions={
            201: "Created.",
            200: "An application with this identity already exists; it is answered unchanged.",
        },
        example={**EMAIL_BODY, "companyName": "Acme Trading LLC"},
        answer_example=APPLICATION_EXAMPLE,
    ),
    ("GET", "/v1/applications"): listing(
        "listApplications",
        "List applications, most recently changed first",
        ApplicationPage,
        READ,
        SUMMARY_EXAMPLE,
        paging=PAGING,
        filters=(
            status_filter("applications", ApplicationStatus),
            Query("externalRef", "Only applications with this externalRef."),
            Query(
                "updatedSince",
                "Only applications with updatedAt at or after this RFC 3339 time.",
                {"type": "string", "format": "date-time"},
            ),
        ),
    ),
    ("GET", "/v1/applications/{client_id}"): Op(
        "getApplication",
        "Get an application",
        {200: Application},
        access=READ,
        answer_example=APPLICATION_EXAMPLE,
    ),
    ("GET", "/v1/applications/{client_id}/info-requests"): Op(
        "listInfoRequests",
        "List an application's information requests, highest seq first",
        {200: InfoRequestList},
        access=READ,
        answer_example={"data": []},
    ),
    ("GET", "/v1/applications/{client_id}/decisions"): Op(
        "listDecisions",
        "List an application's decisions, newest first",
        {200: DecisionList},
        access=READ,
        answer_example={
            "data": [
                {
                    "action": "approve",
                    "fromStatus": "pending",
                    "toStatus": "pending_approval",
                    "byRole": "analyst",
                    "comment": None,
                    "at": "2026-11-22T11:00:00.000Z",
                }
            ]
        },
    ),
    ("GET", "/v1/applications/{client_id}/checklist"): Op(
        "getChecklist",
        "Get an application's checklist and what satisfies it",
        {200: Checklist},
        access=READ,
        answer_example={
            "data": [
                {
                    "key": "passport",
                    "label": "Passport",
                    "kind": "document",
                    "required": True,
                    "satisfied": False,
                    "satisfiedAt": None,
                }
            ]
        },
    ),
    ("GET", "/v1/applications/{client_id}/documents"): Op(
        "listDocuments",
        "List an application's documents (metadata only)",
        {200: DocumentList},
        access=READ,
        answer_example={
            "data": [
                {
                    "documentId": "doc_1a2b3c4d5e6f",
                    "type": "passport",
                    "status": "uploaded",
                    "contentType": "application/pdf",
                    "sizeBytes": 48211,
                    "uploadedAt": "2026-11-21T15:40:02.331Z",
                }
            ]
        },
    ),
    ("POST", "/v1/login-sessions"): Op(
        "createLoginSession",
        "Provision an application if needed and make a sign-in link for its applicant",
        {201: LoginSession},
        access=WRITE,
        errors=(410,),
        example={**EMAIL_BODY, "redirectPath": "/requests"},
        answer_example={**LINK_EXAMPLE, "status": "pending"},
    ),
    ("POST", "/v1/applications/{client_id}/login-sessions"): Op(
        "createApplicationLoginSession",
        "Make a sign-in link for a member (the owner when no email is given)",
        {201: SignInLink},
        access=WRITE,
        errors=(410,),
        example={"email": "cfo@acme.example"},
        answer_example=LINK_EXAMPLE,
    ),
    ("POST", "/v1/applications/{client_id}/members"): Op(
        "addMember",
        "Add a member to an application",
        {201: Member, 200: Member},
        access=WRITE,
        errors=(410,),
        ok_descriptions={201: "Added.", 200: "Already a member; answered unchanged."},
        example={"email": "cfo@acme.example"},
        answer_example=MEMBER_EXAMPLE,
    ),
    ("DELETE", "/v1/applications/{client_id}/members/{uid}"): Op(
        "removeMember",
        "Remove a member (removing the owner needs newOwnerUid)",
        {204: None},
        access=WRITE,
        errors=(410,),
        query=(Query("newOwnerUid", "The member who becomes owner when the owner is removed."),),
        ok_descriptions={204: "Removed."},
    ),
    ("POST", "/v1/applications/{client_id}/lock"): Op(
        "lockApplication",
        "Lock an application: no new links, members or sessions",
        {200: AccessState},
        access=WRITE,
        errors=(410,),
        answer_example={"clientId": "app_8f2k1c9d0a7b", "access": "locked"},
    ),
    ("POST", "/v1/applications/{client_id}/unlock"): Op(
        "unlockApplication",
        "Unlock an application",
        {200: AccessState},
        access=WRITE,
        errors=(410,),
        answer_example={"clientId": "app_8f2k1c9d0a7b", "access": "unlocked"},
    ),
    ("GET", "/v1/intakes"): Op(
        "listIntakes",
        "List the tenant's attached intakes",
        {200: IntakeList},
        access=READ,
        answer_example={"data": [{"labelId": "lbl_2b7d9e1f0c3a", "name": "Company", "order": 1}]},
    ),
    ("POST", "/v1/sandbox/applications/{client_id}/simulate"): Op(
        "simulateApplicationStep",
        "Sandbox tenants: simulate an applicant or staff step",
        {200: Application},
        access=WRITE,
        errors=(410,),
        body_fields={"action": {"type": "string", "enum": list(SIMULATE_ACTIONS)}},
        description="Answers 404 (as for an unknown path) to a tenant that is not a sandbox "
        "one (docs/sandbox.md).",
        example={"action": "approve", "comment": "Simulated approval."},
        answer_example=APPLICATION_EXAMPLE,
    ),
    ("POST", "/v1/webhooks"): Op(
        "createWebhookEndpoint",
        "Register a webhook endpoint (its secret is shown once)",
        {201: CreatedWebhookEndpoint},
        access=WEBHOOKS,
        example={
            "url": "https://hooks.example.com/gatehouse",
            "events": ["application.*"],
            "description": "CRM sync",
        },
        answer_example={**ENDPOINT_EXAMPLE, "secret": "whsec_" + "Q3Jt" * 12},
    ),
    ("GET", "/v1/webhooks"): Op(
        "listWebhookEndpoints",
        "List webhook endpoints",
        {200: WebhookEndpointList},
        access=WEBHOOKS,
        answer_example={"data": [ENDPOINT_EXAMPLE]},
    ),
    ("GET", "/v1/webhooks/{endpoint_id}"): Op(
        "getWebhookEndpoint",
        "Get a webhook endpoint",
        {200: WebhookEndpoint},
        access=WEBHOOKS,
        answer_example=ENDPOINT_EXAMPLE,
    ),
    ("PATCH", "/v1/webhooks/{endpoint_id}"): Op(
        "updateWebhookEndpoint",
        "Change a webhook endpoint's url, events or description",
        {200: WebhookEndpoint},
        access=WEBHOOKS,
        example={"events": ["*"]},
        answer_example=ENDPOINT_EXAMPLE,
    ),
    ("DELETE", "/v1/webhooks/{endpoint_id}"): Op(
        "deleteWebhookEndpoint",
        "Delete a webhook endpoint (pending deliveries are cancelled)",
        {204: None},
        access=WEBHOOKS,
        ok_descriptions={204: "Deleted."},
    ),
    ("POST", "/v1/webhooks/{endpoint_id}/enable"): Op(
        "enableWebhookEndpoint",
        "Enable a webhook endpoint",
        {200: WebhookEndpoint},
        access=WEBHOOKS,
        answer_example=ENDPOINT_EXAMPLE,
    ),
    ("POST", "/v1/webhooks/{endpoint_id}/disable"): Op(
        "disableWebhookEndpoint",
        "Disable a webhook endpoint (reason manual)",
        {200: WebhookEndpoint},
        access=WEBHOOKS,
        answer_example={
            **ENDPOINT_EXAMPLE,
            "status": "disabled",
            "disabledReason": "manual",
        },
    ),
    ("POST", "/v1/webhooks/{endpoint_id}/rotate-secret"): Op(
        "rotateWebhookSecret",
        "Rotate the signing secret (the previous one stays active 24 h)",
        {200: RotatedSecret},
        access=WEBHOOKS,
        answer_example={
            "secret": "whsec_" + "N2Fk" * 12,
            "previousSecretExpiresAt": "2026-11-23T10:00:00.000Z",
        },
    ),
    ("POST", "/v1/webhooks/{endpoint_id}/test"): Op(
        "testWebhookEndpoint",
        "Send one signed webhook.test now and report what the receiver did",
        {200: WebhookTestResult},
        access=WEBHOOKS,
        answer_example={
            "success": True,
            "httpStatus": 200,
            "latencyMs": 84,
            "responseSnippet": "ok",
            "sentHeaders": {
                "Content-Type": "application/json",
                "Gatehouse-Event-Id": "evt_0a1b2c3d4e5f",
                "webhook-id": "evt_0a1b2c3d4e5f",
            },
            "error": None,
        },
    ),
    ("GET", "/v1/webhooks/{endpoint_id}/deliveries"): listing(
        "listWebhookDeliveries",
        "List an endpoint's deliveries, newest first",
        DeliveryPage,
        WEBHOOKS,
        {
            "id": "dlv_9e8d7c6b5a4f",
            "eventId": "evt_0a1b2c3d4e5f",
            "eventType": "application.submitted",
            "status": "succeeded",
            "attempts": 1,
            "createdAt": "2026-11-21T16:03:10.600Z",
            "lastAttemptAt": "2026-11-21T16:03:11.020Z",
            "nextAttemptAt": None,
            "lastHttpStatus": 200,
            "lastError": None,
        },
        paging=PAGING,
        filters=(status_filter("deliveries", DeliveryStatus),),
    ),
    ("POST", "/v1/console-sessions"): Op(
        "createConsoleSession",
        "Mint a single-use link to the tenant console (valid 10 minutes)",
        {201: ConsoleLinkView},
        access=WEBHOOKS,
        description="The console session the link opens acts as this API key: its tenant, its "
        "scopes, ended when the key is revoked (docs/console.md).",
        answer_example={
            "url": "https://onboarding.example.com/console/start/Xq3…",
            "expiresAt": "2026-11-22T10:10:00.000Z",
        },
    ),
    ("GET", "/v1/event-types"): Op(
        "listEventTypes",
        "List the webhook event catalogue with a JSON Schema and an example of each type",
        {200: EventTypeList},
        description="Any API key may read it, whatever its scopes.",
        # An empty list: a catalogue entry (`type` beside `example`) reads as a schema to
        # Spectral's example rule (docs/api-reference.md, "Linters and generators").
        answer_example={"data": []},
    ),
}
