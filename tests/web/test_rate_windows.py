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
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

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
        while await client.exists(key):
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


async def test_unreachable_redis_serves_unlimited_and_warns_once(
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
            # The key cache does not depend on Redis (its epoch is the database's).
            assert credential_cache(broken).get(tenant.key_id) is not None
    finally:
        await broken.close()
    lines = captured_logs[before:]
    assert sum("rate-limit storage unavailable" in line for line in lines) == 1
    assert not any("credential epoch unavailable" in line for line in lines)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_per_ip_limit_refuses_a_cached_key_before_its_window_counts(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    runtime: Runtime,
    backend: str,
) -> None:
    """With Redis a cached key has both windows counted in one script: a request over the
    per-IP limit is still the per-IP 429 (no RateLimit-* headers) and the key's window does
    not count it."""
    tenant = await make_tenant(runtime, with_intake=False)
    async with limited(request, monkeypatch, backend, rate_limit_per_ip=3) as limits:
        c = limits.client
        # A miss, then two requests served from the key cache.
        windows = [_window(await c.get("/v1/probe", headers=tenant.headers)) for _ in range(3)]
        limit = windows[0][0]
        assert [w[1] for w in windows] == [limit - 1, limit - 2, limit - 3]
        assert credential_cache(limits.runtime).get(tenant.key_id) is not None
        for path in ("/v1/probe", "/v1/nothing"):
            refused = await c.get(path, headers=tenant.headers)
            assert refused.status_code == 429
            assert refused.json()["error"]["message"] == "Too many requests from this address."
            assert not any(h in refused.headers for h in RATE_HEADERS)
        # From another address (the same limiter): the refused requests were not counted.
        other = httpx.ASGITransport(
            app=probe_app(limits.runtime), client=(f"198.19.{secrets.randbelow(256)}.9", 40000)
        )
        async with httpx.AsyncClient(transport=other, base_url="http://t") as elsewhere:
            after = await elsewhere.get("/v1/probe", headers=tenant.headers)
        assert _window(after)[1] == limit - 4


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_route_that_authenticates_but_answers_404_does_not_count_the_key(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    runtime: Runtime,
    backend: str,
) -> None:
    """The sandbox routes authenticate, then answer a live tenant's key 404 (or 405) before
    step 5: with the key cached, in Redis too, its window is not counted."""
    tenant = await make_tenant(runtime, with_intake=False)
    async with limited(request, monkeypatch, backend) as limits:
        c = limits.client
        first = _window(await c.get("/v1/probe", headers=tenant.headers))
        path = "/v1/sandbox/applications/app_x/simulate"
        for _ in range(2):
            refused = await c.post(path, json={"action": "submit"}, headers=tenant.headers)
            assert refused.status_code == 404
            assert (await c.get(path, headers=tenant.headers)).status_code == 404
        second = _window(await c.get("/v1/probe", headers=tenant.headers))
        assert second[1] == first[1] - 1


async def test_a_request_left_without_an_answer_still_counts_per_ip(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    database_url: str,
    redis_url: str,
) -> None:
    """With Redis the edge counts the per-IP window when first needed: a client that goes
    away before any answer (here while its form body is read) is counted all the same."""
    async with limited(request, monkeypatch, "redis", rate_limit_per_ip=5) as limits:
        app = probe_app(limits.runtime)
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/v1/probe",
            "raw_path": b"/v1/probe",
            "query_string": b"",
            "root_path": "",
            "headers": [(b"content-type", b"application/x-www-form-urlencoded")],
            "client": (limits.peer, 40000),
            "server": ("t", 80),
        }
        sent: list[MutableMapping[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        await app(scope, receive, send)
        assert sent == []
        assert limits.runtime.limits.redis is not None
        client = limits.runtime.limits.redis.client
        assert await client.get(window_key("ip", limits.peer, 5)) == b"1"
