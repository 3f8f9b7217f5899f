"""Staff reads, erasure and the audit trail (docs/reference/staff-api.md;
docs/reference/tenant-api.md §5.3, §5.11).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import (
    Document,
    InfoRequestItem,
    LoginLink,
    Member,
    PortalSession,
)
from tests.portal.conftest import provision, sign_in
from tests.support.cases import application_row, make_application
from tests.support.factories import StaffFixture, TenantFixture, make_staff, make_tenant


@pytest.fixture
async def analyst(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "analyst")


@pytest.fixture
async def admin(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "admin")


async def test_staff_read_has_the_tenant_shape(
    client: httpx.AsyncClient, tenant: TenantFixture, analyst: StaffFixture
) -> None:
    made = await provision(client, tenant)
    tenant_read = (
        await client.get(f"/v1/applications/{made.client_id}", headers=tenant.headers)
    ).json()
    staff_read = await client.get(
        f"/staff/v1/applications/{made.client_id}", headers=analyst.headers
    )
    assert staff_read.status_code == 200
    body = staff_read.json()
    assert body["tenantId"] == tenant.tenant_id
    assert {k: v for k, v in body.items() if k != "tenantId"} == tenant_read
    missing = await client.get("/staff/v1/applications/app_nope", headers=analyst.headers)
    assert missing.status_code == 404


async def test_staff_list_pages_across_tenants(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, analyst: StaffFixture
) -> None:
    other = await make_tenant(runtime, name="Other")
    ids = []
    real_clock = runtime.clock
    for n in range(5):
        runtime.clock = lambda n=n: real_clock() + timedelta(seconds=n)  # type: ignore[misc]
        owner = tenant if n % 2 == 0 else other
        ids.append((await make_application(runtime, owner.tenant_id)).client_id)
    runtime.clock = lambda: real_clock() - timedelta(seconds=10)
    held = await make_application(runtime, tenant.tenant_id, status="hold")
    runtime.clock = real_clock

    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = await client.get("/staff/v1/applications", params=params, headers=analyst.headers)
        assert page.status_code == 200, page.text
        body = page.json()
        seen += [a["clientId"] for a in body["data"]]
        assert body["hasMore"] == (body["nextCursor"] is not None)
        if not body["hasMore"]:
            break
        cursor = body["nextCursor"]
    assert seen == [*reversed(ids), held.client_id]

    only_other = await client.get(
        "/staff/v1/applications", params={"tenantId": other.tenant_id}, headers=analyst.headers
    )
    assert {a["tenantId"] for a in only_other.json()["data"]} == {other.tenant_id}
    assert len(only_other.json()["data"]) == 2
    on_hold = await client.get(
        "/staff/v1/applications", params={"status": "hold"}, headers=analyst.headers
    )
    assert [a["clientId"] for a in on_hold.json()["data"]] == [held.client_id]

    # A cursor is bound to its filters.
    first = await client.get("/staff/v1/applications", params={"limit": 1}, headers=analyst.headers)
    foreign = await client.get(
        "/staff/v1/applications",
        params={"limit": 1, "status": "pending", "cursor": first.json()["nextCursor"]},
        headers=analyst.headers,
    )
    assert foreign.status_code == 400


@pytest.mark.parametrize(
    "params",
    [
        {"limit": "0"},
        {"limit": "101"},
        {"limit": "ten"},
        {"status": "approved"},
        {"cursor": "garbage"},
        {"sort": "asc"},
    ],
)
async def test_staff_list_validation(
    client: httpx.AsyncClient, analyst: StaffFixture, params: dict[str, str]
) -> None:
    response = await client.get("/staff/v1/applications", params=params, headers=analyst.headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-argument"


async def test_erase_needs_admin(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, analyst: StaffFixture
) -> None:
    case = await make_application(runtime, tenant.tenant_id)
    for role in ("analyst", "mlro"):
        who = await make_staff(runtime, role)
        refused = await client.post(
            f"/staff/v1/applications/{case.client_id}/erase", headers=who.headers
        )
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "permission-denied"
    assert (await application_row(runtime, case.client_id)).erased_at is None


async def test_erasure_removes_personal_data_and_hides_the_application(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    admin: StaffFixture,
    analyst: StaffFixture,
) -> None:
    made = await provision(client, tenant, companyName="Acme Secret Ltd")
    spare_link = (
        await client.post(
            f"/v1/applications/{made.client_id}/login-sessions", headers=tenant.headers
        )
    ).json()["loginUrl"]
    await sign_in(client, made.token)
    await client.post("/portal/api/form", json={"fields": {"dob": "1980-01-01"}})
    await client.post(
        "/portal/api/documents",
        data={"type": "passport"},
        files={"file": ("p.pdf", b"%PDF secret", "application/pdf")},
    )
    raised = await client.post(
        f"/staff/v1/applications/{made.client_id}/info-requests",
        json={"comment": "c", "items": [{"type": "question", "prompt": "Why?"}]},
        headers=analyst.headers,
    )
    request = raised.json()
    await client.post(
        f"/portal/api/info-requests/{request['requestId']}/items/{request['items'][0]['itemId']}/answer",
        json={"answer": "My secret answer"},
    )

    erased = await client.post(
        f"/staff/v1/applications/{made.client_id}/erase", headers=admin.headers
    )
    assert erased.status_code == 200
    assert erased.json() == {"clientId": made.client_id, "erased": True}

    row = await application_row(runtime, made.client_id)
    assert row.erased_at is not None
    assert row.applicant_email is None
    assert row.company_name is None
    assert row.form_data == {}
    # The identity (which held the email or externalRef) is kept only as a pseudonym.
    assert row.identity.startswith("erased:")
    assert "@" not in row.identity
    assert row.external_ref is None
    async with runtime.db.read() as session:
        assert (await session.execute(select(Member))).first() is None
        answers = list((await session.execute(select(InfoRequestItem.answer))).scalars())
        assert answers == [None]
        document = (await session.execute(select(Document))).scalar_one()
        assert document.content is None
        assert document.filename is None
        links = list((await session.execute(select(LoginLink))).scalars())
        assert all(link.used_at is not None or link.revoked_at is not None for link in links)
        sessions = list((await session.execute(select(PortalSession))).scalars())
        assert sessions
        assert all(s.ended_at is not None for s in sessions)

    # Tenant: reads 404, writes 410, gone from the list.
    read = await client.get(f"/v1/applications/{made.client_id}", headers=tenant.headers)
    assert read.status_code == 404
    lock = await client.post(f"/v1/applications/{made.client_id}/lock", headers=tenant.headers)
    assert lock.status_code == 410
    assert lock.json()["error"]["code"] == "failed-precondition"
    listed = await client.get("/v1/applications", headers=tenant.headers)
    assert made.client_id not in str(listed.json())
    # The spare link is dead.
    token = spare_link.rsplit("/", 1)[1]
    assert (await client.post("/portal/login/" + token)).status_code == 410

    # Staff: reads 404, writes 410, erased again 410, gone from the list.
    assert (
        await client.get(f"/staff/v1/applications/{made.client_id}", headers=analyst.headers)
    ).status_code == 404
    for path, body in (
        ("decisions", {"action": "hold"}),
        ("info-requests", {"comment": "c", "items": [{"type": "question", "prompt": "p"}]}),
        ("erase", None),
    ):
        response = await client.post(
            f"/staff/v1/applications/{made.client_id}/{path}", json=body, headers=admin.headers
        )
        assert response.status_code == 410, path
    close = await client.post(
        f"/staff/v1/info-requests/{request['requestId']}/close", headers=admin.headers
    )
    assert close.status_code == 410
    staff_list = await client.get("/staff/v1/applications", headers=analyst.headers)
    assert made.client_id not in str(staff_list.json())
    # Provisioning the same identity again does not recreate it.
    again = await client.post(
        "/v1/applications",
        json={"email": made.email, "externalRef": "cust-1"},
        headers=tenant.headers,
    )
    assert again.status_code == 410


async def test_audit_trail_per_application_and_tenant(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    analyst: StaffFixture,
) -> None:
    made = await provision(client, tenant)
    await client.post(
        f"/staff/v1/applications/{made.client_id}/decisions",
        json={"action": "hold", "comment": "secret comment"},
        headers=analyst.headers,
    )
    release = await client.post(
        f"/staff/v1/applications/{made.client_id}/decisions",
        json={"action": "release"},
        headers=analyst.headers,
    )
    trail = await client.get(
        f"/staff/v1/applications/{made.client_id}/audit", headers=analyst.headers
    )
    assert trail.status_code == 200
    body = trail.json()
    assert body["hasMore"] is False
    assert body["nextCursor"] is None
    entries = body["data"]
    assert entries[0] == {
        "at": entries[0]["at"],
        "actor": f"staff:{analyst.staff_id}",
        "action": "application.decision.release",
        "target": made.client_id,
        "requestId": release.headers["service-request-id"],
        "seq": None,  # not sealed yet (docs/audit-and-evidence.md)
        "hash": None,
    }
    assert entries[1]["action"] == "application.decision.hold"
    assert entries[-1]["actor"] == f"api_key:{tenant.key_id}"
    assert "secret comment" not in trail.text
    assert made.email not in trail.text
    ats = [e["at"] for e in entries]
    assert ats == sorted(ats, reverse=True)

    paged: list[dict[str, Any]] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 1}
        if cursor:
            params["cursor"] = cursor
        page = (
            await client.get(
                f"/staff/v1/applications/{made.client_id}/audit",
                params=params,
                headers=analyst.headers,
            )
        ).json()
        paged += page["data"]
        if not page["hasMore"]:
            break
        cursor = page["nextCursor"]
    assert paged == entries

    tenant_trail = await client.get(
        f"/staff/v1/tenants/{tenant.tenant_id}/audit", headers=analyst.headers
    )
    assert tenant_trail.status_code == 200
    assert [e["action"] for e in tenant_trail.json()["data"]][:2] == [
        "application.decision.release",
        "application.decision.hold",
    ]
    for path in ("/staff/v1/tenants/ten_nope/audit", "/staff/v1/applications/app_nope/audit"):
        assert (await client.get(path, headers=analyst.headers)).status_code == 404
    bad = await client.get(
        f"/staff/v1/tenants/{tenant.tenant_id}/audit",
        params={"limit": "0"},
        headers=analyst.headers,
    )
    assert bad.status_code == 400
    wrong_cursor = await client.get(
        f"/staff/v1/tenants/{tenant.tenant_id}/audit",
        params={"cursor": cursor or "x"},
        headers=analyst.headers,
    )
    assert wrong_cursor.status_code == 400


async def test_every_case_action_is_audited(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    analyst: StaffFixture,
    admin: StaffFixture,
) -> None:
    made = await provision(client, tenant)
    await sign_in(client, made.token)
    body = {"comment": "c", "items": [{"type": "question", "prompt": "p"}]}
    first = (
        await client.post(
            f"/staff/v1/applications/{made.client_id}/info-requests",
            json=body,
            headers=analyst.headers,
        )
    ).json()
    rid, item = first["requestId"], first["items"][0]["itemId"]
    await client.post(f"/portal/api/info-requests/{rid}/items/{item}/answer", json={"answer": "a"})
    for verb in ("accept", "reopen"):
        response = await client.post(
            f"/staff/v1/info-requests/{rid}/items/{item}/{verb}", headers=analyst.headers
        )
        assert response.status_code == 200
    await client.post(f"/staff/v1/info-requests/{rid}/close", headers=analyst.headers)
    second = (
        await client.post(
            f"/staff/v1/applications/{made.client_id}/info-requests",
            json=body,
            headers=analyst.headers,
        )
    ).json()
    await client.post(
        f"/staff/v1/info-requests/{second['requestId']}/cancel", headers=analyst.headers
    )
    await client.post(f"/staff/v1/applications/{made.client_id}/erase", headers=admin.headers)

    trail = (
        await client.get(
            f"/staff/v1/applications/{made.client_id}/audit",
            params={"limit": 100},
            headers=analyst.headers,
        )
    ).json()["data"]
    staff_actions = [
        (e["action"], e["target"]) for e in reversed(trail) if e["actor"].startswith("staff:")
    ]
    assert staff_actions == [
        ("info_request.raise", rid),
        ("info_request.item.accept", item),
        ("info_request.item.reopen", item),
        ("info_request.close", rid),
        ("info_request.raise", second["requestId"]),
        ("info_request.cancel", second["requestId"]),
        ("application.erase", made.client_id),
    ]
    assert trail[0]["actor"] == f"staff:{admin.staff_id}"
    applicant_actions = {e["action"] for e in trail if e["actor"].startswith("applicant:")}
    assert {"portal.login", "info_request.item.answer"} <= applicant_actions


@pytest.mark.parametrize("identity", [{"externalRef": "gone-7"}, {"externalRef": ""}])
async def test_erased_identity_cannot_be_provisioned_again(
    client: httpx.AsyncClient, tenant: TenantFixture, admin: StaffFixture, identity: dict[str, str]
) -> None:
    """docs/reference/tenant-api.md §5.1 (410): an erased case is not recreated, for ref and email
    identities."""
    made = await provision(client, tenant, email="gone@example.test", **identity)
    erased = await client.post(
        f"/staff/v1/applications/{made.client_id}/erase", headers=admin.headers
    )
    assert erased.status_code == 200
    again = await client.post(
        "/v1/applications",
        json={"email": "gone@example.test", **identity},
        headers=tenant.headers,
    )
    assert again.status_code == 410
    assert again.json()["error"]["code"] == "failed-precondition"
    listed = await client.get("/v1/applications", headers=tenant.headers)
    assert listed.json()["data"] == []
