"""Authentication and scopes (docs/reference/tenant-api.md §4.2, §4.1 steps 4 to 6, §4)."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import update

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import ApiKey, StaffMember
from tests.support.factories import StaffFixture, TenantFixture, make_staff, make_tenant


def assert_unauthorized(response: httpx.Response) -> None:
    assert response.status_code == 401, response.text
    error = response.json()["error"]
    assert error["code"] == "unauthorized"
    assert error["requestId"] == response.headers["service-request-id"]
    assert "ratelimit-limit" not in response.headers
    assert "retry-after" not in response.headers


def bad_credentials(tenant: TenantFixture, staff: StaffFixture) -> dict[str, dict[str, str]]:
    key_id = tenant.key_id
    secret = tenant.api_key.rsplit("_", 1)[1]
    return {
        "missing header": {},
        "empty header": {"Authorization": ""},
        "wrong scheme": {"Authorization": f"Basic {tenant.api_key}"},
        "token scheme": {"Authorization": f"Token {tenant.api_key}"},
        "bearer without token": {"Authorization": "Bearer "},
        "bad format": {"Authorization": "Bearer service_short_secret"},
        "upper-case key id": {"Authorization": f"Bearer service_{key_id.upper()}_{secret}"},
        "short secret": {"Authorization": f"Bearer service_{key_id}_{secret[:20]}"},
        "unknown key": {"Authorization": f"Bearer service_{'a' * 16}_{'B' * 40}"},
        "wrong secret": {"Authorization": f"Bearer service_{key_id}_{'C' * 40}"},
        "extra suffix": {"Authorization": f"Bearer {tenant.api_key}_x"},
        "staff token": staff.headers,
    }


async def test_every_401_shape_on_v1(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, staff: StaffFixture
) -> None:
    for name, headers in bad_credentials(tenant, staff).items():
        response = await probe_client.get("/v1/probe", headers=headers)
        assert_unauthorized(response), name
        # A write with a malformed body still gets 401 first.
        response = await probe_client.post("/v1/probe/things", content=b"{broken", headers=headers)
        assert_unauthorized(response), name
    assert (await probe_client.get("/v1/probe", headers=tenant.headers)).status_code == 200


async def test_revoked_and_suspended_keys(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    async with runtime.db.write() as session:
        await session.execute(
            update(ApiKey).where(ApiKey.id == tenant.key_id).values(status="revoked")
        )
    assert_unauthorized(await probe_client.get("/v1/probe", headers=tenant.headers))


async def test_every_401_shape_on_staff_v1(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, staff: StaffFixture, runtime: Runtime
) -> None:
    short_id = staff.staff_id.removeprefix("stf_")
    shapes = {
        "missing header": {},
        "wrong scheme": {"Authorization": f"Basic {staff.token}"},
        "bad format": {"Authorization": "Bearer staff_x_y"},
        "unknown staff": {"Authorization": f"Bearer staff_{'z' * 20}_{'Q' * 40}"},
        "wrong secret": {"Authorization": f"Bearer staff_{short_id}_{'Q' * 40}"},
        "api key": tenant.headers,
    }
    for name, headers in shapes.items():
        assert_unauthorized(await probe_client.get("/staff/v1/tenants", headers=headers)), name
    disabled = await make_staff(runtime, "admin")
    async with runtime.db.write() as session:
        await session.execute(
            update(StaffMember).where(StaffMember.id == disabled.staff_id).values(status="disabled")
        )
    assert_unauthorized(await probe_client.get("/staff/v1/tenants", headers=disabled.headers))


@pytest.mark.parametrize(
    ("scopes", "method", "path", "missing"),
    [
        (["applications:write"], "GET", "/v1/probe", "applications:read"),
        (["applications:read"], "POST", "/v1/probe/things", "applications:write"),
        (
            ["applications:read", "applications:write"],
            "GET",
            "/v1/probe/webhooks",
            "webhooks:manage",
        ),
        (["webhooks:manage"], "GET", "/v1/probe", "applications:read"),
    ],
)
async def test_scope_refusal_names_the_scope(
    probe_client: httpx.AsyncClient,
    runtime: Runtime,
    scopes: list[str],
    method: str,
    path: str,
    missing: str,
) -> None:
    tenant = await make_tenant(runtime, scopes, with_intake=False)
    # A malformed body is not looked at before the scope check.
    response = await probe_client.request(method, path, headers=tenant.headers, content=b"{x")
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "permission-denied"
    assert missing in error["message"]
    assert error["requestId"] == response.headers["service-request-id"]
    # Scope refusals are authenticated responses: they carry the per-key headers.
    assert response.headers["ratelimit-limit"] == "60"


async def test_key_without_explicit_scopes_writes_only(
    probe_client: httpx.AsyncClient, runtime: Runtime
) -> None:
    from gatehouse.accounts.service import create_api_key, create_tenant

    tenant_id = str((await create_tenant(runtime, "Default scopes"))["tenantId"])
    key = str((await create_api_key(runtime, tenant_id))["apiKey"])
    headers = {"Authorization": f"Bearer {key}"}
    write = await probe_client.post("/v1/probe/things", json={"name": "a"}, headers=headers)
    assert write.status_code == 201
    read = await probe_client.get("/v1/probe", headers=headers)
    assert read.status_code == 403
    assert "applications:read" in read.json()["error"]["message"]


async def test_tenant_id_in_a_request_selects_nothing(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    other = await make_tenant(runtime, with_intake=False)
    response = await probe_client.get(
        "/v1/probe",
        params={"tenantId": other.tenant_id},
        headers={**tenant.headers, "X-Tenant-Id": other.tenant_id},
    )
    assert response.json() == {"tenantId": tenant.tenant_id}
