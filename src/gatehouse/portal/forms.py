"""The applicant portal's form posts (docs/reference/portal.md §7; docs/portal-and-dashboard.md).

Every post acts for the session's member, carries the session's CSRF token and calls one
portal service; a refusal shows the page the form is on again, with every value the
applicant typed, the refusal beside the field at fault, a summary linking to it, and the
focus on it (`_form_post`). Messages are the applicant's words in their language
(`portal/texts.py`), never a service's English text.

The application form is one form (docs/reference/portal.md, "The application form"):
`intent=save` saves the draft, `intent=submit` saves it and then submits, and
`intent=autosave` (the page's script, as the applicant types) saves and answers 204.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from starlette.datastructures import FormData, UploadFile
from starlette.responses import Response

from gatehouse import applicants, documents
from gatehouse.accounts import portal_branding
from gatehouse.applicants import PortalContext, end_session
from gatehouse.domain.info_requests import ItemState
from gatehouse.domain.numbers import decimal_or_none
from gatehouse.errors import (
    FAILED_PRECONDITION,
    INVALID_ARGUMENT,
    PAYLOAD_TOO_LARGE,
    GatehouseError,
)
from gatehouse.portal import texts
from gatehouse.portal.locale import gettext_for
from gatehouse.portal.pages import (
    REFUSED_SUBMIT,
    STATE_PAGES,
    member_or_page,
    render_page,
    render_signed_out,
)
from gatehouse.portal.session_http import end_session_cookie
from gatehouse.runtime import Runtime
from gatehouse.sandbox import is_sandbox_tenant
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.errors import request_id_of
from gatehouse.web.rendering import see_other
from gatehouse.web.text import read_form

router = APIRouter(include_in_schema=False)

# Multipart framing around an uploaded file. Less than the edge's UPLOAD_FRAMING
# (web/edge_request.py): a declared length over this reaches the check in `_posted` unread,
# however large it is, and gets the page's own 413.
MULTIPART_OVERHEAD = 64 * 1024
# Uploads that answer a document item of an information request.
REQUESTED_DOCUMENT_TYPE = "requested_document"
ANSWERED_ITEM_STATES = frozenset({ItemState.ANSWERED, ItemState.ACCEPTED})

FORM_PAGE = STATE_PAGES["/portal/form-parser"]
DOCUMENTS_PAGE = STATE_PAGES["/portal/upload-documents"]
REQUESTS_PAGE = STATE_PAGES["/portal/requests"]


def _csrf_ok(form: FormData, user: PortalContext) -> bool:
    sent = form.get("csrf_token")
    return isinstance(sent, str) and hmac.compare_digest(sent.encode(), user.csrf_token.encode())


def _csrf_refused(request: Request) -> Response:
    return render_signed_out(request, texts.FORM_EXPIRED, texts.FORM_EXPIRED_HELP, status_code=403)


Run = Callable[[PortalContext, FormData], Awaitable[Response]]
# What a page shows of a refusal: extra template context (errors, problem, values).
Refusal = Callable[[GatehouseError, FormData], dict[str, Any]]


def _too_large() -> GatehouseError:
    return GatehouseError(
        PAYLOAD_TOO_LARGE,
        "The file is too large.",
        details=[{"field": "file", "issue": "too large"}],
    )


async def _posted(
    request: Request,
    *,
    upload_limit: int = 0,
    page: tuple[str, str, str] = DOCUMENTS_PAGE,
    refused: Refusal | None = None,
) -> tuple[PortalContext, FormData] | Response:
    """The member and the posted form, once the session, origin and CSRF token pass."""
    user = await member_or_page(request)
    if isinstance(user, Response):
        return user
    if upload_limit:
        # A declared length over the limit is refused before anything is read; otherwise the
        # edge counts the body as it streams in, and the form parser spools the file to disk.
        # Nothing of the form is known then: the page it came from says so, beside the
        # field when the address names it (an item's file), else at the top.
        declared = decimal_or_none(request.headers.get("content-length", ""))
        if declared is not None and declared > upload_limit + MULTIPART_OVERHEAD:
            extra = refused(_too_large(), FormData()) if refused is not None else {}
            extra.setdefault("problem", gettext_for(request)(texts.FILE_TOO_LARGE))
            return await render_page(request, user, page, status_code=413, **extra)
    form = await read_form(request, max_files=1, max_fields=300)
    if not _csrf_ok(form, user):
        return _csrf_refused(request)
    return user, form


async def _form_post(
    request: Request,
    page: tuple[str, str, str],
    run: Run,
    refused: Refusal,
    *,
    upload_limit: int = 0,
) -> Response:
    """Check the member and the form, run the action; a refusal shows `page` again with
    the refusal's status code and what `refused` makes of it."""
    posted = await _posted(request, upload_limit=upload_limit, page=page, refused=refused)
    if isinstance(posted, Response):
        return posted
    user, form = posted
    try:
        return await run(user, form)
    except GatehouseError as error:
        return await render_page(
            request, user, page, status_code=error.status_code, **refused(error, form)
        )
    finally:
        await form.close()


