"""Loading an information request for a move: the request, its items and its application,
the application row locked first (docs/reference/staff-api.md §6.4-§6.6)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import applications
from gatehouse.applications import InfoRequest as InfoRequestView
from gatehouse.applications import application_for_write, info_request_view
from gatehouse.domain import info_requests as rules
from gatehouse.errors import not_found
from gatehouse.storage.tables.applications import Application, InfoRequest, InfoRequestItem

REQUEST_NOT_FOUND = "No information request with this requestId."
ITEM_NOT_FOUND = "No item with this itemId in this information request."


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

    def view(self) -> InfoRequestView:
        return info_request_view(self.request, self.items)


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
    items = (await applications.items_of(session, [request.id]))[request.id]
    return LoadedRequest(application, request, items)


async def other_open_requests(session: AsyncSession, application_id: str, request_id: str) -> int:
    """How many requests of the application besides `request_id` are still open."""
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


async def application_of_request(session: AsyncSession, request_id: str) -> str | None:
    """The client id of the application the information request belongs to, or None."""
    found: str | None = await session.scalar(
        select(InfoRequest.application_id).where(InfoRequest.id == request_id)
    )
    return found
