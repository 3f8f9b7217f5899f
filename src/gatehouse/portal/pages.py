"""The applicant portal's pages (issue 6; CONTRACT §5).

`GET /portal/login/{token}` shows a Continue button that posts to the same
URL and consumes nothing (the POST, in `portal/api.py`, redeems the link).
The five pages named by redirectPath act for the session's member through
the same session check as the JSON routes; their forms post here, carry the
session's CSRF token, and call the portal services.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from starlette.datastructures import FormData, UploadFile
from starlette.responses import Response

from gatehouse.dashboard.rendering import render, see_other
from gatehouse.http.auth import runtime_of
from gatehouse.http.errors import ApiError, request_id_of
from gatehouse.portal import page_data
from gatehouse.services import documents, portal_actions
from gatehouse.services.portal_sessions import (
    SESSION_COOKIE,
    PortalContext,
    cookie_is_secure,
    end_session,
    landing_path,
    portal_user,
)

router = APIRouter(include_in_schema=False)

LINK_INVALID_TEMPLATE = "portal/link_invalid.html"
# Multipart framing around an uploaded file.
MULTIPART_OVERHEAD = 64 * 1024

_NOTICES = {
    "saved": "Your draft is saved.",
    "submitted": "Thank you. Your application is submitted.",
    "uploaded": "Thank you. Your file is uploaded.",
    "answered": "Thank you. Your answer is sent.",
}


def render_link_invalid(request: Request) -> Response:
    """410: a used, expired, revoked or locked link; the page never says which."""
    return render(request, LINK_INVALID_TEMPLATE, {"me": None}, status_code=410)


@router.get("/portal/login/{token}")
async def login_interstitial(request: Request, token: str) -> Response:
    """A page with a Continue button; link scanners that GET it consume nothing.

    A link that can no longer be used answers the same 410 page as the POST."""
    if not await page_data.link_usable(runtime_of(request), token):
        return render_link_invalid(request)
    return render(request, "portal/login.html", {"me": None, "token": token})


async def _user(request: Request) -> PortalContext | Response:
    """The session's member, or the page to show instead (401 signed out, 403 no access)."""
    try:
        return await portal_user(request)
    except ApiError as error:
        if error.status_code == 401:
            heading = "You are signed out"
            message = (
                "Open the sign-in link you were given again, or ask the service that "
                "sent it for a new one."
            )
        else:
            heading = "Access is not available"
            message = error.message
        return render(
            request,
            "portal/signed_out.html",
            {"me": None, "heading": heading, "message": message},
            status_code=error.status_code,
        )


def _csrf_ok(form: FormData, user: PortalContext) -> bool:
    sent = form.get("csrf_token")
    return isinstance(sent, str) and hmac.compare_digest(sent.encode(), user.csrf_token.encode())


def _csrf_refused(request: Request) -> Response:
    return render(
        request,
        "portal/signed_out.html",
        {
            "me": None,
            "heading": "The form expired",
            "message": "Go back, reload the page and try again.",
        },
        status_code=403,
    )


async def _page(
    request: Request,
    user: PortalContext,
    template: str,
    section: str,
    title: str,
    *,
    status_code: int = 200,
    **extra: Any,
) -> Response:
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        view = await page_data.load_view(session, user, with_documents=section == "documents")
        context: dict[str, Any] = {
            "me": view.me,
            "view": view,
            "section": section,
            "title": title,
            "plain_status": view.plain_status,
            "status_title": view.status_title,
            "notice": _NOTICES.get(request.query_params.get("done") or ""),
            "errors": {},
            "values": {},
        }
        if section == "status":
            context["latest_comment"] = await page_data.latest_comment(session, user.application_id)
            context["rejection_reason"] = view.me.rejection_reason
        if section == "form":
            context["fields"] = await page_data.form_fields_of(session, view.application)
            context["values"] = page_data.form_values(view.application)
    if section in ("dashboard", "documents"):
        uploads = page_data.uploads_by_type(view.documents)
        context["checklist"] = [
            {**item, "uploads": uploads.get(str(item.get("key")), [])} for item in view.checklist
        ]
        context["owed"] = view.owed()
        context["satisfied_required"] = view.satisfied_required
        context["total_required"] = len(view.required_items)
    if section == "requests":
        context["requests"] = view.requests
    context.update(extra)
    return render(request, template, context, status_code=status_code)


