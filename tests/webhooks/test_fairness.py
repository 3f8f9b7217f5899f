"""Fair shares of the worker's slots (docs/webhooks.md, "Fairness"): a slow or hostile
receiver costs its own tenant, never another. Real loopback receivers (raw sockets that
drip their answers), a real worker, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.webhooks import Delivery
from gatehouse.webhooks.delivery import DeliveryWorker
from gatehouse.webhooks.delivery.claims import Claim, Claims
from gatehouse.webhooks.delivery.fair import Shares, Slots
from gatehouse.webhooks.delivery.turnover import Succeeded
from tests.support.factories import TenantFixture, make_tenant
from tests.webhooks.conftest import create_endpoint, emit, wait_requests, wait_until
from tests.webhooks.hostile import Answer, Hostile, running_hostile
from tests.webhooks.receiver import Receiver

# A status line and headers dripped one byte a second: 40 s for the whole answer, far
# past the 10 s an attempt may take.
DRIPPING = Answer(
    b"",
    drip=tuple(bytes([b]) for b in b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
    interval=1.0,
)


@pytest.fixture
def drippers() -> Iterator[list[Hostile]]:
    """Five receivers (a tenant's maximum) that drip every answer."""
    with ExitStack() as stack:
        yield [
            stack.enter_context(running_hostile(Hostile(script=[DRIPPING] * 200))) for _ in range(5)
        ]


async def run_worker(runtime: Runtime, concurrency: int) -> AsyncIterator[DeliveryWorker]:
    stop = asyncio.Event()
    worker = DeliveryWorker(runtime, concurrency=concurrency, poll_seconds=0.05)
    task = asyncio.create_task(worker.run(stop))
    try:
        yield worker
    finally:
        stop.set()
        await asyncio.wait_for(task, 60)


@pytest.fixture
async def small_worker(runtime: Runtime) -> AsyncIterator[DeliveryWorker]:
    """24 slots: an endpoint's share is 3, a tenant's 4."""
    async for worker in run_worker(runtime, 24):
        yield worker


async def test_a_dripping_tenant_does_not_delay_another_tenant(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    receiver: Receiver,
    drippers: list[Hostile],
    small_worker: DeliveryWorker,
) -> None:
    shares = small_worker.slots.shares
    for dripper in drippers:
        await create_endpoint(client, tenant, dripper.url)
    other = await make_tenant(runtime, name="Other")
    created = await create_endpoint(client, other, receiver.url)
    receiver.secrets = [created["secret"]]
    for _ in range(20):  # 100 deliveries, each holding its attempt for the full 10 s
        await emit(runtime, tenant.tenant_id)
    await wait_until(lambda: sum(len(d.snapshot()) for d in drippers) >= shares.per_tenant)

    latencies = []
    for n in range(6):
        committed = time.time()
        await emit(runtime, other.tenant_id)
        [*_, arrived] = await wait_requests(receiver, n + 1, timeout=30)
        latencies.append(arrived.at - committed)
        await asyncio.sleep(0.3)
    assert max(latencies) < 5, latencies
    assert all(r.verified for r in receiver.snapshot())
    # The dripping tenant ran at most its share at once (each of its attempts is still
    # under way: none can have ended before 10 s).
    assert sum(len(d.snapshot()) for d in drippers) <= shares.per_tenant
    assert all(len(d.snapshot()) <= shares.per_endpoint for d in drippers)


async def test_an_endpoint_runs_at_most_its_share_at_once(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    small_worker: DeliveryWorker,
) -> None:
    release = threading.Event()
    held = Answer(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", hold=release, hold_max=8)
    share = small_worker.slots.shares.per_endpoint
    with running_hostile(Hostile(script=[held] * 12)) as hostile:
        await create_endpoint(client, tenant, hostile.url)
        for _ in range(12):
            await emit(runtime, tenant.tenant_id)
        await asyncio.to_thread(hostile.wait_for, share)
        # More are due and slots are free, but the endpoint holds its share: nothing more
        # arrives while the held answers are held.
        await asyncio.sleep(0.5)
        assert len(hostile.snapshot()) == share
        release.set()
        await asyncio.to_thread(hostile.wait_for, 12)
    await wait_until(lambda: small_worker.stats.succeeded == 12)


async def test_a_claim_takes_every_tenants_oldest_delivery_first(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    receiver: Receiver,
) -> None:
    other = await make_tenant(runtime, name="Other")
    mine = await create_endpoint(client, tenant, receiver.url)
    theirs = await create_endpoint(client, other, receiver.url)
    for _ in range(30):
        await emit(runtime, tenant.tenant_id)
    await emit(runtime, other.tenant_id)  # the newest of 31 due deliveries
    # Eight of them: the other tenant's one is in (tenant rank 1), not behind the 30.
    claims = await Claims(runtime, timedelta(seconds=30)).claim(8)
    assert len(claims) == 8
    assert [c.endpoint_id for c in claims].count(theirs["id"]) == 1
    assert {c.endpoint_id for c in claims} == {mine["id"], theirs["id"]}


async def test_a_claim_skips_endpoints_and_tenants_that_hold_their_share(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    receiver: Receiver,
) -> None:
    other = await make_tenant(runtime, name="Other")
    await create_endpoint(client, tenant, receiver.url)
    theirs = await create_endpoint(client, other, receiver.url)
    for _ in range(10):
        await emit(runtime, tenant.tenant_id)
    await emit(runtime, other.tenant_id)
    claims = Claims(runtime, timedelta(seconds=30))
    slots: Slots[Claim] = Slots(Shares(slots=10, per_endpoint=2, per_tenant=3))
    first = await claims.claim(10, slots)
    # At most a share of one endpoint per claim, the other tenant's delivery included.
    assert len(first) == 3
    assert [c.endpoint_id for c in first].count(theirs["id"]) == 1
    slots.admit(first)
    second = await claims.claim(10, slots)  # one more share of the endpoint: two held
    assert len(second) == 2
    slots.admit(second)
    assert await claims.claim(10, slots) == []  # two shares held; nothing else is due


def test_slots_start_at_most_a_share_and_the_rest_waits() -> None:
    from dataclasses import dataclass

    @dataclass
    class Held:
        endpoint_id: str
        tenant_id: str

    slots: Slots[Held] = Slots(Shares(slots=20, per_endpoint=2, per_tenant=3))
    a = [Held("e1", "t1") for _ in range(4)] + [Held("e2", "t1") for _ in range(2)]
    started = slots.admit(a)
    assert [h.endpoint_id for h in started] == ["e1", "e1", "e2"]  # e1's share, t1's share
    assert slots.waiting == 3
    assert slots.full_endpoints() == ["e1"]  # two shares held: left out of claims
    assert slots.full_tenants() == ["t1"]
    assert slots.finished(started[0]) == [a[2]]  # e1 has room again, t1 too
    assert slots.finished(started[2]) == [a[5]]
    assert slots.released(started[:1]) is True  # e1 and t1 below two shares again
    assert slots.full_endpoints() == []
    assert slots.held == 5


async def test_a_turn_records_successes_and_claims_their_room(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    receiver: Receiver,
) -> None:
    """One turn (one statement on PostgreSQL) records the successes it is given, guarded by
    their claim tokens, and claims for the room they leave: never the rows it records."""
    await create_endpoint(client, tenant, receiver.url)
    for _ in range(8):
        await emit(runtime, tenant.tenant_id)
    claims = Claims(runtime, timedelta(seconds=30))
    slots: Slots[Claim] = Slots(Shares(slots=10, per_endpoint=2, per_tenant=3))
    first = await claims.claim(10, slots)
    slots.admit(first)
    second = await claims.claim(10, slots)
    slots.admit(second)
    assert len(first) == len(second) == 2
    assert await claims.claim(10, slots) == []  # the endpoint holds two shares
    done = [Succeeded(c.delivery_id, c.token, 200, 5) for c in first]
    stale = Succeeded(second[0].delivery_id, "clm_not_the_holder", 200, 5)
    third = await claims.claim(10, slots, succeeded=[*done, stale], leaving=first)
    assert len(third) == 2  # the room the two successes leave
    assert not {c.delivery_id for c in third} & {c.delivery_id for c in first + second}
    async with runtime.db.read() as session:
        rows = {
            row.id: row
            for row in await session.execute(
                select(
                    Delivery.id, Delivery.status, Delivery.claim_token, Delivery.last_http_status
                )
            )
        }
    for claim in first:
        assert rows[claim.delivery_id].status == "succeeded"
        assert rows[claim.delivery_id].claim_token is None
        assert rows[claim.delivery_id].last_http_status == 200
    # The stale success changed nothing: still leased by its holder.
    assert rows[second[0].delivery_id].status == "pending"
    assert rows[second[0].delivery_id].claim_token == second[0].token
