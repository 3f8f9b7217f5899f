"""Rate-limit windows across their boundary, in memory and in Redis (docs/reference/tenant-api.md
§4.5).

In memory the limiter's clock is moved; in Redis the real window key is
shortened to a second and the test waits for Redis to end it. Either way the
next request must open a fresh window: full budget, reset 60.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import types
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
import pytest

from gatehouse.limits import ratelimit
from gatehouse.limits.credentials import credential_cache
from gatehouse.limits.ratelimit import window_key
from gatehouse.runtime import Runtime
from tests.conftest import make_settings
from tests.support.factories import make_tenant
from tests.support.probe import probe_app

RATE_HEADERS = ("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "retry-after")
BACKENDS = ["memory", "redis"]


@dataclass
class Limited:
    client: httpx.AsyncClient
    runtime: Runtime
    peer: str
    # Ends the window named by its Redis key (Redis), or moves the clock past it (memory).
    end_window: Callable[[str], Awaitable[None]]


@asynccontextmanager
async def limited(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    backend: str,
    **limits: int,
) -> AsyncIterator[Limited]:
    """A client on a fresh runtime with `limits`, and a way to end a window.

    The source address is random, so that per-IP windows left in a shared Redis
    by other runs never meet this test's.
    """
    database_url: str = request.getfixturevalue("database_url")
    redis_url = request.getfixturevalue("redis_url") if backend == "redis" else None
    runtime = Runtime.build(make_settings(database_url, redis_url=redis_url, **limits))
    peer = f"198.18.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"
    offset = [0]
    fake_time = types.SimpleNamespace(
        monotonic=time.monotonic, monotonic_ns=lambda: time.monotonic_ns() + offset[0]
    )
    monkeypatch.setattr(ratelimit, "time", fake_time)

    async def end_window(key: str) -> None:
        if runtime.limits.redis is None:
            offset[0] += ratelimit.WINDOW_NS
            return
        client = runtime.limits.redis.client
        assert await client.pexpire(key, 1000)
        deadline = time.monotonic() + 10
        while await client.exists([key]):
            assert time.monotonic() < deadline, "Redis did not end the window"
            await asyncio.sleep(0.05)

    transport = httpx.ASGITransport(app=probe_app(runtime), client=(peer, 40000))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            yield Limited(c, runtime, peer, end_window)
    finally:
        await runtime.close()


def _window(response: httpx.Response) -> tuple[int, int, int]:
    headers = response.headers
    return (
        int(headers["ratelimit-limit"]),
        int(headers["ratelimit-remaining"]),
        int(headers["ratelimit-reset"]),
    )


@pytest.mark.parametrize("backend", BACKENDS)
async def test_per_key_window_headers_and_429_across_the_boundary(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    runtime: Runtime,
    backend: str,
) -> None:
    tenant = await make_tenant(runtime, with_intake=False)
    async with limited(request, monkeypatch, backend, rate_limit_per_key=3) as limits:
        c = limits.client
        windows = [_window(await c.get("/v1/probe", headers=tenant.headers)) for _ in range(3)]
        assert [w[:2] for w in windows] == [(3, 2), (3, 1), (3, 0)]
        assert windows[0][2] == 60  # a new window, in seconds (not an epoch)
        resets = [w[2] for w in windows]
        assert all(1 <= r <= 60 for r in resets)
        assert resets == sorted(resets, reverse=True)

        refused = await c.get("/v1/probe", headers=tenant.headers)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "resource-exhausted"
        assert _window(refused)[:2] == (3, 0)
        assert refused.headers["retry-after"] == refused.headers["ratelimit-reset"]
        assert 1 <= int(refused.headers["retry-after"]) <= resets[-1]

        await limits.end_window(window_key("key", tenant.key_id, 3))
        fresh = await c.get("/v1/probe", headers=tenant.headers)
        assert fresh.status_code == 200
        assert _window(fresh) == (3, 2, 60)
        assert "retry-after" not in fresh.headers
        # The refused requests of the old window do not carry over.
        assert _window(await c.get("/v1/probe", headers=tenant.headers))[:2] == (3, 1)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_per_ip_window_across_the_boundary(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    async with limited(request, monkeypatch, backend, rate_limit_per_ip=2) as limits:
        c = limits.client
        codes = [(await c.get("/v1/probe")).status_code for _ in range(3)]
        assert codes == [401, 401, 429]
        refused = await c.get("/v1/probe")
        assert refused.status_code == 429
        assert not any(h in refused.headers for h in RATE_HEADERS)
        await limits.end_window(window_key("ip", limits.peer, 2))
        assert (await c.get("/v1/probe")).status_code == 401
        assert (await c.get("/v1/probe")).status_code == 401
        assert (await c.get("/v1/probe")).status_code == 429


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_wrong_secret_does_not_spend_the_key_budget(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    runtime: Runtime,
    backend: str,
) -> None:
    tenant = await make_tenant(runtime, with_intake=False)
    forged = {"Authorization": f"Bearer service_{tenant.key_id}_{'Z' * 40}"}
    async with limited(request, monkeypatch, backend, rate_limit_per_key=2) as limits:
        c = limits.client
        for _ in range(4):
            response = await c.get("/v1/probe", headers=forged)
            assert response.status_code == 401
            assert not any(h in response.headers for h in RATE_HEADERS)
        # A known key on an unknown route is not counted either (404 before step 5).
        assert (await c.get("/v1/nothing", headers=tenant.headers)).status_code == 404
        ok = await c.get("/v1/probe", headers=tenant.headers)
        assert ok.status_code == 200
        assert _window(ok) == (2, 1, 60)


async def test_unreachable_redis_serves_unlimited_bypasses_the_cache_and_warns_once(
    database_url: str, runtime: Runtime, captured_logs: list[str]
) -> None:
    tenant = await make_tenant(runtime, with_intake=False)
    settings = make_settings(
        database_url, redis_url="redis://127.0.0.1:1/0", rate_limit_per_key=1, rate_limit_per_ip=1
    )
    broken = Runtime.build(settings)
    before = len(captured_logs)
    transport = httpx.ASGITransport(app=probe_app(broken), client=("127.0.0.1", 40001))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            for _ in range(3):  # above both budgets: served, without per-key headers
                response = await c.get("/v1/probe", headers=tenant.headers)
                assert response.status_code == 200
                assert not any(h in response.headers for h in RATE_HEADERS)
                assert len(credential_cache(broken)) == 0  # nothing cached: epoch unknown
    finally:
        await broken.close()
    lines = captured_logs[before:]
    assert sum("rate-limit storage unavailable" in line for line in lines) == 1
    assert sum("credential epoch unavailable" in line for line in lines) == 1
