"""What an applicant does in the portal (docs/reference/portal.md §7): read `me`, save the
form draft, submit, and answer an information-request item.

Every write re-reads the application under its row lock and re-checks
access, so a lock or erasure that lands between the session check and the
write still refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import applications
from gatehouse.applicants.schemas import FormDraft, PortalMe, me_view
from gatehouse.applicants.sessions import PortalContext
from gatehouse.applications import InfoRequest as InfoRequestView
from gatehouse.audit.context import WriteContext
from gatehouse.domain import events
from gatehouse.domain import info_requests as rules
from gatehouse.domain.normalize import cut_text
from gatehouse.domain.status import EVENT_SUBMITTED, InvalidInput
from gatehouse.errors import permission_denied
from gatehouse.info_requests import load_request, record_answer
from gatehouse.runtime import Runtime
from gatehouse.screening import request_screening
from gatehouse.storage.tables.applications import Application, Document
from gatehouse.webhooks import publish

MAX_FORM_FIELDS = 200
MAX_FIELD_KEY = 100
MAX_FIELD_VALUE = 10000


class AnswerBody(BaseModel):
    """`POST /portal/api/info-requests/{requestId}/items/{itemId}/answer` body."""

    answer: Any = None
    documentId: Any = None


class FormBody(BaseModel):
    """`POST /portal/api/form` body: `{companyName?, fields: {…}}`."""

    companyName: str | None = None
    fields: Any = None


async def _locked_application(session: AsyncSession, context: PortalContext) -> Application:
    application = await applications.application_by_id(
        session, context.application_id, for_update=True
    )
    if application is None or application.erased_at is not None or application.locked:
        raise permission_denied("Access to this application is not available.")
    return application


async def read_me(runtime: Runtime, context: PortalContext) -> PortalMe:
    """`GET /portal/api/me`."""
    async with runtime.db.read() as session:
        application = await session.get(Application, context.application_id)
        if application is None:
            raise permission_denied("Access to this application is not available.")
        return me_view(application, context)


async def submit(session: AsyncSession, ctx: WriteContext, context: PortalContext) -> PortalMe:
    """`POST /portal/api/submit`: sets submittedAt once; application.submitted is
    emitted only when submission goes from not true to true; the status stays
    (docs/reference/portal.md §7.2)."""
    application = await _locked_application(session, context)
    if application.submitted_at is None:
        await mark_submitted(session, ctx, application)
    await session.flush()
    return me_view(application, context)


async def mark_submitted(
    session: AsyncSession, ctx: WriteContext, application: Application
) -> None:
    """Submission of a (row-locked) application not yet submitted: `submittedAt`, the
    application.submitted event and the audit entry. Shared by the portal and the sandbox's
    simulated applicant (docs/sandbox.md)."""
    application.submitted_at = ctx.now
    application.updated_at = ctx.now
    await publish(
        session,
        tenant_id=application.tenant_id,
        event_type=EVENT_SUBMITTED,
        occurred_at=ctx.now,
        data=events.submitted(application.status),
        application=application,
    )
    ctx.audit(session, "application.submit", application.id, application.id)
    await request_screening(session, application.id, "submitted", now=ctx.now)


def _clean_fields(fields: object) -> dict[str, Any]:
    if not isinstance(fields, dict):
        raise InvalidInput("fields must be an object.", field="fields")
    if len(fields) > MAX_FORM_FIELDS:
        raise InvalidInput(f"fields holds at most {MAX_FORM_FIELDS} entries.", field="fields")
    cleaned: dict[str, Any] = {}
    for key, value in fields.items():
        if not key or len(key) > MAX_FIELD_KEY:
            raise InvalidInput("Field names are 1 to 100 characters.", field="fields")
        if value is not None and not isinstance(value, str | int | float | bool):
            raise InvalidInput(
                f"Field {key} must be a string, number or boolean.", field=f"fields.{key}"
            )
        if isinstance(value, str) and len(value) > MAX_FIELD_VALUE:
            raise InvalidInput(f"Field {key} is too long.", field=f"fields.{key}")
        cleaned[key] = value
    return cleaned


async def save_form_draft(
    session: AsyncSession, ctx: WriteContext, context: PortalContext, body: FormBody
) -> FormDraft:
    """Save the form draft: given fields replace stored ones, a null value
    clears one; a nonempty `companyName` renames the company."""
    fields = _clean_fields(body.fields if body.fields is not None else {})
    application = await _locked_application(session, context)
    merged = dict(application.form_data or {})
    for key, value in fields.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    application.form_data = merged
    company = cut_text(body.companyName)
    if company:
        application.company_name = company
    application.updated_at = ctx.now
    ctx.audit(session, "application.form.save", application.id, application.id)
    # The risk rules read the answers; the screening runs again only when a screened
    # name, birth date or nationality changed (docs/screening.md).
    await request_screening(session, application.id, "answers_changed", force=False, now=ctx.now)
    await session.flush()
    return {"companyName": application.company_name, "fields": merged}


async def answer_item(
    session: AsyncSession,
    ctx: WriteContext,
    context: PortalContext,
    *,
    request_id: str,
    item_id: str,
    body: AnswerBody,
    drafts: Mapping[str, str] | None = None,
) -> InfoRequestView:
    """Answer one item; a document item may name an uploaded `documentId` instead
    of (or beside) a text answer; `drafts` (item id → text) are the page's other items, kept
    as drafts. Returns the request (docs/reference/tenant-api.md §2.8 shape)."""
    loaded = await load_request(session, request_id, application_id=context.application_id)
    if loaded.application.locked:
        raise permission_denied("Access to this application is not available.")
    item = loaded.item(item_id)
    document_id = rules.document_reference(body.documentId)
    if document_id is not None and item.type != "document":
        raise InvalidInput("Only a document item takes a documentId.", field="documentId")
    if document_id is None or body.answer is not None:
        answer: str | None = rules.check_answer(body.answer)
    else:
        answer = None
    if document_id is not None:
        document = await session.get(Document, document_id)
        if document is None or document.application_id != context.application_id:
            raise InvalidInput("No uploaded document with this documentId.", field="documentId")
    answered = await record_answer(
        session, ctx, loaded, item, answer=answer, document_id=document_id
    )
    item.draft = None
    if drafts:
        await keep_drafts(session, context, drafts)
    return answered


async def keep_drafts(
    session: AsyncSession, context: PortalContext, drafts: Mapping[str, str]
) -> None:
    """Keep what the applicant typed in other items of their application and has not sent
    (docs/reference/portal.md "Drafts"): items still owed get the text (trimmed, cut to the
    longest answer; empty clears it); any other item id is ignored."""
    for item in await applications.owed_items(session, context.application_id, list(drafts)[:100]):
        text = drafts[item.id].strip()[: rules.MAX_ANSWER]
        item.draft = text or None
