"""Tenants are live or sandbox (docs/reference/staff-api.md, "Sandbox tenants")."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.factories import StaffFixture, make_staff


async def create(client: httpx.AsyncClient, staff: StaffFixture, **body: Any) -> httpx.Response:
    return await client.post("/staff/v1/tenants", json={"name": "T", **body}, headers=staff.headers)


@pytest.mark.parametrize(
    ("body", "environment"),
    [
        ({}, "live"),
        ({"environment": None}, "live"),
        ({"environment": "live"}, "live"),
        ({"environment": "sandbox"}, "sandbox"),
    ],
)
async def test_create_and_read_the_environment(
    client: httpx.AsyncClient, staff: StaffFixture, body: dict[str, Any], environment: str
) -> None:
    made = await create(client, staff, **body)
    assert made.status_code == 201, made.text
    assert made.json()["environment"] == environment
    tenant_id = made.json()["tenantId"]
    one = await client.get(f"/staff/v1/tenants/{tenant_id}", headers=staff.headers)
    assert one.json()["environment"] == environment
    listed = await client.get("/staff/v1/tenants", headers=staff.headers)
    [found] = [t for t in listed.json()["data"] if t["tenantId"] == tenant_id]
    assert found["environment"] == environment


@pytest.mark.parametrize("value", ["Sandbox", "test", "", 1, True, ["sandbox"]])
async def test_any_other_environment_is_invalid_argument(
    client: httpx.AsyncClient, staff: StaffFixture, value: object
) -> None:
    refused = await create(client, staff, environment=value)
    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error["code"] == "invalid-argument"
    assert error["details"][0]["field"] == "environment"
    listed = await client.get("/staff/v1/tenants", headers=staff.headers)
    assert listed.json()["data"] == []


async def test_the_environment_never_changes(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    tenant_id = (await create(client, staff, environment="sandbox")).json()["tenantId"]
    patched = await client.patch(
        f"/staff/v1/tenants/{tenant_id}",
        json={"name": "Renamed", "environment": "live"},
        headers=staff.headers,
    )
    assert patched.status_code == 200
    assert patched.json()["environment"] == "sandbox"
    assert patched.json()["name"] == "Renamed"


async def test_an_analyst_reads_but_cannot_create(
    client: httpx.AsyncClient, runtime: object, staff: StaffFixture
) -> None:
    analyst = await make_staff(runtime, "analyst")  # type: ignore[arg-type]
    refused = await create(client, analyst, environment="sandbox")
    assert refused.status_code == 403
