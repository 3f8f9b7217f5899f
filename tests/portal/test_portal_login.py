"""Link redemption (docs/reference/portal.md): POST consumes the link
once, starts a
cookie session and redirects; used, expired, revoked and locked links get the
same 410 page."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.storage.tables.applications import LoginLink, PortalSession
from tests.conftest import make_settings
from tests.portal.conftest import Provisioned, mint, provision, sign_in
from tests.support.factories import TenantFixture


async def test_post_redeems_sets_cookie_and_redirects_by_state(
    client: httpx.AsyncClient, runtime: Runtime, provisioned: Provisioned
) -> None:
    response = await client.post(provisioned.login_path)
    assert response.status_code == 303
    # Not submitted yet: the form page.
    assert response.headers["location"] == "/portal/form-parser"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("gatehouse_session=")
    lowered = cookie.lower()
    assert "httponly" in lowered
    assert "samesite=lax" in lowered
    assert "secure" not in lowered  # PUBLIC_URL is http in tests
    token = cookie.split(";", 1)[0].split("=", 1)[1]
    async with runtime.db.read() as session:
        stored = list((await session.execute(select(PortalSession.token_hash))).scalars())
        link = (await session.execute(select(LoginLink))).scalar_one()
    assert stored == [runtime.crypto.hash_secret(token)]
    assert token not in stored
    assert link.used_at is not None
    me = await client.get("/portal/api/me")
    assert me.status_code == 200
    assert me.json()["clientId"] == provisioned.client_id


async def test_a_link_works_once(client: httpx.AsyncClient, provisioned: Provisioned) -> None:
    await sign_in(client, provisioned.token)
    again = await client.post(provisioned.login_path)
    assert again.status_code == 410
    assert again.headers["content-type"].startswith("text/html")
    assert "set-cookie" not in again.headers


async def test_get_consumes_nothing(client: httpx.AsyncClient, provisioned: Provisioned) -> None:
    # Whatever the GET page shows, it must not use the link up.
    await client.get(provisioned.login_path)
    await sign_in(client, provisioned.token)


async def test_redirect_path_wins(client: httpx.AsyncClient, tenant: TenantFixture) -> None:
    made = await provision(client, tenant, redirectPath="/upload-documents")
    response = await client.post(made.login_path)
    assert response.headers["location"] == "/portal/upload-documents"
    ignored = await provision(
        client, tenant, email="b@example.test", externalRef="b", redirectPath="/evil"
    )
    response = await client.post(ignored.login_path)
    assert response.headers["location"] == "/portal/form-parser"


async def test_landing_page_follows_state(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    provisioned: Provisioned,
    staff_headers: dict[str, str],
) -> None:
    await sign_in(client, provisioned.token)
    assert (await client.post("/portal/api/submit")).status_code == 200
    token = await mint(client, tenant, provisioned.client_id)
    assert (await sign_in(client, token)).headers["location"] == "/portal/status"
    raised = await client.post(
        f"/staff/v1/applications/{provisioned.client_id}/info-requests",
        json={"comment": "More", "items": [{"type": "question", "prompt": "Why?"}]},
        headers=staff_headers,
    )
    assert raised.status_code == 201
    token = await mint(client, tenant, provisioned.client_id)
    assert (await sign_in(client, token)).headers["location"] == "/portal/requests"


@pytest.fixture
async def staff_headers(runtime: Runtime) -> dict[str, str]:
    from tests.support.factories import make_staff

    return (await make_staff(runtime, "analyst")).headers


async def test_unknown_token_is_410(client: httpx.AsyncClient) -> None:
    response = await client.post("/portal/login/not-a-real-token")
    assert response.status_code == 410
    assert "no longer valid" in response.text


async def test_expired_link_is_410(
    client: httpx.AsyncClient, runtime: Runtime, provisioned: Provisioned
) -> None:
    real_clock = runtime.clock
    runtime.clock = lambda: real_clock() + timedelta(days=3, seconds=1)
    response = await client.post(provisioned.login_path)
    assert response.status_code == 410


async def test_links_of_a_locked_application_are_410_and_the_same_page(
    client: httpx.AsyncClient, tenant: TenantFixture, provisioned: Provisioned
) -> None:
    used = await provision(client, tenant, email="o2@example.test", externalRef="x2")
    await sign_in(client, used.token)
    used_page = (await client.post(used.login_path)).text
    locked = await client.post(
        f"/v1/applications/{provisioned.client_id}/lock", headers=tenant.headers
    )
    assert locked.status_code == 200
    response = await client.post(provisioned.login_path)
    assert response.status_code == 410
    assert response.text == used_page  # the page never says which


async def test_revoked_link_is_410(
    client: httpx.AsyncClient, runtime: Runtime, provisioned: Provisioned
) -> None:
    async with runtime.db.write() as session:
        link = (await session.execute(select(LoginLink))).scalar_one()
        link.revoked_at = runtime.now()
    assert (await client.post(provisioned.login_path)).status_code == 410


async def test_two_concurrent_redemptions_one_wins(
    client: httpx.AsyncClient, provisioned: Provisioned
) -> None:
    answers = await asyncio.gather(*(client.post(provisioned.login_path) for _ in range(5)))
    assert sorted(r.status_code for r in answers) == [303, 410, 410, 410, 410]


async def test_cross_site_post_is_refused(
    client: httpx.AsyncClient, provisioned: Provisioned
) -> None:
    response = await client.post(provisioned.login_path, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    # The link was not consumed.
    ok = await client.post(provisioned.login_path, headers={"Origin": "http://testserver"})
    assert ok.status_code == 303


async def test_secure_cookie_under_https(
    database_url: str, tenant_factory_settings: Settings
) -> None:
    from gatehouse.app import create_app
    from tests.support.factories import make_tenant

    rt = Runtime.build(tenant_factory_settings)
    try:
        app = create_app(rt.settings, rt)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport,
            base_url="https://portal.example",
            headers={"Origin": "https://portal.example"},
        ) as c:
            tenant = await make_tenant(rt)
            made = await provision(c, tenant, email="s@example.test", externalRef="s1")
            assert made.login_url.startswith("https://portal.example/portal/login/")
            response = await c.post(made.login_path)
            assert response.status_code == 303
            assert "secure" in response.headers["set-cookie"].lower()
    finally:
        await rt.close()


@pytest.fixture
def tenant_factory_settings(database_url: str, runtime: Runtime) -> Settings:
    # Depends on `runtime` so the tables are cleared first.
    return make_settings(database_url, public_url="https://portal.example")
