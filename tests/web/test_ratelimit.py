"""Rate limits of docs/reference/tenant-api.md §4.5 (docs/reference/tenant-api.md §4.1 steps 1
and 5, TRUSTED_PROXIES).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from gatehouse.limits.ratelimit import Window
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from tests.conftest import make_settings
from tests.support.factories import StaffFixture, TenantFixture
from tests.support.probe import probe_app

RATE_HEADERS = ("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "retry-after")


@asynccontextmanager
async def client_for(
    settings: Settings, peer: str = "127.0.0.1"
) -> AsyncIterator[httpx.AsyncClient]:
    runtime = Runtime.build(settings)
    transport = httpx.ASGITransport(app=probe_app(runtime), client=(peer, 40000))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            yield c
    finally:
        await runtime.close()


async def test_per_key_429_after_60_with_retry_after_equal_to_reset(
    probe_client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    remaining = []
    for _ in range(60):
        response = await probe_client.get("/v1/probe", headers=tenant.headers)
        assert response.status_code == 200
        assert response.headers["ratelimit-limit"] == "60"
        remaining.append(int(response.headers["ratelimit-remaining"]))
        reset = int(response.headers["ratelimit-reset"])
        assert 1 <= reset <= 60  # seconds until the window ends, not an epoch
    assert remaining == list(range(59, -1, -1))
    refused = await probe_client.get("/v1/probe", headers=tenant.headers)
    assert refused.status_code == 429
    error = refused.json()["error"]
    assert error["code"] == "resource-exhausted"
    assert error["requestId"] == refused.headers["service-request-id"]
    assert refused.headers["retry-after"] == refused.headers["ratelimit-reset"]
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert refused.headers["ratelimit-remaining"] == "0"
    # Writes share the same budget, and the refusal comes before the body is read.
    write = await probe_client.post("/v1/probe/things", content=b"{bad", headers=tenant.headers)
    assert write.status_code == 429


async def test_per_key_limit_counts_every_authenticated_request(
    database_url: str, tenant: TenantFixture, runtime: Runtime
) -> None:
    from tests.support.factories import make_tenant

    read_only = await make_tenant(runtime, ["applications:read"], with_intake=False)
    async with client_for(make_settings(database_url, rate_limit_per_key=3)) as c:
        statuses = [
            (
                await c.post("/v1/probe/things", json={"name": "x"}, headers=read_only.headers)
            ).status_code
            for _ in range(3)
        ]
        assert statuses == [403, 403, 403]
        assert (await c.get("/v1/probe", headers=read_only.headers)).status_code == 429
        # Another key has its own budget.
        assert (await c.get("/v1/probe", headers=tenant.headers)).status_code == 200


async def test_ratelimit_headers_only_on_authenticated_responses(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, staff: StaffFixture
) -> None:
    unauthenticated = [
        await probe_client.get("/v1/probe"),
        await probe_client.get("/v1/unknown", headers=tenant.headers),
        await probe_client.delete("/v1/probe", headers=tenant.headers),
        await probe_client.options("/v1/probe", headers=tenant.headers),
    ]
    for response in unauthenticated:
        assert not any(h in response.headers for h in RATE_HEADERS), response.status_code
    ok = await probe_client.get("/v1/probe", headers=tenant.headers)
    assert all(h in ok.headers for h in RATE_HEADERS[:3])
    assert "retry-after" not in ok.headers
    bad_body = await probe_client.post("/v1/probe/things", json={}, headers=tenant.headers)
    assert bad_body.status_code == 400
    assert "ratelimit-remaining" in bad_body.headers


async def test_per_ip_429_before_authentication_without_headers(
    database_url: str, tenant: TenantFixture, staff: StaffFixture
) -> None:
    async with client_for(make_settings(database_url, rate_limit_per_ip=3)) as c:
        first = [
            await c.get("/v1/probe"),  # 401
            await c.get("/v1/probe", headers=tenant.headers),  # 200
            await c.get("/v1/nothing"),  # 404
        ]
        assert [r.status_code for r in first] == [401, 200, 404]
        for response in (
            await c.get("/v1/probe", headers=tenant.headers),
            await c.get("/v1/probe"),
            await c.options("/v1/probe"),
            await c.post("/v1/probe/things", content=b"{bad"),
        ):
            assert response.status_code == 429
            error = response.json()["error"]
            assert error["code"] == "resource-exhausted"
            assert error["requestId"] == response.headers["service-request-id"]
            assert not any(h in response.headers for h in RATE_HEADERS)
        # The staff API and the operational routes are not under the /v1 per-IP budget.
        assert (await c.get("/staff/v1/tenants", headers=staff.headers)).status_code == 200
        assert (await c.get("/healthz")).status_code == 200


async def test_per_ip_limit_is_per_source_address(database_url: str) -> None:
    settings = make_settings(database_url, rate_limit_per_ip=2)
    runtime = Runtime.build(settings)
    app = probe_app(runtime)
    try:
        for peer in ("198.51.100.1", "198.51.100.2"):
            transport = httpx.ASGITransport(app=app, client=(peer, 1000))
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
                codes = [(await c.get("/v1/x")).status_code for _ in range(3)]
            assert codes == [404, 404, 429], peer
    finally:
        await runtime.close()


async def test_x_forwarded_for_is_believed_only_from_trusted_proxies(database_url: str) -> None:
    settings = make_settings(
        database_url, rate_limit_per_ip=2, trusted_proxies="10.0.0.1, 10.0.0.2"
    )
    async with client_for(settings, peer="10.0.0.1") as via_proxy:
        for client_ip in ("203.0.113.5", "203.0.113.6"):
            headers = {"X-Forwarded-For": f"{client_ip}, 10.0.0.2"}
            codes = [(await via_proxy.get("/v1/x", headers=headers)).status_code for _ in range(3)]
            assert codes == [404, 404, 429], client_ip
        # A client cannot escape by prepending a forged address: the rightmost
        # untrusted hop is the one counted.
        forged = {"X-Forwarded-For": "192.0.2.99, 203.0.113.5"}
        assert (await via_proxy.get("/v1/x", headers=forged)).status_code == 429
    async with client_for(settings, peer="198.51.100.9") as direct:
        codes = []
        for n in range(3):
            headers = {"X-Forwarded-For": f"203.0.113.{100 + n}"}
            codes.append((await direct.get("/v1/x", headers=headers)).status_code)
        assert codes == [404, 404, 429]


async def test_unreachable_limiter_storage_serves_without_per_key_headers(
    database_url: str, tenant: TenantFixture, captured_logs: list[str]
) -> None:
    settings = make_settings(database_url, redis_url="redis://127.0.0.1:1/0")
    async with client_for(settings) as c:
        response = await c.get("/v1/probe", headers=tenant.headers)
        assert response.status_code == 200
        assert not any(h in response.headers for h in RATE_HEADERS)
    assert any("rate-limit storage unavailable" in line for line in captured_logs)


def test_raw_headers_are_the_headers_as_sent() -> None:
    for window in (Window(True, 60, 59, 60), Window(False, 1_000_000, 0, 1)):
        expected = [(k.lower().encode(), v.encode()) for k, v in window.headers().items()]
        assert window.raw_headers() == expected
