"""Staff intake routes (docs/reference/staff-api.md): create and update intake labels."""

from __future__ import annotations

import httpx

from gatehouse.runtime import Runtime
from tests.api.support import audit_entries, provision
from tests.support.factories import StaffFixture, TenantFixture, make_staff, make_tenant

CHECKLIST = [
    {"key": "passport", "label": "Passport", "kind": "document", "required": True},
    {"key": "idv", "label": "Identity", "kind": "verification", "required": False},
    {"key": "profile", "label": "Profile", "kind": "form", "required": True},
]


async def test_create_intake_and_use_it(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    tenant = await make_tenant(runtime, with_intake=False)
    response = await client.post(
        f"/staff/v1/tenants/{tenant.tenant_id}/intakes",
        json={
            "name": " Retail ",
            "order": 2,
            "checklist": CHECKLIST,
            "formFields": [{"key": "name", "label": "Full name", "type": "text", "required": True}],
        },
        headers=staff.headers,
    )
    assert response.status_code == 201
    body = response.json()
    assert body["labelId"].startswith("lbl_")
    assert body["name"] == "Retail"
    assert body["order"] == 2
    assert body["attached"] is True
    assert body["checklist"] == CHECKLIST
    assert body["formFields"][0]["key"] == "name"
    intakes = (await client.get("/v1/intakes", headers=tenant.headers)).json()["data"]
    assert intakes == [{"labelId": body["labelId"], "name": "Retail", "order": 2}]
    app = await provision(client, tenant)
    assert app["labelId"] == body["labelId"]
    checklist = (
        await client.get(f"/v1/applications/{app['clientId']}/checklist", headers=tenant.headers)
    ).json()
    assert [item["key"] for item in checklist["data"]] == ["passport", "idv", "profile"]
    [entry] = [
        e for e in await audit_entries(runtime, tenant.tenant_id) if e.action == "intake.create"
    ]
    assert entry.actor == f"staff:{staff.staff_id}"
    assert entry.target == body["labelId"]


async def test_create_defaults(
    client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture
) -> None:
    response = await client.post(
        f"/staff/v1/tenants/{tenant.tenant_id}/intakes",
        json={"name": "Plain"},
        headers=staff.headers,
    )
    assert response.status_code == 201
    body = response.json()
    assert body["order"] is None
    assert body["attached"] is True
    assert body["checklist"] == []


async def test_create_validation(
    client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture
) -> None:
    url = f"/staff/v1/tenants/{tenant.tenant_id}/intakes"
    bad = [
        {},
        {"name": ""},
        {"name": 3},
        {"name": "X", "order": "1"},
        {"name": "X", "order": 1.5},
        {"name": "X", "attached": "yes"},
        {"name": "X", "checklist": [{"key": "a", "label": "A", "kind": "selfie"}]},
        {"name": "X", "checklist": [{"key": "a", "kind": "document"}]},
        {"name": "X", "checklist": "passport"},
        {"name": "X", "checklist": [{"key": "a", "label": "A", "kind": "form"}] * 2},
        {"name": "X", "formFields": [{"key": "a", "label": "A", "type": "hologram"}]},
    ]
    for body in bad:
        response = await client.post(url, json=body, headers=staff.headers)
        assert response.status_code == 400, body
        assert response.json()["error"]["code"] == "invalid-argument"
    missing = await client.post(
        "/staff/v1/tenants/ten_missing/intakes", json={"name": "X"}, headers=staff.headers
    )
    assert missing.status_code == 404


async def test_patch_intake(
    client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture
) -> None:
    label = tenant.label_id
    response = await client.patch(
        f"/staff/v1/intakes/{label}", json={"name": "Renamed", "order": 7}, headers=staff.headers
    )
    assert response.status_code == 200
    assert response.json()["name"] == "Renamed"
    assert response.json()["order"] == 7
    assert response.json()["attached"] is True
    cleared = await client.patch(
        f"/staff/v1/intakes/{label}", json={"order": None}, headers=staff.headers
    )
    assert cleared.json()["order"] is None
    assert cleared.json()["name"] == "Renamed"
    detached = await client.patch(
        f"/staff/v1/intakes/{label}", json={"attached": False}, headers=staff.headers
    )
    assert detached.status_code == 200
    assert detached.json()["attached"] is False
    assert (await client.get("/v1/intakes", headers=tenant.headers)).json()["data"] == []
    refused = await client.post(
        "/v1/applications", json={"email": "a@x.test"}, headers=tenant.headers
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "invalid-argument"
    for body in ({"name": ""}, {"attached": "no"}, {"order": "x"}):
        response = await client.patch(
            f"/staff/v1/intakes/{label}", json=body, headers=staff.headers
        )
        assert response.status_code == 400, body
    missing = await client.patch(
        "/staff/v1/intakes/lbl_missing", json={"name": "X"}, headers=staff.headers
    )
    assert missing.status_code == 404


async def test_intake_routes_need_admin(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    for role in ("analyst", "mlro"):
        low = await make_staff(runtime, role)
        created = await client.post(
            f"/staff/v1/tenants/{tenant.tenant_id}/intakes", json={"name": "X"}, headers=low.headers
        )
        assert created.status_code == 403
        assert created.json()["error"]["code"] == "permission-denied"
        patched = await client.patch(
            f"/staff/v1/intakes/{tenant.label_id}", json={"name": "X"}, headers=low.headers
        )
        assert patched.status_code == 403
    admin = await make_staff(runtime, "admin")
    ok = await client.post(
        f"/staff/v1/tenants/{tenant.tenant_id}/intakes", json={"name": "X"}, headers=admin.headers
    )
    assert ok.status_code == 201
    # API keys never authenticate the staff API.
    assert (
        await client.post(
            f"/staff/v1/tenants/{tenant.tenant_id}/intakes",
            json={"name": "X"},
            headers=tenant.headers,
        )
    ).status_code == 401
