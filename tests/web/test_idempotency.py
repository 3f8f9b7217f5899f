"""Idempotency-Key exactly as docs/reference/tenant-api.md §4.6, on the test-only probe routes."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import httpx
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import IdempotencyRecord
from gatehouse.sweeps import run_sweeps_once
from gatehouse.web.idempotency import RETENTION
from tests.support.factories import TenantFixture, make_tenant
from tests.support.probe import count_effects


async def records(runtime: Runtime) -> list[IdempotencyRecord]:
    async with runtime.db.read() as session:
        return list((await session.scalars(select(IdempotencyRecord))).all())


def with_key(tenant: TenantFixture, key: str) -> dict[str, str]:
    return {**tenant.headers, "Idempotency-Key": key}


async def test_replay_returns_the_stored_answer_with_fresh_per_response_headers(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    headers = with_key(tenant, "create-thing-1")
    first = await probe_client.post("/v1/probe/things", json={"name": "a"}, headers=headers)
    assert first.status_code == 201
    assert "idempotent-replayed" not in first.headers
    second = await probe_client.post("/v1/probe/things", json={"name": "a"}, headers=headers)
    assert second.status_code == 201
    assert second.headers["idempotent-replayed"] == "true"
    assert second.json() == first.json()  # the stored body, the first request id inside it
    assert second.headers["location"] == first.headers["location"]
    assert second.headers["content-type"] == first.headers["content-type"]
    assert second.headers["service-request-id"] != first.headers["service-request-id"]
    assert (
        int(second.headers["ratelimit-remaining"]) == int(first.headers["ratelimit-remaining"]) - 1
    )
    assert await count_effects(runtime) == 1
    # Without the header every request runs.
    await probe_client.post("/v1/probe/things", json={"name": "a"}, headers=tenant.headers)
    assert await count_effects(runtime) == 2


async def test_replayed_error_carries_the_replays_request_id(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    headers = with_key(tenant, "will-fail")
    body = {"name": "a", "fail": True}
    first = await probe_client.post("/v1/probe/things", json=body, headers=headers)
    assert first.status_code == 400
    assert first.json()["error"]["code"] == "failed-precondition"
    second = await probe_client.post("/v1/probe/things", json=body, headers=headers)
    assert second.status_code == 400
    assert second.headers["idempotent-replayed"] == "true"
    assert second.json()["error"]["code"] == "failed-precondition"
    assert second.json()["error"]["requestId"] == second.headers["service-request-id"]
    assert second.json()["error"]["requestId"] != first.json()["error"]["requestId"]
    # A validation error is stored too.
    invalid = with_key(tenant, "invalid-body")
    a = await probe_client.post("/v1/probe/things", json={"name": 1}, headers=invalid)
    b = await probe_client.post("/v1/probe/things", json={"name": 1}, headers=invalid)
    assert a.status_code == b.status_code == 400
    assert b.headers["idempotent-replayed"] == "true"
    assert b.json()["error"]["details"] == a.json()["error"]["details"]
    assert await count_effects(runtime) == 0


async def test_same_key_with_other_data_is_400_naming_the_header(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    headers = with_key(tenant, "k-mismatch")
    assert (
        await probe_client.post("/v1/probe/things", json={"name": "a"}, headers=headers)
    ).status_code == 201
    for method, path, body in [
        ("POST", "/v1/probe/things", {"name": "b"}),
        ("POST", "/v1/probe/rollback", {"name": "a"}),
        ("DELETE", "/v1/probe/things/a", None),
    ]:
        response = await probe_client.request(method, path, json=body, headers=headers)
        assert response.status_code == 400, (method, path)
        error = response.json()["error"]
        assert error["code"] == "invalid-argument"
        assert any(d["field"] == "Idempotency-Key" for d in error["details"])
    assert await count_effects(runtime) == 1


async def test_invalid_key_shape_is_400(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    for key in (b"", b"x" * 256, b"caf\xc3\xa9", b"tab\there"):
        response = await probe_client.post(
            "/v1/probe/things",
            json={"name": "a"},
            headers={**tenant.headers, "Idempotency-Key": key},  # type: ignore[dict-item]
        )
        assert response.status_code == 400, repr(key)
        error = response.json()["error"]
        assert error["code"] == "invalid-argument"
        assert error["details"][0]["field"] == "Idempotency-Key"
    ok = await probe_client.post(
        "/v1/probe/things", json={"name": "a"}, headers=with_key(tenant, "~" * 255)
    )
    assert ok.status_code == 201
    assert await count_effects(runtime) == 1


async def test_in_flight_key_is_409_aborted_with_retry_after(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    headers = with_key(tenant, "slow-one")
    body = {"name": "slow", "delay": 0.4}
    first = asyncio.create_task(probe_client.post("/v1/probe/things", json=body, headers=headers))
    await asyncio.sleep(0.15)
    second = await probe_client.post("/v1/probe/things", json=body, headers=headers)
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "aborted"
    assert second.headers["retry-after"] == "1"
    assert (await first).status_code == 201
    third = await probe_client.post("/v1/probe/things", json=body, headers=headers)
    assert third.status_code == 201
    assert third.headers["idempotent-replayed"] == "true"
    assert await count_effects(runtime) == 1


async def test_concurrent_requests_with_one_key_make_one_effect(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    headers = with_key(tenant, "race")
    responses = await asyncio.gather(
        *(
            probe_client.post("/v1/probe/things", json={"name": "race"}, headers=headers)
            for _ in range(6)
        )
    )
    statuses = [r.status_code for r in responses]
    assert set(statuses) <= {201, 409}
    fresh = [
        r for r in responses if r.status_code == 201 and "idempotent-replayed" not in r.headers
    ]
    assert len(fresh) == 1
    assert await count_effects(runtime) == 1


async def test_5xx_401_and_429_are_not_stored(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    crash = with_key(tenant, "crash")
    for _ in range(2):
        response = await probe_client.post("/v1/probe/crash", headers=crash)
        assert response.status_code == 500
        assert "idempotent-replayed" not in response.headers
    unavailable = with_key(tenant, "unavailable")
    for _ in range(2):
        response = await probe_client.post("/v1/probe/unavailable", headers=unavailable)
        assert response.status_code == 503
        assert "idempotent-replayed" not in response.headers
    unauthorized = {"Authorization": "Bearer nope", "Idempotency-Key": "unauth"}
    assert (await probe_client.post("/v1/probe/things", headers=unauthorized)).status_code == 401
    assert await records(runtime) == []


async def test_an_answer_not_made_through_respond_frees_the_key(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    headers = with_key(tenant, "plain")
    for _ in range(2):
        response = await probe_client.post("/v1/probe/plain", headers=headers)
        assert response.status_code == 200
        assert "idempotent-replayed" not in response.headers
    assert await records(runtime) == []


async def test_record_commits_with_the_effects(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    headers = with_key(tenant, "rolled-back")
    for _ in range(2):
        response = await probe_client.post("/v1/probe/rollback", headers=headers)
        assert response.status_code == 500
        assert "idempotent-replayed" not in response.headers
    assert await count_effects(runtime) == 0
    assert await records(runtime) == []


async def test_stored_answers_are_encrypted_at_rest(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    marker = "plaintext-marker-0f9a"
    await probe_client.post(
        "/v1/probe/things", json={"name": marker}, headers=with_key(tenant, "secret-body")
    )
    (record,) = await records(runtime)
    assert record.state == "done"
    assert record.status_code == 201
    stored = record.response_encrypted or ""
    assert stored
    assert marker not in stored
    assert "name" not in stored
    assert marker not in record.fingerprint
    assert runtime.crypto.decrypt(stored)  # decrypts with the service key


async def test_scope_is_the_tenant_and_reads_ignore_the_header(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    other = await make_tenant(runtime, with_intake=False)
    for who in (tenant, other):
        response = await probe_client.post(
            "/v1/probe/things", json={"name": "a"}, headers=with_key(who, "shared-key")
        )
        assert response.status_code == 201
        assert "idempotent-replayed" not in response.headers
    read = await probe_client.get("/v1/probe", headers=with_key(tenant, "shared-key"))
    assert read.status_code == 200
    assert "idempotent-replayed" not in read.headers
    assert await count_effects(runtime) == 2


async def test_delete_204_is_replayed(
    probe_client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    headers = with_key(tenant, "delete-1")
    first = await probe_client.delete("/v1/probe/things/a", headers=headers)
    second = await probe_client.delete("/v1/probe/things/a", headers=headers)
    assert first.status_code == second.status_code == 204
    assert second.content == b""
    assert second.headers["idempotent-replayed"] == "true"


async def test_records_expire_after_24_hours_and_are_purged(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    headers = with_key(tenant, "day-old")
    await probe_client.post("/v1/probe/things", json={"name": "a"}, headers=headers)
    start = runtime.now()
    runtime.clock = lambda: start + RETENTION - timedelta(seconds=1)
    await run_sweeps_once(runtime)
    assert len(await records(runtime)) == 1
    replay = await probe_client.post("/v1/probe/things", json={"name": "a"}, headers=headers)
    assert replay.headers.get("idempotent-replayed") == "true"

    runtime.clock = lambda: start + RETENTION + timedelta(seconds=1)
    await run_sweeps_once(runtime)
    assert await records(runtime) == []
    again = await probe_client.post("/v1/probe/things", json={"name": "a"}, headers=headers)
    assert again.status_code == 201
    assert "idempotent-replayed" not in again.headers
    assert await count_effects(runtime) == 2


# -- on the real tenant routes ---------------------------------------------------


async def test_replayed_login_session_returns_the_same_link(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    headers = with_key(tenant, "login-1")
    body = {"email": "applicant@example.test"}
    first = await client.post("/v1/login-sessions", json=body, headers=headers)
    assert first.status_code == 201, first.text
    second = await client.post("/v1/login-sessions", json=body, headers=headers)
    assert second.status_code == 201
    assert second.headers["idempotent-replayed"] == "true"
    assert second.json()["loginUrl"] == first.json()["loginUrl"]
    fresh = await client.post("/v1/login-sessions", json=body, headers=tenant.headers)
    assert fresh.json()["loginUrl"] != first.json()["loginUrl"]


async def test_replayed_provisioning_keeps_its_201(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    headers = with_key(tenant, "provision-1")
    body = {"email": "idem@example.test", "externalRef": "ref-1"}
    first = await client.post("/v1/applications", json=body, headers=headers)
    assert first.status_code == 201, first.text
    replay = await client.post("/v1/applications", json=body, headers=headers)
    assert replay.status_code == 201
    assert replay.headers["idempotent-replayed"] == "true"
    assert replay.json() == first.json()
    repeat = await client.post("/v1/applications", json=body, headers=tenant.headers)
    assert repeat.status_code == 200  # a repeat without the key is the spec's repeat
    other = await client.post(
        "/v1/applications", json={**body, "companyName": "Other"}, headers=headers
    )
    assert other.status_code == 400
    assert other.json()["error"]["details"][0]["field"] == "Idempotency-Key"
