"""What /openapi.json says about the `/staff/v1` verification operations: clients, customers,
the callback log and the expiry sweep (docs/api-reference.md)."""

from __future__ import annotations

from gatehouse.domain.principals import Role
from gatehouse.domain.verification import CallbackStatus
from gatehouse.verification import (
    CallbackPage,
    CreatedVerificationClient,
    CustomerPage,
    StaffCustomer,
    SweepResult,
    VerificationClientList,
)
from gatehouse.web.openapi import (
    Op,
    OperationTable,
    Query,
    listing,
)

ANALYST = Role.ANALYST.value
ADMIN = Role.ADMIN.value

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


OPERATIONS: OperationTable = {
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
    ("GET", "/staff/v1/verification/customers"): listing(
        "listVerificationCustomers",
        "List verification customers, newest first",
        CustomerPage,
        ANALYST,
        CUSTOMER_EXAMPLE,
        filters=(
            Query("clientUuid", "Only this client's customers."),
            Query(
                "status",
                "Only customers with this status code.",
                {"type": "integer", "minimum": 1, "maximum": 10},
            ),
            Query("clientId", "Only customers linked to this application."),
        ),
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
    ("GET", "/staff/v1/verification/callbacks"): listing(
        "listVerificationCallbacks",
        "The verification callback log, newest first",
        CallbackPage,
        ANALYST,
        CALLBACK_RECORD_EXAMPLE,
        filters=(
            Query("clientUuid", "Only this client's callbacks."),
            Query(
                "status",
                "Only callbacks in this state.",
                {"type": "string", "enum": list(CallbackStatus)},
            ),
            Query("customerUuid", "Only this customer's callbacks."),
        ),
    ),
    ("POST", "/staff/v1/verification/sweep"): Op(
        "runVerificationSweep",
        "Run the expiry sweep now",
        {200: SweepResult},
        access=ADMIN,
        answer_example={"warningsSent": 0, "movedToDraft": 0},
    ),
}
