"""Concurrent provisioning makes one application per identity (docs/reference/tenant-api.md §5.1
rule 1),
and concurrent requests with one Idempotency-Key make one effect (docs/reference/tenant-api.md
§4.6)."""

from __future__ import annotations

import asyncio

import httpx

from gatehouse.runtime import Runtime
from tests.api.support import links_of
from tests.support.factories import TenantFixture


async def test_fifty_concurrent_first_calls_make_one_application(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    async def call(n: int) -> httpx.Response:
        route = "/v1/applications" if n % 2 else "/v1/login-sessions"
        return await client.post(
            route, json={"email": "same@x.test", "externalRef": "crm-50"}, headers=tenant.headers
        )

    responses = await asyncio.gather(*(call(n) for n in range(50)))
    assert all(r.status_code in (200, 201) for r in responses), [r.text for r in responses]
    client_ids = {r.json()["clientId"] for r in responses}
    assert len(client_ids) == 1
    created = [r for r in responses if r.status_code == 201 and "members" in r.json()]
    repeats = [r for r in responses if r.status_code == 200]
    assert len(created) + len(repeats) == 25
    assert len(created) <= 1
    listed = (await client.get("/v1/applications", headers=tenant.headers)).json()["data"]
    assert len(listed) == 1
    read = (await client.get(f"/v1/applications/{client_ids.pop()}", headers=tenant.headers)).json()
    assert len(read["members"]) == 1
    assert len(await links_of(runtime, read["clientId"])) == 25


async def test_concurrent_requests_with_one_idempotency_key_make_one_effect(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    headers = {**tenant.headers, "Idempotency-Key": "same-intent"}
    responses = await asyncio.gather(
        *(
            client.post("/v1/login-sessions", json={"email": "a@x.test"}, headers=headers)
            for _ in range(6)
        )
    )
    statuses = [r.status_code for r in responses]
    assert set(statuses) <= {201, 409}
    ok = [r for r in responses if r.status_code == 201]
    assert ok
    assert len({r.json()["loginUrl"] for r in ok}) == 1
    for r in responses:
        if r.status_code == 409:
            assert r.json()["error"]["code"] == "aborted"
    assert len(await links_of(runtime, ok[0].json()["clientId"])) == 1
