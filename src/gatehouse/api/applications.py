"""POST /v1/applications and the application reads (docs/reference/tenant-api.md §5.1-§5.14)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.api.examples import EMAIL_BODY, PAGING, READ, WRITE
from gatehouse.api.schemas import ProvisionBody
from gatehouse.applications.examples import (
    APPLICATION_EXAMPLE,
    DOCUMENT_EXAMPLE,
    SUMMARY_EXAMPLE,
)
from gatehouse.applications.queries.snapshot import read_application_view
from gatehouse.applications.schemas import (
    Application,
    ApplicationPage,
    Checklist,
    DecisionList,
    DocumentList,
    InfoRequestList,
)
from gatehouse.applications.service import reads
from gatehouse.applications.service.listing import list_applications, parse_list_query
from gatehouse.applications.service.provisioning import create_application
from gatehouse.domain.status import ApplicationStatus
from gatehouse.errors import not_found
from gatehouse.storage.tx_statements import Tx
from gatehouse.web.auth import runtime_of
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import (
    ReadApplications,
    RuntimeDep,
    WriteApplications,
    read_access,
)
from gatehouse.web.openapi import Op, Query, listing, status_filter
from gatehouse.web.responses import json_response, respond

router = APIRouter(tags=["applications"])


@router.post("/v1/applications", openapi_extra=body_schema(ProvisionBody))
@Op(
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
)
async def post_application(
    request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """Create an application (201) or answer the existing one for this identity (200)."""
    body = await parse_body(request, ProvisionBody)
    applicant = body.applicant()
    # Without an Idempotency-Key record to store, the provisioning is all the transaction
    # holds (`alone`: on PostgreSQL a new identity then commits in one statement).
    alone = getattr(request.state, "idempotency", None) is None

    async def provisioning(tx: Tx) -> Response:
        # The whole transaction: on SQLite one worker-thread call (storage/sqlite_writes.py).
        ctx = write_context(request, principal)
        status, view = await create_application(
            tx, runtime, ctx, principal, applicant, body.labelId, alone=alone
        )
        return await respond(request, tx, status, view)

    async with runtime.identity_queue.hold((principal.tenant_id, applicant.identity)):
        return await runtime.db.run_transaction(provisioning, lazy=alone)


@router.get("/v1/applications")
@listing(
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
)
async def get_applications(request: Request) -> Response:
    """The paged list: `{data, nextCursor, hasMore}` (docs/reference/tenant-api.md §5.11).

    Access is checked by a plain call rather than a dependency (a FastAPI dependency
    costs about 8 us per request); it still runs before the query is read.
    """
    principal = await read_access(request)
    runtime = runtime_of(request)
    query = parse_list_query(request.query_params.multi_items())
    page = await list_applications(runtime.db, runtime.crypto, principal.tenant_id, query)
    return json_response(200, page)


@router.get("/v1/applications/{client_id}")
@Op(
    "getApplication",
    "Get an application",
    {200: Application},
    access=READ,
    answer_example=APPLICATION_EXAMPLE,
)
async def get_application(request: Request, client_id: str) -> Response:
    """The application (docs/reference/tenant-api.md §5.3); missing, foreign and erased are one 404.

    Access by a plain call, as for the list (the path parameter cannot fail validation).
    """
    principal = await read_access(request)
    runtime = runtime_of(request)
    view = await read_application_view(runtime.db, principal.tenant_id, client_id)
    if view is None:
        raise not_found(reads.APPLICATION_NOT_FOUND)
    return json_response(200, view)


@router.get("/v1/applications/{client_id}/info-requests")
@Op(
    "listInfoRequests",
    "List an application's information requests, highest seq first",
    {200: InfoRequestList},
    access=READ,
    answer_example={"data": []},
)
async def get_info_requests(
    client_id: str, principal: ReadApplications, runtime: RuntimeDep
) -> Response:
    """Information requests, highest seq first (docs/reference/tenant-api.md §5.4)."""
    async with runtime.db.read() as session:
        view = await reads.read_info_requests(session, principal.tenant_id, client_id)
    return json_response(200, view)


@router.get("/v1/applications/{client_id}/decisions")
@Op(
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
)
async def get_decisions(
    client_id: str, principal: ReadApplications, runtime: RuntimeDep
) -> Response:
    """Decision history, newest first (docs/reference/tenant-api.md §5.12)."""
    async with runtime.db.read() as session:
        view = await reads.read_decisions(session, principal.tenant_id, client_id)
    return json_response(200, view)


@router.get("/v1/applications/{client_id}/checklist")
@Op(
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
)
async def get_checklist(
    client_id: str, principal: ReadApplications, runtime: RuntimeDep
) -> Response:
    """The intake's checklist and what satisfies it (docs/reference/tenant-api.md §5.13)."""
    async with runtime.db.read() as session:
        view = await reads.read_checklist(session, principal.tenant_id, client_id)
    return json_response(200, view)


@router.get("/v1/applications/{client_id}/documents")
@Op(
    "listDocuments",
    "List an application's documents (metadata only)",
    {200: DocumentList},
    access=READ,
    answer_example={"data": [DOCUMENT_EXAMPLE]},
)
async def get_documents(
    client_id: str, principal: ReadApplications, runtime: RuntimeDep
) -> Response:
    """Document metadata only (docs/reference/tenant-api.md §5.14)."""
    async with runtime.db.read() as session:
        view = await reads.read_documents(session, principal.tenant_id, client_id)
    return json_response(200, view)
