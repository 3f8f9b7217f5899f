"""Staff case work routes (docs/reference/staff-api.md §6, §12): application reads and list,
decisions, information requests, erasure, the audit trail, internal notes and assignment.

Thin endpoints: authenticate (`StaffUser`), check the role, validate the
query or body, then call one service function inside one write transaction.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from fastapi import APIRouter, Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from gatehouse.applications.examples import APPLICATION_EXAMPLE, INFO_REQUEST_EXAMPLE
from gatehouse.applications.schemas import InfoRequest
from gatehouse.cases import assignment, notes
from gatehouse.cases import audit as audit_reads
from gatehouse.cases import queries as case_reads
from gatehouse.cases.schemas import (
    Assignment,
    AuditPage,
    Note,
    NotePage,
    StaffApplication,
    StaffApplicationPage,
)
from gatehouse.crypto import Crypto
from gatehouse.decisions import service as decisions
from gatehouse.domain.principals import Role, StaffPrincipal
from gatehouse.domain.screening import RISK_LEVELS
from gatehouse.domain.status import STATUSES, DecisionAction
from gatehouse.erasure import service as erasure
from gatehouse.erasure.schemas import Erased
from gatehouse.errors import invalid_argument
from gatehouse.info_requests import service as info_requests
from gatehouse.paging import PageRequest, parse_page, query_values
from gatehouse.runtime import Runtime
from gatehouse.staff.examples import (
    ADMIN,
    ANALYST,
    APPLICATION_STATUS,
    AUDIT_ENTRY_EXAMPLE,
    NOTE_EXAMPLE,
    RAISE_FIELDS,
    RISK_FILTER,
    SCREENING_FILTER,
    STAFF_SUMMARY_EXAMPLE,
    TENANT_FILTER,
)
from gatehouse.staff.info_request_moves import item_route, request_route
from gatehouse.staff.schemas import AssignmentBody, DecisionBody, NoteBody, RaiseBody
from gatehouse.staff.shells import read_answer, write_answer
from gatehouse.web.auth import require_role
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, StaffUser
from gatehouse.web.openapi import CURSOR, LIMIT, Op, listing, nullable, page
from gatehouse.web.responses import json_response, respond

router = APIRouter(prefix="/staff/v1", tags=["staff: cases"])


def _query(request: Request, allowed: Iterable[str]) -> tuple[dict[str, str], PageRequest]:
    """The query values and the page asked for; unknown or repeated names are 400."""
    values = query_values(request.query_params.multi_items(), allowed)
    return values, parse_page(values.get("limit"), values.get("cursor"))


@router.get("/applications")
@Op(
    "listStaffApplications",
    "List applications across tenants, most recently changed first",
    {200: StaffApplicationPage},
    access=ANALYST,
    query=(TENANT_FILTER, APPLICATION_STATUS, RISK_FILTER, SCREENING_FILTER, LIMIT, CURSOR),
    answer_example=page(STAFF_SUMMARY_EXAMPLE),
)
async def list_applications(request: Request, staff: StaffUser, runtime: RuntimeDep) -> Response:
    """Applications across tenants, newest change first (analyst+)."""
    require_role(staff, Role.ANALYST)
    values, page = _query(request, ("tenantId", "status", "risk", "screening", "limit", "cursor"))
    status = values.get("status")
    risk = values.get("risk")
    if risk is not None and risk not in RISK_LEVELS:
        raise invalid_argument("risk must be low, medium or high.", "risk", "unknown level")
    screening = values.get("screening")
    if screening is not None and screening != "hits":
        raise invalid_argument("screening must be hits.", "screening", "unknown filter")
    if status is not None and status not in STATUSES:
        raise invalid_argument(
            f"status must be one of {', '.join(STATUSES)}.", "status", "unknown status"
        )
    tenant_id = values.get("tenantId")
    if tenant_id is not None and not tenant_id:
        raise invalid_argument("tenantId must not be empty.", "tenantId", "empty")
    async with runtime.db.read() as session:
        result = await case_reads.list_applications(
            session,
            runtime.crypto,
            tenant_id=tenant_id,
            status=status,
            page=page,
            risk=risk,
            with_open_hits=screening is not None,
        )
    return json_response(200, result)


@router.get("/applications/{client_id}")
@Op(
    "getStaffApplication",
    "Get an application",
    {200: StaffApplication},
    access=ANALYST,
    answer_example={**APPLICATION_EXAMPLE, "tenantId": "ten_4d3c2b1a0f9e"},
)
async def read_application(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """One application, in the tenant read's shape (analyst+); erased is 404."""
    require_role(staff, Role.ANALYST)
    return await read_answer(
        runtime, lambda session: case_reads.read_application(session, client_id)
    )


