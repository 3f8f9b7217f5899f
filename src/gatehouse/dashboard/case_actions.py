"""Staff actions on a case from the application page (docs/portal-and-dashboard.md;
docs/reference/staff-api.md §6).

Each form post checks the session's CSRF token, then calls the one service
function of the staff API route it mirrors, inside one write transaction;
a refusal is shown on the application page beside the form that caused it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse import cases, info_requests
from gatehouse.audit.context import WriteContext
from gatehouse.dashboard.case_routes import render_case
from gatehouse.dashboard.forms import Refused, Render, form_action
from gatehouse.dashboard.sessions import Viewer
from gatehouse.decisions import make_decision
from gatehouse.domain.principals import Role, StaffPrincipal
from gatehouse.erasure import erase_application, erase_documents
from gatehouse.errors import invalid_argument
from gatehouse.info_requests import application_of_request, raise_request
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.rendering import see_other

router = APIRouter(include_in_schema=False)

MAX_ITEMS_ON_FORM = 3
# The service's field names → the request form's (an item's prompt and type beside its row).
REQUEST_FIELDS = {
    "comment": "comment",
    **{f"items.{i}.prompt": f"item_prompt_{i}" for i in range(MAX_ITEMS_ON_FORM)},
    **{f"items.{i}.type": f"item_type_{i}" for i in range(MAX_ITEMS_ON_FORM)},
}


def _text(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _case_page(request: Request, client_id: str) -> Render:
    """The application page again, the refusal shown beside the form that caused it."""

    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        return await render_case(
            request,
            viewer,
            client_id,
            errors=refused.errors,
            form=dict(form),
            decision_error=None if refused.errors else refused.message,
            status_code=refused.status_code,
        )

    return again


@router.post("/dashboard/applications/{client_id}/decisions")
async def decide(request: Request, client_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        async with runtime.db.write() as session:
            await make_decision(
                session,
                write_context(request, viewer.principal),
                viewer.principal,
                client_id,
                action=_text(form, "action"),
                comment=_text(form, "decision_comment") or None,
                rejection_reason=_text(form, "rejection_reason") or None,
                acknowledgement=_text(form, "acknowledge_reason") or None,
                require_acknowledgement=True,
            )
        return see_other(f"/dashboard/applications/{client_id}?done=decision")

    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        # The service's refusals are in words (domain/status.py): shown as they are, above the
        # form and beside the field they concern.
        return await render_case(
            request,
            viewer,
            client_id,
            errors=refused.errors,
            form=dict(form),
            decision_error=refused.message,
            status_code=refused.status_code,
        )

    fields = {
        "comment": "decision_comment",
        "rejectionReason": "rejection_reason",
        "acknowledgeUnsatisfied": "acknowledge_reason",
    }
    return await form_action(request, again, run, fields=fields, default=None)


@router.post("/dashboard/applications/{client_id}/notes")
async def add_note(request: Request, client_id: str) -> Response:
    """An internal note (docs/workstation.md "Notes"): staff-only."""
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        async with runtime.db.write() as session:
            ctx = write_context(request, viewer.principal)
            await cases.add_note(session, ctx, viewer.principal, client_id, _text(form, "note"))
        return see_other(f"/dashboard/applications/{client_id}?done=noted#h-notes")

    page = _case_page(request, client_id)
    return await form_action(request, page, run, fields={"text": "note"}, default="note")


@router.post("/dashboard/applications/{client_id}/assignment")
async def assign(request: Request, client_id: str) -> Response:
    """Claim the case, hand it to a colleague, or unassign it (docs/workstation.md)."""
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        move = _text(form, "move")
        if move == "claim":
            assignee: str | None = viewer.principal.staff_id
        elif move == "hand":
            assignee = _text(form, "staff_id") or None
            if assignee is None:
                raise invalid_argument("Choose the colleague to hand the case to.", "staffId")
        elif move == "unassign":
            assignee = None
        else:
            raise invalid_argument("Choose claim, hand over or unassign.", "move")
        async with runtime.db.write() as session:
            ctx = write_context(request, viewer.principal)
            await cases.assign(session, ctx, client_id, assignee)
        return see_other(f"/dashboard/applications/{client_id}?done=assigned")

    page = _case_page(request, client_id)
    return await form_action(
        request, page, run, fields={"staffId": "staff_id"}, default="assignment"
    )


def _items_from(form: FormData) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for index in range(MAX_ITEMS_ON_FORM):
        prompt = _text(form, f"item_prompt_{index}")
        if prompt:
            items.append({"type": _text(form, f"item_type_{index}"), "prompt": prompt})
    return items


@router.post("/dashboard/applications/{client_id}/info-requests")
async def raise_info_request(request: Request, client_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        comment, items = _text(form, "comment"), _items_from(form)
        errors: dict[str, str] = {}
        if not comment:
            errors["comment"] = "Write a comment the applicant will read."
        if not items:
            errors["item_prompt_0"] = "Add at least one item with a prompt."
        if errors:
            return await render_case(
                request, viewer, client_id, errors=errors, form=dict(form), status_code=400
            )
        async with runtime.db.write() as session:
            ctx = write_context(request, viewer.principal)
            await raise_request(
                session, ctx, viewer.principal, client_id, comment=comment, items=items
            )
        return see_other(f"/dashboard/applications/{client_id}?done=raised")

    page = _case_page(request, client_id)
    return await form_action(request, page, run, fields=REQUEST_FIELDS, default="items")


async def _application_of_request(request: Request, request_id: str) -> str | None:
    async with runtime_of(request).db.read() as session:
        return await application_of_request(session, request_id)


Move = Callable[[AsyncSession, WriteContext, StaffPrincipal], Awaitable[object]]


async def _request_move(request: Request, request_id: str, done: str, move: Move) -> Response:
    """A staff move on an information request, then back to its application's page."""

    async def run(viewer: Viewer, form: FormData) -> Response:
        client_id = await _application_of_request(request, request_id)
        if client_id is None:
            return see_other("/dashboard")
        async with runtime_of(request).db.write() as session:
            await move(session, write_context(request, viewer.principal), viewer.principal)
        return see_other(f"/dashboard/applications/{client_id}?done={done}")

    async def again(viewer: Viewer, form: FormData, refused: Refused) -> Response:
        client_id = await _application_of_request(request, request_id)
        if client_id is None:
            return see_other("/dashboard")
        return await _case_page(request, client_id)(viewer, form, refused)

    return await form_action(request, again, run)


