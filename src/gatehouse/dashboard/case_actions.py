"""Staff actions on a case from the application page (issue 6; CONTRACT §4).

Each form post checks the session's CSRF token, then calls the one service
function of the staff API route it mirrors, inside one write transaction;
a refusal is shown on the application page beside the form that caused it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse.dashboard.queue_routes import render_case
from gatehouse.dashboard.rendering import see_other
from gatehouse.dashboard.sessions import Viewer, checked_form, require_viewer
from gatehouse.http.auth import runtime_of
from gatehouse.http.errors import ApiError, request_id_of
from gatehouse.services.decisions import DecisionBody, make_decision
from gatehouse.services.erasure import erase_application
from gatehouse.services.info_requests import (
    RaiseBody,
    accept_item,
    cancel_request,
    close_request,
    raise_request,
    reopen_item,
)
from gatehouse.storage.tables.applications import InfoRequest

router = APIRouter(include_in_schema=False)

MAX_ITEMS_ON_FORM = 3
COUNTERSIGN_REFUSED = (
    "You proposed this approval, so you cannot countersign it: "
    "a second staff member (mlro or above) must countersign."
)


def _text(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


async def _guarded(request: Request) -> tuple[Viewer, FormData] | Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    form = await checked_form(request, viewer)
    if isinstance(form, Response):
        return form
    return viewer, form


@router.post("/dashboard/applications/{client_id}/decisions")
async def decide(request: Request, client_id: str) -> Response:
    guarded = await _guarded(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, form = guarded
    runtime = runtime_of(request)
    action = _text(form, "action")
    body = DecisionBody(
        action=action,
        comment=_text(form, "decision_comment") or None,
        rejectionReason=_text(form, "rejection_reason") or None,
    )
    try:
        async with runtime.db.write() as session:
            await make_decision(
                session,
                client_id=client_id,
                staff=viewer.principal,
                body=body,
                at=runtime.now(),
                request_id=request_id_of(request),
            )
    except ApiError as error:
        message = error.message
        if action == "countersign" and error.status_code == 403:
            message = COUNTERSIGN_REFUSED
        errors = {}
        if error.details and error.details[0].get("field") == "rejectionReason":
            errors["rejection_reason"] = error.details[0].get("issue", error.message)
        return await render_case(
            request,
            viewer,
            client_id,
            errors=errors,
            form=dict(form),
            decision_error=message,
            status_code=error.status_code,
        )
    return see_other(f"/dashboard/applications/{client_id}?done=decision")


@router.post("/dashboard/applications/{client_id}/info-requests")
async def raise_info_request(request: Request, client_id: str) -> Response:
    guarded = await _guarded(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, form = guarded
    runtime = runtime_of(request)
    items: list[dict[str, Any]] = []
    for index in range(MAX_ITEMS_ON_FORM):
        prompt = _text(form, f"item_prompt_{index}")
        if prompt:
            items.append({"type": _text(form, f"item_type_{index}"), "prompt": prompt})
    errors: dict[str, str] = {}
    if not _text(form, "comment"):
        errors["comment"] = "Write a comment the applicant will read."
    if not items:
        errors["item_prompt_0"] = "Add at least one item with a prompt."
    if not errors:
        try:
            async with runtime.db.write() as session:
                await raise_request(
                    session,
                    client_id=client_id,
                    staff=viewer.principal,
                    body=RaiseBody(comment=_text(form, "comment"), items=items),
                    at=runtime.now(),
                    request_id=request_id_of(request),
                )
        except ApiError as error:
            errors["items"] = error.message
            if error.details and error.details[0].get("field") == "comment":
                errors = {"comment": error.message}
        else:
            return see_other(f"/dashboard/applications/{client_id}?done=raised")
    return await render_case(
        request, viewer, client_id, errors=errors, form=dict(form), status_code=400
    )


async def _request_action(
    request: Request,
    request_id: str,
    done: str,
    run: Callable[[AsyncSession, Viewer], Awaitable[dict[str, Any]]],
) -> Response:
    guarded = await _guarded(request)
    if isinstance(guarded, Response):
        return guarded
    viewer, _form = guarded
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        client_id = await session.scalar(
            select(InfoRequest.application_id).where(InfoRequest.id == request_id)
        )
    if client_id is None:
        return see_other("/dashboard")
    try:
        async with runtime.db.write() as session:
            await run(session, viewer)
    except ApiError as error:
        return await render_case(
            request,
            viewer,
            client_id,
            decision_error=error.message,
            status_code=error.status_code,
        )
    return see_other(f"/dashboard/applications/{client_id}?done={done}")


@router.post("/dashboard/info-requests/{request_id}/items/{item_id}/accept")
async def accept(request: Request, request_id: str, item_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(session: AsyncSession, viewer: Viewer) -> dict[str, Any]:
        return await accept_item(
            session,
            request_id=request_id,
            item_id=item_id,
            staff=viewer.principal,
            at=runtime.now(),
            service_request_id=request_id_of(request),
        )

    return await _request_action(request, request_id, "accepted", run)


@router.post("/dashboard/info-requests/{request_id}/items/{item_id}/reopen")
async def reopen(request: Request, request_id: str, item_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(session: AsyncSession, viewer: Viewer) -> dict[str, Any]:
        return await reopen_item(
            session,
            request_id=request_id,
            item_id=item_id,
            staff=viewer.principal,
            at=runtime.now(),
            service_request_id=request_id_of(request),
        )

    return await _request_action(request, request_id, "reopened", run)


@router.post("/dashboard/info-requests/{request_id}/close")
async def close(request: Request, request_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(session: AsyncSession, viewer: Viewer) -> dict[str, Any]:
        return await close_request(
            session,
            request_id=request_id,
            staff=viewer.principal,
            at=runtime.now(),
            service_request_id=request_id_of(request),
        )

    return await _request_action(request, request_id, "closed", run)


@router.post("/dashboard/info-requests/{request_id}/cancel")
async def cancel(request: Request, request_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(session: AsyncSession, viewer: Viewer) -> dict[str, Any]:
        return await cancel_request(
            session,
            request_id=request_id,
            staff=viewer.principal,
            at=runtime.now(),
            service_request_id=request_id_of(request),
        )

    return await _request_action(request, request_id, "cancelled", run)


@router.post("/dashboard/applications/{client_id}/erase")
async def erase(request: Request, client_id: str) -> Response:
    viewer = await require_viewer(request, "admin")
    if isinstance(viewer, Response):
        return viewer
    form = await checked_form(request, viewer)
    if isinstance(form, Response):
        return form
    runtime = runtime_of(request)
    if _text(form, "confirm") != client_id:
        return await render_case(
            request,
            viewer,
            client_id,
            errors={"confirm": "Type the client ID exactly to confirm erasure."},
            status_code=400,
        )
    try:
        async with runtime.db.write() as session:
            await erase_application(
                session,
                client_id=client_id,
                staff=viewer.principal,
                at=runtime.now(),
                request_id=request_id_of(request),
                pseudonymize=runtime.crypto.hash_secret,
            )
    except ApiError as error:
        return await render_case(
            request, viewer, client_id, decision_error=error.message, status_code=error.status_code
        )
    return see_other(f"/dashboard/applications/{client_id}?done=erased")
