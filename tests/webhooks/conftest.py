"""Fixtures for the webhooks tests: a verifying receiver, a running worker, events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.webhooks import Delivery, WebhookEndpoint
from gatehouse.webhooks.delivery import DeliveryWorker
from gatehouse.webhooks.outbox import publish
from tests.support.factories import TenantFixture
from tests.support.patience import patient
from tests.webhooks.receiver import Received, Receiver, running_receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver(Receiver()) as r:
        yield r


@pytest.fixture
async def worker(runtime: Runtime) -> AsyncIterator[DeliveryWorker]:
    stop = asyncio.Event()
    delivery_worker = DeliveryWorker(runtime, poll_seconds=0.05, lease_seconds=5)
    task = asyncio.create_task(delivery_worker.run(stop))
    yield delivery_worker
    stop.set()
    await asyncio.wait_for(task, 30)


async def create_endpoint(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    url: str,
    events: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    response = await client.post(
        "/v1/webhooks",
        json={"url": url, "events": events or ["*"], **extra},
        headers=tenant.headers,
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def emit(
    runtime: Runtime,
    tenant_id: str,
    event_type: str = "application.submitted",
    data: dict[str, Any] | None = None,
) -> str:
    """Write one event to the outbox, as the application services do."""
    async with runtime.db.write() as session:
        event = await publish(
            session,
            tenant_id=tenant_id,
            event_type=event_type,
            occurred_at=runtime.now(),
            data=data if data is not None else {"status": "pending", "previousStatus": None},
        )
        return event.id


async def wait_requests(receiver: Receiver, count: int, timeout: float = 10.0) -> list[Received]:
    return await asyncio.to_thread(receiver.wait_for, count, patient(timeout))


async def wait_until(
    predicate: Callable[[], Any], timeout: float = 10.0, interval: float = 0.02
) -> Any:
    """Poll an async or sync predicate until it returns something truthy."""
    deadline = asyncio.get_running_loop().time() + patient(timeout)
    while True:
        value = predicate()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(interval)


async def deliveries_of(runtime: Runtime, endpoint_id: str) -> list[Delivery]:
    async with runtime.db.read() as session:
        rows = await session.scalars(
            select(Delivery)
            .where(Delivery.endpoint_id == endpoint_id)
            .order_by(Delivery.created_at)
        )
        return list(rows.all())


async def endpoint_row(runtime: Runtime, endpoint_id: str) -> WebhookEndpoint:
    async with runtime.db.read() as session:
        endpoint = await session.scalar(
            select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id)
        )
        assert endpoint is not None
        return endpoint
