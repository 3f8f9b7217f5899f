"""Fixtures for the sandbox tests: a sandbox tenant, a live one, and calls of the route."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from gatehouse.runtime import Runtime
from tests.support.factories import StaffFixture, TenantFixture, make_staff, make_tenant


@pytest.fixture
async def sandbox_tenant(runtime: Runtime) -> TenantFixture:
    return await make_tenant(runtime, name="Sandbox Co", environment="sandbox")


@pytest.fixture
async def analyst(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "analyst")


@pytest.fixture
async def mlro(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "mlro")


async def provision(
    client: httpx.AsyncClient, tenant: TenantFixture, email: str, **fields: Any
) -> str:
    """A new application of `tenant` through POST /v1/applications; its clientId."""
    made = await client.post(
        "/v1/applications", json={"email": email, **fields}, headers=tenant.headers
    )
    assert made.status_code == 201, made.text
    client_id: str = made.json()["clientId"]
    return client_id


async def simulate(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    client_id: str,
    action: str,
    headers: dict[str, str] | None = None,
    **body: Any,
) -> httpx.Response:
    return await client.post(
        f"/v1/sandbox/applications/{client_id}/simulate",
        json={"action": action, **body},
        headers={**tenant.headers, **(headers or {})},
    )


async def simulated(
    client: httpx.AsyncClient, tenant: TenantFixture, client_id: str, action: str, **body: Any
) -> dict[str, Any]:
    """A step that must succeed; the application read it answers."""
    response = await simulate(client, tenant, client_id, action, **body)
    assert response.status_code == 200, response.text
    view: dict[str, Any] = response.json()
    return view
