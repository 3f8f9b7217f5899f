"""Lock and unlock (docs/reference/tenant-api.md §3.2, §5.9, §5.10; docs/reference/tenant-api.md
§5) and tenant suspension.
"""

from __future__ import annotations

import httpx

from gatehouse.runtime import Runtime
from tests.api.support import (
    add_decision,
    add_portal_session,
    application_row,
    audit_entries,
    erase,
    links_of,
    portal_session,
    provision,
    set_tenant_status,
)
from tests.support.factories import TenantFixture


async def test_lock_and_unlock_are_idempotent(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    for _ in range(2):
        response = await client.post(f"/v1/applications/{cid}/lock", headers=tenant.headers)
        assert response.status_code == 200
        assert response.json() == {"clientId": cid, "access": "locked"}
    assert (await application_row(runtime, cid)).locked
    for _ in range(2):
        response = await client.post(f"/v1/applications/{cid}/unlock", headers=tenant.headers)
        assert response.status_code == 200
        assert response.json() == {"clientId": cid, "access": "unlocked"}
    assert not (await application_row(runtime, cid)).locked
    actions = [e.action for e in await audit_entries(runtime, tenant.tenant_id)]
    assert actions.count("application.lock") == 2
    assert actions.count("application.unlock") == 2


async def test_lock_revokes_unused_links_and_ends_sessions(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    response = await client.post(
        "/v1/login-sessions", json={"email": "a@x.test"}, headers=tenant.headers
    )
    cid = response.json()["clientId"]
    read = (await client.get(f"/v1/applications/{cid}", headers=tenant.headers)).json()
    session_id = await add_portal_session(runtime, cid, read["members"][0]["uid"])
    await client.post(f"/v1/applications/{cid}/lock", headers=tenant.headers)
    assert all(link.revoked_at is not None for link in await links_of(runtime, cid))
    assert (await portal_session(runtime, session_id)).ended_at is not None
    # Unlocking does not revive old links.
    await client.post(f"/v1/applications/{cid}/unlock", headers=tenant.headers)
    assert all(link.revoked_at is not None for link in await links_of(runtime, cid))
    fresh = await client.post(f"/v1/applications/{cid}/login-sessions", headers=tenant.headers)
    assert fresh.status_code == 201


async def test_lock_keeps_case_and_decision_and_reads_work(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    await add_decision(runtime, cid, "hold", "hold", runtime.now())
    before = (await client.get(f"/v1/applications/{cid}", headers=tenant.headers)).json()
    await client.post(f"/v1/applications/{cid}/lock", headers=tenant.headers)
    after = await client.get(f"/v1/applications/{cid}", headers=tenant.headers)
    assert after.status_code == 200
    assert after.json()["status"] == "hold"
    assert after.json()["decision"] == before["decision"]
    assert after.json()["members"] == before["members"]
    for path in ("info-requests", "decisions", "checklist", "documents"):
        response = await client.get(f"/v1/applications/{cid}/{path}", headers=tenant.headers)
        assert response.status_code == 200, path


async def test_suspension_allows_lock_refuses_unlock_even_repeated(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    locked = (await provision(client, tenant, "a@x.test"))["clientId"]
    unlocked = (await provision(client, tenant, "b@x.test"))["clientId"]
    await client.post(f"/v1/applications/{locked}/lock", headers=tenant.headers)
    await set_tenant_status(runtime, tenant.tenant_id, "suspended")
    for cid in (locked, unlocked):
        response = await client.post(f"/v1/applications/{cid}/unlock", headers=tenant.headers)
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "permission-denied"
    response = await client.post(f"/v1/applications/{unlocked}/lock", headers=tenant.headers)
    assert response.status_code == 200
    assert response.json()["access"] == "locked"
    assert (await application_row(runtime, locked)).locked
    await set_tenant_status(runtime, tenant.tenant_id, "active")
    response = await client.post(f"/v1/applications/{locked}/unlock", headers=tenant.headers)
    assert response.status_code == 200
    assert response.json()["access"] == "unlocked"


async def test_suspended_tenant_reads_keep_working(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    await set_tenant_status(runtime, tenant.tenant_id, "suspended")
    for path in (
        f"/v1/applications/{cid}",
        f"/v1/applications/{cid}/info-requests",
        f"/v1/applications/{cid}/decisions",
        f"/v1/applications/{cid}/checklist",
        f"/v1/applications/{cid}/documents",
        "/v1/applications",
        "/v1/intakes",
    ):
        assert (await client.get(path, headers=tenant.headers)).status_code == 200, path


async def test_lock_and_unlock_missing_or_erased(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    for action in ("lock", "unlock"):
        missing = await client.post(
            f"/v1/applications/app_missing/{action}", headers=tenant.headers
        )
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "not-found"
    cid = (await provision(client, tenant))["clientId"]
    await erase(runtime, cid)
    for action in ("lock", "unlock"):
        erased = await client.post(f"/v1/applications/{cid}/{action}", headers=tenant.headers)
        assert erased.status_code == 410
        assert erased.json()["error"]["code"] == "failed-precondition"


async def test_lock_needs_write_scope(client: httpx.AsyncClient, runtime: Runtime) -> None:
    from tests.support.factories import make_tenant

    reader = await make_tenant(runtime, ["applications:read"])
    response = await client.post("/v1/applications/app_x/lock", headers=reader.headers)
    assert response.status_code == 403
    assert "applications:write" in response.json()["error"]["message"]