@router.get("/portal")
async def portal_home(request: Request) -> Response:
    user = await _user(request)
    if isinstance(user, Response):
        return user
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        view = await page_data.load_view(session, user, with_checklist=False)
    return see_other(landing_path(view.application, None))


# The five pages a `redirectPath` can name (spec 1 §4.2): template, nav key, title.
_STATE_PAGES = {
    "/portal/dashboard": ("portal/dashboard.html", "dashboard", "Overview"),
    "/portal/status": ("portal/status.html", "status", "Status"),
    "/portal/requests": ("portal/requests.html", "requests", "Requests"),
    "/portal/upload-documents": ("portal/upload_documents.html", "documents", "Documents"),
    "/portal/form-parser": ("portal/form.html", "form", "Application form"),
}


def _state_page(template: str, nav: str, title: str) -> Callable[[Request], Awaitable[Response]]:
    async def page(request: Request) -> Response:
        user = await _user(request)
        if isinstance(user, Response):
            return user
        return await _page(request, user, template, nav, title)

    return page


for _path, (_template, _nav, _title) in _STATE_PAGES.items():
    router.add_api_route(_path, _state_page(_template, _nav, _title), methods=["GET"])


async def _posted(
    request: Request, *, upload_limit: int = 0
) -> tuple[PortalContext, FormData] | Response:
    """The member and the posted form, once the session, origin and CSRF token pass."""
    user = await _user(request)
    if isinstance(user, Response):
        return user
    if upload_limit:
        too_big = await _cap_body(request, upload_limit + MULTIPART_OVERHEAD)
        if too_big:
            return await _page(
                request,
                user,
                "portal/upload_documents.html",
                "documents",
                "Documents",
                status_code=413,
                problem=f"The file is larger than {upload_limit} bytes.",
            )
    form = await request.form(max_files=1, max_fields=300)
    if not _csrf_ok(form, user):
        return _csrf_refused(request)
    return user, form