def _text_of(form: FormData, name: str) -> str:
    raw = form.get(name)
    return raw if isinstance(raw, str) else ""


def _form_values(form: FormData, fields: list[dict[str, Any]]) -> dict[str, Any]:
    """The intake's fields as the form posted them (what the draft stores)."""
    values: dict[str, Any] = {}
    for entry in fields:
        name = f"field.{entry['key']}"
        if entry.get("type") == "checkbox":
            values[entry["key"]] = form.get(name) == "yes"
        else:
            values[entry["key"]] = _text_of(form, name).strip() or None
    return values


def _typed(form: FormData, fields: list[dict[str, Any]]) -> dict[str, Any]:
    """Every value as the applicant typed it, keyed as the form names its inputs."""
    typed: dict[str, Any] = {"companyName": _text_of(form, "companyName")}
    for entry in fields:
        name = f"field.{entry['key']}"
        typed[name] = (
            form.get(name) == "yes" if entry.get("type") == "checkbox" else _text_of(form, name)
        )
    typed["confirm"] = form.get("confirm") == "yes"
    return typed


def _missing(fields: list[dict[str, Any]], typed: dict[str, Any]) -> list[str]:
    """The inputs a submission needs that the form leaves empty, in the page's order."""
    names = ["companyName"] + [f"field.{e['key']}" for e in fields if e.get("required")]
    missing = []
    for name in names:
        value = typed.get(name)
        if not (value.strip() if isinstance(value, str) else value):
            missing.append(name)
    return missing


@router.post("/portal/form-parser")
async def save_form(request: Request) -> Response:
    """Save the draft; with `intent=submit`, then submit it (the one form of the page)."""
    runtime = runtime_of(request)
    say = gettext_for(request)
    posted = await _posted(request)
    if isinstance(posted, Response):
        return posted
    user, form = posted
    intent = _text_of(form, "intent") or "save"
    async with runtime.db.read() as session:
        view = await applicants.load_view(session, user, with_checklist=False)
        fields = await applicants.form_fields_of(session, view.application)
    typed = _typed(form, fields)
    body = applicants.FormBody(
        companyName=_text_of(form, "companyName") or None, fields=_form_values(form, fields)
    )
    try:
        async with runtime.db.write() as session:
            ctx = write_context(request, user)
            await applicants.save_form_draft(session, ctx, user, body)
    except GatehouseError as error:
        if intent == "autosave":
            return Response(status_code=error.status_code)
        field = error.field or "form"
        name = "field." + field.removeprefix("fields.") if field.startswith("fields.") else field
        return await render_page(
            request,
            user,
            FORM_PAGE,
            status_code=error.status_code,
            errors={name: say(texts.refusal(error))},
            values=typed,
            problem=say(texts.NOT_SAVED),
        )
    if intent == "autosave":
        return Response(status_code=204)
    if intent != "submit":
        return see_other("/portal/form-parser?done=saved")
    if view.application.submitted_at is None and (_missing(fields, typed) or not typed["confirm"]):
        # The draft is saved: the page says what is missing from it after a redirect, so a
        # reload never posts this form again over what autosave stores later.
        return see_other(REFUSED_SUBMIT + ("&confirm=yes" if typed["confirm"] else ""))
    try:
        async with runtime.db.write() as session:
            await applicants.submit(session, write_context(request, user), user)
    except GatehouseError as error:
        return await render_page(
            request,
            user,
            FORM_PAGE,
            status_code=error.status_code,
            values=typed,
            problem=say(texts.refusal(error)),
        )
    return see_other("/portal/status?done=submitted")


@router.post("/portal/submit")
async def submit(request: Request) -> Response:
    """Submit the saved draft, confirmed (the form page's own button saves first)."""
    runtime = runtime_of(request)
    say = gettext_for(request)

    async def run(user: PortalContext, form: FormData) -> Response:
        async with runtime.db.read() as session:
            view = await applicants.load_view(session, user, with_checklist=False)
            fields = await applicants.form_fields_of(session, view.application)
        confirmed = form.get("confirm") == "yes"
        missing = applicants.missing_required(fields, view.application)
        if view.application.submitted_at is None and (missing or not confirmed):
            return see_other(REFUSED_SUBMIT + ("&confirm=yes" if confirmed else ""))
        async with runtime.db.write() as session:
            await applicants.submit(session, write_context(request, user), user)
        return see_other("/portal/status?done=submitted")

    def refused(error: GatehouseError, form: FormData) -> dict[str, Any]:
        return {"problem": say(texts.refusal(error))}

    return await _form_post(request, FORM_PAGE, run, refused)


