"""Staff API rows for staff members, tenants and API keys (docs/reference/staff-api.md)."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import ApiKey, AuditEntry, StaffMember, Tenant
from gatehouse.storage.tables.staff_identity import StaffToken
from tests.support.factories import StaffFixture, make_staff
from tests.support.leaks import remember

TENANT_FIELDS = {"tenantId", "name", "status", "createdAt", "webhookEndpointCap"}


async def audit_actions(runtime: Runtime) -> list[tuple[str, str, str]]:
    async with runtime.db.read() as session:
        rows = (await session.execute(select(AuditEntry).order_by(AuditEntry.id))).scalars().all()
    return [(r.action, r.actor, r.target) for r in rows]


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, object]:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert error["requestId"] == response.headers["service-request-id"]
    return dict(error)


async def create_tenant(client: httpx.AsyncClient, staff: StaffFixture, name: str = "Acme") -> dict:
    response = await client.post("/staff/v1/tenants", json={"name": name}, headers=staff.headers)
    assert response.status_code == 201, response.text
    return dict(response.json())


# -- staff members -----------------------------------------------------------


async def test_super_admin_creates_staff_of_every_role(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    tokens: dict[str, str] = {}
    for role in ("analyst", "mlro", "admin", "super_admin"):
        response = await client.post(
            "/staff/v1/staff",
            json={"email": f"  New.{role}@Example.TEST ", "role": role},
            headers=staff.headers,
        )
        assert response.status_code == 201, response.text
        body = response.json()
        tokens[body["staffId"]] = body["token"]
        assert set(body) == {"staffId", "email", "role", "token", "inviteUrl", "inviteExpiresAt"}
        remember(body["inviteUrl"].rsplit("/", 1)[1])
        assert body["email"] == f"new.{role}@example.test"
        assert body["role"] == role
        assert body["staffId"].startswith("stf_")
        assert body["token"].startswith("staff_")
        # The token works at once and carries the role.
        me = await client.get(
            "/staff/v1/tenants", headers={"Authorization": f"Bearer {body['token']}"}
        )
        assert me.status_code == 200
    # Each token is stored once, as a keyed digest in staff_tokens; the member rows hold no
    # copy of it (migration 0011 dropped staff_members.token_hash).
    async with runtime.db.read() as session:
        stored = dict(
            (await session.execute(select(StaffToken.staff_id, StaffToken.token_hash))).all()
        )
        members = (await session.execute(select(StaffMember.__table__))).all()
    for staff_id, token in tokens.items():
        assert runtime.crypto.verify_secret(token.rsplit("_", 1)[1], stored[staff_id])
    assert "token_hash" not in StaffMember.__table__.c
    assert not set(stored.values()) & {value for row in members for value in row}
    actions = [a for a in await audit_actions(runtime) if a[0] == "staff.created"]
    # The fixture's own creation (as by the CLI) plus the four made here.
    assert [actor for _, actor, _ in actions].count(f"staff:{staff.staff_id}") == 4
    assert ("staff.created", "system:cli", staff.staff_id) in actions


async def test_admin_creates_analyst_and_mlro_but_not_admin_roles(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    admin = await make_staff(runtime, "admin")
    for role in ("analyst", "mlro"):
        response = await client.post(
            "/staff/v1/staff",
            json={"email": f"{role}@example.test", "role": role},
            headers=admin.headers,
        )
        assert response.status_code == 201
    for role in ("admin", "super_admin"):
        response = await client.post(
            "/staff/v1/staff",
            json={"email": f"x-{role}@example.test", "role": role},
            headers=admin.headers,
        )
        error = assert_error(response, 403, "permission-denied")
        assert "super_admin" in str(error["message"])
    async with runtime.db.read() as session:
        emails = set((await session.scalars(select(StaffMember.email))).all())
    assert "x-admin@example.test" not in emails
    assert "x-super_admin@example.test" not in emails


@pytest.mark.parametrize("role", ["analyst", "mlro"])
async def test_below_admin_cannot_create_staff(
    client: httpx.AsyncClient, runtime: Runtime, role: str
) -> None:
    member = await make_staff(runtime, role)
    response = await client.post(
        "/staff/v1/staff",
        json={"email": "a@example.test", "role": "analyst"},
        headers=member.headers,
    )
    assert_error(response, 403, "permission-denied")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"email": "no-at-sign", "role": "analyst"}, "email"),
        ({"email": "a" * 320 + "@x.test", "role": "analyst"}, "email"),
        ({"email": "a@example.test", "role": "owner"}, "role"),
        ({"email": "a@example.test"}, "role"),
        ({"email": 5, "role": "analyst"}, "email"),
    ],
)
async def test_staff_create_validation(
    client: httpx.AsyncClient, staff: StaffFixture, body: dict, field: str
) -> None:
    response = await client.post("/staff/v1/staff", json=body, headers=staff.headers)
    error = assert_error(response, 400, "invalid-argument")
    assert any(d["field"] == field for d in error["details"])  # type: ignore[union-attr]


async def test_duplicate_staff_email_is_409(client: httpx.AsyncClient, staff: StaffFixture) -> None:
    body = {"email": "dup@example.test", "role": "analyst"}
    assert (
        await client.post("/staff/v1/staff", json=body, headers=staff.headers)
    ).status_code == 201
    again = await client.post(
        "/staff/v1/staff",
        json={"email": " DUP@example.test", "role": "mlro"},
        headers=staff.headers,
    )
    assert_error(again, 409, "already-exists")


async def test_validation_comes_after_role_check(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    analyst = await make_staff(runtime, "analyst")
    response = await client.post("/staff/v1/tenants", content=b"{not json", headers=analyst.headers)
    assert_error(response, 403, "permission-denied")
    response = await client.post("/staff/v1/tenants", content=b"{not json")
    assert_error(response, 401, "unauthorized")


# -- tenants -------------------------------------------------------------------


async def test_tenant_lifecycle(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    created = await create_tenant(client, staff, "  Acme Ltd  ")
    assert set(created) >= TENANT_FIELDS
    assert created["tenantId"].startswith("ten_")
    assert created["name"] == "Acme Ltd"
    assert created["status"] == "active"
    assert created["webhookEndpointCap"] == 5
    assert created["createdAt"].endswith("Z")
    assert len(created["createdAt"]) == 24
    tenant_id = created["tenantId"]

    got = await client.get(f"/staff/v1/tenants/{tenant_id}", headers=staff.headers)
    assert got.status_code == 200
    assert got.json() == created

    patched = await client.patch(
        f"/staff/v1/tenants/{tenant_id}",
        json={"name": "Acme Group", "webhookEndpointCap": 20},
        headers=staff.headers,
    )
    assert patched.status_code == 200
    assert patched.json()["name"] == "Acme Group"
    assert patched.json()["webhookEndpointCap"] == 20

    only_cap = await client.patch(
        f"/staff/v1/tenants/{tenant_id}", json={"webhookEndpointCap": 1}, headers=staff.headers
    )
    assert only_cap.json()["name"] == "Acme Group"
    assert only_cap.json()["webhookEndpointCap"] == 1

    for _ in range(2):  # a repeat answers the same state
        suspended = await client.post(
            f"/staff/v1/tenants/{tenant_id}/suspend", headers=staff.headers
        )
        assert suspended.status_code == 200
        assert suspended.json()["status"] == "suspended"
    reactivated = await client.post(
        f"/staff/v1/tenants/{tenant_id}/reactivate", headers=staff.headers
    )
    assert reactivated.status_code == 200
    assert reactivated.json()["status"] == "active"

    async with runtime.db.read() as session:
        tenant = await session.get(Tenant, tenant_id)
    assert tenant is not None
    assert tenant.status == "active"
    assert tenant.webhook_endpoint_cap == 1
    actions = [a for a, _, target in await audit_actions(runtime) if target == tenant_id]
    assert actions == [
        "tenant.created",
        "tenant.updated",
        "tenant.updated",
        "tenant.suspended",
        "tenant.suspended",
        "tenant.reactivated",
    ]


@pytest.mark.parametrize("cap", [0, 21, -1, "5", 2.5, True, None])
async def test_endpoint_cap_outside_1_to_20_is_400(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime, cap: object
) -> None:
    tenant_id = (await create_tenant(client, staff))["tenantId"]
    response = await client.patch(
        f"/staff/v1/tenants/{tenant_id}", json={"webhookEndpointCap": cap}, headers=staff.headers
    )
    error = assert_error(response, 400, "invalid-argument")
    assert error["details"][0]["field"] == "webhookEndpointCap"  # type: ignore[index]
    async with runtime.db.read() as session:
        tenant = await session.get(Tenant, tenant_id)
    assert tenant is not None
    assert tenant.webhook_endpoint_cap == 5


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "   "}, {"name": 7}, ["x"]])
async def test_tenant_create_validation(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime, body: object
) -> None:
    response = await client.post("/staff/v1/tenants", json=body, headers=staff.headers)
    assert_error(response, 400, "invalid-argument")
    async with runtime.db.read() as session:
        assert (await session.scalars(select(Tenant))).all() == []


async def test_unknown_tenant_is_404_everywhere(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    missing = "ten_doesnotexist"
    calls = [
        client.get(f"/staff/v1/tenants/{missing}", headers=staff.headers),
        client.patch(f"/staff/v1/tenants/{missing}", json={"name": "x"}, headers=staff.headers),
        client.post(f"/staff/v1/tenants/{missing}/suspend", headers=staff.headers),
        client.post(f"/staff/v1/tenants/{missing}/reactivate", headers=staff.headers),
        client.post(f"/staff/v1/tenants/{missing}/api-keys", json={}, headers=staff.headers),
        client.post("/staff/v1/api-keys/nosuchkey00000/revoke", headers=staff.headers),
    ]
    for call in calls:
        assert_error(await call, 404, "not-found")


async def test_tenant_list_pages_newest_first_with_signed_cursor(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    ids = [(await create_tenant(client, staff, f"T{i}"))["tenantId"] for i in range(5)]
    seen: list[str] = []
    cursor = None
    while True:
        params = {"limit": "2", **({"cursor": cursor} if cursor else {})}
        page = await client.get("/staff/v1/tenants", params=params, headers=staff.headers)
        assert page.status_code == 200
        body = page.json()
        seen += [t["tenantId"] for t in body["data"]]
        assert body["hasMore"] == (body["nextCursor"] is not None)
        if not body["hasMore"]:
            break
        cursor = body["nextCursor"]
    assert seen == list(reversed(ids))
    tampered = cursor_tamper(str(cursor or ""))
    bad = await client.get("/staff/v1/tenants", params={"cursor": tampered}, headers=staff.headers)
    assert_error(bad, 400, "invalid-argument")
    for limit in ("0", "101", "ten"):
        bad = await client.get("/staff/v1/tenants", params={"limit": limit}, headers=staff.headers)
        assert_error(bad, 400, "invalid-argument")


def cursor_tamper(cursor: str) -> str:
    if not cursor:
        return "abc.def"
    flipped = "A" if cursor[0] != "A" else "B"
    return flipped + cursor[1:]


@pytest.mark.parametrize("role", ["analyst", "mlro"])
async def test_analysts_read_but_do_not_change_tenants(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime, role: str
) -> None:
    tenant_id = (await create_tenant(client, staff))["tenantId"]
    reader = await make_staff(runtime, role)
    assert (await client.get("/staff/v1/tenants", headers=reader.headers)).status_code == 200
    got = await client.get(f"/staff/v1/tenants/{tenant_id}", headers=reader.headers)
    assert got.status_code == 200
    refused = [
        client.post("/staff/v1/tenants", json={"name": "x"}, headers=reader.headers),
        client.patch(f"/staff/v1/tenants/{tenant_id}", json={"name": "y"}, headers=reader.headers),
        client.post(f"/staff/v1/tenants/{tenant_id}/suspend", headers=reader.headers),
        client.post(f"/staff/v1/tenants/{tenant_id}/reactivate", headers=reader.headers),
        client.post(f"/staff/v1/tenants/{tenant_id}/api-keys", json={}, headers=reader.headers),
        client.post("/staff/v1/api-keys/whatever00000/revoke", headers=reader.headers),
    ]
    for call in refused:
        assert_error(await call, 403, "permission-denied")


# -- API keys --------------------------------------------------------------------


async def test_api_key_with_scopes_and_default_scope(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    tenant_id = (await create_tenant(client, staff))["tenantId"]
    response = await client.post(
        f"/staff/v1/tenants/{tenant_id}/api-keys",
        json={"name": "backend", "scopes": ["applications:read", "webhooks:manage"]},
        headers=staff.headers,
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"keyId", "apiKey", "name", "scopes", "createdAt"}
    assert body["apiKey"].startswith(f"service_{body['keyId']}_")
    assert body["name"] == "backend"
    assert body["scopes"] == ["applications:read", "webhooks:manage"]

    for payload in ({}, {"scopes": []}, None):
        default = await client.post(
            f"/staff/v1/tenants/{tenant_id}/api-keys",
            json=payload,
            headers=staff.headers,
        )
        assert default.status_code == 201, default.text
        assert default.json()["scopes"] == ["applications:write"]

    async with runtime.db.read() as session:
        key = await session.get(ApiKey, body["keyId"])
    assert key is not None
    assert body["apiKey"].split("_")[2] not in key.secret_hash
    actions = [a for a, _, _ in await audit_actions(runtime)]
    assert actions.count("api_key.created") == 4


@pytest.mark.parametrize("scopes", [["applications:admin"], ["applications:read", "x"], "all"])
async def test_invalid_scope_is_400(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime, scopes: object
) -> None:
    tenant_id = (await create_tenant(client, staff))["tenantId"]
    response = await client.post(
        f"/staff/v1/tenants/{tenant_id}/api-keys", json={"scopes": scopes}, headers=staff.headers
    )
    assert_error(response, 400, "invalid-argument")
    async with runtime.db.read() as session:
        assert (await session.scalars(select(ApiKey))).all() == []


async def test_revoked_key_fails_at_once(
    client: httpx.AsyncClient, staff: StaffFixture, runtime: Runtime
) -> None:
    from tests.support.probe import probe_app

    tenant_id = (await create_tenant(client, staff))["tenantId"]
    created = (
        await client.post(
            f"/staff/v1/tenants/{tenant_id}/api-keys",
            json={"scopes": ["applications:read"]},
            headers=staff.headers,
        )
    ).json()
    key_headers = {"Authorization": f"Bearer {created['apiKey']}"}
    transport = httpx.ASGITransport(app=probe_app(runtime))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as api:
        assert (await api.get("/v1/probe", headers=key_headers)).status_code == 200
        for _ in range(2):
            revoked = await client.post(
                f"/staff/v1/api-keys/{created['keyId']}/revoke", headers=staff.headers
            )
            assert revoked.status_code == 200
            assert revoked.json() == {"keyId": created["keyId"], "status": "revoked"}
        refused = await api.get("/v1/probe", headers=key_headers)
        assert_error(refused, 401, "unauthorized")
    assert ("api_key.revoked", f"staff:{staff.staff_id}", created["keyId"]) in (
        await audit_actions(runtime)
    )


async def test_api_keys_do_not_authenticate_staff_routes(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    tenant_id = (await create_tenant(client, staff))["tenantId"]
    key = (
        await client.post(f"/staff/v1/tenants/{tenant_id}/api-keys", json={}, headers=staff.headers)
    ).json()["apiKey"]
    response = await client.get("/staff/v1/tenants", headers={"Authorization": f"Bearer {key}"})
    assert_error(response, 401, "unauthorized")
