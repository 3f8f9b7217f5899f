"""Staff routes of the verification area (`/staff/v1/verification`, docs/reference/staff-api.md §8).

Order of checks: the staff token (401), the role (403), then body and query
validation (400), then the operation. Every action is audited in its own
transaction. The GET lists serve the dashboard.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from starlette.responses import Response

from gatehouse import verification
from gatehouse.domain.numbers import parse_int
from gatehouse.domain.principals import Role, StaffPrincipal
from gatehouse.domain.verification import (
    CALLBACK_STATUSES,
    HIGHEST_STATUS,
    LOWEST_STATUS,
    CallbackStatus,
)
from gatehouse.errors import invalid_argument, not_found
from gatehouse.paging import PageRequest, parse_page, query_values
from gatehouse.staff.examples import ADMIN, ANALYST, CALLBACK_RECORD_EXAMPLE, CUSTOMER_EXAMPLE
from gatehouse.verification import (
    CallbackPage,
    CreatedVerificationClient,
    CustomerPage,
    StaffCustomer,
    SweepResult,
    VerificationClientList,
    sweep_on_demand,
)
from gatehouse.web.auth import authenticate_staff, require_role, runtime_of
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.openapi import Op, Query, listing
from gatehouse.web.responses import json_response, respond

router = APIRouter(prefix="/staff/v1/verification", tags=["staff: verification"])


def _staff(role: str) -> Callable[[Request], Awaitable[StaffPrincipal]]:
    async def dependency(request: Request) -> StaffPrincipal:
        principal = await authenticate_staff(request)
        require_role(principal, role)
        return principal

    return dependency


Analyst = Annotated[StaffPrincipal, Depends(_staff(Role.ANALYST))]
Admin = Annotated[StaffPrincipal, Depends(_staff(Role.ADMIN))]


def _query(request: Request, filters: tuple[str, ...]) -> tuple[dict[str, str], PageRequest]:
    """The query values and the page asked for; an unknown or repeated query parameter is
    400 (docs/reference/staff-api.md §1.5)."""
    values = query_values(request.query_params.multi_items(), (*filters, "limit", "cursor"))
    return values, parse_page(values.get("limit"), values.get("cursor"))


@router.post("/clients", status_code=201, openapi_extra=body_schema(verification.ClientCreate))
@Op(
    "createVerificationClient",
    "Create a verification client (its secret is shown once)",
    {201: CreatedVerificationClient},
    access=ADMIN,
    example={"name": "KYC provider", "customerCreatedEvents": True},
)
async def create_client(request: Request, staff: Admin) -> Response:
    """Create a verification client (admin+): 201 `{clientUuid, clientSecret, name}`;
    `sandbox: true` makes a sandbox client (docs/sandbox.md)."""
    body = await parse_body(request, verification.ClientCreate)
    name = body.name.strip()
    if not name:
        raise invalid_argument("name must not be empty.", "name")
    runtime = runtime_of(request)
    async with runtime.db.write() as session:
        created = await verification.create_client(
            session,
            runtime,
            write_context(request, staff),
            name=name,
            customer_created_events=body.customerCreatedEvents,
            sandbox=body.sandbox,
        )
        return await respond(request, session, 201, created)


@router.get("/clients")
@Op(
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
)
async def list_clients(request: Request, staff: Analyst) -> Response:
    """Every verification client (analyst+), newest first; never a secret."""
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        data = await verification.list_clients(session)
    return json_response(200, {"data": data})


@router.post("/customers", status_code=201, openapi_extra=body_schema(verification.CustomerCreate))
@Op(
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
)
async def create_customer(request: Request, staff: Analyst) -> Response:
    """Create a customer in Pending (5) (analyst+); `customer_created` for opted-in clients."""
    body = await parse_body(request, verification.CustomerCreate)
    data = verification.customer_input(body)
    runtime = runtime_of(request)
    async with runtime.db.write() as session:
        ctx = write_context(request, staff)
        created = await verification.create_customer(session, runtime, ctx, data)
        return await respond(request, session, 201, created)


@router.get("/customers")
@listing(
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
)
async def list_customers(request: Request, staff: Analyst) -> Response:
    """Customers (analyst+), newest first; filters `clientUuid`, `status`, `clientId`."""
    values, page_request = _query(request, ("clientUuid", "status", "clientId"))
    status = values.get("status")
    code = None if status is None else parse_int(status, "status", LOWEST_STATUS, HIGHEST_STATUS)
    filters = verification.CustomerFilters(
        client_uuid=values.get("clientUuid") or None,
        status=code,
        client_id=values.get("clientId") or None,
    )
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        page = await verification.list_customers(session, runtime.crypto, filters, page_request)
    return json_response(200, page)


@router.get("/customers/{customer_uuid}")
@Op(
    "getVerificationCustomer",
    "Get a verification customer",
    {200: StaffCustomer},
    access=ANALYST,
    answer_example=CUSTOMER_EXAMPLE,
)
async def get_customer(request: Request, customer_uuid: str, staff: Analyst) -> Response:
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        found = await verification.customer_for_staff(session, customer_uuid)
    if found is None:
        raise not_found("No such customer.")
    return json_response(200, found)


@router.post(
    "/customers/{customer_uuid}/status", openapi_extra=body_schema(verification.StatusChange)
)
@Op(
    "changeVerificationStatus",
    "Set a customer's status (2, 5, 6, 7, 9 or 10); the callback is sent",
    {200: StaffCustomer},
    access=ANALYST,
    example={"status": 6},
)
async def change_status(request: Request, customer_uuid: str, staff: Analyst) -> Response:
    """Set a customer's status (analyst+): codes 2, 5, 6, 7, 9, 10 only, else 400."""
    body = await parse_body(request, verification.StatusChange)
    reason = body.reason.strip() if body.reason is not None else None
    runtime = runtime_of(request)
    async with runtime.db.write() as session:
        changed = await verification.change_status(
            session,
            runtime,
            write_context(request, staff),
            customer_uuid,
            body.status,
            reason or None,
        )
        return await respond(request, session, 200, changed)


@router.get("/callbacks")
@listing(
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
)
async def list_callbacks(request: Request, staff: Analyst) -> Response:
    """The callback log (analyst+), newest first; filters `clientUuid`, `status`, `customerUuid`."""
    values, page_request = _query(request, ("clientUuid", "status", "customerUuid"))
    status = values.get("status") or None
    if status is not None and status not in CALLBACK_STATUSES:
        raise invalid_argument(f"status must be one of {', '.join(CALLBACK_STATUSES)}.", "status")
    filters = verification.CallbackFilters(
        client_uuid=values.get("clientUuid") or None,
        status=status,
        customer_uuid=values.get("customerUuid") or None,
    )
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        page = await verification.list_callbacks(session, runtime.crypto, filters, page_request)
    return json_response(200, page)


@router.post("/sweep")
@Op(
    "runVerificationSweep",
    "Run the expiry sweep now",
    {200: SweepResult},
    access=ADMIN,
    answer_example={"warningsSent": 0, "movedToDraft": 0},
)
async def run_sweep(request: Request, staff: Admin) -> Response:
    """Run the expiry sweep now (admin+): 200 `{warningsSent, movedToDraft}`."""
    runtime = runtime_of(request)
    async with runtime.db.write() as session:
        result = await sweep_on_demand(session, runtime, write_context(request, staff))
        return await respond(request, session, 200, result.view())
