"""What /openapi.json says about each `/verify` operation (docs/api-reference.md). Every answer
of this interface but a customer is `{"message"}`, errors included."""

from __future__ import annotations

from gatehouse.verification import RetrievedCustomer, VerifyMessage
from gatehouse.web.openapi import Op, OperationTable

CUSTOMER_EXAMPLE: RetrievedCustomer = {
    "id": 17,
    "uuid": "0b5f1c3e-8a52-4e1b-9d7e-2f4a6c8e0b13",
    "email": "holder@example.com",
    "phone": "+971500000000",
    "status": 6,
    "statusName": "Accepted",
    "updatedAt": "2026-11-22T10:00:00.000Z",
    "documents": [{"type": "passport", "expiresAt": "2030-01-01T00:00:00.000Z"}],
}

OPERATIONS: OperationTable = {
    ("POST", "/verify/clients/setWebhook/clientAuth"): Op(
        "registerVerificationCallback",
        "Register (or replace) the client's callback URL and passphrase",
        {200: VerifyMessage},
        access="none",
        description="The client's credentials are in the body, not in a header.",
        example={
            "clientUuid": "7c2e9a41-1f0b-4b6e-8d3a-5e9c0f2a7b64",
            "clientSecret": "…",
            "callbackUrl": "https://kyc.example.com/gatehouse/callback",
            "callbackPassphrase": "correct horse",
        },
        answer_example={"message": "Callback registered."},
    ),
    ("GET", "/verify/clients/customers/{customer_uuid}"): Op(
        "retrieveVerificationCustomer",
        "Retrieve one of the client's customers",
        {200: RetrievedCustomer},
        access="basic",
        answer_example=CUSTOMER_EXAMPLE,
    ),
    ("POST", "/verify/sandbox/customers"): Op(
        "createSandboxCustomer",
        "Sandbox clients: create a customer (status 5); the real callbacks are sent",
        {201: RetrievedCustomer},
        access="basic",
        description='Any client that is not a sandbox one gets 404 `{"message"}`.',
        example={"email": "holder@example.com", "phone": "+971500000000"},
    ),
    ("POST", "/verify/sandbox/customers/{customer_uuid}/status"): Op(
        "setSandboxCustomerStatus",
        "Sandbox clients: set a customer's status; the real callbacks are sent",
        {200: RetrievedCustomer},
        access="basic",
        example={"status": 6},
    ),
}
