"""The dashboard's session cookie, the viewer of a request, and the form rules
(docs/staff-identity.md "Sessions").

Staff sign in with an email, a password and a second factor, or through single sign-on
(dashboard/sign_in_routes.py); a staff token never opens a session. The session is
server-side (accounts/sessions.py), named by an HttpOnly, SameSite=Strict cookie (Secure
under https), and read from the database on every request, so sign-out, "sign out
everywhere", deactivation, a role change and a reset end it at once, in every process. Every
form carries the session's CSRF token, checked on every post with the origin rule of
web/browser.py.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from urllib.parse import quote

from fastapi import Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse import accounts
from gatehouse.domain.principals import Role, StaffPrincipal
from gatehouse.web import browser
from gatehouse.web.auth import runtime_of
from gatehouse.web.context import write_context
from gatehouse.web.rendering import render, see_other
from gatehouse.web.text import read_form

COOKIE_NAME = "gatehouse_dashboard"
SESSION_LIFETIME = accounts.SESSION_LIFETIME
SIGN_IN_PATH = "/dashboard/sign-in"


@dataclass(frozen=True, slots=True)
class Viewer:
    """The signed-in staff member behind a dashboard request."""

    principal: StaffPrincipal
    session_id: str
    csrf_token: str

    @property
    def role(self) -> str:
        return self.principal.role


async def current_viewer(request: Request) -> Viewer | None:
    """The live session named by the cookie, or None."""
    live = await accounts.find_session(
        runtime_of(request), browser.read_cookie(request, runtime_of(request).settings, COOKIE_NAME)
    )
    if live is None:
        return None
    request.state.staff = live.principal  # who asked, on the access line
    return Viewer(live.principal, live.session_id, live.csrf_token)


async def end_session(request: Request, viewer: Viewer) -> None:
    """Sign-out: this session ends at once (audited `dashboard.sign_out`)."""
    ctx = write_context(request, viewer.principal)
    await accounts.end_session(runtime_of(request), viewer.session_id, ctx)


def set_session_cookie(request: Request, response: Response, cookie_value: str) -> None:
    browser.set_session_cookie(
        response,
        runtime_of(request).settings,
        name=COOKIE_NAME,
        value=cookie_value,
        path="/dashboard",
        lifetime=SESSION_LIFETIME,
        same_site="strict",
    )


def clear_session_cookie(request: Request, response: Response) -> None:
    browser.clear_session_cookie(
        response,
        runtime_of(request).settings,
        name=COOKIE_NAME,
        path="/dashboard",
        same_site="strict",
    )


async def require_viewer(request: Request, role: str = Role.ANALYST) -> Viewer | Response:
    """The viewer, or the answer to give instead: sign-in for no session,
    a 403 page for a role below `role`."""
    viewer = await current_viewer(request)
    if viewer is None:
        target = request.url.path
        if request.url.query:
            target += "?" + request.url.query
        return see_other(f"{SIGN_IN_PATH}?next={quote(target, safe='/')}")
    if not viewer.principal.at_least(role):
        return forbidden_page(request, viewer, f"This page needs the {role} role or higher.")
    return viewer


async def checked_form(request: Request, viewer: Viewer) -> FormData | Response:
    """The posted form when its CSRF token and origin match the session."""
    form = await read_form(request)
    sent = form.get("csrf_token")
    if (
        not isinstance(sent, str)
        or not hmac.compare_digest(sent.encode(), viewer.csrf_token.encode())
        or not browser.same_origin(request, runtime_of(request).settings)
    ):
        return forbidden_page(request, viewer, "The form expired. Reload the page and try again.")
    return form


def forbidden_page(request: Request, viewer: Viewer | None, reason: str) -> Response:
    return render(
        request,
        "dashboard/forbidden.html",
        {"viewer": viewer, "reason": reason},
        status_code=403,
    )
