"""Information requests: staff raise, accept, reopen, close, cancel; the applicant
answers (docs/reference/staff-api.md §6.4-§6.6; docs/reference/tenant-api.md §3.3).

Every function runs inside the caller's write transaction with the
application row locked, so the request `seq` and the event `data.sequence`
are allocated safely, and returns the request in the shape of
docs/reference/tenant-api.md §2.8. Each move ends the same way (`_moved`): its
catalogue event, `application.status.changed` when the status moved, the audit entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications import InfoRequest as InfoRequestView
from gatehouse.applications import application_for_write
from gatehouse.audit.context import WriteContext
from gatehouse.cases import publish_status_change
from gatehouse.decisions import add_history
from gatehouse.domain import events
from gatehouse.domain import info_requests as rules
from gatehouse.domain.decisions import needs_info_entry
from gatehouse.domain.principals import StaffPrincipal
from gatehouse.domain.status import (
    NEEDS_INFO,
    REASON_INFO_REQUEST,
    after_info_request_raised,
    after_request_responded,
)
from gatehouse.ids import new_id
from gatehouse.info_requests.queries import LoadedRequest, load_request, other_open_requests
from gatehouse.storage.tables.applications import Application, InfoRequest, InfoRequestItem
from gatehouse.webhooks import publish


def _summaries(items: Sequence[InfoRequestItem]) -> list[events.ItemSummary]:
    ordered = sorted(items, key=lambda item: (item.position, item.id))
    return [events.ItemSummary(i.id, i.type, i.prompt, i.status) for i in ordered]


async def _publish_request_event(
    session: AsyncSession, ctx: WriteContext, loaded: LoadedRequest, event_type: str, previous: str
) -> None:
    application, request = loaded.application, loaded.request
    await publish(
        session,
        tenant_id=application.tenant_id,
        event_type=event_type,
        occurred_at=ctx.now,
        data=events.info_request(
            status=application.status,
            previous_status=previous,
            request_id=request.id,
            request_seq=request.seq,
            round_=request.round,
            comment=request.comment,
            items=_summaries(loaded.items),
        ),
        application=application,
    )


async def _moved(
    session: AsyncSession,
    ctx: WriteContext,
    loaded: LoadedRequest,
    action: str,
    target: str,
    *,
    previous: str | None = None,
    event: str | None = None,
) -> InfoRequestView:
    """The end of every move. A move that settled the application's status gives the
    status it had before as `previous`: then the request's catalogue `event` (if any) and
    `application.status.changed` when the status moved (reason info_request) are published.
    Then the audit entry; returns the request."""
    application = loaded.application
    if previous is not None:
        if event is not None:
            await _publish_request_event(session, ctx, loaded, event, previous)
        await publish_status_change(
            session, application, previous_status=previous, reason=REASON_INFO_REQUEST, at=ctx.now
        )
    ctx.audit(session, action, target, application.id, tenant_id=application.tenant_id)
    await session.flush()
    return loaded.view()


def _needs_info_history(
    session: AsyncSession,
    ctx: WriteContext,
    staff: StaffPrincipal,
    application: Application,
    previous: str,
    comment: str | None,
) -> None:
    entry = needs_info_entry(
        previous, actor_id=staff.staff_id, actor_role=staff.role, comment=comment, at=ctx.now
    )
    add_history(session, application.id, entry)


def _touch(loaded: LoadedRequest, ctx: WriteContext) -> None:
    loaded.request.updated_at = ctx.now
    loaded.application.updated_at = ctx.now


async def raise_request(
    session: AsyncSession,
    ctx: WriteContext,
    staff: StaffPrincipal,
    client_id: str,
    *,
    comment: object,
    items: object,
) -> InfoRequestView:
    """Raise a request: any status → needs_info; events info_request.raised and,
    when the status moved, status.changed with reason info_request
    (docs/reference/staff-api.md §6.4)."""
    application = await application_for_write(session, client_id)
    new = rules.new_request(comment, items)
    application.request_sequence = (application.request_sequence or 0) + 1
    request = InfoRequest(
        id=new_id("ir"),
        application_id=application.id,
        seq=application.request_sequence,
        round=1,
        status=rules.REQUEST_OPEN,
        comment=new.comment,
        created_at=ctx.now,
        updated_at=ctx.now,
    )
    session.add(request)
    rows = [
        InfoRequestItem(
            id=new_id("itm"),
            request_id=request.id,
            position=position,
            type=item.type,
            prompt=item.prompt,
            status=rules.ITEM_OPEN,
        )
        for position, item in enumerate(new.items, start=1)
    ]
    session.add_all(rows)
    previous = application.status
    application.status = after_info_request_raised(previous)
    application.updated_at = ctx.now
    _needs_info_history(session, ctx, staff, application, previous, new.comment)
    loaded = LoadedRequest(application, request, rows)
    return await _moved(
        session,
        ctx,
        loaded,
        "info_request.raise",
        request.id,
        previous=previous,
        event=rules.EVENT_RAISED,
    )


async def accept_item(
    session: AsyncSession,
    ctx: WriteContext,
    staff: StaffPrincipal,
    *,
    request_id: str,
    item_id: str,
) -> InfoRequestView:
    """Staff accept an answered item (docs/reference/staff-api.md §6.5)."""
    loaded = await load_request(session, request_id)
    item = loaded.item(item_id)
    item.status = rules.accept_item(loaded.request.status, item.status)
    _touch(loaded, ctx)
    return await _moved(session, ctx, loaded, "info_request.item.accept", item.id)


async def reopen_item(
    session: AsyncSession,
    ctx: WriteContext,
    staff: StaffPrincipal,
    *,
    request_id: str,
    item_id: str,
) -> InfoRequestView:
    """Staff reopen an item: the request is open again in round + 1 and the
    application moves back to needs_info (docs/reference/staff-api.md §6.5)."""
    loaded = await load_request(session, request_id)
    item = loaded.item(item_id)
    item.status = rules.reopen_item(loaded.request.status, item.status)
    request, application = loaded.request, loaded.application
    request.round = (request.round or 1) + 1
    request.status = rules.derive_status([i.status for i in loaded.items])
    _touch(loaded, ctx)
    previous = application.status
    application.status = NEEDS_INFO
    if previous != NEEDS_INFO:
        _needs_info_history(session, ctx, staff, application, previous, None)
    return await _moved(
        session, ctx, loaded, "info_request.item.reopen", item.id, previous=previous
    )


async def close_request(
    session: AsyncSession, ctx: WriteContext, staff: StaffPrincipal, *, request_id: str
) -> InfoRequestView:
    """Staff close a request; emits application.info_request.closed
    (docs/reference/staff-api.md §6.6)."""
    return await _end_request(session, ctx, request_id, closed=True)


async def cancel_request(
    session: AsyncSession, ctx: WriteContext, staff: StaffPrincipal, *, request_id: str
) -> InfoRequestView:
    """Staff cancel a request (no catalogue event beyond a status change)."""
    return await _end_request(session, ctx, request_id, closed=False)


async def _end_request(
    session: AsyncSession, ctx: WriteContext, request_id: str, *, closed: bool
) -> InfoRequestView:
    """Close (with its catalogue event) or cancel a request. A needs_info application
    that owes nothing more returns to pending."""
    loaded = await load_request(session, request_id)
    request, application = loaded.request, loaded.application
    if closed:
        request.status = rules.close_request(request.status)
        request.closed_at = ctx.now
    else:
        request.status = rules.cancel_request(request.status)
        request.cancelled_at = ctx.now
    _touch(loaded, ctx)
    previous = application.status
    others = await other_open_requests(session, application.id, request.id)
    application.status = after_request_responded(previous, others)
    return await _moved(
        session,
        ctx,
        loaded,
        "info_request.close" if closed else "info_request.cancel",
        request_id,
        previous=previous,
        event=rules.EVENT_CLOSED if closed else None,
    )


async def remind_request(
    session: AsyncSession, ctx: WriteContext, staff: StaffPrincipal, *, request_id: str
) -> InfoRequestView:
    """Remind the applicant of an open request (docs/reference/staff-api.md §12.5): the tenant gets
    application.info_request.reminder with the request's fields and mints a fresh link through
    its API; no link travels in the event and Gatehouse sends no email. Nothing the tenant
    reads changes (not `updatedAt`); the request's `reminded_at` (staff-only) is set."""
    loaded = await load_request(session, request_id)
    request, application = loaded.request, loaded.application
    rules.check_reminder(request.status, [item.status for item in loaded.items])
    request.reminded_at = ctx.now
    await _publish_request_event(session, ctx, loaded, rules.EVENT_REMINDER, application.status)
    return await _moved(session, ctx, loaded, "info_request.remind", request.id)


