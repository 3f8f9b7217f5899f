"""The portal's session cookie and the `PortalUser` dependency.

`PortalUser` resolves a request's session cookie to its application and member on every
request (docs/reference/portal.md §3): a missing, ended or expired session is 401; a locked
or erased application or a removed member is 403 at once; a cross-site unsafe request is 403.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request
from starlette.responses import Response

from gatehouse.applicants import PortalContext, context_for_token
from gatehouse.runtime import Runtime
from gatehouse.web.auth import runtime_of
from gatehouse.web.browser import (
    check_origin,
    clear_session_cookie,
    read_cookie,
    set_session_cookie,
)

SESSION_COOKIE = "gatehouse_session"
COOKIE_PATH = "/portal"


async def portal_user(request: Request) -> PortalContext:
    """Resolve the request's session (and refuse cross-site unsafe requests)."""
    runtime = runtime_of(request)
    check_origin(request, runtime.settings)
    async with runtime.db.read() as session:
        context = await context_for_token(
            session, runtime, read_cookie(request, runtime.settings, SESSION_COOKIE)
        )
    request.state.portal = context
    return context


PortalUser = Annotated[PortalContext, Depends(portal_user)]


def start_session_cookie(
    response: Response, runtime: Runtime, token: str, expires_at: datetime
) -> None:
    set_session_cookie(
        response,
        runtime.settings,
        name=SESSION_COOKIE,
        value=token,
        path=COOKIE_PATH,
        lifetime=expires_at - runtime.now(),
        same_site="lax",
    )


def end_session_cookie(response: Response, runtime: Runtime) -> None:
    clear_session_cookie(
        response, runtime.settings, name=SESSION_COOKIE, path=COOKIE_PATH, same_site="lax"
    )
