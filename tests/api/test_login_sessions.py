"""Sign-in links: POST /v1/login-sessions and POST …/login-sessions (docs/reference/tenant-api.md
§5.2, §5.6).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import httpx

from gatehouse.runtime import Runtime
from tests.api.support import erase, links_of, provision, set_tenant_status
from tests.support.factories import TenantFixture

URL = re.compile(r"^http://testserver/portal/login/([A-Za-z0-9]{32,})$")


def _ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_login_session_provisions_and_returns_a_link(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    response = await client.post(
        "/v1/login-sessions",
        json={"email": " Ann@Example.test", "externalRef": "crm-1", "redirectPath": "/status"},
        headers=tenant.headers,
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"loginUrl", "clientId", "expiresAt", "status"}
    assert body["status"] == "pending"
    token = URL.match(body["loginUrl"]).group(1)  # type: ignore[union-attr]
    read = (await client.get(f"/v1/applications/{body['clientId']}", headers=tenant.headers)).json()
    assert read["externalRef"] == "crm-1"
    assert [m["email"] for m in read["members"]] == ["ann@example.test"]
    [link] = await links_of(runtime, body["clientId"])
    # Only a hash of the token is stored; the link is for the applicant member.
    assert link.token_hash == runtime.crypto.hash_secret(token)
    assert token not in link.token_hash
    assert link.member_id == read["members"][0]["uid"]
    assert link.redirect_path == "/status"
    assert _ts(body["expiresAt"]) - link.created_at == timedelta(days=3)


async def test_repeat_login_session_mints_a_new_link_for_the_same_application(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    first = await client.post(
        "/v1/login-sessions", json={"email": "a@x.test"}, headers=tenant.headers
    )
    second = await client.post(
        "/v1/login-sessions", json={"email": "A@x.test"}, headers=tenant.headers
    )
    assert first.status_code == second.status_code == 201
    assert first.json()["clientId"] == second.json()["clientId"]
    assert first.json()["loginUrl"] != second.json()["loginUrl"]
    assert len(await links_of(runtime, first.json()["clientId"])) == 2


async def test_redirect_path_outside_the_allow_list_is_ignored(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    for path in ("/upload-documents", "/status", "/form-parser", "/dashboard", "/requests"):
        response = await client.post(
            "/v1/login-sessions",
            json={"email": "a@x.test", "redirectPath": path},
            headers=tenant.headers,
        )
        assert response.status_code == 201
    response = await client.post(
        "/v1/login-sessions",
        json={"email": "a@x.test", "redirectPath": "https://evil.test/"},
        headers=tenant.headers,
    )
    assert response.status_code == 201
    links = await links_of(runtime, response.json()["clientId"])
    paths = sorted((link.created_at, link.redirect_path or "") for link in links)
    assert [p for _, p in paths][-1] == ""
    assert {p for _, p in paths} == {
        "/upload-documents",
        "/status",
        "/form-parser",
        "/dashboard",
        "/requests",
        "",
    }


async def test_login_session_errors_follow_provisioning(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    bad = await client.post("/v1/login-sessions", json={"email": "nope"}, headers=tenant.headers)
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "invalid-argument"
    await provision(client, tenant, "ann@x.test", externalRef="r1")
    conflict = await client.post(
        "/v1/login-sessions",
        json={"email": "eve@x.test", "externalRef": "r1"},
        headers=tenant.headers,
    )
    assert conflict.status_code == 409
    await set_tenant_status(runtime, tenant.tenant_id, "suspended")
    suspended = await client.post(
        "/v1/login-sessions", json={"email": "new@x.test"}, headers=tenant.headers
    )
    assert suspended.status_code == 403


async def test_login_session_refused_for_locked_and_erased(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    locked = await provision(client, tenant, "l@x.test")
    await client.post(f"/v1/applications/{locked['clientId']}/lock", headers=tenant.headers)
    response = await client.post(
        "/v1/login-sessions", json={"email": "l@x.test"}, headers=tenant.headers
    )
    assert response.status_code == 403
    erased = await provision(client, tenant, "e@x.test")
    await erase(runtime, erased["clientId"])
    response = await client.post(
        "/v1/login-sessions", json={"email": "e@x.test"}, headers=tenant.headers
    )
    assert response.status_code == 410
    assert await links_of(runtime, locked["clientId"]) == []


async def test_reissue_for_owner_member_and_errors(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    app = await provision(client, tenant, "ann@x.test")
    cid = app["clientId"]
    owner_uid = app["members"][0]["uid"]
    bob = (
        await client.post(
            f"/v1/applications/{cid}/members", json={"email": "bob@x.test"}, headers=tenant.headers
        )
    ).json()
    for body in (None, {}, {"email": None}):
        kwargs = {"json": body} if body is not None else {}
        response = await client.post(
            f"/v1/applications/{cid}/login-sessions", headers=tenant.headers, **kwargs
        )
        assert response.status_code == 201, response.text
        assert set(response.json()) == {"loginUrl", "clientId", "expiresAt"}
        assert response.json()["clientId"] == cid
    response = await client.post(
        f"/v1/applications/{cid}/login-sessions",
        json={"email": " BOB@x.test ", "redirectPath": "/requests"},
        headers=tenant.headers,
    )
    assert response.status_code == 201
    links = sorted(await links_of(runtime, cid), key=lambda link: link.created_at)
    assert [link.member_id for link in links] == [owner_uid] * 3 + [bob["uid"]]
    assert links[-1].redirect_path == "/requests"
    assert len({link.token_hash for link in links}) == 4
    for email in ("stranger@x.test", "not-an-email"):
        response = await client.post(
            f"/v1/applications/{cid}/login-sessions", json={"email": email}, headers=tenant.headers
        )
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "failed-precondition"
    wrong_type = await client.post(
        f"/v1/applications/{cid}/login-sessions", json={"email": 3}, headers=tenant.headers
    )
    assert wrong_type.status_code == 400
    assert wrong_type.json()["error"]["code"] == "invalid-argument"
    # Reissue adds no member.
    read = (await client.get(f"/v1/applications/{cid}", headers=tenant.headers)).json()
    assert len(read["members"]) == 2


async def test_reissue_goes_to_new_owner_after_handover(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    app = await provision(client, tenant, "ann@x.test")
    cid = app["clientId"]
    bob = (
        await client.post(
            f"/v1/applications/{cid}/members", json={"email": "bob@x.test"}, headers=tenant.headers
        )
    ).json()
    await client.delete(
        f"/v1/applications/{cid}/members/{app['members'][0]['uid']}?newOwnerUid={bob['uid']}",
        headers=tenant.headers,
    )
    response = await client.post(f"/v1/applications/{cid}/login-sessions", headers=tenant.headers)
    assert response.status_code == 201
    [link] = await links_of(runtime, cid)
    assert link.member_id == bob["uid"]


async def test_reissue_without_applicant_member_is_400(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    from sqlalchemy import update

    from gatehouse.storage.tables.applications import Application

    app = await provision(client, tenant, "ann@x.test")
    cid = app["clientId"]
    # A legacy application with no applicant email and no stored owner.
    async with runtime.db.write() as session:
        await session.execute(
            update(Application)
            .where(Application.id == cid)
            .values(applicant_email=None, owner_uid=None)
        )
    response = await client.post(f"/v1/applications/{cid}/login-sessions", headers=tenant.headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "failed-precondition"
    named = await client.post(
        f"/v1/applications/{cid}/login-sessions",
        json={"email": "ann@x.test"},
        headers=tenant.headers,
    )
    assert named.status_code == 201


async def test_reissue_refusals(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    app = await provision(client, tenant, "ann@x.test")
    cid = app["clientId"]
    missing = await client.post(
        "/v1/applications/app_missing/login-sessions", headers=tenant.headers
    )
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not-found"
    await client.post(f"/v1/applications/{cid}/lock", headers=tenant.headers)
    locked = await client.post(f"/v1/applications/{cid}/login-sessions", headers=tenant.headers)
    assert locked.status_code == 403
    assert locked.json()["error"]["code"] == "permission-denied"
    await client.post(f"/v1/applications/{cid}/unlock", headers=tenant.headers)
    await set_tenant_status(runtime, tenant.tenant_id, "suspended")
    suspended = await client.post(f"/v1/applications/{cid}/login-sessions", headers=tenant.headers)
    assert suspended.status_code == 403
    await set_tenant_status(runtime, tenant.tenant_id, "active")
    await erase(runtime, cid)
    erased = await client.post(f"/v1/applications/{cid}/login-sessions", headers=tenant.headers)
    assert erased.status_code == 410
    assert erased.json()["error"]["code"] == "failed-precondition"
    assert await links_of(runtime, cid) == []


async def test_idempotent_replay_returns_the_same_link(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    headers = {**tenant.headers, "Idempotency-Key": "link-1"}
    first = await client.post("/v1/login-sessions", json={"email": "a@x.test"}, headers=headers)
    second = await client.post("/v1/login-sessions", json={"email": "a@x.test"}, headers=headers)
    assert first.status_code == second.status_code == 201
    assert second.json()["loginUrl"] == first.json()["loginUrl"]
    assert second.headers["idempotent-replayed"] == "true"
    assert len(await links_of(runtime, first.json()["clientId"])) == 1
    cid = first.json()["clientId"]
    headers = {**tenant.headers, "Idempotency-Key": "link-2"}
    one = await client.post(f"/v1/applications/{cid}/login-sessions", json={}, headers=headers)
    two = await client.post(f"/v1/applications/{cid}/login-sessions", json={}, headers=headers)
    assert one.json() == two.json()
    assert len(await links_of(runtime, cid)) == 2


async def test_links_and_tokens_are_never_logged(
    client: httpx.AsyncClient, tenant: TenantFixture, captured_logs: list[str]
) -> None:
    before = len(captured_logs)
    response = await client.post(
        "/v1/login-sessions", json={"email": "a@x.test"}, headers=tenant.headers
    )
    token = response.json()["loginUrl"].rsplit("/", 1)[1]
    cid = response.json()["clientId"]
    again = await client.post(f"/v1/applications/{cid}/login-sessions", headers=tenant.headers)
    token2 = again.json()["loginUrl"].rsplit("/", 1)[1]
    logged = "\n".join(captured_logs[before:])
    assert token not in logged
    assert token2 not in logged
    assert "/portal/login/" not in logged
