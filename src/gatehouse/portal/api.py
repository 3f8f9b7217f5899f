"""The applicant portal's JSON routes and link redemption (docs/reference/portal.md §3, §7).

`POST /portal/login/{token}` consumes a sign-in link and starts the cookie
session (the GET interstitial belongs to the pages). The `/portal/api/*`
routes act for the session's member through `PortalUser`; errors use the
standard body.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import APIRouter, Request
from fastapi.routing import APIRoute
from starlette.datastructures import UploadFile
from starlette.responses import RedirectResponse, Response

from gatehouse.applicants import service as portal_actions
from gatehouse.applicants.schemas import FormDraft, PortalMe
from gatehouse.applicants.sessions import LinkUnusable, end_session, redeem_link
from gatehouse.applications.examples import DOCUMENT_EXAMPLE, INFO_REQUEST_EXAMPLE
from gatehouse.applications.queries import rows as repo
from gatehouse.applications.schemas import Document, DocumentList, InfoRequest, InfoRequestList
from gatehouse.applications.service import reads as application_reads
from gatehouse.applications.views import info_request_view
from gatehouse.documents import service as documents
from gatehouse.errors import INVALID_ARGUMENT, GatehouseError, invalid_argument
from gatehouse.portal.examples import FORM_EXAMPLE, ME_EXAMPLE, UPLOAD_BODY
from gatehouse.portal.pages import render_link_invalid
from gatehouse.portal.session_http import (
    PortalUser,
    end_session_cookie,
    start_session_cookie,
)
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.browser import check_origin
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep
from gatehouse.web.errors import request_id_of
from gatehouse.web.openapi import Op, nullable
from gatehouse.web.responses import json_response
from gatehouse.web.text import read_form


class _NoStoreRoute(APIRoute):
    """Every answer of these routes is the applicant's own data behind a cookie session, read
    by a browser: `Cache-Control: no-store`, as on the pages (docs/reference/portal.md §1),
    so neither the browser nor a cache between keeps a copy."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def no_store(request: Request) -> Response:
            response = await handler(request)
            response.headers.setdefault("Cache-Control", "no-store")
            return response

        return no_store


router = APIRouter(tags=["portal"], route_class=_NoStoreRoute)


@router.post("/portal/login/{token}", include_in_schema=False)
async def redeem(token: str, request: Request, runtime: RuntimeDep) -> Response:
    """Consume the link, start a session, 303 to the landing page
    (docs/reference/portal.md §3, §4)."""
    check_origin(request, runtime.settings)
    try:
        redemption = await redeem_link(runtime, token, request_id_of(request))
    except LinkUnusable:
        return render_link_invalid(request)
    response = RedirectResponse(redemption.location, status_code=303)
    start_session_cookie(response, runtime, redemption.session_token, redemption.expires_at)
    return response


@router.get("/portal/api/me")
@Op(
    "getPortalMe",
    "The signed-in member and their application",
    {200: PortalMe},
    answer_example=ME_EXAMPLE,
)
async def me(user: PortalUser, runtime: RuntimeDep) -> Response:
    """`{clientId, uid, email, role, status, companyName, submittedAt}`."""
    return json_response(200, await portal_actions.read_me(runtime, user))


@router.post("/portal/api/submit")
@Op(
    "submitApplication",
    "Submit the application (once; repeats change nothing)",
    {200: PortalMe},
    answer_example={**ME_EXAMPLE, "submittedAt": "2026-11-21T16:03:10.512Z"},
)
async def submit(request: Request, user: PortalUser, runtime: RuntimeDep) -> Response:
    """Submit the application (once); answers the `me` shape."""
    async with runtime.db.write() as session:
        result = await portal_actions.submit(session, write_context(request, user), user)
    return json_response(200, result)


@router.post("/portal/api/form", openapi_extra=body_schema(portal_actions.FormBody))
@Op(
    "saveFormDraft",
    "Save the form draft",
    {200: FormDraft},
    body_fields={"fields": {"type": "object", "additionalProperties": True}},
    example=FORM_EXAMPLE,
    answer_example=FORM_EXAMPLE,
)
async def save_form(request: Request, user: PortalUser, runtime: RuntimeDep) -> Response:
    """Save the form draft `{companyName?, fields: {…}}` → 200 `{companyName, fields}`."""
    body = await parse_body(request, portal_actions.FormBody)
    async with runtime.db.write() as session:
        ctx = write_context(request, user)
        result = await portal_actions.save_form_draft(session, ctx, user, body)
    return json_response(200, result)


