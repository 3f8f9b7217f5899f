"""Dashboard sign-in and sessions (issue 6).

Staff sign in once with their staff token; the dashboard then keeps a
server-side `DashboardSession` named by an HttpOnly, SameSite=Strict cookie
(Secure under https). Every form carries the session's CSRF token, checked on
every post. Sessions end on sign-out, after `SESSION_LIFETIME`, and at once
when the staff member is no longer active.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from fastapi import Request
from sqlalchemy import select, update
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse import audit
from gatehouse.dashboard.rendering import render, see_other
from gatehouse.http.auth import STAFF_PREFIX, STAFF_TOKEN_RE, StaffPrincipal, runtime_of
from gatehouse.http.errors import request_id_of
from gatehouse.ids import new_id, random_token
from gatehouse.storage.tables.core import StaffMember
from gatehouse.storage.tables.dashboard import DashboardSession

COOKIE_NAME = "gatehouse_dashboard"
SESSION_LIFETIME = timedelta(hours=12)
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


class SignInRefused(Exception):
    """The token given at sign-in names no active staff member."""


async def sign_in(request: Request, token: str) -> tuple[str, Viewer]:
    """Check a staff token and open a session; returns the cookie value."""
    runtime = runtime_of(request)
    match = STAFF_TOKEN_RE.fullmatch(token.strip())
    if not match:
        raise SignInRefused
    short_id, secret = match.groups()
    now = runtime.now()
    cookie_value = random_token(48)
    csrf_token = random_token(40)
    async with runtime.db.write() as session:
        staff = await session.get(StaffMember, STAFF_PREFIX + short_id)
        if staff is None:
            runtime.crypto.verify_secret(secret, "0" * 64)
            raise SignInRefused
        if not runtime.crypto.verify_secret(secret, staff.token_hash) or staff.status != "active":
            raise SignInRefused
        record = DashboardSession(
            id=new_id("dsh"),
            staff_id=staff.id,
            token_hash=runtime.crypto.hash_secret(cookie_value),
            csrf_token=csrf_token,
            created_at=now,
            expires_at=now + SESSION_LIFETIME,
        )
        session.add(record)
        audit.record(
            session,
            at=now,
            actor=f"staff:{staff.id}",
            action="dashboard.sign_in",
            target=record.id,
            request_id=request_id_of(request),
        )
        principal = StaffPrincipal(staff.id, staff.email, staff.role)
    return cookie_value, Viewer(principal, record.id, csrf_token)


async def current_viewer(request: Request) -> Viewer | None:
    """The live session named by the cookie, or None."""
    cookie_value = request.cookies.get(COOKIE_NAME)
    if not cookie_value or len(cookie_value) > 128:
        return None
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        row = (
            await session.execute(
                select(DashboardSession, StaffMember)
                .join(StaffMember, StaffMember.id == DashboardSession.staff_id)
                .where(DashboardSession.token_hash == runtime.crypto.hash_secret(cookie_value))
            )
        ).first()
    if row is None:
        return None
    record, staff = row
    if record.ended_at is not None or record.expires_at <= runtime.now():
        return None
    if staff.status != "active":
        return None
    return Viewer(StaffPrincipal(staff.id, staff.email, staff.role), record.id, record.csrf_token)


async def end_session(request: Request, viewer: Viewer) -> None:
    runtime = runtime_of(request)
    now = runtime.now()
    async with runtime.db.write() as session:
        await session.execute(
            update(DashboardSession)
            .where(DashboardSession.id == viewer.session_id)
            .values(ended_at=now)
        )
        audit.record(
            session,
            at=now,
            actor=viewer.principal.actor,
            action="dashboard.sign_out",
            target=viewer.session_id,
            request_id=request_id_of(request),
        )


def set_session_cookie(request: Request, response: Response, cookie_value: str) -> None:
    response.set_cookie(
        COOKIE_NAME,
        cookie_value,
        max_age=int(SESSION_LIFETIME.total_seconds()),
        path="/dashboard",
        httponly=True,
        samesite="strict",
        secure=is_https(request),
    )


def clear_session_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(
        COOKIE_NAME, path="/dashboard", httponly=True, samesite="strict", secure=is_https(request)
    )


def is_https(request: Request) -> bool:
    return runtime_of(request).settings.base_url.startswith("https://")


def same_origin(request: Request) -> bool:
    """False when the browser says the post came from another site."""
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return origin is None
    allowed = {_origin(runtime_of(request).settings.base_url), _origin(str(request.base_url))}
    return _origin(origin) in allowed


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


async def require_viewer(request: Request, role: str = "analyst") -> Viewer | Response:
    """The viewer, or the answer to give instead: sign-in for no session,
    a 403 page for a role below `role`."""
    viewer = await current_viewer(request)
    if viewer is None:
        target = request.url.path
        if request.url.query:
            target += "?" + request.url.query
        return see_other(f"{SIGN_IN_PATH}?next={_quote(target)}")
    if not viewer.principal.at_least(role):
        return forbidden_page(request, viewer, f"This page needs the {role} role or higher.")
    return viewer


async def checked_form(request: Request, viewer: Viewer) -> FormData | Response:
    """The posted form when its CSRF token and origin match the session."""
    form = await request.form()
    sent = form.get("csrf_token")
    if (
        not isinstance(sent, str)
        or not hmac.compare_digest(sent.encode(), viewer.csrf_token.encode())
        or not same_origin(request)
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


def _quote(path: str) -> str:
    from urllib.parse import quote

    return quote(path, safe="/")


def safe_next(value: str | None) -> str:
    """Only dashboard-local paths are followed after sign-in."""
    if not value or not value.startswith("/dashboard") or value.startswith("//"):
        return "/dashboard"
    return value
