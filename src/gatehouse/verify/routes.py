"""The verification interface, `{verify_api_url}` = PUBLIC_URL + `/verify`.

docs/reference/verification.md.

Its own credentials only: a client's uuid and secret (in the body for the
registration, HTTP Basic for retrieval). API keys and staff tokens mean
nothing here, and client credentials mean nothing on `/v1` or `/staff/v1`.
Every answer of this interface, errors included, is `{"message": ...}`
(except the retrieved customer), built here rather than by the app's
exception handlers, which speak the tenant error body. The sandbox routes of sandbox
clients are verify/sandbox.py's (docs/sandbox.md).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.errors import GatehouseError
from gatehouse.verification import clients, customers
from gatehouse.verification.schemas import RetrievedCustomer, VerifyMessage
from gatehouse.verify.answers import bad_credentials, basic_credentials, message
from gatehouse.verify.sandbox import router as sandbox_router
from gatehouse.web.auth import runtime_of
from gatehouse.web.body import decode_json
from gatehouse.web.context import write_context
from gatehouse.web.openapi import Op
from gatehouse.web.responses import JSONResponse

interface = APIRouter(prefix="/verify", tags=["verification"])
# Last: every path of the interface that no route has answers `{"message"}` too.
fallback = APIRouter(prefix="/verify", include_in_schema=False)

REGISTER_PATH = "/clients/setWebhook/clientAuth"
REGISTRATION_FIELDS = ("clientUuid", "clientSecret", "callbackUrl", "callbackPassphrase")

_REGISTRATION_SCHEMA: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": list(REGISTRATION_FIELDS),
                    "properties": {
                        "clientUuid": {"type": "string"},
                        "clientSecret": {"type": "string"},
                        "callbackUrl": {"type": "string", "format": "uri"},
                        "callbackPassphrase": {"type": "string", "minLength": 6},
                    },
                }
            }
        },
    }
}


def _registration_input(raw: bytes) -> clients.RegistrationInput | str:
    """The four string fields of docs/reference/verification.md §4.1, or why the body is
    not acceptable."""
    try:
        data = decode_json(raw) if raw.strip() else None
    except GatehouseError as error:  # malformed, or a refused character (web/text.py)
        return error.message
    if not isinstance(data, dict):
        return "The body must be a JSON object."
    for name in REGISTRATION_FIELDS:
        value = data.get(name)
        if value is None:
            return f"{name} is required."
        if not isinstance(value, str):
            return f"{name} must be a string."
        if not value.strip():
            return f"{name} must not be empty."
    return clients.RegistrationInput(
        client_uuid=data["clientUuid"].strip(),
        client_secret=data["clientSecret"],
        callback_url=data["callbackUrl"].strip(),
        callback_passphrase=data["callbackPassphrase"],
    )


# The customer of /openapi.json's examples (checked by tests/api/test_openapi.py).
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


@interface.post(REGISTER_PATH, openapi_extra=_REGISTRATION_SCHEMA)
@Op(
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
)
async def set_webhook(request: Request) -> Response:
    """Register or replace the client's callback
    (docs/reference/verification.md §4.1): 200 `{"message"}`."""
    parsed = _registration_input(await request.body())
    if isinstance(parsed, str):
        return message(400, parsed)
    runtime = runtime_of(request)
    # The client first (a stranger learns nothing about names), then the URL rules of
    # webhook receivers, whose lookup (DNS) runs outside the write transaction.
    async with runtime.db.read() as session:
        known = await clients.authenticate_client(
            session, runtime, parsed.client_uuid, parsed.client_secret
        )
    if known is None:
        return message(401, "Invalid clientUuid or clientSecret.")
    try:
        await clients.check_registration(runtime, parsed)
    except clients.CallbackRegistrationError as exc:
        return message(400, str(exc))
    async with runtime.db.write() as session:
        client = await clients.authenticate_client(
            session, runtime, parsed.client_uuid, parsed.client_secret
        )
        if client is None:
            return message(401, "Invalid clientUuid or clientSecret.")
        ctx = write_context(request, clients.ClientPrincipal(client.uuid))
        try:
            await clients.register_callback(session, runtime, ctx, client, parsed)
        except clients.CallbackRegistrationError as exc:
            return message(400, str(exc))
    return message(200, "Callback registered.")


@interface.api_route(
    REGISTER_PATH, methods=["GET", "PUT", "PATCH", "DELETE"], include_in_schema=False
)
async def set_webhook_wrong_method(request: Request) -> Response:
    return message(405, "Method not allowed; use POST.", {"Allow": "POST"})


RETRIEVE_PATH = "/clients/customers/{customer_uuid}"


@interface.get(RETRIEVE_PATH)
@Op(
    "retrieveVerificationCustomer",
    "Retrieve one of the client's customers",
    {200: RetrievedCustomer},
    access="basic",
    answer_example=CUSTOMER_EXAMPLE,
)
async def retrieve_customer(request: Request, customer_uuid: str) -> Response:
    """Result retrieval (docs/reference/verification.md §4.2): HTTP Basic `clientUuid:clientSecret`.

    401 for missing or wrong credentials; 404 for an unknown customer or one
    that belongs to another client (the same answer, so it tells nothing).
    """
    credentials = basic_credentials(request)
    if isinstance(credentials, Response):
        return credentials
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        client = await clients.authenticate_client(session, runtime, *credentials)
        if client is None:
            return bad_credentials()
        found = await customers.customer_for_client(session, client.uuid, customer_uuid)
    if found is None:
        return message(404, "No such customer.")
    return JSONResponse(found)


@interface.api_route(
    RETRIEVE_PATH, methods=["POST", "PUT", "PATCH", "DELETE"], include_in_schema=False
)
async def retrieve_customer_wrong_method(request: Request, customer_uuid: str) -> Response:
    return message(405, "Method not allowed; use GET.", {"Allow": "GET"})


@fallback.api_route(
    "/{rest:path}",
    methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    include_in_schema=False,
)
async def unknown_verify_route(request: Request, rest: str) -> Response:
    """Keep `{"message"}` answers across the whole interface, unknown paths included."""
    return message(404, "No such route.")


router = APIRouter()
for _part in (interface, sandbox_router, fallback):
    router.include_router(_part)
