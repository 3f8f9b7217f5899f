"""Staff case work routes (CONTRACT §4): application reads and list, decisions,
information requests, erasure and the audit trail.

Thin endpoints: authenticate (`StaffUser`), check the role, validate the
query or body, then call one service function inside one write transaction.
"""

from __future__ import annotations

from collections.abc import Iterable

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.domain.status import STATUSES
from gatehouse.http.auth import require_role
from gatehouse.http.body import body_schema, parse_body
from gatehouse.http.dependencies import RuntimeDep, StaffUser
from gatehouse.http.errors import invalid_argument, request_id_of
from gatehouse.http.responses import json_response, respond
from gatehouse.services import audit_reads, case_reads, decisions, erasure, info_requests
from gatehouse.services.case_reads import Page

router = APIRouter(prefix="/staff/v1", tags=["staff: cases"])

DEFAULT_LIMIT = 25
MAX_LIMIT = 100


def _check_query(request: Request, allowed: Iterable[str]) -> None:
    """Unknown or repeated query parameters are 400 invalid-argument."""
    allowed_set = set(allowed)
    for key in request.query_params:
        if key not in allowed_set:
            raise invalid_argument(f"Unknown query parameter {key}.", key, "unknown parameter")
        if len(request.query_params.getlist(key)) > 1:
            raise invalid_argument(f"{key} may be given once.", key, "repeated parameter")


def _page(request: Request) -> Page:
    """`limit` 1 to 100 (default 25) and an optional `cursor` (spec 1 §4.11 rules)."""
    raw = request.query_params.get("limit")
    limit = DEFAULT_LIMIT
    if raw is not None:
        try:
            limit = int(raw.strip())
        except ValueError:
            raise invalid_argument("limit must be an integer.", "limit", "not an integer") from None
        if not 1 <= limit <= MAX_LIMIT:
            raise invalid_argument("limit must be 1 to 100.", "limit", "out of range")
    cursor = request.query_params.get("cursor")
    if cursor is not None and not cursor:
        raise invalid_argument("The cursor is not valid for this request.", "cursor", "empty")
    return Page(limit, cursor)


@router.get("/applications")
async def list_applications(request: Request, staff: StaffUser, runtime: RuntimeDep) -> Response:
    """Applications across tenants, newest change first (analyst+)."""
    require_role(staff, "analyst")
    _check_query(request, ("tenantId", "status", "limit", "cursor"))
    status = request.query_params.get("status")
    if status is not None and status not in STATUSES:
        raise invalid_argument(
            f"status must be one of {', '.join(STATUSES)}.", "status", "unknown status"
        )
    tenant_id = request.query_params.get("tenantId")
    if tenant_id is not None and not tenant_id:
        raise invalid_argument("tenantId must not be empty.", "tenantId", "empty")
    page = _page(request)
    async with runtime.db.read() as session:
        result = await case_reads.list_applications(
            session, runtime.crypto, tenant_id=tenant_id, status=status, page=page
        )
    return json_response(200, result)


@router.get("/applications/{client_id}")
async def read_application(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """One application, in the tenant read's shape (analyst+); erased is 404."""
    require_role(staff, "analyst")
    async with runtime.db.read() as session:
        result = await case_reads.read_application(session, client_id)
    return json_response(200, result)


@router.post(
    "/applications/{client_id}/decisions", openapi_extra=body_schema(decisions.DecisionBody)
)
async def decide(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """approve / countersign / reject_proposal / reject / hold / release → 200 application."""
    require_role(staff, "analyst")
    body = await parse_body(request, decisions.DecisionBody)
    async with runtime.db.write() as session:
        result = await decisions.make_decision(
            session,
            client_id=client_id,
            staff=staff,
            body=body,
            at=runtime.now(),
            request_id=request_id_of(request),
        )
        return await respond(request, session, 200, result)


@router.post(
    "/applications/{client_id}/info-requests", openapi_extra=body_schema(info_requests.RaiseBody)
)
async def raise_info_request(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Raise an information request → 201 request (spec 1 §2.4 shape)."""
    require_role(staff, "analyst")
    body = await parse_body(request, info_requests.RaiseBody)
    async with runtime.db.write() as session:
        result = await info_requests.raise_request(
            session,
            client_id=client_id,
            staff=staff,
            body=body,
            at=runtime.now(),
            request_id=request_id_of(request),
        )
        return await respond(request, session, 201, result)


@router.post("/info-requests/{request_id}/items/{item_id}/accept")
async def accept_item(
    request_id: str, item_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Accept an answered item → 200 request."""
    require_role(staff, "analyst")
    async with runtime.db.write() as session:
        result = await info_requests.accept_item(
            session,
            request_id=request_id,
            item_id=item_id,
            staff=staff,
            at=runtime.now(),
            service_request_id=request_id_of(request),
        )
        return await respond(request, session, 200, result)


@router.post("/info-requests/{request_id}/items/{item_id}/reopen")
async def reopen_item(
    request_id: str, item_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Reopen an answered or accepted item: new round, application back to needs_info."""
    require_role(staff, "analyst")
    async with runtime.db.write() as session:
        result = await info_requests.reopen_item(
            session,
            request_id=request_id,
            item_id=item_id,
            staff=staff,
            at=runtime.now(),
            service_request_id=request_id_of(request),
        )
        return await respond(request, session, 200, result)


@router.post("/info-requests/{request_id}/close")
async def close_info_request(
    request_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Close a request → 200 request; emits application.info_request.closed."""
    require_role(staff, "analyst")
    async with runtime.db.write() as session:
        result = await info_requests.close_request(
            session,
            request_id=request_id,
            staff=staff,
            at=runtime.now(),
            service_request_id=request_id_of(request),
        )
        return await respond(request, session, 200, result)


@router.post("/info-requests/{request_id}/cancel")
async def cancel_info_request(
    request_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Cancel a request → 200 request."""
    require_role(staff, "analyst")
    async with runtime.db.write() as session:
        result = await info_requests.cancel_request(
            session,
            request_id=request_id,
            staff=staff,
            at=runtime.now(),
            service_request_id=request_id_of(request),
        )
        return await respond(request, session, 200, result)


@router.post("/applications/{client_id}/erase")
async def erase_application(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Erase the applicant's personal data (admin+) → 200 `{clientId, erased: true}`."""
    require_role(staff, "admin")
    async with runtime.db.write() as session:
        result = await erasure.erase_application(
            session,
            client_id=client_id,
            staff=staff,
            at=runtime.now(),
            request_id=request_id_of(request),
            pseudonymize=runtime.crypto.hash_secret,
        )
        return await respond(request, session, 200, result)


@router.get("/applications/{client_id}/audit")
async def application_audit(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """The application's audit trail, newest first (analyst+)."""
    require_role(staff, "analyst")
    _check_query(request, ("limit", "cursor"))
    page = _page(request)
    async with runtime.db.read() as session:
        result = await audit_reads.application_audit(session, runtime.crypto, client_id, page)
    return json_response(200, result)


@router.get("/tenants/{tenant_id}/audit")
async def tenant_audit(
    tenant_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """The tenant's audit trail, newest first (analyst+)."""
    require_role(staff, "analyst")
    _check_query(request, ("limit", "cursor"))
    page = _page(request)
    async with runtime.db.read() as session:
        result = await audit_reads.tenant_audit(session, runtime.crypto, tenant_id, page)
    return json_response(200, result)