async def _cap_body(request: Request, cap: int) -> bool:
    """Read the body once; True when it outgrows `cap` (nothing is stored then)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap:
        return True
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            return True
        chunks.append(chunk)
    request._body = b"".join(chunks)  # Starlette's form parser reads it from here
    return False


@router.post("/portal/form-parser")
async def save_form(request: Request) -> Response:
    posted = await _posted(request)
    if isinstance(posted, Response):
        return posted
    user, form = posted
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        view = await page_data.load_view(session, user, with_checklist=False)
        fields = await page_data.form_fields_of(session, view.application)
    values: dict[str, Any] = {}
    for entry in fields:
        name = f"field.{entry['key']}"
        if entry.get("type") == "checkbox":
            values[entry["key"]] = form.get(name) == "yes"
        else:
            raw = form.get(name)
            text = raw.strip() if isinstance(raw, str) else ""
            values[entry["key"]] = text or None
    company = form.get("companyName")
    body = portal_actions.FormBody(
        companyName=company if isinstance(company, str) else None, fields=values
    )
    try:
        async with runtime.db.write() as session:
            await portal_actions.save_form_draft(
                session, user, body, at=runtime.now(), request_id=request_id_of(request)
            )
    except ApiError as error:
        errors = {
            (d.get("field") or "form"): d.get("issue") or error.message
            for d in error.details or [{"field": "form", "issue": error.message}]
        }
        return await _page(
            request,
            user,
            "portal/form.html",
            "form",
            "Application form",
            status_code=error.status_code,
            errors=errors,
            problem=error.message,
        )
    return see_other("/portal/form-parser?done=saved")


@router.post("/portal/submit")
async def submit(request: Request) -> Response:
    """The explicit, confirmed submit: the box must be ticked and the draft complete."""
    posted = await _posted(request)
    if isinstance(posted, Response):
        return posted
    user, form = posted
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        view = await page_data.load_view(session, user, with_checklist=False)
        fields = await page_data.form_fields_of(session, view.application)
    errors = page_data.missing_required(fields, view.application)
    if form.get("confirm") != "yes":
        errors["confirm"] = "Tick the box to confirm before you submit."
    if errors and view.application.submitted_at is None:
        return await _page(
            request,
            user,
            "portal/form.html",
            "form",
            "Application form",
            status_code=400,
            errors=errors,
            problem="Your application is not submitted yet: see the fields marked below.",
        )
    try:
        async with runtime.db.write() as session:
            await portal_actions.submit(
                session, user, at=runtime.now(), request_id=request_id_of(request)
            )
    except ApiError as error:
        return await _page(
            request,
            user,
            "portal/form.html",
            "form",
            "Application form",
            status_code=error.status_code,
            problem=error.message,
        )
    return see_other("/portal/status?done=submitted")


async def _store_upload(
    request: Request, user: PortalContext, document_type: object, upload: object
) -> str:
    """Store one uploaded file through the documents service; its documentId."""
    runtime = runtime_of(request)
    limit = runtime.settings.upload_max_bytes
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise ApiError((400, "invalid-argument"), "Choose a file to upload.")
    content = await upload.read(limit + 1)
    doc_type, media = documents.check_upload(
        document_type, upload.content_type, len(content), limit
    )
    async with runtime.db.write() as session:
        stored = await documents.store_document(
            session,
            user,
            document_type=doc_type,
            content_type=media,
            filename=upload.filename,
            content=content,
            at=runtime.now(),
            request_id=request_id_of(request),
        )
    return str(stored["documentId"])


@router.post("/portal/upload-documents")
async def upload_document(request: Request) -> Response:
    runtime = runtime_of(request)
    posted = await _posted(request, upload_limit=runtime.settings.upload_max_bytes)
    if isinstance(posted, Response):
        return posted
    user, form = posted
    document_type = form.get("type")
    try:
        await _store_upload(request, user, document_type, form.get("file"))
    except ApiError as error:
        key = document_type if isinstance(document_type, str) else ""
        return await _page(
            request,
            user,
            "portal/upload_documents.html",
            "documents",
            "Documents",
            status_code=error.status_code,
            errors={key: {"file": error.message}},
        )
    finally:
        await form.close()
    return see_other("/portal/upload-documents?done=uploaded")


# Uploads that answer a document item of an information request.
REQUESTED_DOCUMENT_TYPE = "requested_document"


@router.post("/portal/requests/{request_id}/items/{item_id}")
async def answer_item(request: Request, request_id: str, item_id: str) -> Response:
    runtime = runtime_of(request)
    posted = await _posted(request, upload_limit=runtime.settings.upload_max_bytes)
    if isinstance(posted, Response):
        return posted
    user, form = posted
    answer = form.get("answer")
    try:
        document_id = None
        if "file" in form:
            document_id = await _store_upload(
                request, user, REQUESTED_DOCUMENT_TYPE, form.get("file")
            )
        body = portal_actions.AnswerBody(
            answer=answer if isinstance(answer, str) and document_id is None else None,
            documentId=document_id,
        )
        async with runtime.db.write() as session:
            await portal_actions.answer_item(
                session,
                user,
                request_id=request_id,
                item_id=item_id,
                body=body,
                at=runtime.now(),
                service_request_id=request_id_of(request),
            )
    except ApiError as error:
        field = "file" if "file" in form else "answer"
        return await _page(
            request,
            user,
            "portal/requests.html",
            "requests",
            "Requests",
            status_code=error.status_code,
            errors={item_id: {field: error.message}},
            values={item_id: answer if isinstance(answer, str) else ""},
        )
    finally:
        await form.close()
    return see_other("/portal/requests?done=answered")


@router.post("/portal/sign-out")
async def sign_out(request: Request) -> Response:
    posted = await _posted(request)
    if isinstance(posted, Response):
        return posted
    user, _form = posted
    runtime = runtime_of(request)
    await end_session(runtime, user)
    response = render(
        request,
        "portal/signed_out.html",
        {
            "me": None,
            "heading": "You are signed out",
            "message": "To come back, open a new sign-in link from the service that sent you.",
        },
    )
    response.delete_cookie(
        SESSION_COOKIE,
        path="/portal",
        secure=cookie_is_secure(runtime.settings),
        httponly=True,
        samesite="lax",
    )
    return response
