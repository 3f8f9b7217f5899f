"""Management routes of docs/reference/webhooks.md §4 (docs/reference/webhooks.md §4)."""

from __future__ import annotations

import re
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import select, update

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry, Tenant
from gatehouse.storage.tables.webhooks import WebhookSecret
from gatehouse.timeutil import parse_ts
from tests.support.factories import TenantFixture, make_tenant
from tests.webhooks.conftest import create_endpoint, deliveries_of, emit
from tests.webhooks.receiver import Receiver, verify_delivery

ENDPOINT_FIELDS = {
    "id",
    "url",
    "events",
    "status",
    "description",
    "createdAt",
    "updatedAt",
    "disabledReason",
    "consecutiveFailures",
}
SECRET = re.compile(r"^whsec_[A-Za-z0-9_-]{32,64}$")
TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


async def test_create_returns_endpoint_with_secret_once(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    created = await create_endpoint(
        client, tenant, "http://127.0.0.1:9/in", ["application.*"], description=" Main "
    )
    assert set(created) == ENDPOINT_FIELDS | {"secret"}
    assert created["id"].startswith("we_")
    assert SECRET.match(created["secret"])
    assert created["events"] == ["application.*"]
    assert created["status"] == "enabled"
    assert created["description"] == "Main"
    assert created["disabledReason"] is None
    assert created["consecutiveFailures"] == 0
    assert TS.match(created["createdAt"])
    assert TS.match(created["updatedAt"])

    got = await client.get(f"/v1/webhooks/{created['id']}", headers=tenant.headers)
    assert got.status_code == 200
    assert set(got.json()) == ENDPOINT_FIELDS
    listed = await client.get("/v1/webhooks", headers=tenant.headers)
    assert listed.status_code == 200
    assert [e["id"] for e in listed.json()["data"]] == [created["id"]]
    assert "secret" not in listed.json()["data"][0]


async def test_secret_is_encrypted_at_rest(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    created = await create_endpoint(client, tenant, "http://127.0.0.1:9/in")
    async with runtime.db.read() as session:
        stored = (await session.scalars(select(WebhookSecret))).all()
    assert len(stored) == 1
    assert created["secret"] not in stored[0].secret_encrypted
    assert runtime.crypto.decrypt_text(stored[0].secret_encrypted) == created["secret"]


@pytest.mark.parametrize(
    "events",
    [
        [],
        ["application.unknown"],
        ["application.*", "application.submitted"],
        ["*", "application.*"],
        ["application.decision"],
        ["application.status.*"],
        "application.submitted",
        [1],
    ],
)
async def test_invalid_events_filter_is_400_invalid_argument(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime, events: object
) -> None:
    response = await client.post(
        "/v1/webhooks",
        json={"url": "http://127.0.0.1:9/in", "events": events},
        headers=tenant.headers,
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-argument"
    listed = await client.get("/v1/webhooks", headers=tenant.headers)
    assert listed.json()["data"] == []


@pytest.mark.parametrize(
    "events",
    [
        ["*"],
        ["application.*"],
        ["application.decision.*"],
        ["application.info_request.*"],
        ["application.submitted", "application.decision.approved", "webhook.test"],
    ],
)
async def test_valid_filters_are_accepted(
    client: httpx.AsyncClient, tenant: TenantFixture, events: list[str]
) -> None:
    created = await create_endpoint(client, tenant, "http://127.0.0.1:9/in", events)
    assert created["events"] == events


@pytest.mark.parametrize(
    "body",
    [
        {"events": ["*"]},
        {"url": "http://127.0.0.1:9/in"},
        {"url": 5, "events": ["*"]},
        {"url": "http://u:p@127.0.0.1:9/in", "events": ["*"]},
        {"url": "http://127.0.0.1:9/in#x", "events": ["*"]},
        {"url": "ftp://127.0.0.1/in", "events": ["*"]},
    ],
)
async def test_invalid_body_is_400_invalid_argument(
    client: httpx.AsyncClient, tenant: TenantFixture, body: dict[str, object]
) -> None:
    response = await client.post("/v1/webhooks", json=body, headers=tenant.headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-argument"


async def test_cap_is_five_then_failed_precondition_and_staff_can_raise_it(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    for _ in range(5):
        await create_endpoint(client, tenant, "http://127.0.0.1:9/in")
    refused = await client.post(
        "/v1/webhooks",
        json={"url": "http://127.0.0.1:9/in", "events": ["*"]},
        headers=tenant.headers,
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "failed-precondition"
    async with runtime.db.write() as session:
        await session.execute(
            update(Tenant).where(Tenant.id == tenant.tenant_id).values(webhook_endpoint_cap=6)
        )
    await create_endpoint(client, tenant, "http://127.0.0.1:9/in")
    # A deleted endpoint frees its place.
    listed = (await client.get("/v1/webhooks", headers=tenant.headers)).json()["data"]
    assert len(listed) == 6
    deleted = await client.delete(f"/v1/webhooks/{listed[0]['id']}", headers=tenant.headers)
    assert deleted.status_code == 204
    await create_endpoint(client, tenant, "http://127.0.0.1:9/in")


async def test_missing_scope_is_403_naming_webhooks_manage(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    reader = await make_tenant(runtime, ["applications:read", "applications:write"])
    response = await client.get("/v1/webhooks", headers=reader.headers)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission-denied"
    assert "webhooks:manage" in response.json()["error"]["message"]
    bad = await client.get("/v1/webhooks", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401


async def test_another_tenants_endpoint_is_404_everywhere(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    other = await make_tenant(runtime, name="Other")
    created = await create_endpoint(client, other, "http://127.0.0.1:9/in")
    path = f"/v1/webhooks/{created['id']}"
    for method, suffix in [
        ("GET", ""),
        ("PATCH", ""),
        ("DELETE", ""),
        ("POST", "/enable"),
        ("POST", "/disable"),
        ("POST", "/rotate-secret"),
        ("POST", "/test"),
        ("GET", "/deliveries"),
    ]:
        response = await client.request(
            method, path + suffix, headers=tenant.headers, json={} if method == "PATCH" else None
        )
        assert response.status_code == 404, (method, suffix)
        assert response.json()["error"]["code"] == "not-found"
    assert (await client.get("/v1/webhooks", headers=tenant.headers)).json()["data"] == []


async def test_patch_changes_fields_and_revalidates(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    created = await create_endpoint(client, tenant, "http://127.0.0.1:9/in")
    path = f"/v1/webhooks/{created['id']}"
    patched = await client.patch(
        path,
        json={
            "url": "http://127.0.0.1:10/new",
            "events": ["application.decision.*"],
            "description": "x",
        },
        headers=tenant.headers,
    )
    assert patched.status_code == 200
    body = patched.json()
    assert body["url"] == "http://127.0.0.1:10/new"
    assert body["events"] == ["application.decision.*"]
    assert body["description"] == "x"
    assert "secret" not in body
    bad_url = await client.patch(
        path, json={"url": "http://a:b@127.0.0.1/"}, headers=tenant.headers
    )
    assert bad_url.status_code == 400
    assert bad_url.json()["error"]["code"] == "invalid-argument"
    bad_events = await client.patch(path, json={"events": ["nope"]}, headers=tenant.headers)
    assert bad_events.status_code == 400
    unchanged = await client.get(path, headers=tenant.headers)
    assert unchanged.json()["url"] == "http://127.0.0.1:10/new"
    assert unchanged.json()["events"] == ["application.decision.*"]


async def test_delete_cancels_pending_deliveries(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    created = await create_endpoint(client, tenant, "http://127.0.0.1:9/in")
    await emit(runtime, tenant.tenant_id)
    assert [d.status for d in await deliveries_of(runtime, created["id"])] == ["pending"]
    deleted = await client.delete(f"/v1/webhooks/{created['id']}", headers=tenant.headers)
    assert deleted.status_code == 204
    assert deleted.content == b""
    assert [d.status for d in await deliveries_of(runtime, created["id"])] == ["cancelled"]
    assert (
        await client.get(f"/v1/webhooks/{created['id']}", headers=tenant.headers)
    ).status_code == 404
    again = await client.delete(f"/v1/webhooks/{created['id']}", headers=tenant.headers)
    assert again.status_code == 404


async def test_disable_and_enable(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    created = await create_endpoint(client, tenant, "http://127.0.0.1:9/in")
    path = f"/v1/webhooks/{created['id']}"
    await emit(runtime, tenant.tenant_id)
    disabled = await client.post(path + "/disable", headers=tenant.headers)
    assert disabled.status_code == 200
    assert disabled.json()["status"] == "disabled"
    assert disabled.json()["disabledReason"] == "manual"
    assert [d.status for d in await deliveries_of(runtime, created["id"])] == ["dead"]
    # Events while disabled make no delivery for it.
    await emit(runtime, tenant.tenant_id)
    assert len(await deliveries_of(runtime, created["id"])) == 1
    enabled = await client.post(path + "/enable", headers=tenant.headers)
    assert enabled.status_code == 200
    assert enabled.json()["status"] == "enabled"
    assert enabled.json()["disabledReason"] is None
    assert enabled.json()["consecutiveFailures"] == 0
    # Dead deliveries stay dead: re-enabling replays nothing.
    assert [d.status for d in await deliveries_of(runtime, created["id"])] == ["dead"]


async def test_rotate_secret_keeps_two_active_secrets(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime, receiver: Receiver
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    path = f"/v1/webhooks/{created['id']}"
    first = created["secret"]
    rotated = await client.post(path + "/rotate-secret", headers=tenant.headers)
    assert rotated.status_code == 200
    body = rotated.json()
    assert set(body) == {"secret", "previousSecretExpiresAt"}
    assert SECRET.match(body["secret"])
    assert body["secret"] != first
    expires = parse_ts(body["previousSecretExpiresAt"])
    assert abs((expires - runtime.now()) - timedelta(hours=24)) < timedelta(seconds=30)
    second = body["secret"]

    sent = (await client.post(path + "/test", headers=tenant.headers)).json()
    signatures = sent["sentHeaders"]["Gatehouse-Signature"].split(" ")
    assert len(signatures) == 2
    [got] = receiver.snapshot()
    # Each secret alone verifies; the newest signature comes first.
    assert verify_delivery(got.headers, got.body, [first]) is None
    assert verify_delivery(got.headers, got.body, [second]) is None
    assert verify_delivery(got.headers, got.body, ["whsec_wrong"]) == "signature mismatch"
    assert signatures[0] != signatures[1]

    third = (await client.post(path + "/rotate-secret", headers=tenant.headers)).json()["secret"]
    sent = (await client.post(path + "/test", headers=tenant.headers)).json()
    assert len(sent["sentHeaders"]["Gatehouse-Signature"].split(" ")) == 2
    latest = receiver.snapshot()[-1]
    assert verify_delivery(latest.headers, latest.body, [first]) == "signature mismatch"
    assert verify_delivery(latest.headers, latest.body, [second]) is None
    assert verify_delivery(latest.headers, latest.body, [third]) is None

    # After the previous secret's 24 h, only the newest signs.
    runtime.clock = lambda: expires + timedelta(hours=25)
    sent = (await client.post(path + "/test", headers=tenant.headers)).json()
    assert len(sent["sentHeaders"]["Gatehouse-Signature"].split(" ")) == 1


async def test_test_send_reports_and_persists_nothing(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime, receiver: Receiver
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    receiver.secrets = [created["secret"]]
    receiver.expected_tenants = {tenant.tenant_id}
    receiver.respond = lambda item: (200, {}, "é".encode() * 150)
    response = await client.post(f"/v1/webhooks/{created['id']}/test", headers=tenant.headers)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "success",
        "httpStatus",
        "latencyMs",
        "responseSnippet",
        "sentHeaders",
        "error",
    }
    assert body["success"] is True
    assert body["httpStatus"] == 200
    assert body["error"] is None
    assert isinstance(body["latencyMs"], int | float)
    assert len(body["responseSnippet"].encode()) <= 200
    assert body["responseSnippet"] == "é" * 100
    [got] = receiver.snapshot()
    assert got.verified
    assert got.json()["type"] == "webhook.test"
    assert got.json()["data"] == {"endpointId": created["id"]}
    assert got.json()["tenantId"] == tenant.tenant_id
    for name, value in body["sentHeaders"].items():
        assert got.headers[name.lower()] == value
    assert await deliveries_of(runtime, created["id"]) == []

    receiver.respond = lambda item: 500
    failed = (
        await client.post(f"/v1/webhooks/{created['id']}/test", headers=tenant.headers)
    ).json()
    assert failed["success"] is False
    assert failed["httpStatus"] == 500
    receiver.respond = lambda item: 410
    gone = (await client.post(f"/v1/webhooks/{created['id']}/test", headers=tenant.headers)).json()
    assert gone["success"] is False
    assert gone["httpStatus"] == 410
    endpoint = (await client.get(f"/v1/webhooks/{created['id']}", headers=tenant.headers)).json()
    assert endpoint["consecutiveFailures"] == 0
    assert endpoint["status"] == "enabled"


async def test_test_send_to_nothing_reports_error(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    created = await create_endpoint(client, tenant, "http://127.0.0.1:9/in")
    body = (await client.post(f"/v1/webhooks/{created['id']}/test", headers=tenant.headers)).json()
    assert body["success"] is False
    assert body["httpStatus"] is None
    assert body["error"]


async def test_writes_are_audited(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    created = await create_endpoint(client, tenant, "http://127.0.0.1:9/in")
    path = f"/v1/webhooks/{created['id']}"
    await client.patch(path, json={"description": "d"}, headers=tenant.headers)
    await client.post(path + "/disable", headers=tenant.headers)
    await client.post(path + "/enable", headers=tenant.headers)
    await client.post(path + "/rotate-secret", headers=tenant.headers)
    await client.delete(path, headers=tenant.headers)
    async with runtime.db.read() as session:
        entries = (
            await session.scalars(select(AuditEntry).where(AuditEntry.target == created["id"]))
        ).all()
    assert sorted(e.action for e in entries) == sorted(
        [
            "webhook.create",
            "webhook.update",
            "webhook.disable",
            "webhook.enable",
            "webhook.rotate_secret",
            "webhook.delete",
        ]
    )
    assert all(e.actor == f"api_key:{tenant.key_id}" for e in entries)
    assert all(e.tenant_id == tenant.tenant_id for e in entries)


async def test_create_is_idempotent_with_a_key(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    headers = {**tenant.headers, "Idempotency-Key": "create-hook-1"}
    body = {"url": "http://127.0.0.1:9/in", "events": ["*"]}
    first = await client.post("/v1/webhooks", json=body, headers=headers)
    second = await client.post("/v1/webhooks", json=body, headers=headers)
    assert first.status_code == second.status_code == 201
    assert second.headers.get("Idempotent-Replayed") == "true"
    assert first.json() == second.json()
    listed = await client.get("/v1/webhooks", headers=tenant.headers)
    assert len(listed.json()["data"]) == 1