async def _store_upload(
    request: Request, user: PortalContext, document_type: object, upload: object
) -> str:
    """Store one uploaded file through the documents service; its documentId."""
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise GatehouseError(
            INVALID_ARGUMENT,
            "Choose a file to upload.",
            details=[{"field": "file", "issue": "missing file"}],
        )
    stored = await documents.receive_upload(
        runtime_of(request),
        user,
        request_id_of(request) or None,
        documents.Upload(document_type, upload.content_type, upload.filename, upload.file),
    )
    return str(stored["documentId"])


@router.post("/portal/upload-documents")
async def upload_document(request: Request) -> Response:
    say = gettext_for(request)

    async def run(user: PortalContext, form: FormData) -> Response:
        await _store_upload(request, user, form.get("type"), form.get("file"))
        return see_other("/portal/upload-documents?done=uploaded")

    def refused(error: GatehouseError, form: FormData) -> dict[str, Any]:
        key = _text_of(form, "type")
        if not key:  # refused before the form was read: no item to point at
            return {"problem": say(texts.refusal(error))}
        return {"errors": {key: {"file": say(texts.refusal(error))}}}

    limit = runtime_of(request).settings.upload_max_bytes
    return await _form_post(request, DOCUMENTS_PAGE, run, refused, upload_limit=limit)


# The requests page is one form (docs/reference/portal.md "Drafts"): each item's text is
# `answer.<itemId>` and its file `file.<itemId>`; each item's button posts the whole form to the
# item's address, so what was typed in the other items travels along and is kept as drafts.
ANSWER_PREFIX, FILE_PREFIX = "answer.", "file."


def _drafts(form: FormData, answered: str) -> dict[str, str]:
    """The other items' texts the page posted, by item id."""
    return {
        name.removeprefix(ANSWER_PREFIX): value
        for name, value in form.multi_items()
        if name.startswith(ANSWER_PREFIX)
        and isinstance(value, str)
        and name != ANSWER_PREFIX + answered
    }


async def _answered(runtime: Runtime, user: PortalContext, item_id: str) -> bool:
    """Whether the item is answered (or accepted) already, on one of the member's requests."""
    async with runtime.db.read() as session:
        view = await applicants.load_view(session, user, with_checklist=False)
    return any(
        item.id == item_id and item.status in ANSWERED_ITEM_STATES
        for entry in view.requests
        for item in entry.items
    )


@router.post("/portal/requests/{request_id}/items/{item_id}")
async def answer_item(request: Request, request_id: str, item_id: str) -> Response:
    """An item's answer; a document item's file, with an optional note beside it."""
    runtime = runtime_of(request)
    say = gettext_for(request)

    own_answer, own_file = f"{ANSWER_PREFIX}{item_id}", f"{FILE_PREFIX}{item_id}"

    def answer_of(form: FormData) -> str:
        return _text_of(form, own_answer if own_answer in form else "answer")

    async def run(user: PortalContext, form: FormData) -> Response:
        note = answer_of(form)
        document_id = None
        file_field = own_file if own_file in form else "file"
        if file_field in form:
            document_id = await _store_upload(
                request, user, REQUESTED_DOCUMENT_TYPE, form.get(file_field)
            )
        body = applicants.AnswerBody(
            answer=note if document_id is None or note.strip() else None,
            documentId=document_id,
        )
        try:
            async with runtime.db.write() as session:
                await applicants.answer_item(
                    session,
                    write_context(request, user),
                    user,
                    request_id=request_id,
                    item_id=item_id,
                    body=body,
                    drafts=_drafts(form, item_id),
                )
        except GatehouseError as error:
            # A second tap of the same button arrives after the first answered the item:
            # it reports the same success, never an error over it.
            if error.code != FAILED_PRECONDITION.code or not await _answered(
                runtime, user, item_id
            ):
                raise
        return see_other("/portal/requests?done=answered")

    def refused(error: GatehouseError, form: FormData) -> dict[str, Any]:
        by_file = error.field in ("file", "type", None)
        sent_file = own_file in form or "file" in form
        field = "file" if by_file and (sent_file or error.status_code == 413) else "answer"
        return {
            "errors": {item_id: {field: say(texts.refusal(error))}},
            "values": {**_drafts(form, item_id), item_id: answer_of(form)},
        }

    limit = runtime.settings.upload_max_bytes
    return await _form_post(request, REQUESTS_PAGE, run, refused, upload_limit=limit)


@router.post("/portal/sign-out")
async def sign_out(request: Request) -> Response:
    posted = await _posted(request)
    if isinstance(posted, Response):
        return posted
    user, _form = posted
    runtime = runtime_of(request)
    await end_session(runtime, user)
    response = render_signed_out(
        request,
        texts.SIGNED_OUT,
        texts.SIGNED_OUT_BY_YOU,
        branding=await portal_branding(runtime, user.tenant_id),
        sandbox=await is_sandbox_tenant(runtime, user.tenant_id),
    )
    end_session_cookie(response, runtime)
    return response
