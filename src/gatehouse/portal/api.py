"""The applicant portal's JSON routes and link redemption (CONTRACT §5, §6).

`POST /portal/login/{token}` consumes a sign-in link and starts the cookie
session (the GET interstitial belongs to the pages). The `/portal/api/*`
routes act for the session's member through `PortalUser`; errors use the
standard body.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.datastructures import UploadFile
from starlette.responses import HTMLResponse, RedirectResponse, Response

from gatehouse.dashboard.rendering import PAGE_HEADERS, TEMPLATES_DIR, render
from gatehouse.http.auth import runtime_of
from gatehouse.http.body import body_schema, parse_body
from gatehouse.http.dependencies import RuntimeDep
from gatehouse.http.errors import INVALID_ARGUMENT, ApiError, invalid_argument, request_id_of
from gatehouse.http.responses import json_response
from gatehouse.services import application_reads, documents, portal_actions
from gatehouse.services import applications_repo as repo
from gatehouse.services.portal_sessions import (
    SESSION_COOKIE,
    LinkUnusable,
    PortalUser,
    check_origin,
    cookie_is_secure,
    end_session,
    redeem_link,
)
from gatehouse.services.views import info_request_view

router = APIRouter(tags=["portal"])

LINK_INVALID_TEMPLATE = "portal/link_invalid.html"
# Multipart framing around the file: room for the `type` field and boundaries.
MULTIPART_OVERHEAD = 64 * 1024

_LINK_INVALID_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Link no longer valid</title></head>
<body><main><h1>This link is no longer valid</h1>
<p>Sign-in links work once and only for a limited time.</p>
<p>Go back to the service that sent you here and ask for a new link.</p></main></body></html>
"""


def _link_invalid(request: Request) -> Response:
    """410 with a page that does not say why (used, expired, revoked or locked)."""
    if (TEMPLATES_DIR / LINK_INVALID_TEMPLATE).is_file():
        return render(request, LINK_INVALID_TEMPLATE, {"me": None}, status_code=410)
    return HTMLResponse(_LINK_INVALID_HTML, status_code=410, headers=PAGE_HEADERS)


@router.post("/portal/login/{token}", include_in_schema=False)
async def redeem(token: str, request: Request, runtime: RuntimeDep) -> Response:
    """Consume the link, start a session, 303 to the landing page (CONTRACT §5)."""
    check_origin(request, runtime.settings)
    try:
        redemption = await redeem_link(runtime, token, request_id_of(request))
    except LinkUnusable:
        return _link_invalid(request)
    response = RedirectResponse(redemption.location, status_code=303)
    response.headers["Cache-Control"] = "no-store"
    response.set_cookie(
        SESSION_COOKIE,
        redemption.session_token,
        max_age=int((redemption.expires_at - runtime.now()).total_seconds()),
        path="/portal",
        secure=cookie_is_secure(runtime.settings),
        httponly=True,
        samesite="lax",
    )
    return response


@router.get("/portal/api/me")
async def me(user: PortalUser, runtime: RuntimeDep) -> Response:
    """`{clientId, uid, email, role, status, companyName, submittedAt}`."""
    return json_response(200, await portal_actions.read_me(runtime, user))


@router.post("/portal/api/submit")
async def submit(request: Request, user: PortalUser, runtime: RuntimeDep) -> Response:
    """Submit the application (once); answers the `me` shape."""
    async with runtime.db.write() as session:
        result = await portal_actions.submit(
            session, user, at=runtime.now(), request_id=request_id_of(request)
        )
    return json_response(200, result)


@router.post("/portal/api/form", openapi_extra=body_schema(portal_actions.FormBody))
async def save_form(request: Request, user: PortalUser, runtime: RuntimeDep) -> Response:
    """Save the form draft `{companyName?, fields: {…}}` → 200 `{companyName, fields}`."""
    body = await parse_body(request, portal_actions.FormBody)
    async with runtime.db.write() as session:
        result = await portal_actions.save_form_draft(
            session, user, body, at=runtime.now(), request_id=request_id_of(request)
        )
    return json_response(200, result)


@router.get("/portal/api/info-requests")
async def list_info_requests(user: PortalUser, runtime: RuntimeDep) -> Response:
    """The application's information requests, highest seq first (spec 1 §2.4 shape)."""
    async with runtime.db.read() as session:
        requests = await repo.info_requests_of(session, user.application_id)
        items = await repo.items_of(session, [r.id for r in requests])
        data = [info_request_view(r, items[r.id]) for r in requests]
    return json_response(200, {"data": data})


@router.post(
    "/portal/api/info-requests/{request_id}/items/{item_id}/answer",
    openapi_extra=body_schema(portal_actions.AnswerBody),
)
async def answer(
    request_id: str, item_id: str, request: Request, user: PortalUser, runtime: RuntimeDep
) -> Response:
    """Answer an item `{answer}` (document items: `{documentId}` too) → 200 request."""
    body = await parse_body(request, portal_actions.AnswerBody)
    async with runtime.db.write() as session:
        result = await portal_actions.answer_item(
            session,
            user,
            request_id=request_id,
            item_id=item_id,
            body=body,
            at=runtime.now(),
            service_request_id=request_id_of(request),
        )
    return json_response(200, result)


@router.get("/portal/api/documents")
async def list_documents(user: PortalUser, runtime: RuntimeDep) -> Response:
    """Metadata of the application's uploaded documents."""
    async with runtime.db.read() as session:
        rows = await application_reads.documents_of(session, user.application_id)
    return json_response(200, {"data": [application_reads.document_view(d) for d in rows]})


async def _read_capped_body(request: Request, cap: int, limit: int) -> None:
    """Read the body once, refusing it (413) as soon as it outgrows `cap`."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap:
        raise documents.too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise documents.too_large(limit)
        chunks.append(chunk)
    # Starlette's form parser reads the body from here.
    request._body = b"".join(chunks)


@router.post("/portal/api/documents")
async def upload_document(request: Request, user: PortalUser) -> Response:
    """Multipart `type` and `file` → 201 document metadata (CONTRACT §5)."""
    runtime = runtime_of(request)
    limit = runtime.settings.upload_max_bytes
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise invalid_argument(
            "Send multipart/form-data with type and file.", "body", "expected multipart/form-data"
        )
    await _read_capped_body(request, limit + MULTIPART_OVERHEAD, limit)
    try:
        form = await request.form(max_files=1, max_fields=10)
    except Exception:
        raise ApiError(
            INVALID_ARGUMENT,
            "The multipart body is not valid.",
            details=[{"field": "body", "issue": "malformed multipart"}],
        ) from None
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise invalid_argument("file is required.", "file", "missing file")
        content = await upload.read(limit + 1)
        document_type, media = documents.check_upload(
            form.get("type"), upload.content_type, len(content), limit
        )
        filename = upload.filename
    finally:
        await form.close()
    async with runtime.db.write() as session:
        result = await documents.store_document(
            session,
            user,
            document_type=document_type,
            content_type=media,
            filename=filename,
            content=content,
            at=runtime.now(),
            request_id=request_id_of(request),
        )
    return json_response(201, result)


@router.post("/portal/api/logout")
async def logout(user: PortalUser, runtime: RuntimeDep) -> Response:
    """End the session on the server → 204; the cookie is cleared."""
    await end_session(runtime, user)
    response = json_response(204, None)
    response.delete_cookie(
        SESSION_COOKIE,
        path="/portal",
        secure=cookie_is_secure(runtime.settings),
        httponly=True,
        samesite="lax",
    )
    return response
