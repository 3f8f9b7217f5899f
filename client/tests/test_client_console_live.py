"""client.console_sessions.create() against a real Gatehouse server: the link it returns
opens the tenant console once (docs/console.md)."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import httpx
import pytest
from gatehouse_client import AsyncClient, Client, ConsoleSession, PermissionDenied
from tests.support.factories import TenantFixture, make_tenant
from tests.support.leaks import remember

from gatehouse.runtime import Runtime


def _opens_once(base_url: str, link: ConsoleSession) -> None:
    path = urlsplit(link.url).path
    remember(path.rsplit("/", 1)[1])
    origin = {"Origin": base_url}
    with httpx.Client(base_url=base_url, headers=origin) as browser:
        assert browser.get(path).status_code == 200
        started = browser.post(path)
        assert started.status_code == 303, started.text
        assert started.headers["location"] == "/console"
        assert browser.get("/console").status_code == 200
        assert browser.post(path).status_code == 410


def test_create_mints_a_single_use_link(live_server: str, tenant: TenantFixture) -> None:
    with Client(live_server, tenant.api_key, max_retries=0) as client:
        link = client.console_sessions.create()
    assert urlsplit(link.url).path.startswith("/console/start/")
    assert link.expires_at is not None
    assert link.url not in repr(link)
    _opens_once(live_server, link)


async def test_async_create_needs_webhooks_manage(live_server: str, runtime: Runtime) -> None:
    manage = await make_tenant(runtime, ["webhooks:manage"])
    reader = await make_tenant(runtime, ["applications:read"], with_intake=False)
    async with AsyncClient(live_server, manage.api_key, max_retries=0) as client:
        link = await client.console_sessions.create()
    async with AsyncClient(live_server, reader.api_key, max_retries=0) as client:
        with pytest.raises(PermissionDenied):
            await client.console_sessions.create()
    await asyncio.to_thread(_opens_once, live_server, link)
