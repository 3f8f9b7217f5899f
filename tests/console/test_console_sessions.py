"""Console links and sessions (docs/console.md, docs/reference/tenant-api.md §5.16): the link
is single-use, lives 10 minutes, is stored hashed and survives a GET; the session's cookie,
its timeouts, and that it acts as the key that minted it (scopes, revocation, suspension,
the audit actor)."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

import httpx
from sqlalchemy import select

from gatehouse.accounts.service import create_api_key, revoke_api_key, set_tenant_status
from gatehouse.audit.context import WriteContext
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.console import ConsoleLink, ConsoleSession
from gatehouse.timeutil import parse_ts
from tests.console.support import csrf_of, mint, open_console
from tests.pages.helpers import client_with
from tests.support.audit import audit_actions
from tests.support.factories import TenantFixture, make_tenant
from tests.support.leaks import remember


async def test_mint_answers_a_single_use_link(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    answer = await client.post("/v1/console-sessions", json={}, headers=tenant.headers)
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert set(body) == {"url", "expiresAt"}
    assert body["url"].startswith("http://testserver/console/start/")
    token = body["url"].rsplit("/", 1)[1]
    remember(token)
    lifetime = parse_ts(body["expiresAt"]) - runtime.now()
    assert timedelta(minutes=9) < lifetime <= timedelta(minutes=10)
    async with runtime.db.read() as session:
        link = (await session.scalars(select(ConsoleLink))).one()
    assert link.token_hash != token
    assert token not in link.token_hash
    assert link.key_id == tenant.key_id
    assert link.tenant_id == tenant.tenant_id
    entries = await audit_actions(runtime, "console.%")
    assert entries == [("console.link_created", f"api_key:{tenant.key_id}", link.id)]


async def test_no_body_and_a_malformed_body(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    assert (await client.post("/v1/console-sessions", headers=tenant.headers)).status_code == 201
    bad = await client.post(
        "/v1/console-sessions",
        content=b"{nope",
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "invalid-argument"


async def test_minting_needs_webhooks_manage(client: httpx.AsyncClient, runtime: Runtime) -> None:
    reader = await make_tenant(runtime, ["applications:read", "applications:write"])
    answer = await client.post("/v1/console-sessions", json={}, headers=reader.headers)
    assert answer.status_code == 403
    assert "webhooks:manage" in answer.json()["error"]["message"]
    assert (await client.post("/v1/console-sessions", json={})).status_code == 401


async def test_get_consumes_nothing_and_post_uses_the_link_once(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    path = await mint(client, tenant)
    for _ in range(3):
        page = await client.get(path)
        assert page.status_code == 200
        assert f'action="{path}"' in page.text
    started = await client.post(path)
    assert started.status_code == 303
    assert started.headers["location"] == "/console"
    for again in (await client.post(path), await client.get(path)):
        assert again.status_code == 410
        assert "cannot be used" in again.text


async def test_unknown_and_expired_links_are_gone(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    assert (await client.get("/console/start/" + "x" * 43)).status_code == 410
    assert (await client.post("/console/start/" + "x" * 43)).status_code == 410
    assert (await client.post("/console/start/" + "x" * 300)).status_code == 410
    path = await mint(client, tenant)
    start = runtime.now()
    runtime.clock = lambda: start + timedelta(minutes=10, seconds=1)
    assert (await client.get(path)).status_code == 410
    assert (await client.post(path)).status_code == 410


async def test_a_foreign_origin_cannot_use_a_link(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    path = await mint(client, tenant)
    refused = await client.post(path, headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403
    assert "gatehouse_console" not in refused.headers.get("set-cookie", "")
    assert (await client.post(path)).status_code == 303  # still unused


async def test_the_cookie(client: httpx.AsyncClient, tenant: TenantFixture) -> None:
    path = await mint(client, tenant)
    cookie = (await client.post(path)).headers["set-cookie"]
    parts = [part.strip().lower() for part in cookie.split(";")]
    assert parts[0].startswith("gatehouse_console=")
    assert "path=/console" in parts
    assert "httponly" in parts
    assert "samesite=lax" in parts
    assert "secure" not in parts


async def test_the_cookie_is_secure_under_https(database_url: str) -> None:
    async with client_with(database_url, public_url="https://onboarding.example") as (
        client,
        runtime,
    ):
        tenant = await make_tenant(runtime)
        answer = await client.post("/v1/console-sessions", json={}, headers=tenant.headers)
        url = answer.json()["url"]
        remember(url.rsplit("/", 1)[1])
        assert url.startswith("https://onboarding.example/console/start/")
        started = await client.post(
            urlsplit(url).path, headers={"Origin": "https://onboarding.example"}
        )
        assert started.status_code == 303
        assert "secure" in [p.strip().lower() for p in started.headers["set-cookie"].split(";")]


async def test_idle_and_absolute_timeouts(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await open_console(client, tenant)
    start = runtime.now()
    runtime.clock = lambda: start + timedelta(minutes=59)
    assert (await client.get("/console")).status_code == 200
    runtime.clock = lambda: start + timedelta(minutes=59 + 61)
    ended = await client.get("/console")
    assert ended.status_code == 401
    assert "session has ended" in ended.text
    # Kept alive every 50 minutes, it still ends 8 hours after it began.
    await open_console(client, tenant)
    start = runtime.now()
    for minutes in range(50, 8 * 60, 50):
        runtime.clock = lambda m=minutes: start + timedelta(minutes=m)
        assert (await client.get("/console")).status_code == 200, minutes
    runtime.clock = lambda: start + timedelta(hours=8, seconds=1)
    assert (await client.get("/console")).status_code == 401


async def test_revoking_the_key_ends_the_session_at_once(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await open_console(client, tenant)
    unused = await mint(client, tenant)
    await revoke_api_key(runtime, WriteContext.system("test", runtime.now()), tenant.key_id)
    assert (await client.get("/console")).status_code == 401
    refused = await client.post(
        "/console/webhooks", data={"csrf_token": csrf, "url": "http://127.0.0.1:9/", "events": "*"}
    )
    assert refused.status_code == 401
    assert (await client.get(unused)).status_code == 410
    assert (await client.post(unused)).status_code == 410


async def test_the_session_has_the_keys_scopes(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await open_console(client, tenant)
    page = await client.get("/console/applications")
    assert page.status_code == 200
    assert 'href="/console/applications"' in (await client.get("/console")).text
    client.cookies.clear()
    narrow = await create_api_key(runtime, tenant.tenant_id, "console", ["webhooks:manage"])
    remember(str(narrow["apiKey"]))
    narrow_tenant = TenantFixture(tenant.tenant_id, str(narrow["apiKey"]), str(narrow["keyId"]))
    await open_console(client, narrow_tenant)
    refused = await client.get("/console/applications")
    assert refused.status_code == 403
    assert "applications:read" in refused.text
    assert 'href="/console/applications"' not in (await client.get("/console")).text


async def test_a_suspended_tenants_console_is_read_only(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await open_console(client, tenant)
    ctx = WriteContext.system("test", runtime.now())
    await set_tenant_status(runtime, ctx, tenant.tenant_id, "suspended")
    page = await client.get("/console")
    assert page.status_code == 200
    assert "read-only" in page.text
    assert 'action="/console/webhooks"' not in page.text
    refused = await client.post(
        "/console/webhooks", data={"csrf_token": csrf, "url": "http://127.0.0.1:9/", "events": "*"}
    )
    assert refused.status_code == 403
    listed = await client.get("/v1/webhooks", headers=tenant.headers)
    assert listed.json()["data"] == []
    # Signing out still works.
    assert (await client.post("/console/sign-out", data={"csrf_token": csrf})).status_code == 200


async def test_sign_in_and_out_are_audited_as_the_console(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await open_console(client, tenant)
    out = await client.post("/console/sign-out", data={"csrf_token": csrf})
    assert out.status_code == 200
    assert "gatehouse_console=" in out.headers["set-cookie"]
    assert (await client.get("/console")).status_code == 401
    entries = await audit_actions(runtime, "console.sign_%")
    assert [(action, actor) for action, actor, _ in entries] == [
        ("console.sign_in", f"console:{tenant.key_id}"),
        ("console.sign_out", f"console:{tenant.key_id}"),
    ]
    async with runtime.db.read() as session:
        record = (await session.scalars(select(ConsoleSession))).one()
    assert record.ended_at is not None


async def test_the_continue_page_and_the_console_carry_a_csrf_token(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    path = await mint(client, tenant)
    assert "csrf_token" not in (await client.get(path)).text
    await client.post(path)
    assert csrf_of((await client.get("/console")).text)


async def test_a_repeat_with_the_same_idempotency_key_answers_the_same_link(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    headers = {**tenant.headers, "Idempotency-Key": "console-1"}
    first = await client.post("/v1/console-sessions", json={}, headers=headers)
    again = await client.post("/v1/console-sessions", json={}, headers=headers)
    assert first.status_code == again.status_code == 201
    remember(first.json()["url"].rsplit("/", 1)[1])
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    async with runtime.db.read() as session:
        assert len((await session.scalars(select(ConsoleLink))).all()) == 1
