"""The staff moves on an information request or one of its items (accept, reopen; close,
cancel, remind; docs/reference/staff-api.md §6.5, §6.6): one route builder for each kind and
each move's operation in /openapi.json. `staff/cases.py` adds the routes, one per move."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import Request
from starlette.responses import Response

from gatehouse.applications.examples import INFO_REQUEST_EXAMPLE
from gatehouse.applications.schemas import InfoRequest
from gatehouse.domain.principals import Role
from gatehouse.info_requests import service as info_requests
from gatehouse.staff.examples import ANALYST
from gatehouse.staff.shells import write_answer
from gatehouse.web.auth import require_role
from gatehouse.web.dependencies import RuntimeDep, StaffUser
from gatehouse.web.openapi import Op


def _op(operation_id: str, summary: str) -> Op:
    """A staff move on an information request or one of its items: it answers the request."""
    return Op(
        operation_id,
        summary,
        {200: InfoRequest},
        access=ANALYST,
        errors=(410,),
        answer_example=INFO_REQUEST_EXAMPLE,
    )


# Each move's operation in /openapi.json: it answers the information request.
INFO_REQUEST_OPS = {
    "accept": _op("acceptInfoRequestItem", "Accept an item of an information request"),
    "reopen": _op("reopenInfoRequestItem", "Reopen an item of an information request"),
    "close": _op("closeInfoRequest", "Close an information request"),
    "cancel": _op("cancelInfoRequest", "Cancel an information request"),
    "remind": _op("remindInfoRequest", "Remind the applicant of an open information request"),
}


def item_route(name: str, move: info_requests.ItemMove) -> Callable[..., Awaitable[Response]]:
    """The route of an item move, with its operation."""

    @INFO_REQUEST_OPS[name]
    async def route(
        request_id: str, item_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
    ) -> Response:
        require_role(staff, Role.ANALYST)
        return await write_answer(
            request,
            staff,
            runtime,
            lambda session, ctx: move(session, ctx, staff, request_id=request_id, item_id=item_id),
        )

    return route


def request_route(name: str, move: info_requests.RequestMove) -> Callable[..., Awaitable[Response]]:
    """The route of a request move, with its operation."""

    @INFO_REQUEST_OPS[name]
    async def route(
        request_id: str, request: Request, staff: StaffUser, runtime: RuntimeDep
    ) -> Response:
        require_role(staff, Role.ANALYST)
        return await write_answer(
            request,
            staff,
            runtime,
            lambda session, ctx: move(session, ctx, staff, request_id=request_id),
        )

    return route
