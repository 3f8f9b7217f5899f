"""Opening and leaving the tenant console (docs/console.md).

`GET /console/start/{token}` shows a Continue button and consumes nothing (link scanners are
safe); `POST` on it (our own origin only) uses the link once and opens the session: 303 to
`/console`. A used, expired or unknown link answers 410 with a page that does not say which.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.console.session_http import (
    clear_cookie,
    message_page,
    page,
    session_and_form,
    set_cookie,
)
from gatehouse.consoles import LinkUnusable, end_session, link_is_usable, redeem_link
from gatehouse.web.auth import runtime_of
from gatehouse.web.browser import check_origin
from gatehouse.web.context import write_context
from gatehouse.web.errors import request_id_of
from gatehouse.web.rendering import see_other

router = APIRouter(include_in_schema=False)


def gone_page(request: Request) -> Response:
    return message_page(
        request,
        None,
        410,
        "This console link cannot be used",
        "Console links work once and for 10 minutes. Open the console again from your own "
        "application to get a new one.",
    )


@router.get("/console/start/{token}")
async def start_page(request: Request, token: str) -> Response:
    if not await link_is_usable(runtime_of(request), token):
        return gone_page(request)
    return page(request, None, "start.html", {"token": token, "title": "Open the console"})


@router.post("/console/start/{token}")
async def start(request: Request, token: str) -> Response:
    runtime = runtime_of(request)
    check_origin(request, runtime.settings)
    try:
        opened = await redeem_link(runtime, token, request_id_of(request) or None)
    except LinkUnusable:
        return gone_page(request)
    response = see_other("/console")
    set_cookie(request, response, opened.cookie_value)
    return response


@router.post("/console/sign-out")
async def sign_out(request: Request) -> Response:
    checked = await session_and_form(request, writes=False)
    if isinstance(checked, Response):
        return checked
    live, _form = checked
    ctx = write_context(request, live.principal)
    await end_session(runtime_of(request), ctx, live.principal.session_id)
    response = message_page(
        request, None, 200, "Signed out", "You left the console. Close this tab."
    )
    clear_cookie(request, response)
    return response
