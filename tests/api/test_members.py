"""Members: POST …/members and DELETE …/members/{uid} (docs/reference/tenant-api.md §5.7, §5.8;
docs/reference/tenant-api.md §5; docs/reference/tenant-api.md).
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx

from gatehouse.runtime import Runtime
from tests.api.support import (
    add_portal_session,
    audit_entries,
    erase,
    links_of,
    portal_session,
    provision,
    set_tenant_status,
)
from tests.support.factories import TenantFixture


async def _add(
    client: httpx.AsyncClient, tenant: TenantFixture, cid: str, email: str
) -> httpx.Response:
    return await client.post(
        f"/v1/applications/{cid}/members", json={"email": email}, headers=tenant.headers
    )


async def _members(
    client: httpx.AsyncClient, tenant: TenantFixture, cid: str
) -> list[dict[str, Any]]:
    read = await client.get(f"/v1/applications/{cid}", headers=tenant.headers)
    members: list[dict[str, Any]] = read.json()["members"]
    return members


async def test_add_member_201_then_repeat_200_keeping_joined_at(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    app = await provision(client, tenant, "ann@x.test")
    cid = app["clientId"]
    first = await _add(client, tenant, cid, "  Bob@X.test ")
    assert first.status_code == 201
    member = first.json()
    assert set(member) == {"uid", "email", "role", "joinedAt"}
    assert member["email"] == "bob@x.test"
    assert member["role"] == "teammate"
    assert member["uid"].startswith("mem_")
    start = runtime.now()
    runtime.clock = lambda: start + timedelta(minutes=1)
    repeat = await _add(client, tenant, cid, "bob@x.test")
    assert repeat.status_code == 200
    assert repeat.json() == member
    assert [m["email"] for m in await _members(client, tenant, cid)] == ["ann@x.test", "bob@x.test"]
    # Adding the original applicant again is a repeat of that member.
    again = await _add(client, tenant, cid, "ann@x.test")
    assert again.status_code == 200
    assert again.json()["role"] == "applicant"
    actions = [entry.action for entry in await audit_entries(runtime, tenant.tenant_id)]
    assert actions.count("member.add") == 3


async def test_removed_original_applicant_added_back_gets_role_applicant(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    app = await provision(client, tenant, "ann@x.test")
    cid = app["clientId"]
    bob = (await _add(client, tenant, cid, "bob@x.test")).json()
    await client.delete(
        f"/v1/applications/{cid}/members/{app['members'][0]['uid']}?newOwnerUid={bob['uid']}",
        headers=tenant.headers,
    )
    back = await _add(client, tenant, cid, "ann@x.test")
    assert back.status_code == 201
    assert back.json()["role"] == "applicant"
    assert back.json()["uid"] != app["members"][0]["uid"]


async def test_invalid_email_is_400_invalid_argument(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    for body in ({"email": "nope"}, {"email": ""}, {}, {"email": 1}):
        response = await client.post(
            f"/v1/applications/{cid}/members", json=body, headers=tenant.headers
        )
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid-argument"
        assert response.json()["error"]["details"]
    assert len(await _members(client, tenant, cid)) == 1


async def test_cap_of_twenty_members(client: httpx.AsyncClient, tenant: TenantFixture) -> None:
    cid = (await provision(client, tenant))["clientId"]
    for n in range(19):
        assert (await _add(client, tenant, cid, f"m{n}@x.test")).status_code == 201
    full = await _add(client, tenant, cid, "twenty-first@x.test")
    assert full.status_code == 400
    assert full.json()["error"]["code"] == "failed-precondition"
    # A repeat of an existing member is still fine at the cap.
    assert (await _add(client, tenant, cid, "m3@x.test")).status_code == 200
    assert len(await _members(client, tenant, cid)) == 20


async def test_forty_concurrent_adds_leave_exactly_twenty(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    responses = await asyncio.gather(
        *(_add(client, tenant, cid, f"c{n}@x.test") for n in range(40))
    )
    statuses = [response.status_code for response in responses]
    assert statuses.count(201) == 19
    assert statuses.count(400) == 21
    assert all(
        r.json()["error"]["code"] == "failed-precondition"
        for r in responses
        if r.status_code == 400
    )
    members = await _members(client, tenant, cid)
    assert len(members) == 20
    assert len({m["uid"] for m in members}) == 20


async def test_add_member_refusals(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    missing = await _add(client, tenant, "app_missing", "b@x.test")
    assert missing.status_code == 404
    await client.post(f"/v1/applications/{cid}/lock", headers=tenant.headers)
    locked = await _add(client, tenant, cid, "b@x.test")
    assert locked.status_code == 403
    assert locked.json()["error"]["code"] == "permission-denied"
    await client.post(f"/v1/applications/{cid}/unlock", headers=tenant.headers)
    await set_tenant_status(runtime, tenant.tenant_id, "suspended")
    suspended = await _add(client, tenant, cid, "b@x.test")
    assert suspended.status_code == 403
    await set_tenant_status(runtime, tenant.tenant_id, "active")
    await erase(runtime, cid)
    erased = await _add(client, tenant, cid, "b@x.test")
    assert erased.status_code == 410
    assert erased.json()["error"]["code"] == "failed-precondition"


async def test_remove_member_204_then_repeat_400(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant, "ann@x.test"))["clientId"]
    bob = (await _add(client, tenant, cid, "bob@x.test")).json()
    response = await client.delete(
        f"/v1/applications/{cid}/members/{bob['uid']}", headers=tenant.headers
    )
    assert response.status_code == 204
    assert response.content == b""
    assert [m["email"] for m in await _members(client, tenant, cid)] == ["ann@x.test"]
    repeat = await client.delete(
        f"/v1/applications/{cid}/members/{bob['uid']}", headers=tenant.headers
    )
    assert repeat.status_code == 400
    assert repeat.json()["error"]["code"] == "failed-precondition"
    nonmember = await client.delete(
        f"/v1/applications/{cid}/members/mem_nobody", headers=tenant.headers
    )
    assert nonmember.status_code == 400
    missing = await client.delete(
        f"/v1/applications/app_missing/members/{bob['uid']}", headers=tenant.headers
    )
    assert missing.status_code == 404
    assert "member.remove" in [e.action for e in await audit_entries(runtime, tenant.tenant_id)]


async def test_removing_the_owner_requires_a_valid_handover(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    app = await provision(client, tenant, "ann@x.test")
    cid = app["clientId"]
    owner = app["members"][0]["uid"]
    bob = (await _add(client, tenant, cid, "bob@x.test")).json()
    cy = (await _add(client, tenant, cid, "cy@x.test")).json()
    for query in ("", "?newOwnerUid=", f"?newOwnerUid={owner}", "?newOwnerUid=mem_nobody"):
        response = await client.delete(
            f"/v1/applications/{cid}/members/{owner}{query}", headers=tenant.headers
        )
        assert response.status_code == 400, query
        assert response.json()["error"]["code"] == "failed-precondition"
    assert len(await _members(client, tenant, cid)) == 3
    handover = await client.delete(
        f"/v1/applications/{cid}/members/{owner}?newOwnerUid={bob['uid']}", headers=tenant.headers
    )
    assert handover.status_code == 204
    # Roles and the applicant email are unchanged by a handover.
    read = (await client.get(f"/v1/applications/{cid}", headers=tenant.headers)).json()
    assert read["applicantEmail"] == "ann@x.test"
    assert {m["email"]: m["role"] for m in read["members"]} == {
        "bob@x.test": "teammate",
        "cy@x.test": "teammate",
    }
    # Bob is the owner now: removing him needs a handover, removing cy does not.
    refused = await client.delete(
        f"/v1/applications/{cid}/members/{bob['uid']}", headers=tenant.headers
    )
    assert refused.status_code == 400
    assert (
        await client.delete(f"/v1/applications/{cid}/members/{cy['uid']}", headers=tenant.headers)
    ).status_code == 204
    # The sole remaining member (the owner) cannot be removed.
    last = await client.delete(
        f"/v1/applications/{cid}/members/{bob['uid']}?newOwnerUid={cy['uid']}",
        headers=tenant.headers,
    )
    assert last.status_code == 400


async def test_removal_allowed_while_locked_or_suspended(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    bob = (await _add(client, tenant, cid, "bob@x.test")).json()
    cy = (await _add(client, tenant, cid, "cy@x.test")).json()
    await client.post(f"/v1/applications/{cid}/lock", headers=tenant.headers)
    locked = await client.delete(
        f"/v1/applications/{cid}/members/{bob['uid']}", headers=tenant.headers
    )
    assert locked.status_code == 204
    await set_tenant_status(runtime, tenant.tenant_id, "suspended")
    suspended = await client.delete(
        f"/v1/applications/{cid}/members/{cy['uid']}", headers=tenant.headers
    )
    assert suspended.status_code == 204


async def test_removal_on_erased_application_is_400(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    bob = (await _add(client, tenant, cid, "bob@x.test")).json()
    await erase(runtime, cid)
    response = await client.delete(
        f"/v1/applications/{cid}/members/{bob['uid']}", headers=tenant.headers
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "failed-precondition"


async def test_removal_revokes_links_and_ends_sessions_of_that_member_only(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    app = await provision(client, tenant, "ann@x.test")
    cid = app["clientId"]
    ann = app["members"][0]["uid"]
    bob = (await _add(client, tenant, cid, "bob@x.test")).json()
    await client.post(
        f"/v1/applications/{cid}/login-sessions",
        json={"email": "bob@x.test"},
        headers=tenant.headers,
    )
    await client.post(f"/v1/applications/{cid}/login-sessions", json={}, headers=tenant.headers)
    bob_session = await add_portal_session(runtime, cid, bob["uid"])
    ann_session = await add_portal_session(runtime, cid, ann)
    await client.delete(f"/v1/applications/{cid}/members/{bob['uid']}", headers=tenant.headers)
    revoked = {link.member_id: link.revoked_at for link in await links_of(runtime, cid)}
    assert revoked[bob["uid"]] is not None
    assert revoked[ann] is None
    assert (await portal_session(runtime, bob_session)).ended_at is not None
    assert (await portal_session(runtime, ann_session)).ended_at is None


async def test_idempotent_member_add_and_removal(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    cid = (await provision(client, tenant))["clientId"]
    headers = {**tenant.headers, "Idempotency-Key": "add-bob"}
    first = await client.post(
        f"/v1/applications/{cid}/members", json={"email": "bob@x.test"}, headers=headers
    )
    second = await client.post(
        f"/v1/applications/{cid}/members", json={"email": "bob@x.test"}, headers=headers
    )
    assert first.status_code == second.status_code == 201
    assert second.headers["idempotent-replayed"] == "true"
    headers = {**tenant.headers, "Idempotency-Key": "remove-bob"}
    url = f"/v1/applications/{cid}/members/{first.json()['uid']}"
    assert (await client.delete(url, headers=headers)).status_code == 204
    replay = await client.delete(url, headers=headers)
    assert replay.status_code == 204
    assert replay.headers["idempotent-replayed"] == "true"
    # Without the key, the repeat removal is the documented 400.
    assert (await client.delete(url, headers=tenant.headers)).status_code == 400
