"""Information requests: staff raise, accept, reopen, close, cancel; the applicant
answers (CONTRACT §4, §6; spec 1 §2.4, §3.1, §3.3; spec 2 §6.1).

Every function runs inside the caller's write transaction with the
application row locked, so the request `seq` and the event `data.sequence`
are allocated safely, and returns the request in the spec 1 §2.4 shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import audit
from gatehouse.domain import events
from gatehouse.domain import info_requests as rules
from gatehouse.domain.decisions import needs_info_entry
from gatehouse.domain.status import (
    NEEDS_INFO,
    REASON_INFO_REQUEST,
    CaseRuleError,
    after_info_request_raised,
    after_request_responded,
)
from gatehouse.http.auth import StaffPrincipal
from gatehouse.http.errors import not_found
from gatehouse.ids import new_id
from gatehouse.services import applications_repo as repo
from gatehouse.services.case_access import (
    application_for_write,
    publish_status_change,
    rule_error,
)
from gatehouse.services.decisions import add_history
from gatehouse.services.views import info_request_view
from gatehouse.storage.tables.applications import Application, InfoRequest, InfoRequestItem
from gatehouse.webhooks.outbox import publish

REQUEST_NOT_FOUND = "No information request with this requestId."
ITEM_NOT_FOUND = "No item with this itemId in this information request."


class RaiseBody(BaseModel):
    """`POST /staff/v1/applications/{clientId}/info-requests` body (CONTRACT §4).

    Loosely typed on purpose: the domain rules check each field and name it.
    """

    comment: Any = None
    items: Any = None


@dataclass(slots=True)
class LoadedRequest:
    application: Application
    request: InfoRequest
    items: list[InfoRequestItem]

    def item(self, item_id: str) -> InfoRequestItem:
        for item in self.items:
            if item.id == item_id:
                return item
        raise not_found(ITEM_NOT_FOUND)

    def view(self) -> dict[str, Any]:
        return info_request_view(self.request, self.items)


def _summaries(items: Sequence[InfoRequestItem]) -> list[events.ItemSummary]:
    ordered = sorted(items, key=lambda item: (item.position, item.id))
    return [events.ItemSummary(i.id, i.type, i.prompt, i.status) for i in ordered]


async def load_request(
    session: AsyncSession, request_id: str, *, application_id: str | None = None
) -> LoadedRequest:
    """The request, its items and its row-locked application.

    404 when the request is missing (or belongs to another application than
    `application_id`), 410 when its application was erased.
    """
    found = await session.get(InfoRequest, request_id)
    if found is None or (application_id is not None and found.application_id != application_id):
        raise not_found(REQUEST_NOT_FOUND)
    application = await application_for_write(session, found.application_id)
    request = (
        await session.execute(
            select(InfoRequest)
            .where(InfoRequest.id == request_id)
            .execution_options(populate_existing=True)
        )
    ).scalar_one()
    items = (await repo.items_of(session, [request.id]))[request.id]
    return LoadedRequest(application, request, items)


async def _other_open_requests(session: AsyncSession, application_id: str, request_id: str) -> int:
    count = await session.scalar(
        select(func.count())
        .select_from(InfoRequest)
        .where(
            InfoRequest.application_id == application_id,
            InfoRequest.id != request_id,
            InfoRequest.status == rules.REQUEST_OPEN,
        )
    )
    return int(count or 0)


async def _publish_request_event(
    session: AsyncSession,
    loaded: LoadedRequest,
    event_type: str,
    *,
    previous_status: str,
    at: datetime,
) -> None:
    application, request = loaded.application, loaded.request
    await publish(
        session,
        tenant_id=application.tenant_id,
        event_type=event_type,
        occurred_at=at,
        data=events.info_request(
            status=application.status,
            previous_status=previous_status,
            request_id=request.id,
            request_seq=request.seq,
            round_=request.round,
            comment=request.comment,
            items=_summaries(loaded.items),
        ),
        application=application,
    )


def _audit(
    session: AsyncSession,
    loaded: LoadedRequest,
    *,
    actor: str,
    action: str,
    target: str,
    at: datetime,
    request_id: str | None,
) -> None:
    audit.record(
        session,
        at=at,
        actor=actor,
        action=action,
        target=target,
        tenant_id=loaded.application.tenant_id,
        application_id=loaded.application.id,
        request_id=request_id,
    )


def _touch(loaded: LoadedRequest, at: datetime) -> None:
    loaded.request.updated_at = at
    loaded.application.updated_at = at


async def raise_request(
    session: AsyncSession,
    *,
    client_id: str,
    staff: StaffPrincipal,
    body: RaiseBody,
    at: datetime,
    request_id: str | None,
) -> dict[str, Any]:
    """Raise a request: any status → needs_info; events info_request.raised and,
    when the status moved, status.changed with reason info_request (spec 1 §3.1)."""
    application = await application_for_write(session, client_id)
    try:
        new = rules.new_request(body.comment, body.items)
    except CaseRuleError as error:
        raise rule_error(error) from None
    application.request_sequence = (application.request_sequence or 0) + 1
    request = InfoRequest(
        id=new_id("ir"),
        application_id=application.id,
        seq=application.request_sequence,
        round=1,
        status=rules.REQUEST_OPEN,
        comment=new.comment,
        created_at=at,
        updated_at=at,
    )
    session.add(request)
    items = [
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
    session.add_all(items)
    previous = application.status
    application.status = after_info_request_raised(previous)
    application.updated_at = at
    add_history(
        session,
        application.id,
        needs_info_entry(
            previous, actor_id=staff.staff_id, actor_role=staff.role, comment=new.comment, at=at
        ),
    )
    loaded = LoadedRequest(application, request, items)
    await _publish_request_event(
        session, loaded, rules.EVENT_RAISED, previous_status=previous, at=at
    )
    await publish_status_change(
        session, application, previous_status=previous, reason=REASON_INFO_REQUEST, at=at
    )
    _audit(
        session,
        loaded,
        actor=staff.actor,
        action="info_request.raise",
        target=request.id,
        at=at,
        request_id=request_id,
    )
    await session.flush()
    return loaded.view()


async def accept_item(
    session: AsyncSession,
    *,
    request_id: str,
    item_id: str,
    staff: StaffPrincipal,
    at: datetime,
    service_request_id: str | None,
) -> dict[str, Any]:
    """Staff accept an answered item (CONTRACT §4)."""
    loaded = await load_request(session, request_id)
    item = loaded.item(item_id)
    try:
        item.status = rules.accept_item(loaded.request.status, item.status)
    except CaseRuleError as error:
        raise rule_error(error) from None
    _touch(loaded, at)
    _audit(
        session,
        loaded,
        actor=staff.actor,
        action="info_request.item.accept",
        target=item.id,
        at=at,
        request_id=service_request_id,
    )
    await session.flush()
    return loaded.view()


async def reopen_item(
    session: AsyncSession,
    *,
    request_id: str,
    item_id: str,
    staff: StaffPrincipal,
    at: datetime,
    service_request_id: str | None,
) -> dict[str, Any]:
    """Staff reopen an item: the request is open again in round + 1 and the
    application moves back to needs_info (CONTRACT §4, §6)."""
    loaded = await load_request(session, request_id)
    item = loaded.item(item_id)
    try:
        item.status = rules.reopen_item(loaded.request.status, item.status)
    except CaseRuleError as error:
        raise rule_error(error) from None
    request, application = loaded.request, loaded.application
    request.round = (request.round or 1) + 1
    request.status = rules.derive_status([i.status for i in loaded.items])
    _touch(loaded, at)
    previous = application.status
    application.status = NEEDS_INFO
    if previous != NEEDS_INFO:
        add_history(
            session,
            application.id,
            needs_info_entry(
                previous, actor_id=staff.staff_id, actor_role=staff.role, comment=None, at=at
            ),
        )
    await publish_status_change(
        session, application, previous_status=previous, reason=REASON_INFO_REQUEST, at=at
    )
    _audit(
        session,
        loaded,
        actor=staff.actor,
        action="info_request.item.reopen",
        target=item.id,
        at=at,
        request_id=service_request_id,
    )
    await session.flush()
    return loaded.view()


async def _end_request(
    session: AsyncSession,
    loaded: LoadedRequest,
    *,
    closed: bool,
    at: datetime,
) -> str:
    """Close or cancel: returns the application's previous status. A needs_info
    application that owes nothing more returns to pending."""
    request, application = loaded.request, loaded.application
    try:
        if closed:
            request.status = rules.close_request(request.status)
            request.closed_at = at
        else:
            request.status = rules.cancel_request(request.status)
            request.cancelled_at = at
    except CaseRuleError as error:
        raise rule_error(error) from None
    _touch(loaded, at)
    previous = application.status
    others = await _other_open_requests(session, application.id, request.id)
    application.status = after_request_responded(previous, others)
    return previous


async def close_request(
    session: AsyncSession,
    *,
    request_id: str,
    staff: StaffPrincipal,
    at: datetime,
    service_request_id: str | None,
) -> dict[str, Any]:
    """Staff close a request; emits application.info_request.closed (CONTRACT §2.2)."""
    return await _end_by_staff(session, request_id, staff, at, service_request_id, closed=True)


async def cancel_request(
    session: AsyncSession,
    *,
    request_id: str,
    staff: StaffPrincipal,
    at: datetime,
    service_request_id: str | None,
) -> dict[str, Any]:
    """Staff cancel a request (no catalogue event beyond a status change)."""
    return await _end_by_staff(session, request_id, staff, at, service_request_id, closed=False)


async def _end_by_staff(
    session: AsyncSession,
    request_id: str,
    staff: StaffPrincipal,
    at: datetime,
    service_request_id: str | None,
    *,
    closed: bool,
) -> dict[str, Any]:
    """Close (with its catalogue event) or cancel a request, then any status change."""
    loaded = await load_request(session, request_id)
    previous = await _end_request(session, loaded, closed=closed, at=at)
    if closed:
        await _publish_request_event(
            session, loaded, rules.EVENT_CLOSED, previous_status=previous, at=at
        )
    await publish_status_change(
        session, loaded.application, previous_status=previous, reason=REASON_INFO_REQUEST, at=at
    )
    _audit(
        session,
        loaded,
        actor=staff.actor,
        action="info_request.close" if closed else "info_request.cancel",
        target=request_id,
        at=at,
        request_id=service_request_id,
    )
    await session.flush()
    return loaded.view()


async def record_answer(
    session: AsyncSession,
    loaded: LoadedRequest,
    item: InfoRequestItem,
    *,
    answer: str | None,
    document_id: str | None,
    actor: str,
    at: datetime,
    service_request_id: str | None,
) -> dict[str, Any]:
    """The applicant answers an item. When no item is left open the request
    becomes responded (application.info_request.responded) and a needs_info
    application returns to pending with reason info_request (CONTRACT §4)."""
    request, application = loaded.request, loaded.application
    try:
        item.status = rules.answer_item(request.status, item.status)
    except CaseRuleError as error:
        raise rule_error(error) from None
    item.answer = answer
    item.document_id = document_id
    item.answered_at = at
    _touch(loaded, at)
    was = request.status
    request.status = rules.derive_status([i.status for i in loaded.items])
    if was == rules.REQUEST_OPEN and request.status == rules.REQUEST_RESPONDED:
        request.responded_at = at
        previous = application.status
        others = await _other_open_requests(session, application.id, request.id)
        application.status = after_request_responded(previous, others)
        await _publish_request_event(
            session, loaded, rules.EVENT_RESPONDED, previous_status=previous, at=at
        )
        await publish_status_change(
            session, application, previous_status=previous, reason=REASON_INFO_REQUEST, at=at
        )
    _audit(
        session,
        loaded,
        actor=actor,
        action="info_request.item.answer",
        target=item.id,
        at=at,
        request_id=service_request_id,
    )
    await session.flush()
    return loaded.view()