class ItemMove(Protocol):
    async def __call__(
        self,
        session: AsyncSession,
        ctx: WriteContext,
        staff: StaffPrincipal,
        *,
        request_id: str,
        item_id: str,
    ) -> InfoRequestView: ...


class RequestMove(Protocol):
    async def __call__(
        self, session: AsyncSession, ctx: WriteContext, staff: StaffPrincipal, *, request_id: str
    ) -> InfoRequestView: ...


# The staff moves on an existing request, by the last segment of their routes on the staff
# API and the dashboard (`…/items/{item_id}/accept`, `…/{request_id}/close`).
ITEM_MOVES: dict[str, ItemMove] = {"accept": accept_item, "reopen": reopen_item}
REQUEST_MOVES: dict[str, RequestMove] = {
    "close": close_request,
    "cancel": cancel_request,
    "remind": remind_request,
}


async def record_answer(
    session: AsyncSession,
    ctx: WriteContext,
    loaded: LoadedRequest,
    item: InfoRequestItem,
    *,
    answer: str | None,
    document_id: str | None,
) -> InfoRequestView:
    """The applicant answers an item. When no item is left open the request
    becomes responded (application.info_request.responded) and a needs_info
    application returns to pending with reason info_request (docs/reference/tenant-api.md §3.3)."""
    request, application = loaded.request, loaded.application
    item.status = rules.answer_item(request.status, item.status)
    item.answer = answer
    item.document_id = document_id
    item.answered_at = ctx.now
    _touch(loaded, ctx)
    was = request.status
    request.status = rules.derive_status([i.status for i in loaded.items])
    previous: str | None = None
    if was == rules.REQUEST_OPEN and request.status == rules.REQUEST_RESPONDED:
        request.responded_at = ctx.now
        previous = application.status
        others = await other_open_requests(session, application.id, request.id)
        application.status = after_request_responded(previous, others)
    return await _moved(
        session,
        ctx,
        loaded,
        "info_request.item.answer",
        item.id,
        previous=previous,
        event=rules.EVENT_RESPONDED,
    )
