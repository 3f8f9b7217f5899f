"""Sandbox routes of the verification interface (docs/sandbox.md, "Verification";
docs/reference/verification.md, "Sandbox clients").

`POST /verify/sandbox/customers` and `POST /verify/sandbox/customers/{uuid}/status`, with
HTTP Basic `clientUuid:clientSecret` of a client created with `sandbox: true`. Order of
checks: the credentials (401 absent or wrong, 400 for a refused character), then the client
must be a sandbox one (404 `{"message": "No such route."}`, the answer of a path no route
has), then the body (400), then the operation (404 for a customer that is not this
client's). Other methods on these paths are unknown paths too (404). Every answer is the
interface's `{"message"}` except the customer itself.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.errors import GatehouseError
from gatehouse.storage.tables.verification import VerificationClient
from gatehouse.verification import clients
from gatehouse.verification import sandbox as sandbox_customers
from gatehouse.verification.schemas import RetrievedCustomer
from gatehouse.verify.answers import bad_credentials, basic_credentials, message
from gatehouse.web.auth import runtime_of
from gatehouse.web.body import decode_json
from gatehouse.web.context import write_context
from gatehouse.web.openapi import Op
from gatehouse.web.responses import JSONResponse

router = APIRouter(prefix="/verify/sandbox", tags=["verification sandbox"])

NO_SUCH_ROUTE = "No such route."


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"type": "object", "required": required, "properties": properties}
                }
            },
        },
    }


_CUSTOMER_SCHEMA = _schema(
    {
        "email": {"type": "string"},
        "phone": {"type": "string"},
        "documents": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["type", "expiresAt"],
                "properties": {"type": {"type": "string"}, "expiresAt": {"type": "string"}},
            },
        },
    },
    ["email", "phone"],
)
_STATUS_SCHEMA = _schema({"status": {"type": "integer", "enum": [2, 5, 6, 7, 9, 10]}}, ["status"])


async def _sandbox_client(request: Request) -> VerificationClient | Response:
    """The sandbox client the request authenticates, or the answer to give instead."""
    credentials = basic_credentials(request)
    if isinstance(credentials, Response):
        return credentials
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        client = await clients.authenticate_client(session, runtime, *credentials)
    if client is None:
        return bad_credentials()
    if not client.sandbox:
        return message(404, NO_SUCH_ROUTE)
    return client


async def _body(request: Request) -> object:
    raw = await request.body()
    return decode_json(raw) if raw.strip() else None


@router.post("/customers", status_code=201, openapi_extra=_CUSTOMER_SCHEMA)
@Op(
    "createSandboxCustomer",
    "Sandbox clients: create a customer (status 5); the real callbacks are sent",
    {201: RetrievedCustomer},
    access="basic",
    description='Any client that is not a sandbox one gets 404 `{"message"}`.',
    example={"email": "holder@example.com", "phone": "+971500000000"},
)
async def create_customer(request: Request) -> Response:
    """201 with the new customer (status 5) in the retrieval shape."""
    client = await _sandbox_client(request)
    if isinstance(client, Response):
        return client
    runtime = runtime_of(request)
    try:
        data = sandbox_customers.customer_input(client, await _body(request))
        async with runtime.db.write() as session:
            ctx = write_context(request, clients.ClientPrincipal(client.uuid))
            view = await sandbox_customers.create_customer(session, runtime, ctx, client, data)
    except GatehouseError as error:
        return message(error.status_code, error.message)
    return JSONResponse(view, status_code=201)


@router.post("/customers/{customer_uuid}/status", openapi_extra=_STATUS_SCHEMA)
@Op(
    "setSandboxCustomerStatus",
    "Sandbox clients: set a customer's status; the real callbacks are sent",
    {200: RetrievedCustomer},
    access="basic",
    example={"status": 6},
)
async def change_status(request: Request, customer_uuid: str) -> Response:
    """200 with the customer after the move (codes 2, 5, 6, 7, 9, 10)."""
    client = await _sandbox_client(request)
    if isinstance(client, Response):
        return client
    runtime = runtime_of(request)
    try:
        status = sandbox_customers.status_input(await _body(request))
        async with runtime.db.write() as session:
            ctx = write_context(request, clients.ClientPrincipal(client.uuid))
            view = await sandbox_customers.change_status(
                session, runtime, ctx, client, customer_uuid, status
            )
    except GatehouseError as error:
        return message(error.status_code, error.message)
    return JSONResponse(view)
