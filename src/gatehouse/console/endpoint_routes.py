"""The console's endpoint routes (docs/console.md): every action runs the same service code as
`/v1/webhooks` (URL safety, the endpoint cap, the two-slot secret rotation), acting as the
session's API key and audited as `console:<keyId>`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse.audit.context import WriteContext
from gatehouse.console.endpoint_pages import (
    EndpointForm,
    Shown,
    refusal,
    render_endpoint,
    render_list,
    rotated_secret,
)
from gatehouse.console.session_http import not_found_page, require_session, session_and_form
from gatehouse.consoles.service import LiveConsole, keep_secret_for_next_page
from gatehouse.domain.principals import SCOPE_WEBHOOKS, TenantPrincipal
from gatehouse.errors import GatehouseError
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.rendering import see_other
from gatehouse.webhooks import service as endpoints

router = APIRouter(include_in_schema=False)


@router.get("/console")
async def endpoints_page(request: Request) -> Response:
    live = await require_session(request, SCOPE_WEBHOOKS)
    if isinstance(live, Response):
        return live
    return await render_list(request, live)


@router.post("/console/webhooks")
async def create(request: Request) -> Response:
    """303 to the new endpoint's page (its secret shown there once), or the form again with
    the refusal beside its field."""
    checked = await session_and_form(request)
    if isinstance(checked, Response):
        return checked
    live, form = checked
    posted = EndpointForm.of(form)
    runtime = runtime_of(request)
    body = endpoints.CreateWebhookBody(
        url=posted.url, events=posted.event_list(), description=posted.description
    )
    try:
        changes = await endpoints.validated_create(runtime, body)
        async with runtime.db.write() as session:
            ctx = write_context(request, live.principal)
            created = await endpoints.create_endpoint(
                session, runtime, ctx, live.principal.key, changes
            )
            await keep_secret_for_next_page(
                session, runtime, live.principal.session_id, created["id"], created["secret"]
            )
    except GatehouseError as error:
        errors, problem = refusal(error)
        return await render_list(
            request,
            live,
            form=posted,
            errors=errors,
            problem=problem,
            status_code=error.status_code,
        )
    return see_other(f"/console/webhooks/{created['id']}")


@router.get("/console/webhooks/{endpoint_id}")
async def endpoint_page(request: Request, endpoint_id: str) -> Response:
    live = await require_session(request, SCOPE_WEBHOOKS)
    if isinstance(live, Response):
        return live
    return await render_endpoint(request, live, endpoint_id)


Action = Callable[[LiveConsole, FormData], Awaitable[Response]]


async def endpoint_action(request: Request, endpoint_id: str, action: Action) -> Response:
    """Check the session and the form, run `action`; a refusal draws the endpoint page again
    with it (another tenant's endpoint: the 404 page)."""
    checked = await session_and_form(request)
    if isinstance(checked, Response):
        return checked
    live, form = checked
    try:
        return await action(live, form)
    except GatehouseError as error:
        if error.status_code == 404:
            return not_found_page(request, live)
        errors, problem = refusal(error)
        shown = Shown(
            form=EndpointForm.of(form) if errors else None,
            errors=errors,
            problem=problem,
            status_code=error.status_code,
        )
        return await render_endpoint(request, live, endpoint_id, shown)


@router.post("/console/webhooks/{endpoint_id}")
async def update(request: Request, endpoint_id: str) -> Response:
    runtime = runtime_of(request)

    async def run(live: LiveConsole, form: FormData) -> Response:
        posted = EndpointForm.of(form)
        body = endpoints.UpdateWebhookBody(
            url=posted.url, events=posted.event_list(), description=posted.description
        )
        changes = await endpoints.validated_update(runtime, body)
        async with runtime.db.write() as session:
            ctx = write_context(request, live.principal)
            await endpoints.update_endpoint(session, ctx, live.principal.key, endpoint_id, changes)
        return see_other(f"/console/webhooks/{endpoint_id}?done=updated")

    return await endpoint_action(request, endpoint_id, run)


# A move on one endpoint that changes nothing but its state: (session, ctx, key, endpoint_id).
Move = Callable[[AsyncSession, WriteContext, TenantPrincipal, str], Awaitable[object]]


def _move_route(move: Move, done: str) -> Callable[[Request, str], Awaitable[Response]]:
    """The route of a state move (disable, enable, delete): run it as the session's key, then
    303 to `done` (`{id}` stands for the endpoint)."""

    async def route(request: Request, endpoint_id: str) -> Response:
        runtime = runtime_of(request)

        async def run(live: LiveConsole, form: FormData) -> Response:
            async with runtime.db.write() as session:
                ctx = write_context(request, live.principal)
                await move(session, ctx, live.principal.key, endpoint_id)
            return see_other(done.format(id=endpoint_id))

        return await endpoint_action(request, endpoint_id, run)

    return route


for _name, _move, _done in (
    ("disable", endpoints.disable, "/console/webhooks/{id}?done=disabled"),
    ("enable", endpoints.enable, "/console/webhooks/{id}?done=enabled"),
    ("delete", endpoints.delete_endpoint, "/console?done=deleted"),
):
    router.add_api_route(
        f"/console/webhooks/{{endpoint_id}}/{_name}",
        _move_route(_move, _done),
        methods=["POST"],
        name=_name,
    )


@router.post("/console/webhooks/{endpoint_id}/rotate-secret")
async def rotate_secret(request: Request, endpoint_id: str) -> Response:
    """The endpoint page with the new secret, shown this once, and the previous one's expiry."""
    runtime = runtime_of(request)

    async def run(live: LiveConsole, form: FormData) -> Response:
        async with runtime.db.write() as session:
            ctx = write_context(request, live.principal)
            rotation = await endpoints.rotate_secret(
                session, runtime, ctx, live.principal.key, endpoint_id
            )
        shown = Shown(secret=rotated_secret(rotation))
        return await render_endpoint(request, live, endpoint_id, shown)

    return await endpoint_action(request, endpoint_id, run)


@router.post("/console/webhooks/{endpoint_id}/test")
async def send_test(request: Request, endpoint_id: str) -> Response:
    """One signed `webhook.test` now; the endpoint page with its result and the headers sent."""
    runtime = runtime_of(request)

    async def run(live: LiveConsole, form: FormData) -> Response:
        tenant_id = live.principal.tenant_id
        result = await endpoints.send_test_event(runtime, tenant_id, endpoint_id)
        async with runtime.db.write() as session:
            endpoints.record_test_send(session, write_context(request, live.principal), endpoint_id)
        return await render_endpoint(request, live, endpoint_id, Shown(test=result))

    return await endpoint_action(request, endpoint_id, run)
