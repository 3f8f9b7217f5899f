"""The delivery worker against a real receiver (docs/reference/webhooks.md §7.1, §5;
docs/reference/webhooks.md §6; docs/reference/webhooks.md).
"""

from __future__ import annotations

import time

import httpx
import orjson
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.storage.tables.core import Event, Notification
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.conftest import make_settings
from tests.support.factories import StaffFixture, TenantFixture
from tests.webhooks.conftest import (
    create_endpoint,
    deliveries_of,
    emit,
    endpoint_row,
    wait_requests,
    wait_until,
)
from tests.webhooks.receiver import Received, Receiver
from tests.webhooks.support import first_verified_delivery, rotate_secret


async def test_headers_envelope_and_signature(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    created, event_id, got = await first_verified_delivery(client, tenant, runtime, receiver)
    assert set(got.headers) == {
        "host",
        "content-length",
        "content-type",
        "user-agent",
        "gatehouse-event-id",
        "gatehouse-event-type",
        "gatehouse-timestamp",
        "gatehouse-attempt",
        "gatehouse-signature",
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
    }
    assert got.headers["content-type"] == "application/json"
    assert got.headers["user-agent"] == "Gatehouse-Webhooks/1"
    assert got.headers["gatehouse-event-id"] == event_id
    assert got.headers["gatehouse-event-type"] == "application.submitted"
    assert got.headers["gatehouse-attempt"] == "1"
    assert abs(int(got.headers["gatehouse-timestamp"]) - time.time()) < 5
    assert got.headers["gatehouse-signature"].startswith("v1=")
    assert " " not in got.headers["gatehouse-signature"]
    async with runtime.db.read() as session:
        stored = await session.scalar(select(Event.body).where(Event.id == event_id))
    assert stored is not None
    assert got.body == stored.encode()
    envelope = orjson.loads(got.body)
    assert set(envelope) == {
        "id",
        "type",
        "apiVersion",
        "occurredAt",
        "tenantId",
        "environment",
        "idempotencyKey",
        "data",
    }
    assert envelope["id"] == envelope["idempotencyKey"] == event_id
    assert envelope["environment"] == "live"
    assert envelope["apiVersion"] == "v1"
    assert envelope["tenantId"] == tenant.tenant_id
    await wait_until(lambda: _statuses(runtime, created["id"], ["succeeded"]), timeout=5)
    [delivery] = await deliveries_of(runtime, created["id"])
    assert delivery.attempts == 1
    assert delivery.last_http_status == 200


async def _statuses(runtime: Runtime, endpoint_id: str, expected: list[str]) -> bool:
    return [d.status for d in await deliveries_of(runtime, endpoint_id)] == expected


async def test_filters_choose_endpoints(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    urls = {
        name: receiver.url.replace("/hooks", f"/{name}")
        for name in ("all", "app", "decision", "info", "exact")
    }
    await create_endpoint(client, tenant, urls["all"], ["*"])
    await create_endpoint(client, tenant, urls["app"], ["application.*"])
    await create_endpoint(client, tenant, urls["decision"], ["application.decision.*"])
    await create_endpoint(client, tenant, urls["info"], ["application.info_request.*"])
    await create_endpoint(
        client, tenant, urls["exact"], ["application.submitted", "application.decision.hold"]
    )
    for event_type in (
        "application.submitted",
        "application.status.changed",
        "application.decision.approved",
        "application.decision.hold",
        "application.info_request.raised",
    ):
        await emit(runtime, tenant.tenant_id, event_type)
    got = await wait_requests(receiver, 5 + 5 + 2 + 1 + 2)
    seen: dict[str, set[str]] = {}
    for item in got:
        seen.setdefault(item.path.strip("/"), set()).add(item.headers["gatehouse-event-type"])
    assert (
        seen["all"]
        == seen["app"]
        == {
            "application.submitted",
            "application.status.changed",
            "application.decision.approved",
            "application.decision.hold",
            "application.info_request.raised",
        }
    )
    assert seen["decision"] == {"application.decision.approved", "application.decision.hold"}
    assert seen["info"] == {"application.info_request.raised"}
    assert seen["exact"] == {"application.submitted", "application.decision.hold"}


async def test_other_tenants_endpoints_get_nothing(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    from tests.support.factories import make_tenant

    other = await make_tenant(runtime, name="Other")
    await create_endpoint(client, other, receiver.url.replace("/hooks", "/other"))
    await create_endpoint(client, tenant, receiver.url)
    await emit(runtime, tenant.tenant_id)
    await wait_requests(receiver, 1)
    await emit(runtime, tenant.tenant_id)
    got = await wait_requests(receiver, 2)
    assert {g.path for g in got} == {"/hooks"}


class _Script:
    """Answers from a list, then 200 forever."""

    def __init__(self, *answers: int | tuple[int, dict[str, str], bytes]) -> None:
        self.answers = list(answers)

    def __call__(self, item: Received) -> int | tuple[int, dict[str, str], bytes]:
        return self.answers.pop(0) if self.answers else 200


@pytest.fixture
def settings(database_url: str, request: pytest.FixtureRequest) -> Settings:
    overrides = getattr(request, "param", {})
    return make_settings(database_url, **overrides)


@pytest.mark.parametrize("settings", [{"webhook_backoff_scale": 0.04}], indirect=True)
async def test_retries_keep_event_id_with_new_timestamps_and_scheduled_delays(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    receiver.secrets = [created["secret"]]
    receiver.respond = _Script(500, 503)
    event_id = await emit(runtime, tenant.tenant_id)
    got = await wait_requests(receiver, 3, timeout=10)
    assert [g.attempt for g in got] == [1, 2, 3]
    assert {g.event_id for g in got} == {event_id}
    assert all(g.verified for g in got)
    assert len({g.body for g in got}) == 1
    # Each attempt is signed with its own time: attempts 1 and 3 are >= 1.8 s apart.
    assert got[2].timestamp > got[0].timestamp
    for g in got:
        assert abs(g.timestamp - g.at) <= 1.5
    # Delay before attempt 2: [15 s, 30 s] x 0.04; before attempt 3: [30 s, 60 s] x 0.04.
    gap1, gap2 = got[1].at - got[0].at, got[2].at - got[1].at
    assert 0.6 - 0.05 <= gap1 <= 1.2 + 0.3, gap1
    assert 1.2 - 0.05 <= gap2 <= 2.4 + 0.3, gap2
    await wait_until(lambda: _statuses(runtime, created["id"], ["succeeded"]), timeout=5)
    [delivery] = await deliveries_of(runtime, created["id"])
    assert delivery.attempts == 3
    assert delivery.last_http_status == 200
    endpoint = await endpoint_row(runtime, created["id"])
    assert endpoint.consecutive_failures == 0


async def test_retry_after_is_honoured_in_real_seconds(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    receiver.respond = _Script((429, {"retry-after": "1"}, b""), (503, {"retry-after": "1"}, b""))
    await emit(runtime, tenant.tenant_id)
    got = await wait_requests(receiver, 3, timeout=10)
    # The scaled schedule would retry after 15-30 ms; Retry-After asks for one second.
    assert got[1].at - got[0].at >= 0.95
    assert got[2].at - got[1].at >= 0.95
    await wait_until(lambda: _statuses(runtime, created["id"], ["succeeded"]), timeout=5)


async def test_retry_after_beyond_the_bound_falls_back_to_the_schedule(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    await create_endpoint(client, tenant, receiver.url)
    # 24 h x 0.001 = 86.4 s bound: an hour is outside it.
    receiver.respond = _Script((503, {"retry-after": "3600"}, b""))
    await emit(runtime, tenant.tenant_id)
    got = await wait_requests(receiver, 2, timeout=5)
    assert got[1].at - got[0].at < 0.5


@pytest.mark.parametrize("settings", [{"webhook_max_attempts": 3}], indirect=True)
async def test_attempt_cap_makes_the_delivery_dead(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    receiver.respond = lambda item: 500
    await emit(runtime, tenant.tenant_id)
    await wait_until(lambda: _statuses(runtime, created["id"], ["dead"]), timeout=10)
    assert len(receiver.snapshot()) == 3
    [delivery] = await deliveries_of(runtime, created["id"])
    assert delivery.attempts == 3
    assert delivery.last_http_status == 500
    assert delivery.next_attempt_at is None
    endpoint = await endpoint_row(runtime, created["id"])
    assert endpoint.consecutive_failures == 1
    assert endpoint.status == "enabled"
    history = await client.get(f"/v1/webhooks/{created['id']}/deliveries", headers=tenant.headers)
    [item] = history.json()["data"]
    assert item["status"] == "dead"
    assert item["attempts"] == 3
    assert item["lastHttpStatus"] == 500
    assert item["nextAttemptAt"] is None


async def test_redirect_is_a_failure(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    receiver.respond = _Script((307, {"location": receiver.url + "/moved"}, b""))
    await emit(runtime, tenant.tenant_id)
    got = await wait_requests(receiver, 2, timeout=5)
    assert [g.path for g in got] == ["/hooks", "/hooks"]  # retried, never followed
    await wait_until(lambda: _statuses(runtime, created["id"], ["succeeded"]), timeout=5)


async def test_receiver_410_disables_at_once_and_notifies(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
    staff: StaffFixture,
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    receiver.respond = lambda item: 410
    await emit(runtime, tenant.tenant_id)
    await wait_until(lambda: _statuses(runtime, created["id"], ["dead"]), timeout=5)
    endpoint = (await client.get(f"/v1/webhooks/{created['id']}", headers=tenant.headers)).json()
    assert endpoint["status"] == "disabled"
    assert endpoint["disabledReason"] == "receiver_gone"
    assert len(receiver.snapshot()) == 1
    notes = (await client.get("/staff/v1/notifications", headers=staff.headers)).json()["data"]
    assert len(notes) == 1
    assert notes[0]["kind"] == "endpoint_disabled"
    assert notes[0]["endpointId"] == created["id"]
    assert notes[0]["tenantId"] == tenant.tenant_id
    assert notes[0]["reason"] == "receiver_gone"
    assert set(notes[0]) == {"id", "kind", "tenantId", "endpointId", "reason", "createdAt"}
    # Disabled: new events make no delivery for it.
    await emit(runtime, tenant.tenant_id)
    assert len(await deliveries_of(runtime, created["id"])) == 1


@pytest.mark.parametrize("settings", [{"webhook_max_attempts": 1}], indirect=True)
async def test_twenty_dead_deliveries_disable_the_endpoint(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
    caplog: pytest.LogCaptureFixture,
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    receiver.respond = lambda item: 500
    for n in range(19):
        await emit(runtime, tenant.tenant_id)
        await wait_until(lambda n=n: _count(runtime, created["id"], "dead", n + 1), timeout=5)
    endpoint = await endpoint_row(runtime, created["id"])
    assert endpoint.status == "enabled"
    assert endpoint.consecutive_failures == 19
    # A test send failing does not count.
    await client.post(f"/v1/webhooks/{created['id']}/test", headers=tenant.headers)
    assert (await endpoint_row(runtime, created["id"])).consecutive_failures == 19
    await emit(runtime, tenant.tenant_id)
    await wait_until(lambda: _count(runtime, created["id"], "dead", 20), timeout=5)
    await wait_until(lambda: _endpoint_status(runtime, created["id"], "disabled"), timeout=5)
    endpoint = await endpoint_row(runtime, created["id"])
    assert endpoint.disabled_reason == "consecutive_failures"
    assert endpoint.consecutive_failures == 20
    assert any("disabled automatically" in r.getMessage() for r in caplog.records)
    async with runtime.db.read() as session:
        notes = (await session.scalars(select(Notification))).all()
    assert [(n.kind, n.reason) for n in notes] == [("endpoint_disabled", "consecutive_failures")]
    await emit(runtime, tenant.tenant_id)
    assert len(await deliveries_of(runtime, created["id"])) == 20


async def _count(runtime: Runtime, endpoint_id: str, status: str, n: int) -> bool:
    return sum(d.status == status for d in await deliveries_of(runtime, endpoint_id)) == n


async def _endpoint_status(runtime: Runtime, endpoint_id: str, status: str) -> bool:
    return (await endpoint_row(runtime, endpoint_id)).status == status


@pytest.mark.parametrize("settings", [{"webhook_max_attempts": 1}], indirect=True)
async def test_a_success_resets_the_counter(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    receiver.respond = _Script(500, 500)
    for n in range(2):
        await emit(runtime, tenant.tenant_id)
        await wait_until(lambda n=n: _count(runtime, created["id"], "dead", n + 1), timeout=5)
    assert (await endpoint_row(runtime, created["id"])).consecutive_failures == 2
    await emit(runtime, tenant.tenant_id)
    await wait_until(lambda: _count(runtime, created["id"], "succeeded", 1), timeout=5)
    endpoint = await endpoint_row(runtime, created["id"])
    assert endpoint.consecutive_failures == 0
    assert endpoint.failing_since is None
    assert endpoint.last_success_at is not None


@pytest.mark.parametrize("settings", [{"webhook_max_attempts": 1}], indirect=True)
async def test_dead_with_no_success_for_24h_disables_failing_24h(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
) -> None:
    from datetime import timedelta

    from gatehouse.webhooks.delivery import disable_failing_endpoints

    created = await create_endpoint(client, tenant, receiver.url)
    receiver.respond = lambda item: 500
    import asyncio

    stop = asyncio.Event()
    worker = DeliveryWorker(runtime, poll_seconds=0.05, lease_seconds=5)
    task = asyncio.create_task(worker.run(stop))
    try:
        await emit(runtime, tenant.tenant_id)
        await wait_until(lambda: _count(runtime, created["id"], "dead", 1), timeout=5)
        assert await disable_failing_endpoints(runtime) == 0
        base = runtime.now()
        # 24 h x WEBHOOK_BACKOFF_SCALE (0.001) = 86.4 s later, with no success since.
        runtime.clock = lambda: base + timedelta(seconds=87)
        assert await disable_failing_endpoints(runtime) == 1
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)
    endpoint = await endpoint_row(runtime, created["id"])
    assert endpoint.status == "disabled"
    assert endpoint.disabled_reason == "failing_24h"
    async with runtime.db.read() as session:
        notes = (await session.scalars(select(Notification))).all()
    assert [n.reason for n in notes] == ["failing_24h"]


async def test_reenable_does_not_replay_but_staff_replay_does(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
    staff: StaffFixture,
) -> None:
    created = await create_endpoint(client, tenant, receiver.url)
    receiver.respond = lambda item: 410
    event_id = await emit(runtime, tenant.tenant_id)
    await wait_until(lambda: _statuses(runtime, created["id"], ["dead"]), timeout=5)
    receiver.respond = None
    enabled = await client.post(f"/v1/webhooks/{created['id']}/enable", headers=tenant.headers)
    assert enabled.json()["status"] == "enabled"
    await worker_idle(runtime)
    assert len(receiver.snapshot()) == 1  # nothing replayed on re-enable

    dead = await client.get(
        "/staff/v1/deliveries",
        params={"status": "dead", "tenantId": tenant.tenant_id},
        headers=staff.headers,
    )
    assert dead.status_code == 200
    [item] = dead.json()["data"]
    assert item["eventId"] == event_id
    assert item["endpointId"] == created["id"]
    replay = await client.post(f"/staff/v1/deliveries/{item['id']}/replay", headers=staff.headers)
    assert replay.status_code == 201
    assert replay.json()["eventId"] == event_id
    assert replay.json()["id"] != item["id"]
    assert replay.json()["status"] == "pending"
    got = await wait_requests(receiver, 2)
    assert got[1].event_id == event_id
    assert got[1].body == got[0].body
    await wait_until(lambda: _statuses(runtime, created["id"], ["dead", "succeeded"]), timeout=5)


async def worker_idle(runtime: Runtime) -> None:
    import asyncio

    await asyncio.sleep(0.3)


async def test_staff_routes_need_roles(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    from tests.support.factories import make_staff

    analyst = await make_staff(runtime, "analyst")
    assert (await client.get("/staff/v1/deliveries", headers=analyst.headers)).status_code == 403
    assert (
        await client.post("/staff/v1/deliveries/dlv_x/replay", headers=analyst.headers)
    ).status_code == 403
    assert (await client.get("/staff/v1/notifications", headers=analyst.headers)).status_code == 200
    assert (await client.get("/staff/v1/deliveries", headers=tenant.headers)).status_code == 401
    admin = await make_staff(runtime, "admin")
    missing = await client.post("/staff/v1/deliveries/dlv_x/replay", headers=admin.headers)
    assert missing.status_code == 404
    bad = await client.get("/staff/v1/deliveries?bogus=1", headers=admin.headers)
    assert bad.status_code == 400


async def test_a_publish_in_this_process_wakes_the_worker_at_once(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime, receiver: Receiver
) -> None:
    import asyncio

    await create_endpoint(client, tenant, receiver.url)
    stop = asyncio.Event()
    worker = DeliveryWorker(runtime, poll_seconds=60)  # polling alone would take a minute
    task = asyncio.create_task(worker.run(stop))
    try:
        await asyncio.sleep(0.2)
        for n in range(3):
            await emit(runtime, tenant.tenant_id)
            committed = time.time()
            got = await wait_requests(receiver, n + 1, timeout=5)
            assert got[-1].at - committed < 1.0
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)


def test_the_worker_is_registered() -> None:
    from gatehouse.workers import registered_workers

    assert "webhooks" in dict(registered_workers())


async def test_deliveries_during_rotation_carry_both_signatures_newest_first(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    from tests.webhooks.receiver import verify_delivery

    created = await create_endpoint(client, tenant, receiver.url)
    old = created["secret"]
    new = await rotate_secret(client, tenant, created["id"])
    await emit(runtime, tenant.tenant_id)
    [got] = await wait_requests(receiver, 1)
    first, second = got.headers["gatehouse-signature"].split(" ")
    assert verify_delivery(got.headers, got.body, [old]) is None
    assert verify_delivery(got.headers, got.body, [new]) is None
    only_new = {**got.headers, "gatehouse-signature": first}
    only_old = {**got.headers, "gatehouse-signature": second}
    assert verify_delivery(only_new, got.body, [new]) is None
    assert verify_delivery(only_old, got.body, [old]) is None
