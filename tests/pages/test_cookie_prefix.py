"""Session cookies carry the `__Host-` prefix when PUBLIC_URL is https
(docs/portal-and-dashboard.md, "Cookies"): Secure, Path=/, no Domain, so no other host or
plain-http page can set or shadow them; the same cookie without the prefix is not read. Under
http (development) the names stay as they were. SQLite by default, PostgreSQL with
GATEHOUSE_TEST_DATABASE_URL."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from tests.conftest import make_settings
from tests.pages.helpers import PASSWORD, accept_invite
from tests.support.databases import clear_all_tables
from tests.support.factories import TenantFixture, make_staff, make_tenant

BASE = "https://gatehouse.example.test"


@pytest.fixture
async def https(database_url: str) -> AsyncIterator[tuple[httpx.AsyncClient, Runtime]]:
    settings = make_settings(database_url, public_url=BASE)
    runtime = Runtime.build(settings)
    await clear_all_tables(runtime.db)
    transport = httpx.ASGITransport(app=create_app(settings, runtime), client=("127.0.0.1", 5))
    try:
        async with httpx.AsyncClient(
            transport=transport, base_url=BASE, headers={"Origin": BASE}
        ) as client:
            yield client, runtime
    finally:
        await runtime.close()


def _set_cookie(response: httpx.Response, name: str) -> str:
    found = [v for k, v in response.headers.multi_items() if k == "set-cookie" and name in v]
    assert found, response.headers
    return found[0]


async def test_the_portal_session_is_a_host_cookie_under_https(
    https: tuple[httpx.AsyncClient, Runtime],
) -> None:
    client, runtime = https
    tenant = await make_tenant(runtime)
    link = await client.post(
        "/v1/login-sessions", json={"email": "ana@example.test"}, headers=tenant.headers
    )
    assert link.status_code == 201, link.text
    redeemed = await client.post(link.json()["loginUrl"].removeprefix(BASE))
    assert redeemed.status_code == 303, redeemed.text
    cookie = _set_cookie(redeemed, "gatehouse_session=")
    assert cookie.startswith("__Host-gatehouse_session=")
    attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"path=/", "secure", "httponly"} <= attributes
    assert not any(a.startswith("domain=") for a in attributes)
    assert (await client.get("/portal/status")).status_code == 200
    # The same value under the unprefixed name (what a sibling host could set) is no session.
    value = cookie.split(";")[0].split("=", 1)[1]
    client.cookies.clear()
    client.cookies.set("gatehouse_session", value, domain="gatehouse.example.test")
    assert (await client.get("/portal/status")).status_code != 200


async def test_the_dashboard_session_is_a_host_cookie_under_https(
    https: tuple[httpx.AsyncClient, Runtime],
) -> None:
    client, runtime = https
    person = await make_staff(runtime, "analyst")
    await accept_invite(client, person, PASSWORD)
    page = await client.get("/dashboard")
    assert page.status_code == 200, page.text
    names = {cookie.name for cookie in client.cookies.jar}
    assert "__Host-gatehouse_dashboard" in names
    assert "gatehouse_dashboard" not in names


async def test_http_keeps_the_plain_names_for_development(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    link = await client.post(
        "/v1/login-sessions", json={"email": "ana@example.test"}, headers=tenant.headers
    )
    redeemed = await client.post(link.json()["loginUrl"].removeprefix("http://testserver"))
    assert redeemed.status_code == 303, redeemed.text
    cookie = _set_cookie(redeemed, "gatehouse_session=")
    assert cookie.startswith("gatehouse_session=")
    attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert "path=/portal" in attributes
    assert "secure" not in attributes
    assert (await client.get("/portal/status")).status_code == 200