@router.post("/applications/{client_id}/decisions", openapi_extra=body_schema(DecisionBody))
@Op(
    "makeDecision",
    "Make a decision: approve, countersign, reject_proposal, reject, hold or release",
    {200: StaffApplication},
    access=ANALYST,
    errors=(410,),
    body_fields={"action": {"type": "string", "enum": list(DecisionAction)}},
    description="countersign and reject_proposal need the mlro role; the proposer cannot "
    "countersign (docs/reference/staff-api.md §6.2).",
    example={"action": "approve", "comment": "Documents verified."},
)
async def decide(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """approve / countersign / reject_proposal / reject / hold / release → 200 application."""
    require_role(staff, Role.ANALYST)
    body = await parse_body(request, DecisionBody)
    return await write_answer(
        request,
        staff,
        runtime,
        lambda session, ctx: decisions.make_decision(
            session,
            ctx,
            staff,
            client_id,
            action=body.action,
            comment=body.comment,
            rejection_reason=body.rejectionReason,
            acknowledgement=body.acknowledgeUnsatisfied,
        ),
    )


@router.post("/applications/{client_id}/info-requests", openapi_extra=body_schema(RaiseBody))
@Op(
    "raiseInfoRequest",
    "Raise an information request",
    {201: InfoRequest},
    access=ANALYST,
    errors=(410,),
    body_fields=RAISE_FIELDS,
    example={
        "comment": "Please send a recent utility bill.",
        "items": [{"type": "document", "prompt": "A utility bill from the last 3 months."}],
    },
    answer_example=INFO_REQUEST_EXAMPLE,
)
async def raise_info_request(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Raise an information request → 201 request (docs/reference/tenant-api.md §2.8 shape)."""
    require_role(staff, Role.ANALYST)
    body = await parse_body(request, RaiseBody)
    return await write_answer(
        request,
        staff,
        runtime,
        lambda session, ctx: info_requests.raise_request(
            session, ctx, staff, client_id, comment=body.comment, items=body.items
        ),
        201,
    )


# accept, reopen: POST /info-requests/{request_id}/items/{item_id}/…; close, cancel:
# POST /info-requests/{request_id}/… (docs/reference/staff-api.md §6.5, §6.6).
for _name, _item_move in info_requests.ITEM_MOVES.items():
    router.add_api_route(
        f"/info-requests/{{request_id}}/items/{{item_id}}/{_name}",
        item_route(_name, _item_move),
        methods=["POST"],
        name=f"{_name}_item",
        description=_item_move.__doc__,
    )
for _name, _request_move in info_requests.REQUEST_MOVES.items():
    router.add_api_route(
        f"/info-requests/{{request_id}}/{_name}",
        request_route(_name, _request_move),
        methods=["POST"],
        name=f"{_name}_info_request",
        description=_request_move.__doc__,
    )


@router.post("/applications/{client_id}/erase")
@Op(
    "eraseApplication",
    "Erase an application's personal data",
    {200: Erased},
    access=ADMIN,
    errors=(410,),
    answer_example={"clientId": "app_8f2k1c9d0a7b", "erased": True},
)
async def erase_application(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Erase the applicant's personal data (admin+) → 200 `{clientId, erased: true}`."""
    require_role(staff, Role.ADMIN)
    async with runtime.db.write() as session:
        result = await erasure.erase_application(
            session,
            write_context(request, staff),
            client_id,
            pseudonymize=runtime.crypto.hash_secret,
        )
        response = await respond(request, session, 200, result)
    await erasure.erase_documents(runtime)
    return response


# A paged read of the records of one application or tenant: (session, crypto, id, page).
PagedRead = Callable[[AsyncSession, Crypto, str, PageRequest], Awaitable[object]]


async def _paged_read(
    request: Request, staff: StaffPrincipal, runtime: Runtime, read: PagedRead, owner_id: str
) -> Response:
    """The shared body of the paged reads below: analyst+, only `limit` and `cursor`."""
    require_role(staff, Role.ANALYST)
    _values, page = _query(request, ("limit", "cursor"))
    return await read_answer(runtime, lambda session: read(session, runtime.crypto, owner_id, page))


@router.get("/applications/{client_id}/audit")
@listing(
    "listApplicationAudit",
    "An application's audit trail, newest first",
    AuditPage,
    ANALYST,
    AUDIT_ENTRY_EXAMPLE,
)
async def application_audit(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """The application's audit trail, newest first (analyst+)."""
    return await _paged_read(request, staff, runtime, audit_reads.application_audit, client_id)


@router.get("/tenants/{tenant_id}/audit")
@listing(
    "listTenantAudit",
    "A tenant's audit trail, newest first",
    AuditPage,
    ANALYST,
    AUDIT_ENTRY_EXAMPLE,
)
async def tenant_audit(
    tenant_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """The tenant's audit trail, newest first (analyst+)."""
    return await _paged_read(request, staff, runtime, audit_reads.tenant_audit, tenant_id)


@router.post("/applications/{client_id}/notes", openapi_extra=body_schema(NoteBody))
@Op(
    "addCaseNote",
    "Add an internal note to a case",
    {201: Note},
    access=ANALYST,
    errors=(410,),
    body_fields={"text": {"type": "string", "minLength": 1}},
    example={"text": "Called the applicant; bill follows."},
)
async def add_note(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Add an internal note (analyst+) → 201 note; staff-only
    (docs/reference/staff-api.md §12.2)."""
    require_role(staff, Role.ANALYST)
    body = await parse_body(request, NoteBody)
    return await write_answer(
        request,
        staff,
        runtime,
        lambda session, ctx: notes.add_note(session, ctx, staff, client_id, body.text),
        201,
    )


@router.get("/applications/{client_id}/notes")
@listing("listCaseNotes", "A case's internal notes, newest first", NotePage, ANALYST, NOTE_EXAMPLE)
async def list_notes(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """The case's internal notes, newest first (analyst+; docs/reference/staff-api.md §12.3)."""
    return await _paged_read(request, staff, runtime, notes.list_notes, client_id)


@router.post("/applications/{client_id}/assignment", openapi_extra=body_schema(AssignmentBody))
@Op(
    "assignCase",
    "Assign a case to a staff member, or unassign it (null)",
    {200: Assignment},
    access=ANALYST,
    errors=(410,),
    body_fields={"staffId": nullable({"type": "string", "minLength": 1})},
    example={"staffId": "stf_1a2b3c4d5e6f"},
)
async def assign(
    client_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
) -> Response:
    """Assign the case to a staff member, or unassign it with null (analyst+; §12.4)."""
    require_role(staff, Role.ANALYST)
    body = await parse_body(request, AssignmentBody)
    assignee = body.staffId
    if assignee is not None and (not isinstance(assignee, str) or not assignee):
        raise invalid_argument(
            "Give the id of an active staff member, or null to unassign the case.",
            "staffId",
            "not a staff id",
        )
    return await write_answer(
        request,
        staff,
        runtime,
        lambda session, ctx: assignment.assign(session, ctx, client_id, assignee),
    )
