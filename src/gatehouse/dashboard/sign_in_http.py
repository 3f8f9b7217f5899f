"""What the sign-in pages share: the flow cookie, the per-address limit, the one failure
message, and the answers that start a session (docs/staff-identity.md "Signing in").

The flow cookie (`gatehouse_sign_in`) names a sign-in flow before its session: HttpOnly, path
`/dashboard`, `Secure` under https, SameSite=Lax so that it comes back from the OpenID
provider's redirect. Forms of a flow carry its CSRF token and pass the origin rule of
web/browser.py; the first sign-in form has no flow yet and passes the origin rule alone.
"""

from __future__ import annotations

import hmac
from datetime import timedelta

from fastapi import Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse import metrics
from gatehouse.accounts import ANONYMOUS, Flow, OpenedSession, find_flow
from gatehouse.audit.context import WriteContext
from gatehouse.dashboard.sessions import set_session_cookie
from gatehouse.web import browser
from gatehouse.web.auth import runtime_of
from gatehouse.web.client_address import client_address
from gatehouse.web.errors import request_id_of
from gatehouse.web.rendering import render, see_other
from gatehouse.web.text import read_form

FLOW_COOKIE = "gatehouse_sign_in"
FLOW_COOKIE_LIFETIME = timedelta(minutes=30)
COOKIE_PATH = "/dashboard"
# The one answer to every failed sign-in step (docs/staff-identity.md "Lockout and limits").
SIGN_IN_FAILED = (
    "Sign-in failed. Check your email, password and code. After five failures the account "
    "is locked for 15 minutes."
)
TOO_MANY = "Too many sign-in attempts from your network. Wait a minute, then try again."


def anonymous_context(request: Request) -> WriteContext:
    """The write context of a request whose person is not known yet."""
    runtime = runtime_of(request)
    return WriteContext(ANONYMOUS, None, request_id_of(request) or None, runtime.now())


def set_flow_cookie(request: Request, response: Response, value: str) -> None:
    browser.set_session_cookie(
        response,
        runtime_of(request).settings,
        name=FLOW_COOKIE,
        value=value,
        path=COOKIE_PATH,
        lifetime=FLOW_COOKIE_LIFETIME,
        same_site="lax",
    )


def clear_flow_cookie(request: Request, response: Response) -> None:
    browser.clear_session_cookie(
        response, runtime_of(request).settings, name=FLOW_COOKIE, path=COOKIE_PATH, same_site="lax"
    )


async def flow_of(request: Request, purpose: str) -> Flow | None:
    return await find_flow(
        runtime_of(request),
        browser.read_cookie(request, runtime_of(request).settings, FLOW_COOKIE),
        purpose,
    )


def csrf_matches(sent: object, flow: Flow) -> bool:
    return isinstance(sent, str) and hmac.compare_digest(sent.encode(), flow.csrf_token.encode())


async def flow_form(request: Request, flow: Flow) -> FormData | None:
    """The posted form when its CSRF token is the flow's and the origin is ours."""
    form = await read_form(request)
    if not csrf_matches(form.get("csrf_token"), flow) or not same_origin(request):
        return None
    return form


def same_origin(request: Request) -> bool:
    return browser.same_origin(request, runtime_of(request).settings)


async def address_refused(request: Request) -> Response | None:
    """A 429 page when this source address spent its sign-in attempts for the minute."""
    runtime = runtime_of(request)
    address = client_address(request.scope, runtime.settings.trusted_proxy_set)
    window = await runtime.limits.hit_sign_in(address)
    if window is None or window.allowed:
        return None
    metrics.RATE_LIMITED.labels(kind="sign_in").inc()
    return render(
        request,
        "dashboard/sign_in.html",
        {"next": "/dashboard", "errors": {}, "problem": TOO_MANY, "email": ""},
        status_code=429,
        headers={"Retry-After": str(window.reset_seconds)},
    )


def signed_in(request: Request, opened: OpenedSession, location: str) -> Response:
    """303 to `location` with the new session's cookie; the flow cookie goes."""
    response = see_other(location)
    set_session_cookie(request, response, opened.cookie_value)
    clear_flow_cookie(request, response)
    return response


def safe_next(value: object) -> str:
    """Only dashboard-local paths are followed after sign-in."""
    if (
        not isinstance(value, str)
        or not value.startswith("/dashboard")
        or value.startswith("//")
        or "\\" in value
        or value.startswith("/dashboard/sign-in")
    ):
        return "/dashboard"
    return value[:500]
