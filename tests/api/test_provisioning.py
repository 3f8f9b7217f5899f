"""POST /v1/applications (docs/reference/tenant-api.md §5.1, §5; docs/reference/tenant-api.md)."""

from __future__ import annotations

import re
from datetime import timedelta

import httpx

from gatehouse.runtime import Runtime
from tests.api.support import (
    audit_entries,
    erase,
    links_of,
    provision,
    set_tenant_status,
)
from tests.support.factories import TenantFixture, add_intake, make_tenant

TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


async def _count(client: httpx.AsyncClient, tenant: TenantFixture) -> int:
    response = await client.get("/v1/applications?limit=100", headers=tenant.headers)
    return len(response.json()["data"])


async def test_create_answers_201_with_the_application(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    response = await client.post(
        "/v1/applications",
        json={"email": "  Ann@Example.TEST ", "externalRef": "  crm-1  ", "companyName": " Acme "},
        headers=tenant.headers,
    )
    assert response.status_code == 201
    body = response.json()
    assert body["clientId"].startswith("app_")
    assert body["status"] == "pending"
    assert body["externalRef"] == "crm-1"
    assert body["companyName"] == "Acme"
    assert body["applicantEmail"] == "ann@example.test"
    assert body["labelId"] == tenant.label_id
    assert TS.match(body["createdAt"])
    assert body["updatedAt"] == body["createdAt"]
    assert "submittedAt" not in body
    assert "rejectionReason" not in body
    assert body["decision"] is None
    assert body["openInfoRequest"] is None
    assert "accessActive" not in body
    assert "ownerUid" not in body
    [member] = body["members"]
    assert member["uid"].startswith("mem_")
    assert member["email"] == "ann@example.test"
    assert member["role"] == "applicant"
    assert member["joinedAt"] == body["createdAt"]
    assert response.headers["service-request-id"].startswith("req_")


async def test_company_name_defaults_to_email_and_external_ref_to_null(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    body = await provision(client, tenant, "Bo@Example.test")
    assert body["companyName"] == "bo@example.test"
    assert body["externalRef"] is None


async def test_long_fields_are_cut_to_200(client: httpx.AsyncClient, tenant: TenantFixture) -> None:
    body = await provision(client, tenant, externalRef="r" * 300, companyName="c" * 300)
    assert body["externalRef"] == "r" * 200
    assert body["companyName"] == "c" * 200
    again = await provision(client, tenant, externalRef="r" * 250)
    assert again["clientId"] == body["clientId"]


async def test_repeat_returns_same_application_without_rename_or_intake_change(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    other_label = await add_intake(runtime, tenant.tenant_id, "Other", order=5)
    first = await provision(client, tenant, "ann@example.test", companyName="First")
    start = runtime.now()
    runtime.clock = lambda: start + timedelta(seconds=5)
    response = await client.post(
        "/v1/applications",
        json={"email": "ANN@example.test", "companyName": "Renamed", "labelId": other_label},
        headers=tenant.headers,
    )
    assert response.status_code == 200
    again = response.json()
    assert again["clientId"] == first["clientId"]
    assert again["companyName"] == "First"
    assert again["labelId"] == first["labelId"] == tenant.label_id
    assert again["createdAt"] == first["createdAt"]
    assert again["updatedAt"] > first["updatedAt"]
    assert again["members"] == first["members"]
    assert await _count(client, tenant) == 1


async def test_repeat_returns_the_stored_status(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    from tests.api.support import add_decision

    first = await provision(client, tenant)
    await add_decision(runtime, first["clientId"], "hold", "hold", runtime.now())
    again = await provision(client, tenant)
    assert again["status"] == "hold"


async def test_identity_is_external_ref_when_nonempty(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    a = await provision(client, tenant, "ann@example.test", externalRef="ref-a")
    b = await provision(client, tenant, "ann@example.test", externalRef="ref-b")
    c = await provision(client, tenant, "ann@example.test")
    d = await provision(client, tenant, "ann@example.test", externalRef="   ")
    assert len({a["clientId"], b["clientId"], c["clientId"]}) == 3
    assert d["clientId"] == c["clientId"]
    assert (await provision(client, tenant, "ann@example.test", externalRef=" ref-a "))[
        "clientId"
    ] == a["clientId"]


async def test_identity_is_per_tenant(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    other = await make_tenant(runtime, name="Other")
    a = await provision(client, tenant, externalRef="same")
    b = await provision(client, other, externalRef="same")
    assert a["clientId"] != b["clientId"]


async def test_external_ref_bound_to_another_email_is_409_and_adds_nothing(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    first = await provision(client, tenant, "ann@example.test", externalRef="crm-9")
    response = await client.post(
        "/v1/applications",
        json={"email": "eve@example.test", "externalRef": "crm-9"},
        headers=tenant.headers,
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "already-exists"
    read = await client.get(f"/v1/applications/{first['clientId']}", headers=tenant.headers)
    assert [m["email"] for m in read.json()["members"]] == ["ann@example.test"]
    assert read.json()["updatedAt"] == first["updatedAt"]


async def test_invalid_email_is_400_invalid_argument_with_details(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    for email in ("no-at-sign", "", "a@" + "b" * 320):
        response = await client.post(
            "/v1/applications", json={"email": email}, headers=tenant.headers
        )
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "invalid-argument"
        assert error["details"][0]["field"] == "email"
        assert error["requestId"] == response.headers["service-request-id"]
    assert await _count(client, tenant) == 0


async def test_missing_email_wrong_types_and_bad_json_are_400(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    bad_bodies = [
        {},
        {"email": 5},
        {"email": "a@x.test", "externalRef": 7},
        {"email": "a@x.test", "companyName": ["x"]},
        {"email": "a@x.test", "labelId": True},
    ]
    for body in bad_bodies:
        response = await client.post("/v1/applications", json=body, headers=tenant.headers)
        assert response.status_code == 400, body
        assert response.json()["error"]["code"] == "invalid-argument"
        assert response.json()["error"]["details"]
    for raw in (b"{not json", b"[1, 2]"):
        response = await client.post(
            "/v1/applications",
            content=raw,
            headers={**tenant.headers, "content-type": "application/json"},
        )
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid-argument"
    assert await _count(client, tenant) == 0


async def test_unknown_foreign_or_detached_label_is_400_invalid_argument(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    other = await make_tenant(runtime, name="Other")
    detached = await add_intake(runtime, tenant.tenant_id, "Detached", attached=False)
    for label in ("lbl_unknown", other.label_id, detached):
        response = await client.post(
            "/v1/applications",
            json={"email": "a@x.test", "labelId": label},
            headers=tenant.headers,
        )
        assert response.status_code == 400, label
        assert response.json()["error"]["code"] == "invalid-argument"
    assert await _count(client, tenant) == 0


async def test_explicit_label_is_used(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    second = await add_intake(runtime, tenant.tenant_id, "Second", order=9)
    body = await provision(client, tenant, labelId=second)
    assert body["labelId"] == second


async def test_no_usable_intake_is_400_invalid_argument(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    bare = await make_tenant(runtime, with_intake=False)
    await add_intake(runtime, bare.tenant_id, "Detached", attached=False)
    response = await client.post(
        "/v1/applications", json={"email": "a@x.test"}, headers=bare.headers
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-argument"


async def test_broken_intake_configuration_is_400_failed_precondition(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    bare = await make_tenant(runtime, with_intake=False)
    broken = await add_intake(
        runtime, bare.tenant_id, "Broken", checklist=[{"key": "x", "kind": "photo"}]
    )
    for body in ({"email": "a@x.test"}, {"email": "a@x.test", "labelId": broken}):
        response = await client.post("/v1/applications", json=body, headers=bare.headers)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "failed-precondition"
    assert await _count(client, bare) == 0


async def test_default_intake_is_first_usable_in_configured_order(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    bare = await make_tenant(runtime, with_intake=False)
    await add_intake(runtime, bare.tenant_id, "Later", order=3)
    await add_intake(runtime, bare.tenant_id, "Broken first", order=-5, checklist=[{"bad": 1}])
    await add_intake(runtime, bare.tenant_id, "Detached", order=-9, attached=False)
    null_order = await add_intake(runtime, bare.tenant_id, "Null order", order=None)
    await add_intake(runtime, bare.tenant_id, "Zero order, created later", order=0)
    body = await provision(client, bare)
    assert body["labelId"] == null_order


async def test_repeat_restores_removed_original_applicant(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    first = await provision(client, tenant, "ann@example.test")
    cid = first["clientId"]
    applicant_uid = first["members"][0]["uid"]
    bob = (
        await client.post(
            f"/v1/applications/{cid}/members", json={"email": "bob@x.test"}, headers=tenant.headers
        )
    ).json()
    removed = await client.delete(
        f"/v1/applications/{cid}/members/{applicant_uid}?newOwnerUid={bob['uid']}",
        headers=tenant.headers,
    )
    assert removed.status_code == 204
    again = await provision(client, tenant, "ann@example.test")
    roles = {m["email"]: m["role"] for m in again["members"]}
    assert roles == {"ann@example.test": "applicant", "bob@x.test": "teammate"}
    # Ownership stays with the handover target: a link without email goes to bob.
    link = await client.post(
        f"/v1/applications/{cid}/login-sessions", json={}, headers=tenant.headers
    )
    assert link.status_code == 201
    [stored] = await links_of(runtime, cid)
    assert stored.member_id == bob["uid"]


async def test_repeat_restore_at_full_roster_is_400_failed_precondition(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    first = await provision(client, tenant, "ann@example.test")
    cid = first["clientId"]
    uids = []
    for n in range(19):
        added = await client.post(
            f"/v1/applications/{cid}/members",
            json={"email": f"m{n}@x.test"},
            headers=tenant.headers,
        )
        uids.append(added.json()["uid"])
    removed = await client.delete(
        f"/v1/applications/{cid}/members/{first['members'][0]['uid']}?newOwnerUid={uids[0]}",
        headers=tenant.headers,
    )
    assert removed.status_code == 204
    await client.post(
        f"/v1/applications/{cid}/members", json={"email": "m19@x.test"}, headers=tenant.headers
    )
    response = await client.post(
        "/v1/applications", json={"email": "ann@example.test"}, headers=tenant.headers
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "failed-precondition"


async def test_suspended_tenant_is_403(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    existing = await provision(client, tenant, "ann@example.test")
    await set_tenant_status(runtime, tenant.tenant_id, "suspended")
    for email in ("new@example.test", "ann@example.test"):
        response = await client.post(
            "/v1/applications", json={"email": email}, headers=tenant.headers
        )
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "permission-denied"
    read = await client.get(f"/v1/applications/{existing['clientId']}", headers=tenant.headers)
    assert read.status_code == 200
    assert read.json()["updatedAt"] == existing["updatedAt"]
    assert await _count(client, tenant) == 1


async def test_locked_application_repeat_is_403(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    first = await provision(client, tenant)
    await client.post(f"/v1/applications/{first['clientId']}/lock", headers=tenant.headers)
    response = await client.post(
        "/v1/applications", json={"email": "ann@example.test"}, headers=tenant.headers
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission-denied"
    # A new identity is unaffected by another application's lock.
    assert (await provision(client, tenant, "other@example.test"))["clientId"] != first["clientId"]


async def test_erased_application_repeat_is_410(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    first = await provision(client, tenant, externalRef="gone-1")
    await erase(runtime, first["clientId"])
    response = await client.post(
        "/v1/applications",
        json={"email": "ann@example.test", "externalRef": "gone-1"},
        headers=tenant.headers,
    )
    assert response.status_code == 410
    assert response.json()["error"]["code"] == "failed-precondition"


async def test_scope_and_authentication(client: httpx.AsyncClient, runtime: Runtime) -> None:
    reader = await make_tenant(runtime, ["applications:read"])
    response = await client.post(
        "/v1/applications", json={"email": "a@x.test"}, headers=reader.headers
    )
    assert response.status_code == 403
    assert "applications:write" in response.json()["error"]["message"]
    response = await client.post(
        "/v1/applications", json={"email": "a@x.test"}, headers={"Authorization": "Bearer nope"}
    )
    assert response.status_code == 401


async def test_writes_are_audited(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    response = await client.post(
        "/v1/applications", json={"email": "a@x.test"}, headers=tenant.headers
    )
    cid = response.json()["clientId"]
    [entry] = await audit_entries(runtime, tenant.tenant_id)
    assert entry.action == "application.create"
    assert entry.actor == f"api_key:{tenant.key_id}"
    assert entry.target == cid
    assert entry.application_id == cid
    assert entry.request_id == response.headers["service-request-id"]


async def test_idempotency_key_replays_the_creation(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    headers = {**tenant.headers, "Idempotency-Key": "create-1"}
    first = await client.post("/v1/applications", json={"email": "a@x.test"}, headers=headers)
    second = await client.post("/v1/applications", json={"email": "a@x.test"}, headers=headers)
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second.headers["idempotent-replayed"] == "true"
    different = await client.post("/v1/applications", json={"email": "b@x.test"}, headers=headers)
    assert different.status_code == 400
    assert different.json()["error"]["details"][0]["field"] == "Idempotency-Key"
