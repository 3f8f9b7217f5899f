"""POST /v1/applications and the application reads (spec 1 §4.1, §4.3, §4.4, §4.11-§4.14)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.api.common import tenant_write
from gatehouse.api.schemas import ProvisionBody
from gatehouse.http.body import body_schema, parse_body
from gatehouse.http.dependencies import ReadApplications, RuntimeDep, WriteApplications
from gatehouse.http.errors import not_found
from gatehouse.http.responses import json_response, respond
from gatehouse.services import application_reads as reads
from gatehouse.services.application_list import list_applications, parse_list_query
from gatehouse.services.application_snapshot import read_application_view
from gatehouse.services.provisioning import create_application

router = APIRouter(tags=["applications"])


@router.post("/v1/applications", openapi_extra=body_schema(ProvisionBody))
async def post_application(
    request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """Create an application (201) or answer the existing one for this identity (200)."""
    body = await parse_body(request, ProvisionBody)
    applicant = body.applicant()
    queue = runtime.identity_queue.hold((principal.tenant_id, applicant.identity))
    async with queue, runtime.db.transaction() as connection:
        write = tenant_write(request, runtime, principal)
        status, view = await create_application(connection, write, applicant, body.labelId)
        return await respond(request, connection, status, view)


@router.get("/v1/applications")
async def get_applications(
    request: Request, principal: ReadApplications, runtime: RuntimeDep
) -> Response:
    """The paged list: `{data, nextCursor, hasMore}` (spec 1 §4.11)."""
    query = parse_list_query(request.query_params.multi_items())
    page = await list_applications(runtime.db, runtime.crypto, principal.tenant_id, query)
    return json_response(200, page)


@router.get("/v1/applications/{client_id}")
async def get_application(
    client_id: str, principal: ReadApplications, runtime: RuntimeDep
) -> Response:
    """The application (spec 1 §4.3); missing, foreign and erased are one 404."""
    view = await read_application_view(runtime.db, principal.tenant_id, client_id)
    if view is None:
        raise not_found(reads.APPLICATION_NOT_FOUND)
    return json_response(200, view)


@router.get("/v1/applications/{client_id}/info-requests")
async def get_info_requests(
    client_id: str, principal: ReadApplications, runtime: RuntimeDep
) -> Response:
    """Information requests, highest seq first (spec 1 §4.4)."""
    async with runtime.db.read() as session:
        view = await reads.read_info_requests(session, principal.tenant_id, client_id)
    return json_response(200, view)


@router.get("/v1/applications/{client_id}/decisions")
async def get_decisions(
    client_id: str, principal: ReadApplications, runtime: RuntimeDep
) -> Response:
    """Decision history, newest first (spec 1 §4.12; CONTRACT §1.3)."""
    async with runtime.db.read() as session:
        view = await reads.read_decisions(session, principal.tenant_id, client_id)
    return json_response(200, view)


@router.get("/v1/applications/{client_id}/checklist")
async def get_checklist(
    client_id: str, principal: ReadApplications, runtime: RuntimeDep
) -> Response:
    """The intake's checklist and what satisfies it (spec 1 §4.13; CONTRACT §1.3)."""
    async with runtime.db.read() as session:
        view = await reads.read_checklist(session, principal.tenant_id, client_id)
    return json_response(200, view)


@router.get("/v1/applications/{client_id}/documents")
async def get_documents(
    client_id: str, principal: ReadApplications, runtime: RuntimeDep
) -> Response:
    """Document metadata only (spec 1 §4.14; CONTRACT §1.3)."""
    async with runtime.db.read() as session:
        view = await reads.read_documents(session, principal.tenant_id, client_id)
    return json_response(200, view)
