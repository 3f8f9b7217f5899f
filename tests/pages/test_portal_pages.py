"""The applicant portal pages over the ASGI client (docs/reference/portal.md)."""

from __future__ import annotations

import re

import httpx
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Document, LoginLink
from tests.pages.helpers import csrf_of
from tests.pages.portal_support import (
    PDF,
    link_for,
    raise_question_and_document,
    signed_in,
    the_application,
)
from tests.support.factories import TenantFixture, make_staff


async def test_interstitial_consumes_nothing_and_continue_signs_in(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    login_url = await link_for(client, runtime, tenant)
    path = login_url.removeprefix("http://testserver")
    for _ in range(2):
        page = await client.get(path)
        assert page.status_code == 200
        assert f'<form method="post" action="{path}">' in page.text
        assert "Continue" in page.text
        assert page.headers["referrer-policy"] == "same-origin"
        assert page.headers["cache-control"] == "no-store"
        assert "set-cookie" not in page.headers
    async with runtime.db.read() as session:
        link = (await session.execute(select(LoginLink))).scalar_one()
    assert link.used_at is None
    continued = await client.post(path)
    assert continued.status_code == 303
    assert continued.headers["location"] == "/portal/form-parser"
    again = await client.post(path)
    assert again.status_code == 410
    assert "no longer valid" in again.text
    assert again.headers["content-type"].startswith("text/html")


async def test_pages_without_a_session_say_signed_out(client: httpx.AsyncClient) -> None:
    for page in (
        "/portal",
        "/portal/dashboard",
        "/portal/status",
        "/portal/requests",
        "/portal/upload-documents",
        "/portal/form-parser",
    ):
        response = await client.get(page)
        assert response.status_code == 401, page
        assert "You are signed out" in response.text


async def test_form_draft_then_confirmed_submit(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await signed_in(client, runtime, tenant)
    page = await client.get("/portal/form-parser")
    assert page.status_code == 200
    assert 'for="f-field-registrationNumber"' in page.text
    assert 'for="f-companyName"' in page.text
    csrf = csrf_of(page.text)

    forged = await client.post(
        "/portal/form-parser", data={"companyName": "Evil", "field.registrationNumber": "1"}
    )
    assert forged.status_code == 403
    assert (await the_application(runtime)).company_name == "Blue Ltd"

    # Submitting before the required field is saved: refused beside the field.
    posted = await client.post("/portal/submit", data={"csrf_token": csrf, "confirm": "yes"})
    assert posted.status_code == 303
    early = await client.get(posted.headers["location"])
    assert 'id="f-field-registrationNumber-error"' in early.text
    assert (await the_application(runtime)).submitted_at is None

    saved = await client.post(
        "/portal/form-parser",
        data={
            "csrf_token": csrf,
            "companyName": "Blue Holdings Ltd",
            "field.registrationNumber": "SC123456",
            "field.website": "",
        },
    )
    assert saved.status_code == 303
    app = await the_application(runtime)
    assert app.company_name == "Blue Holdings Ltd"
    assert app.form_data == {"registrationNumber": "SC123456"}
    assert app.submitted_at is None
    page = await client.get("/portal/form-parser?done=saved")
    assert 'value="SC123456"' in page.text
    assert "Your draft is saved." in page.text

    # Submitting needs the explicit confirmation.
    posted = await client.post("/portal/submit", data={"csrf_token": csrf})
    assert posted.status_code == 303
    unconfirmed = await client.get(posted.headers["location"])
    assert 'id="f-confirm-error"' in unconfirmed.text
    assert (await the_application(runtime)).submitted_at is None
    done = await client.post("/portal/submit", data={"csrf_token": csrf, "confirm": "yes"})
    assert done.status_code == 303
    assert done.headers["location"] == "/portal/status?done=submitted"
    assert (await the_application(runtime)).submitted_at is not None
    status = await client.get("/portal/status")
    assert "We have your application and are reviewing it." in status.text


async def test_upload_documents_shows_progress_and_refuses_bad_files(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await signed_in(client, runtime, tenant, redirectPath="/upload-documents")
    page = await client.get("/portal/upload-documents")
    assert "0 of 2 required items done." in page.text
    csrf = csrf_of(page.text)
    refused = await client.post(
        "/portal/upload-documents",
        data={"csrf_token": csrf, "type": "passport"},
        files={"file": ("notes.txt", b"hello", "text/plain")},
    )
    assert refused.status_code == 400
    assert 'id="file-passport-error"' in refused.text
    uploaded = await client.post(
        "/portal/upload-documents",
        data={"csrf_token": csrf, "type": "passport"},
        files={"file": ("passport.pdf", PDF, "application/pdf")},
    )
    assert uploaded.status_code == 303
    page = await client.get("/portal/upload-documents")
    assert "1 of 2 required items done." in page.text
    async with runtime.db.read() as session:
        document = (await session.execute(select(Document))).scalar_one()
    # Kept sealed in the document store, never in clear (docs/documents.md).
    assert (document.type, document.content_type, document.content) == (
        "passport",
        "application/pdf",
        None,
    )
    overview = await client.get("/portal/dashboard")
    assert "Upload: Passport" not in overview.text
    assert "Fill in and submit the application form" in overview.text


async def test_requests_page_answers_questions_and_documents(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await signed_in(client, runtime, tenant)
    app = await the_application(runtime)
    request_id, *item_ids = await raise_question_and_document(client, runtime)
    page = await client.get("/portal/requests")
    assert "Request 1 · round 1" in page.text
    assert "What do you sell?" in page.text
    assert "Requests (2)" in page.text
    csrf = csrf_of(page.text)
    empty = await client.post(
        f"/portal/requests/{request_id}/items/{item_ids[0]}",
        data={"csrf_token": csrf, "answer": "  "},
    )
    assert empty.status_code == 400
    assert f'id="answer-{item_ids[0]}-error"' in empty.text
    answered = await client.post(
        f"/portal/requests/{request_id}/items/{item_ids[0]}",
        data={"csrf_token": csrf, "answer": "Tea"},
    )
    assert answered.status_code == 303
    uploaded = await client.post(
        f"/portal/requests/{request_id}/items/{item_ids[1]}",
        data={"csrf_token": csrf},
        files={"file": ("bill.pdf", PDF, "application/pdf")},
    )
    assert uploaded.status_code == 303
    read = await client.get(f"/v1/applications/{app.id}/info-requests", headers=tenant.headers)
    assert read.json()["data"][0]["status"] == "responded"
    page = await client.get("/portal/requests")
    assert "you answered everything" in page.text
    assert (await the_application(runtime)).status == "pending"


async def test_lock_and_sign_out_end_the_pages(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await signed_in(client, runtime, tenant)
    page = await client.get("/portal/dashboard")
    assert page.status_code == 200
    csrf = csrf_of(page.text)
    out = await client.post("/portal/sign-out", data={"csrf_token": csrf})
    assert out.status_code == 200
    assert "You are signed out" in out.text
    client.cookies.clear()
    await client.post(
        (
            await client.post(
                f"/v1/applications/{(await the_application(runtime)).id}/login-sessions",
                json={},
                headers=tenant.headers,
            )
        )
        .json()["loginUrl"]
        .removeprefix("http://testserver")
    )
    assert (await client.get("/portal/dashboard")).status_code == 200
    app = await the_application(runtime)
    locked = await client.post(f"/v1/applications/{app.id}/lock", headers=tenant.headers)
    assert locked.status_code == 200
    refused = await client.get("/portal/dashboard")
    assert refused.status_code in (401, 403)
    assert re.search(r"(Access is not available|You are signed out)", refused.text)


async def test_removed_member_loses_the_pages_at_once(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await link_for(client, runtime, tenant)
    app = await the_application(runtime)
    added = await client.post(
        f"/v1/applications/{app.id}/members",
        json={"email": "bo@example.test"},
        headers=tenant.headers,
    )
    assert added.status_code == 201
    minted = await client.post(
        f"/v1/applications/{app.id}/login-sessions",
        json={"email": "bo@example.test"},
        headers=tenant.headers,
    )
    await client.post(minted.json()["loginUrl"].removeprefix("http://testserver"))
    page = await client.get("/portal/dashboard")
    assert page.status_code == 200
    assert "bo@example.test" in page.text
    removed = await client.delete(
        f"/v1/applications/{app.id}/members/{added.json()['uid']}", headers=tenant.headers
    )
    assert removed.status_code == 204
    refused = await client.get("/portal/dashboard")
    assert refused.status_code in (401, 403)
    assert "bo@example.test" not in refused.text


async def test_status_page_shows_the_rejection_reason(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    await signed_in(client, runtime, tenant)
    app = await the_application(runtime)
    staff = await make_staff(runtime, "analyst")
    rejected = await client.post(
        f"/staff/v1/applications/{app.id}/decisions",
        json={"action": "reject", "comment": "Sorry.", "rejectionReason": "Unsupported country"},
        headers=staff.headers,
    )
    assert rejected.status_code == 200, rejected.text
    page = await client.get("/portal/status")
    assert "Not approved" in page.text
    assert '<dd id="rejection-reason">Unsupported country</dd>' in page.text
    assert '<blockquote id="decision-comment">Sorry.</blockquote>' in page.text


async def test_get_and_post_agree_on_unusable_links(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    """Used, revoked, expired, locked: GET shows the same 410 page the POST gives."""
    from datetime import timedelta

    from sqlalchemy import update

    login_url = await link_for(client, runtime, tenant)
    app = await the_application(runtime)

    async def fresh_link() -> str:
        minted = await client.post(
            f"/v1/applications/{app.id}/login-sessions", json={}, headers=tenant.headers
        )
        return str(minted.json()["loginUrl"]).removeprefix("http://testserver")

    async def both_refuse(path: str) -> None:
        got = await client.get(path)
        assert got.status_code == 410
        assert "This link is no longer valid" in got.text
        posted = await client.post(path)
        assert posted.status_code == 410
        client.cookies.clear()

    # used
    used = login_url.removeprefix("http://testserver")
    assert (await client.post(used)).status_code == 303
    client.cookies.clear()
    await both_refuse(used)
    # unknown
    await both_refuse("/portal/login/" + "x" * 43)
    # revoked (a lock revokes unused links; unlock again after)
    revoked = await fresh_link()
    await client.post(f"/v1/applications/{app.id}/lock", headers=tenant.headers)
    await both_refuse(revoked)
    await client.post(f"/v1/applications/{app.id}/unlock", headers=tenant.headers)
    # expired
    expired = await fresh_link()
    async with runtime.db.write() as session:
        await session.execute(
            update(LoginLink)
            .where(LoginLink.used_at.is_(None), LoginLink.revoked_at.is_(None))
            .values(expires_at=runtime.now() - timedelta(seconds=1))
        )
    await both_refuse(expired)
    # locked application while the link itself is untouched
    locked = await fresh_link()
    async with runtime.db.write() as session:
        await session.execute(update(Application).values(locked=True))
    await both_refuse(locked)
    async with runtime.db.write() as session:
        await session.execute(update(Application).values(locked=False))
    # a usable link: GET shows Continue, and still works afterwards
    usable = await fresh_link()
    assert (await client.get(usable)).status_code == 200
    assert (await client.post(usable)).status_code == 303