# The notice each move leaves on the application page (`?done=`).
_DONE = {
    "accept": "accepted",
    "reopen": "reopened",
    "close": "closed",
    "cancel": "cancelled",
    "remind": "reminded",
}


def _item_route(name: str, move: info_requests.ItemMove) -> Callable[..., Awaitable[Response]]:
    async def route(request: Request, request_id: str, item_id: str) -> Response:
        async def bound(session: AsyncSession, ctx: WriteContext, staff: StaffPrincipal) -> object:
            return await move(session, ctx, staff, request_id=request_id, item_id=item_id)

        return await _request_move(request, request_id, _DONE[name], bound)

    return route


def _request_route(
    name: str, move: info_requests.RequestMove
) -> Callable[..., Awaitable[Response]]:
    async def route(request: Request, request_id: str) -> Response:
        async def bound(session: AsyncSession, ctx: WriteContext, staff: StaffPrincipal) -> object:
            return await move(session, ctx, staff, request_id=request_id)

        return await _request_move(request, request_id, _DONE[name], bound)

    return route


for _name, _item_move in info_requests.ITEM_MOVES.items():
    router.add_api_route(
        f"/dashboard/info-requests/{{request_id}}/items/{{item_id}}/{_name}",
        _item_route(_name, _item_move),
        methods=["POST"],
        name=_name,
    )
for _name, _request_move_fn in info_requests.REQUEST_MOVES.items():
    router.add_api_route(
        f"/dashboard/info-requests/{{request_id}}/{_name}",
        _request_route(_name, _request_move_fn),
        methods=["POST"],
        name=_name,
    )


@router.post("/dashboard/applications/{client_id}/erase")
async def erase(request: Request, client_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(viewer: Viewer, form: FormData) -> Response:
        if _text(form, "confirm") != client_id:
            raise invalid_argument("Type the client ID exactly to confirm erasure.", "confirm")
        async with runtime.db.write() as session:
            await erase_application(
                session,
                write_context(request, viewer.principal),
                client_id,
                pseudonymize=runtime.crypto.hash_secret,
            )
        await erase_documents(runtime)
        return see_other(f"/dashboard/applications/{client_id}?done=erased")

    page = _case_page(request, client_id)
    return await form_action(request, page, run, role=Role.ADMIN, fields={"confirm": "confirm"})