@router.get("/portal/api/info-requests")
@Op(
    "listPortalInfoRequests",
    "The application's information requests, highest seq first",
    {200: InfoRequestList},
    answer_example={"data": [INFO_REQUEST_EXAMPLE]},
)
async def list_info_requests(user: PortalUser, runtime: RuntimeDep) -> Response:
    """The application's information requests, highest seq first
    (docs/reference/tenant-api.md §2.8 shape)."""
    async with runtime.db.read() as session:
        requests = await repo.info_requests_of(session, user.application_id)
        items = await repo.items_of(session, [r.id for r in requests])
        data = [info_request_view(r, items[r.id]) for r in requests]
    return json_response(200, {"data": data})


@router.post(
    "/portal/api/info-requests/{request_id}/items/{item_id}/answer",
    openapi_extra=body_schema(portal_actions.AnswerBody),
)
@Op(
    "answerInfoRequestItem",
    "Answer an item (a document item may name an uploaded documentId)",
    {200: InfoRequest},
    errors=(410,),
    body_fields={
        "answer": nullable({"type": "string", "maxLength": 10000}),
        "documentId": nullable({"type": "string", "minLength": 1}),
    },
    example={"answer": "Our registered office moved in May."},
    answer_example=INFO_REQUEST_EXAMPLE,
)
async def answer(
    request_id: str, item_id: str, request: Request, user: PortalUser, runtime: RuntimeDep
) -> Response:
    """Answer an item `{answer}` (document items: `{documentId}` too) → 200 request."""
    body = await parse_body(request, portal_actions.AnswerBody)
    async with runtime.db.write() as session:
        result = await portal_actions.answer_item(
            session,
            write_context(request, user),
            user,
            request_id=request_id,
            item_id=item_id,
            body=body,
        )
    return json_response(200, result)


@router.get("/portal/api/documents")
@Op(
    "listPortalDocuments",
    "Metadata of the application's uploads",
    {200: DocumentList},
    answer_example={"data": [DOCUMENT_EXAMPLE]},
)
async def list_documents(user: PortalUser, runtime: RuntimeDep) -> Response:
    """Metadata of the application's uploaded documents."""
    async with runtime.db.read() as session:
        rows = await application_reads.documents_of(session, user.application_id)
    return json_response(200, {"data": [application_reads.document_view(d) for d in rows]})


@router.post("/portal/api/documents")
@Op(
    "uploadDocument",
    "Upload a document (multipart: type and file)",
    {201: Document},
    errors=(503,),
    body=UPLOAD_BODY,
    body_media="multipart/form-data",
    answer_example=DOCUMENT_EXAMPLE,
)
async def upload_document(request: Request, user: PortalUser, runtime: RuntimeDep) -> Response:
    """Multipart `type` and `file` → 201 document metadata (docs/reference/portal.md §7.7).

    The edge bounds the body as it arrives (UPLOAD_MAX_BYTES and framing); the form parser
    spools the file to disk past 1 MiB, and the documents service reads it from there in
    segments: the upload is never held whole in memory (docs/documents.md §1).
    """
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise invalid_argument(
            "Send multipart/form-data with type and file.", "body", "expected multipart/form-data"
        )
    try:
        form = await read_form(request, max_files=1, max_fields=10)
    except Exception:
        raise GatehouseError(
            INVALID_ARGUMENT,
            "The multipart body is not valid.",
            details=[{"field": "body", "issue": "malformed multipart"}],
        ) from None
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise invalid_argument("file is required.", "file", "missing file")
        result = await documents.receive_upload(
            runtime,
            user,
            request_id_of(request) or None,
            documents.Upload(form.get("type"), upload.content_type, upload.filename, upload.file),
        )
    finally:
        await form.close()
    return json_response(201, result)


@router.post("/portal/api/logout")
@Op(
    "endPortalSession",
    "End the portal session (sign out)",
    {204: None},
    ok_descriptions={204: "Signed out."},
)
async def logout(user: PortalUser, runtime: RuntimeDep) -> Response:
    """End the session on the server → 204; the cookie is cleared."""
    await end_session(runtime, user)
    response = json_response(204, None)
    end_session_cookie(response, runtime)
    return response
