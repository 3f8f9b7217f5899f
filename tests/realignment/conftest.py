"""Fixtures for the intake change and repair tests: staff of each role, a tenant with two
intakes, a verifying webhook receiver on loopback and the delivery worker sending to it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from gatehouse.runtime import Runtime
from gatehouse.webhooks.delivery import DeliveryWorker
from tests.support.factories import StaffFixture, TenantFixture, add_intake, make_staff
from tests.webhooks.conftest import create_endpoint
from tests.webhooks.receiver import Received, Receiver, running_receiver

PERSON_FORM = [
    {"key": "fullName", "label": "Full name", "type": "text", "required": True},
    {"key": "birthDate", "label": "Date of birth", "type": "text", "required": False},
    {"key": "occupation", "label": "Occupation", "type": "text", "required": False},
]
COMPANY_FORM = [
    {"key": "fullName", "label": "Director's name", "type": "text", "required": True},
    {"key": "registrationNumber", "label": "Registration number", "type": "text"},
]
COMPANY_CHECKLIST = [
    {"key": "register_extract", "label": "Register extract", "kind": "document", "required": True}
]


@dataclass
class Staff:
    analyst: StaffFixture
    mlro: StaffFixture
    mlro2: StaffFixture
    admin: StaffFixture


@pytest.fixture
async def people(runtime: Runtime) -> Staff:
    return Staff(
        await make_staff(runtime, "analyst"),
        await make_staff(runtime, "mlro"),
        await make_staff(runtime, "mlro"),
        await make_staff(runtime, "admin"),
    )


@dataclass
class Intakes:
    person: str
    company: str
    detached: str


@pytest.fixture
async def intakes(runtime: Runtime, tenant: TenantFixture) -> Intakes:
    person = await add_intake(runtime, tenant.tenant_id, "Person", 2, form_fields=PERSON_FORM)
    company = await add_intake(
        runtime,
        tenant.tenant_id,
        "Company",
        3,
        checklist=COMPANY_CHECKLIST,
        form_fields=COMPANY_FORM,
    )
    detached = await add_intake(runtime, tenant.tenant_id, "Old", 4, attached=False)
    return Intakes(person, company, detached)


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


async def listen(client: httpx.AsyncClient, tenant: TenantFixture, receiver: Receiver) -> None:
    """An endpoint of the tenant on the receiver, for status changes only; the receiver
    verifies each delivery's signature with its secret."""
    created = await create_endpoint(
        client, tenant, receiver.url, events=["application.status.changed"]
    )
    receiver.secrets = [created["secret"]]
    receiver.expected_tenants = {tenant.tenant_id}


async def status_changes(receiver: Receiver, count: int) -> list[dict[str, Any]]:
    """The `data` of the first `count` verified deliveries, in sequence order."""
    got: list[Received] = await asyncio.to_thread(receiver.wait_for, count)
    assert all(item.verified for item in got), [item.refusal for item in got]
    return sorted((item.json()["data"] for item in got), key=lambda data: data["sequence"])


async def provision(
    client: httpx.AsyncClient, tenant: TenantFixture, label_id: str, ref: str
) -> str:
    """An application made through the tenant API under `label_id`; its clientId."""
    made = await client.post(
        "/v1/applications",
        json={"externalRef": ref, "email": f"{ref}@example.test", "labelId": label_id},
        headers=tenant.headers,
    )
    assert made.status_code in (200, 201), made.text
    return str(made.json()["clientId"])
