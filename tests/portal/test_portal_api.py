"""The portal's JSON routes (docs/reference/portal.md): me, submit, form,
answer,
documents, logout; 401 without a live session, 403 for locked or erased
applications and removed members, 403 for cross-site requests."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Document, PortalSession
from gatehouse.storage.tables.documents_custody import DocumentCustody
from tests.conftest import make_settings
from tests.portal.conftest import Provisioned, mint, sign_in
from tests.support.browser import SAME_ORIGIN
from tests.support.cases import application_row, outbox_events
from tests.support.factories import StaffFixture, TenantFixture, make_staff

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture
async def signed_in(client: httpx.AsyncClient, provisioned: Provisioned) -> Provisioned:
    await sign_in(client, provisioned.token)
    return provisioned


@pytest.fixture
async def analyst(runtime: Runtime) -> StaffFixture:
    return await make_staff(runtime, "analyst")


async def test_me(client: httpx.AsyncClient, signed_in: Provisioned) -> None:
    response = await client.get("/portal/api/me")
    assert response.status_code == 200
    body = response.json()
    assert body == {
        "clientId": signed_in.client_id,
        "uid": body["uid"],
        "email": "owner@example.test",
        "role": "applicant",
        "status": "pending",
        "companyName": "owner@example.test",
        "submittedAt": None,
    }
    assert body["uid"].startswith("mem_")


async def test_every_answer_of_a_session_is_not_stored(
    client: httpx.AsyncClient, signed_in: Provisioned
) -> None:
    # The applicant's own data behind a cookie: no browser or cache between keeps a copy,
    # as on the pages (docs/reference/portal.md §1).
    answers = [
        await client.get("/portal/api/me"),
        await client.get("/portal/api/info-requests"),
        await client.get("/portal/api/documents"),
        await client.post("/portal/api/form", json={"fields": {}}),
        await client.post(
            "/portal/api/documents",
            files={"type": (None, "passport"), "file": ("a.png", PNG, "image/png")},
        ),
        await client.post("/portal/api/logout"),
    ]
    for answer in answers:
        assert answer.headers["cache-control"] == "no-store", (answer.request.url, answer.text)
    assert [a.status_code for a in answers] == [200, 200, 200, 200, 201, 204]


async def test_without_a_session_every_route_is_401(client: httpx.AsyncClient) -> None:
    calls = [
        client.get("/portal/api/me"),
        client.post("/portal/api/submit"),
        client.post("/portal/api/logout"),
        client.post("/portal/api/form", json={"fields": {}}),
        client.post("/portal/api/info-requests/ir_x/items/itm_x/answer", json={"answer": "a"}),
        client.post("/portal/api/documents", files={"file": ("a.png", PNG, "image/png")}),
    ]
    for call in calls:
        response = await call
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "unauthorized"
        assert response.json()["error"]["requestId"] == response.headers["service-request-id"]
    forged = await client.get("/portal/api/me", cookies={"gatehouse_session": "forged"})
    assert forged.status_code == 401


async def test_submit_sets_submitted_at_once_and_emits_once(
    client: httpx.AsyncClient, runtime: Runtime, signed_in: Provisioned, tenant: TenantFixture
) -> None:
    first = await client.post("/portal/api/submit")
    assert first.status_code == 200
    submitted_at = first.json()["submittedAt"]
    assert submitted_at is not None
    assert first.json()["status"] == "pending"
    second = await client.post("/portal/api/submit")
    assert second.json()["submittedAt"] == submitted_at
    sent = await outbox_events(runtime, signed_in.client_id)
    assert [e["type"] for e in sent] == ["application.submitted"]
    assert sent[0]["data"]["previousStatus"] is None
    assert sent[0]["data"]["status"] == "pending"
    assert sent[0]["data"]["externalRef"] == "cust-1"
    read = await client.get(f"/v1/applications/{signed_in.client_id}", headers=tenant.headers)
    assert read.json()["submittedAt"] == submitted_at
    assert read.json()["status"] == "pending"


async def test_form_draft(
    client: httpx.AsyncClient, runtime: Runtime, signed_in: Provisioned
) -> None:
    saved = await client.post(
        "/portal/api/form",
        json={"companyName": "  Acme Trading  ", "fields": {"country": "NL", "employees": 12}},
    )
    assert saved.status_code == 200
    assert saved.json() == {
        "companyName": "Acme Trading",
        "fields": {"country": "NL", "employees": 12},
    }
    again = await client.post("/portal/api/form", json={"fields": {"country": None, "vat": "x"}})
    assert again.json()["fields"] == {"employees": 12, "vat": "x"}
    row = await application_row(runtime, signed_in.client_id)
    assert row.form_data == {"employees": 12, "vat": "x"}
    assert row.company_name == "Acme Trading"
    bad = await client.post("/portal/api/form", json={"fields": {"a": {"nested": 1}}})
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "invalid-argument"
    assert (await application_row(runtime, signed_in.client_id)).form_data == row.form_data
    not_object = await client.post("/portal/api/form", json={"fields": [1]})
    assert not_object.status_code == 400


async def test_logout_ends_the_session_on_the_server(
    client: httpx.AsyncClient, runtime: Runtime, signed_in: Provisioned
) -> None:
    cookie = client.cookies.get("gatehouse_session")
    assert cookie
    response = await client.post("/portal/api/logout")
    assert response.status_code == 204
    assert response.content == b""
    async with runtime.db.read() as session:
        ended = (await session.execute(select(PortalSession.ended_at))).scalar_one()
    assert ended is not None
    # Even replaying the old cookie does not work any more.
    replay = await client.get("/portal/api/me", cookies={"gatehouse_session": cookie})
    assert replay.status_code == 401
    assert (await client.post("/portal/api/logout")).status_code == 401


async def test_locked_application_is_403_at_once(
    client: httpx.AsyncClient, signed_in: Provisioned, tenant: TenantFixture
) -> None:
    cookie = client.cookies.get("gatehouse_session")
    lock = await client.post(f"/v1/applications/{signed_in.client_id}/lock", headers=tenant.headers)
    assert lock.status_code == 200
    for response in (
        await client.get("/portal/api/me", cookies={"gatehouse_session": cookie}),
        await client.post("/portal/api/submit", cookies={"gatehouse_session": cookie}),
    ):
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "permission-denied"


async def test_removed_member_is_403(
    client: httpx.AsyncClient, tenant: TenantFixture, provisioned: Provisioned
) -> None:
    added = await client.post(
        f"/v1/applications/{provisioned.client_id}/members",
        json={"email": "mate@example.test"},
        headers=tenant.headers,
    )
    assert added.status_code == 201
    token = await mint(client, tenant, provisioned.client_id, email="mate@example.test")
    await sign_in(client, token)
    me = await client.get("/portal/api/me")
    assert me.json()["role"] == "teammate"
    cookie = client.cookies.get("gatehouse_session")
    removed = await client.delete(
        f"/v1/applications/{provisioned.client_id}/members/{added.json()['uid']}",
        headers=tenant.headers,
    )
    assert removed.status_code == 204
    response = await client.get("/portal/api/me", cookies={"gatehouse_session": cookie})
    assert response.status_code == 403


async def test_erased_application_is_403(
    client: httpx.AsyncClient, runtime: Runtime, signed_in: Provisioned
) -> None:
    admin = await make_staff(runtime, "admin")
    cookie = client.cookies.get("gatehouse_session")
    erased = await client.post(
        f"/staff/v1/applications/{signed_in.client_id}/erase", headers=admin.headers
    )
    assert erased.status_code == 200
    response = await client.get("/portal/api/me", cookies={"gatehouse_session": cookie})
    assert response.status_code == 403


async def test_cross_site_api_post_is_403(
    client: httpx.AsyncClient, runtime: Runtime, signed_in: Provisioned
) -> None:
    for origin in ("https://evil.example", "http://testserver:8080", "https://testserver", "null"):
        response = await client.post("/portal/api/submit", headers={"Origin": origin})
        assert response.status_code == 403, origin
    assert (await application_row(runtime, signed_in.client_id)).submitted_at is None
    same = await client.post("/portal/api/submit", headers={"Origin": "http://testserver"})
    assert same.status_code == 200


async def test_upload_document(
    client: httpx.AsyncClient, runtime: Runtime, signed_in: Provisioned, tenant: TenantFixture
) -> None:
    response = await client.post(
        "/portal/api/documents",
        data={"type": "passport"},
        files={"file": ("my passport.png", PNG, "image/png")},
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["documentId"].startswith("doc_")
    assert body["type"] == "passport"
    assert body["contentType"] == "image/png"
    assert body["sizeBytes"] == len(PNG)
    assert body["status"] == "uploaded"
    assert body["uploadedAt"]
    assert "passport.png" not in response.text
    async with runtime.db.read() as session:
        stored = await session.get(Document, body["documentId"])
        held = await session.get(DocumentCustody, body["documentId"])
    # Sealed in the document store, never kept in clear (docs/documents.md).
    assert stored is not None
    assert stored.content is None
    assert held is not None
    assert held.data_key_encrypted is not None
    listed = await client.get(
        f"/v1/applications/{signed_in.client_id}/documents", headers=tenant.headers
    )
    assert listed.json()["data"] == [body]


@pytest.mark.parametrize(
    ("data", "files", "field"),
    [
        ({"type": "passport"}, {"file": ("a.exe", b"MZ...", "application/x-msdownload")}, "file"),
        ({"type": "passport"}, {"file": ("a.html", b"<html>", "text/html")}, "file"),
        ({}, {"file": ("a.png", PNG, "image/png")}, "type"),
        ({"type": "passport"}, {"other": ("a.png", PNG, "image/png")}, "file"),
        ({"type": "passport"}, {"file": ("a.png", b"", "image/png")}, "file"),
    ],
)
async def test_upload_refusals(
    client: httpx.AsyncClient,
    runtime: Runtime,
    signed_in: Provisioned,
    data: dict[str, str],
    files: dict[str, tuple[str, bytes, str]],
    field: str,
) -> None:
    response = await client.post("/portal/api/documents", data=data, files=files)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-argument"
    assert response.json()["error"]["details"][0]["field"] == field
    async with runtime.db.read() as session:
        assert (await session.execute(select(Document))).first() is None


async def test_upload_not_multipart_is_400(
    client: httpx.AsyncClient, signed_in: Provisioned
) -> None:
    response = await client.post("/portal/api/documents", json={"type": "passport"})
    assert response.status_code == 400


async def test_upload_size_limit(
    database_url: str, runtime: Runtime, tenant: TenantFixture
) -> None:
    from gatehouse.app import create_app
    from tests.portal.conftest import provision

    rt = Runtime.build(make_settings(database_url, upload_max_bytes=1000))
    try:
        app = create_app(rt.settings, rt)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", headers=SAME_ORIGIN
        ) as c:
            made = await provision(c, tenant)
            await sign_in(c, made.token)
            at_limit = await c.post(
                "/portal/api/documents",
                data={"type": "passport"},
                files={"file": ("a.pdf", b"%PDF" + b"x" * 996, "application/pdf")},
            )
            assert at_limit.status_code == 201
            over = await c.post(
                "/portal/api/documents",
                data={"type": "passport"},
                files={"file": ("a.pdf", b"%PDF" + b"x" * 997, "application/pdf")},
            )
            assert over.status_code == 413
            assert over.json()["error"]["code"] == "invalid-argument"
            huge = await c.post(
                "/portal/api/documents",
                data={"type": "passport"},
                files={"file": ("a.pdf", b"x" * 200_000, "application/pdf")},
            )
            assert huge.status_code == 413
    finally:
        await rt.close()
    async with runtime.db.read() as session:
        assert len(list((await session.execute(select(Document.id))).scalars())) == 1


async def test_default_port_origin_is_same_site(
    client: httpx.AsyncClient, signed_in: Provisioned
) -> None:
    response = await client.post("/portal/api/submit", headers={"Origin": "http://TESTSERVER:80"})
    assert response.status_code == 200


async def test_an_expired_session_is_401(
    client: httpx.AsyncClient, runtime: Runtime, signed_in: Provisioned
) -> None:
    real_clock = runtime.clock
    runtime.clock = lambda: real_clock() + timedelta(hours=12, seconds=1)
    response = await client.get("/portal/api/me")
    assert response.status_code == 401


async def test_a_removed_members_unused_link_is_410(
    client: httpx.AsyncClient, tenant: TenantFixture, provisioned: Provisioned
) -> None:
    added = await client.post(
        f"/v1/applications/{provisioned.client_id}/members",
        json={"email": "mate@example.test"},
        headers=tenant.headers,
    )
    token = await mint(client, tenant, provisioned.client_id, email="mate@example.test")
    await client.delete(
        f"/v1/applications/{provisioned.client_id}/members/{added.json()['uid']}",
        headers=tenant.headers,
    )
    assert (await client.post("/portal/login/" + token)).status_code == 410
