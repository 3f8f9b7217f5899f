"""Sandbox webhooks through a real loopback receiver and the delivery worker: a simulated
approval delivers what a staff approval delivers (docs/sandbox.md, "Events and webhooks"),
and every envelope, test sends and replays included, says its environment."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from gatehouse.runtime import Runtime
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.sandbox.conftest import provision, simulated
from tests.support.factories import StaffFixture, TenantFixture
from tests.webhooks.conftest import (  # noqa: F401  (fixtures)
    create_endpoint,
    receiver,
    wait_requests,
    wait_until,
    worker,
)
from tests.webhooks.receiver import Received, Receiver

# What may differ between the two deliveries of one step: who, when, where.
PER_TENANT = {"id", "idempotencyKey", "occurredAt", "tenantId", "environment"}


def envelopes(requests: list[Received], tenant_id: str) -> list[dict[str, Any]]:
    """The verified envelopes one tenant received, in the application's sequence order."""
    found = [orjson.loads(r.body) for r in requests if r.verified]
    mine = [e for e in found if e["tenantId"] == tenant_id]
    return sorted(mine, key=lambda e: e["data"]["sequence"])


def comparable(envelope: dict[str, Any]) -> dict[str, Any]:
    data = {k: v for k, v in envelope["data"].items() if k != "clientId"}
    return {**{k: v for k, v in envelope.items() if k not in PER_TENANT}, "data": data}


async def test_a_simulated_approval_delivers_what_a_staff_approval_delivers(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    sandbox_tenant: TenantFixture,
    analyst: StaffFixture,
    mlro: StaffFixture,
    receiver: Receiver,  # noqa: F811
    worker: DeliveryWorker,  # noqa: F811
) -> None:
    live_hook = await create_endpoint(client, tenant, receiver.url)
    sandbox_hook = await create_endpoint(client, sandbox_tenant, receiver.url)
    receiver.secrets = [live_hook["secret"], sandbox_hook["secret"]]

    live_app = await provision(client, tenant, "real@example.test", externalRef="cmp-1")
    for who, action in ((analyst, "approve"), (mlro, "countersign")):
        decided = await client.post(
            f"/staff/v1/applications/{live_app}/decisions",
            json={"action": action, "comment": "Welcome"},
            headers=who.headers,
        )
        assert decided.status_code == 200, decided.text
    sandbox_app = await provision(client, sandbox_tenant, "real@example.test", externalRef="cmp-1")
    await simulated(client, sandbox_tenant, sandbox_app, "approve", comment="Welcome")

    requests = await wait_requests(receiver, 8)
    assert all(r.verified for r in requests), [r.refusal for r in requests]
    live = envelopes(requests, tenant.tenant_id)
    sandbox = envelopes(requests, sandbox_tenant.tenant_id)
    assert [e["type"] for e in live] == [
        "application.decision.proposed",
        "application.status.changed",
        "application.decision.approved",
        "application.status.changed",
    ]
    assert [e["type"] for e in sandbox] == [e["type"] for e in live]
    for real, simulated_one in zip(live, sandbox, strict=True):
        assert set(simulated_one) == set(real)
        assert set(simulated_one["data"]) == set(real["data"])
        assert comparable(simulated_one) == comparable(real)
        assert (real["environment"], simulated_one["environment"]) == ("live", "sandbox")
        assert simulated_one["data"]["clientId"] == sandbox_app
    headers = {r.headers["gatehouse-event-type"] for r in requests}
    assert headers == {e["type"] for e in live}


async def test_test_sends_and_replays_say_the_environment(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    sandbox_tenant: TenantFixture,
    staff: StaffFixture,
    receiver: Receiver,  # noqa: F811
    worker: DeliveryWorker,  # noqa: F811
) -> None:
    live_hook = await create_endpoint(client, tenant, receiver.url)
    sandbox_hook = await create_endpoint(client, sandbox_tenant, receiver.url)
    receiver.secrets = [live_hook["secret"], sandbox_hook["secret"]]
    for who, hook, environment in (
        (tenant, live_hook, "live"),
        (sandbox_tenant, sandbox_hook, "sandbox"),
    ):
        sent = await client.post(f"/v1/webhooks/{hook['id']}/test", headers=who.headers)
        assert sent.status_code == 200, sent.text
        assert sent.json()["success"], sent.text
        probe = orjson.loads(receiver.snapshot()[-1].body)
        assert probe["type"] == "webhook.test"
        assert probe["environment"] == environment
        assert probe["data"] == {"endpointId": hook["id"]}

    client_id = await provision(client, sandbox_tenant, "replay@example.test")
    await simulated(client, sandbox_tenant, client_id, "hold")
    await wait_requests(receiver, 4)  # two test sends, hold and its status change
    listed = await client.get(
        f"/staff/v1/deliveries?tenantId={sandbox_tenant.tenant_id}", headers=staff.headers
    )
    hold = next(d for d in listed.json()["data"] if d["eventType"] == "application.decision.hold")
    replayed = await client.post(f"/staff/v1/deliveries/{hold['id']}/replay", headers=staff.headers)
    assert replayed.status_code == 201, replayed.text
    requests = await wait_requests(receiver, 5)
    again = [r for r in requests if r.event_id == hold["eventId"]]
    assert len(again) == 2
    assert again[0].body == again[1].body
    assert orjson.loads(again[1].body)["environment"] == "sandbox"
