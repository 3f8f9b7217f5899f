"""operationIds are stable (docs/api-reference.md §4): generated clients name their functions
after them, so none of the published ones may disappear or change; a new operation adds its
own to this list."""

from __future__ import annotations

from typing import Any

import httpx

from gatehouse.web.openapi import all_operations

PUBLISHED = frozenset(
    {
        "acceptInfoRequestItem",
        "addCaseNote",
        "addMember",
        "answerInfoRequestItem",
        "assignCase",
        "cancelInfoRequest",
        "changeStaffRole",
        "changeVerificationStatus",
        "closeInfoRequest",
        "createApiKey",
        "createApplication",
        "createApplicationLoginSession",
        "createConsoleSession",
        "createIntake",
        "createLoginSession",
        "createPersonalToken",
        "createSandboxCustomer",
        "createStaffMember",
        "createTenant",
        "createVerificationClient",
        "createVerificationCustomer",
        "createWebhookEndpoint",
        "deactivateStaffMember",
        "deleteWebhookEndpoint",
        "disableWebhookEndpoint",
        "enableWebhookEndpoint",
        "endPortalSession",
        "eraseApplication",
        "getApplication",
        "getChecklist",
        "getDocumentContent",
        "getPortalMe",
        "getStaffApplication",
        "getTenant",
        "getVerificationCustomer",
        "getWebhookEndpoint",
        "listAllDeliveries",
        "listApplicationAudit",
        "listApplications",
        "listCaseNotes",
        "listDecisions",
        "listDocuments",
        "listEventTypes",
        "listInfoRequests",
        "listIntakes",
        "listNotifications",
        "listPersonalTokens",
        "listPortalDocuments",
        "listPortalInfoRequests",
        "listStaffApplications",
        "listStaffMembers",
        "listTenantAudit",
        "listTenants",
        "listVerificationCallbacks",
        "listVerificationClients",
        "listVerificationCustomers",
        "listWebhookDeliveries",
        "listWebhookEndpoints",
        "lockApplication",
        "makeDecision",
        "raiseInfoRequest",
        "reactivateStaffMember",
        "reactivateTenant",
        "registerVerificationCallback",
        "remindInfoRequest",
        "removeMember",
        "removeTenantLogo",
        "reopenInfoRequestItem",
        "replayDelivery",
        "resetStaffMember",
        "retrieveVerificationCustomer",
        "revokeApiKey",
        "revokePersonalToken",
        "rotateWebhookSecret",
        "runVerificationSweep",
        "saveFormDraft",
        "setSandboxCustomerStatus",
        "setTenantLogo",
        "simulateApplicationStep",
        "submitApplication",
        "suspendTenant",
        "testWebhookEndpoint",
        "unlockApplication",
        "updateIntake",
        "updateTenant",
        "updateWebhookEndpoint",
        "uploadDocument",
        "onApplicationDecisionApproved",
        "onApplicationDecisionHold",
        "onApplicationDecisionProposalRejected",
        "onApplicationDecisionProposed",
        "onApplicationDecisionRejected",
        "onApplicationInfoRequestClosed",
        "onApplicationInfoRequestRaised",
        "onApplicationInfoRequestReminder",
        "onApplicationInfoRequestResponded",
        "onApplicationStatusChanged",
        "onApplicationSubmitted",
        "onVerificationCallback",
        "onWebhookTest",
    }
)


async def test_published_operation_ids_stay(client: httpx.AsyncClient) -> None:
    document: dict[str, Any] = (await client.get("/openapi.json")).json()
    current = {operation["operationId"] for _, _, operation in all_operations(document)}
    current |= {item["post"]["operationId"] for item in document["webhooks"].values()}
    assert not PUBLISHED - current, f"operationIds removed or renamed: {PUBLISHED - current}"
    assert not current - PUBLISHED, f"new operationIds, add them here: {current - PUBLISHED}"
