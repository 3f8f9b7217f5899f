"""Staff routes of the verification area (`/staff/v1/verification`, CONTRACT §4).

Order of checks: the staff token (401), the role (403), then body and query
validation (400), then the operation. Every action is audited in its own
transaction. The GET lists serve the dashboard.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from starlette.responses import Response

from gatehouse import audit
from gatehouse.http.auth import StaffPrincipal, authenticate_staff, require_role, runtime_of
from gatehouse.http.body import body_schema, parse_body
from gatehouse.http.errors import invalid_argument, not_found, request_id_of
from gatehouse.http.responses import json_response, respond
from gatehouse.verification import clients, customers, listing, schemas
from gatehouse.verification.sweep import expiry_sweep

router = APIRouter(prefix="/staff/v1/verification", tags=["staff: verification"])

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
CALLBACK_STATUSES = ("pending", "delivering", "succeeded", "dropped")


def _staff(role: str) -> Callable[[Request], Awaitable[StaffPrincipal]]:
    async def dependency(request: Request) -> StaffPrincipal:
        principal = await authenticate_staff(request)
        require_role(principal, role)
        return principal

    return dependency


Analyst = Annotated[StaffPrincipal, Depends(_staff("analyst"))]
Admin = Annotated[StaffPrincipal, Depends(_staff("admin"))]


def _limit(request: Request) -> int:
    raw = request.query_params.get("limit")
    if raw is None or raw == "":
        return DEFAULT_LIMIT
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_LIMIT:
        raise invalid_argument(f"limit must be an integer from 1 to {MAX_LIMIT}.", "limit")
    return int(raw)


def _optional(request: Request, name: str) -> str | None:
    value = request.query_params.get(name)
    return value if value else None


@router.post("/clients", status_code=201, openapi_extra=body_schema(schemas.ClientCreate))
async def create_client(request: Request, staff: Admin) -> Response:
    """Create a verification client (admin+): 201 `{clientUuid, clientSecret, name}`."""
    body = await parse_body(request, schemas.ClientCreate)
    name = body.name.strip()
    if not name:
        raise invalid_argument("name must not be empty.", "name")
    runtime = runtime_of(request)
    async with runtime.db.write() as session:
        created = await clients.create_client(
            session,
            runtime,
            name=name,
            customer_created_events=body.customerCreatedEvents,
            actor=staff.actor,
            request_id=request_id_of(request),
        )
        return await respond(request, session, 201, created)


@router.get("/clients")
async def list_clients(request: Request, staff: Analyst) -> Response:
    """Every verification client (analyst+), newest first; never a secret."""
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        data = await clients.list_clients(session)
    return json_response(200, {"data": data})


@router.post("/customers", status_code=201, openapi_extra=body_schema(schemas.CustomerCreate))
async def create_customer(request: Request, staff: Analyst) -> Response:
    """Create a customer in Pending (5) (analyst+); `customer_created` for opted-in clients."""
    body = await parse_body(request, schemas.CustomerCreate)
    data = schemas.customer_input(body)
    runtime = runtime_of(request)
    async with runtime.db.write() as session:
        try:
            created = await customers.create_customer(
                session, runtime, data, actor=staff.actor, request_id=request_id_of(request)
            )
        except customers.CustomerInputError as exc:
            raise invalid_argument(str(exc), exc.field) from None
        return await respond(request, session, 201, created)


@router.get("/customers")
async def list_customers(request: Request, staff: Analyst) -> Response:
    """Customers (analyst+), newest first; filters `clientUuid`, `status`, `clientId`."""
    limit = _limit(request)
    raw_status = _optional(request, "status")
    if raw_status is not None and not raw_status.isdigit():
        raise invalid_argument("status must be a status code.", "status")
    filters = listing.CustomerFilters(
        client_uuid=_optional(request, "clientUuid"),
        status=int(raw_status) if raw_status is not None else None,
        client_id=_optional(request, "clientId"),
    )
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        page = await listing.list_customers(
            session, runtime.crypto, filters, limit, _optional(request, "cursor")
        )
    return json_response(200, page)


@router.get("/customers/{customer_uuid}")
async def get_customer(request: Request, customer_uuid: str, staff: Analyst) -> Response:
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        found = await customers.customer_for_staff(session, customer_uuid)
    if found is None:
        raise not_found("No such customer.")
    return json_response(200, found)


@router.post("/customers/{customer_uuid}/status", openapi_extra=body_schema(schemas.StatusChange))
async def change_status(request: Request, customer_uuid: str, staff: Analyst) -> Response:
    """Set a customer's status (analyst+): codes 2, 5, 6, 7, 9, 10 only, else 400."""
    body = await parse_body(request, schemas.StatusChange)
    reason = body.reason.strip() if body.reason is not None else None
    runtime = runtime_of(request)
    async with runtime.db.write() as session:
        try:
            changed = await customers.change_status(
                session,
                runtime,
                customer_uuid,
                body.status,
                reason or None,
                actor=staff.actor,
                request_id=request_id_of(request),
            )
        except customers.CustomerInputError as exc:
            raise invalid_argument(str(exc), exc.field) from None
        except customers.CustomerNotFound:
            raise not_found("No such customer.") from None
        return await respond(request, session, 200, changed)


@router.get("/callbacks")
async def list_callbacks(request: Request, staff: Analyst) -> Response:
    """The callback log (analyst+), newest first; filters `clientUuid`, `status`, `customerUuid`."""
    limit = _limit(request)
    status = _optional(request, "status")
    if status is not None and status not in CALLBACK_STATUSES:
        raise invalid_argument(f"status must be one of {', '.join(CALLBACK_STATUSES)}.", "status")
    filters = listing.CallbackFilters(
        client_uuid=_optional(request, "clientUuid"),
        status=status,
        customer_uuid=_optional(request, "customerUuid"),
    )
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        page = await listing.list_callbacks(
            session, runtime.crypto, filters, limit, _optional(request, "cursor")
        )
    return json_response(200, page)


@router.post("/sweep")
async def run_sweep(request: Request, staff: Admin) -> Response:
    """Run the expiry sweep now (admin+): 200 `{warningsSent, movedToDraft}`."""
    runtime = runtime_of(request)
    async with runtime.db.write() as session:
        now = runtime.now()
        result = await expiry_sweep(session, runtime, now)
        audit.record(
            session,
            at=now,
            actor=staff.actor,
            action="verification.sweep",
            target="verification",
            request_id=request_id_of(request),
        )
        return await respond(request, session, 200, result.view())
