"""Helpers shared by the delivery tests (`test_delivery.py`, `test_standard_webhooks.py`): a
first delivery the receiver verified, and a secret rotation."""

from __future__ import annotations

from typing import Any

import httpx

from gatehouse.runtime import Runtime
from tests.support.factories import TenantFixture
from tests.webhooks.conftest import create_endpoint, emit, wait_requests
from tests.webhooks.receiver import Received, Receiver


async def first_verified_delivery(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime, receiver: Receiver
) -> tuple[dict[str, Any], str, Received]:
    """An endpoint on `receiver` (which then holds its secret and expects the tenant), one
    event emitted and its delivery, checked by the receiver: (endpoint, event id, delivery)."""
    created = await create_endpoint(client, tenant, receiver.url)
    receiver.secrets = [created["secret"]]
    receiver.expected_tenants = {tenant.tenant_id}
    event_id = await emit(runtime, tenant.tenant_id)
    [got] = await wait_requests(receiver, 1)
    assert got.verified, got.refusal
    return created, event_id, got


async def rotate_secret(client: httpx.AsyncClient, tenant: TenantFixture, endpoint_id: str) -> str:
    """Rotate the endpoint's secret through the API; the new secret."""
    rotated = await client.post(f"/v1/webhooks/{endpoint_id}/rotate-secret", headers=tenant.headers)
    assert rotated.status_code == 200, rotated.text
    return str(rotated.json()["secret"])
