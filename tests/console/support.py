"""Opening the tenant console as a developer does: the tenant's backend mints a link with its
API key, the person opens it and presses Continue."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import httpx

from tests.support.factories import TenantFixture
from tests.support.leaks import remember

CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_of(html: str) -> str:
    match = CSRF_RE.search(html)
    assert match, "page has no CSRF token"
    return match.group(1)


async def mint(client: httpx.AsyncClient, tenant: TenantFixture) -> str:
    """A fresh console link's path (`/console/start/<token>`)."""
    answer = await client.post("/v1/console-sessions", json={}, headers=tenant.headers)
    assert answer.status_code == 201, answer.text
    path = urlsplit(answer.json()["url"]).path
    remember(path.rsplit("/", 1)[1])
    return path


async def open_console(client: httpx.AsyncClient, tenant: TenantFixture) -> str:
    """Mint, Continue; the client holds the session cookie. Returns the CSRF token."""
    path = await mint(client, tenant)
    assert (await client.get(path)).status_code == 200
    started = await client.post(path)
    assert started.status_code == 303, started.text
    assert started.headers["location"] == "/console"
    page = await client.get("/console")
    assert page.status_code == 200, page.text
    return csrf_of(page.text)
