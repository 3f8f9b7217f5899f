"""Helpers for page tests over the ASGI client: signing in the way a person does, and CSRF
tokens.

`dashboard_sign_in` walks the real pages: on a staff member's first sign-in the invite
(password, TOTP enrolment confirmed with a code computed with pyotp, recovery codes), later
the sign-in form (email and password, then a TOTP code). A TOTP code is accepted once, so
the helper uses the next time step when the current one was spent, and a recovery code when
both were.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

import httpx
import pyotp

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from tests.conftest import make_settings
from tests.support.browser import SAME_ORIGIN
from tests.support.databases import clear_all_tables
from tests.support.factories import StaffFixture
from tests.support.leaks import remember

CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')
SECRET_RE = re.compile(r'id="totp-secret">([A-Z2-7 ]+)<')
RECOVERY_RE = re.compile(r"<li>([a-z0-9]{5}-[a-z0-9]{5})</li>")
PASSWORD = "orbit lantern pebble quarrel"


def csrf_of(html: str) -> str:
    match = CSRF_RE.search(html)
    assert match, "page has no CSRF token"
    return match.group(1)


def next_code(staff: StaffFixture) -> str:
    """A TOTP code not yet spent (this step or the next), else a recovery code."""
    assert staff.totp_secret is not None
    current = int(time.time()) // 30
    step = max(current, staff.last_totp_step + 1)
    if step > current + 1:
        return staff.recovery_codes.pop()
    staff.last_totp_step = step
    return pyotp.TOTP(staff.totp_secret).at(step * 30)


async def accept_invite(client: httpx.AsyncClient, staff: StaffFixture, password: str) -> str:
    """Use the invite: set `password`, enrol TOTP; returns the recovery-codes page."""
    path = urlsplit(staff.invite_url).path
    assert (await client.get(path)).status_code == 200
    answer = await client.post(path, data={"password": password, "password_confirm": password})
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == "/dashboard/enrol"
    page = await client.get("/dashboard/enrol")
    assert page.status_code == 200, page.text
    match = SECRET_RE.search(page.text)
    assert match, "enrolment page shows no key"
    staff.password = password
    staff.totp_secret = match.group(1).replace(" ", "")
    remember(password)
    remember(staff.totp_secret)
    done = await client.post(
        "/dashboard/enrol", data={"csrf_token": csrf_of(page.text), "code": next_code(staff)}
    )
    assert done.status_code == 200, done.text
    staff.recovery_codes = RECOVERY_RE.findall(done.text)
    assert len(staff.recovery_codes) == 10
    for code in staff.recovery_codes:
        remember(code)
    return done.text


async def sign_in_with_password(
    client: httpx.AsyncClient, staff: StaffFixture, next_path: str = "/dashboard"
) -> httpx.Response:
    """Email and password, then a code: the final answer (303 to `next_path`)."""
    assert staff.password is not None
    first = await client.post(
        "/dashboard/sign-in",
        data={"email": staff.email, "password": staff.password, "next": next_path},
    )
    assert first.status_code == 303, first.text
    assert first.headers["location"] == "/dashboard/sign-in/verify"
    form = await client.get("/dashboard/sign-in/verify")
    return await client.post(
        "/dashboard/sign-in/verify",
        data={"csrf_token": csrf_of(form.text), "code": next_code(staff)},
    )


async def dashboard_sign_in(client: httpx.AsyncClient, staff: StaffFixture) -> str:
    """Sign in to the dashboard as `staff`; returns the session's CSRF token."""
    if staff.password is None:
        await accept_invite(client, staff, PASSWORD)
    else:
        answer = await sign_in_with_password(client, staff)
        assert answer.status_code == 303, answer.text
    page = await client.get("/dashboard")
    assert page.status_code == 200, page.text
    return csrf_of(page.text)


@asynccontextmanager
async def client_with(
    database_url: str, **overrides: object
) -> AsyncIterator[tuple[httpx.AsyncClient, Runtime]]:
    """A client over an app with other settings (tables emptied first)."""
    settings = make_settings(database_url, **overrides)
    runtime = Runtime.build(settings)
    await clear_all_tables(runtime.db)
    transport = httpx.ASGITransport(app=create_app(settings, runtime), client=("127.0.0.1", 5))
    try:
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", headers=SAME_ORIGIN
        ) as client:
            yield client, runtime
    finally:
        await runtime.close()
