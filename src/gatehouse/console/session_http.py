"""The tenant console's cookie, the session behind a request, the form rule and the pages a
refusal answers with (docs/console.md).

The cookie (`gatehouse_console`) is HttpOnly, SameSite=Lax, scoped to `/console`, Secure under
https. The session is read with its key and tenant on every request (consoles/service.py).
Every form carries the session's CSRF token, checked on every post together with the
dashboard's origin rule (web/browser.py).
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Any

from fastapi import Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse.consoles import IDLE_TIMEOUT, SESSION_LIFETIME, LiveConsole, find_session
from gatehouse.domain.principals import SCOPE_READ, SCOPE_WEBHOOKS
from gatehouse.web import browser
from gatehouse.web.auth import runtime_of
from gatehouse.web.rendering import render
from gatehouse.web.text import read_form

COOKIE_NAME = "gatehouse_console"
COOKIE_PATH = "/console"


def set_cookie(request: Request, response: Response, cookie_value: str) -> None:
    browser.set_session_cookie(
        response,
        runtime_of(request).settings,
        name=COOKIE_NAME,
        value=cookie_value,
        path=COOKIE_PATH,
        lifetime=SESSION_LIFETIME,
        same_site="lax",
    )


def clear_cookie(request: Request, response: Response) -> None:
    browser.clear_session_cookie(
        response, runtime_of(request).settings, name=COOKIE_NAME, path=COOKIE_PATH, same_site="lax"
    )


def page(
    request: Request,
    live: LiveConsole | None,
    template: str,
    context: Mapping[str, Any] | None = None,
    *,
    status_code: int = 200,
) -> Response:
    """A console page: the session (for the navigation and the forms) and `context`."""
    values: dict[str, Any] = {"live": live, "can_read": False, "read_only": False}
    if live is not None:
        values["can_read"] = live.principal.holds(SCOPE_READ)
        values["read_only"] = live.principal.read_only
    values.update(context or {})
    return render(request, f"console/{template}", values, status_code=status_code)


def message_page(
    request: Request, live: LiveConsole | None, status_code: int, heading: str, message: str
) -> Response:
    return page(
        request,
        live,
        "message.html",
        {"heading": heading, "message": message, "title": heading},
        status_code=status_code,
    )


def signed_out_page(request: Request) -> Response:
    minutes = int(IDLE_TIMEOUT.total_seconds() // 60)
    response = message_page(
        request,
        None,
        401,
        "Your console session has ended",
        "Open the console again from your own application: it gives you a new link. A session "
        f"ends after {minutes} minutes without use, after 8 hours, on sign-out, and when the "
        "API key behind it is revoked.",
    )
    clear_cookie(request, response)
    return response


def not_found_page(request: Request, live: LiveConsole | None) -> Response:
    return message_page(request, live, 404, "Not found", "There is nothing here.")


def forbidden_page(request: Request, live: LiveConsole | None, reason: str) -> Response:
    return message_page(request, live, 403, "Not allowed", reason)


async def require_session(request: Request, scope: str | None = None) -> LiveConsole | Response:
    """The live session, or the page to answer instead: 401 without one, 403 when its key
    lacks `scope`."""
    runtime = runtime_of(request)
    live = await find_session(runtime, browser.read_cookie(request, runtime.settings, COOKIE_NAME))
    if live is None:
        return signed_out_page(request)
    request.state.principal = live.principal.key  # the key it acts as, on the access line
    if scope is not None and not live.principal.holds(scope):
        return forbidden_page(request, live, f"This page needs an API key with the {scope} scope.")
    return live


async def checked_form(
    request: Request, live: LiveConsole, *, writes: bool = True
) -> FormData | Response:
    """The posted form when its CSRF token matches the session and the request comes from our
    own origin; while the tenant is suspended nothing may change (403) but the sign-out
    (`writes=False`)."""
    form = await read_form(request)
    sent = form.get("csrf_token")
    if (
        not isinstance(sent, str)
        or not hmac.compare_digest(sent.encode(), live.csrf_token.encode())
        or not browser.same_origin(request, runtime_of(request).settings)
    ):
        return forbidden_page(request, live, "The form expired. Reload the page and try again.")
    if writes and live.principal.read_only:
        return forbidden_page(
            request, live, "The tenant is suspended: the console is read-only until it is active."
        )
    return form


async def session_and_form(
    request: Request, *, writes: bool = True
) -> tuple[LiveConsole, FormData] | Response:
    """Both checks of a console post, in order: the session (a change needs webhooks:manage),
    then the form."""
    live = await require_session(request, SCOPE_WEBHOOKS if writes else None)
    if isinstance(live, Response):
        return live
    form = await checked_form(request, live, writes=writes)
    if isinstance(form, Response):
        return form
    return live, form
