"""The application page and its actions, through the dashboard forms
(docs/portal-and-dashboard.md)."""

from __future__ import annotations

import httpx
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Decision, InfoRequest
from tests.pages.helpers import csrf_of, dashboard_sign_in
from tests.support.factories import TenantFixture, make_staff


async def provision(client: httpx.AsyncClient, tenant: TenantFixture, email: str) -> str:
    response = await client.post(
        "/v1/applications",
        json={"email": email, "companyName": "Blue Ltd"},
        headers=tenant.headers,
    )
    assert response.status_code == 201, response.text
    return str(response.json()["clientId"])


async def application_row(runtime: Runtime, client_id: str) -> Application:
    async with runtime.db.read() as session:
        row = await session.get(Application, client_id)
    assert row is not None
    return row


async def test_queue_lists_and_filters_across_tenants(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    analyst = await make_staff(runtime, "analyst")
    client_id = await provision(client, tenant, "a@example.test")
    await dashboard_sign_in(client, analyst)
    page = await client.get("/dashboard")
    assert client_id in page.text
    assert (await client.get("/dashboard?status=active")).text.count(client_id) == 0
    assert client_id in (await client.get(f"/dashboard?tenant={tenant.tenant_id}")).text
    assert client_id not in (await client.get("/dashboard?tenant=ten_other")).text
    bad = await client.get("/dashboard?status=approved&updated=yesterday")
    assert bad.status_code == 400
    assert 'id="f-status-error"' in bad.text
    assert 'id="f-updated-error"' in bad.text


async def test_queue_pages_with_a_signed_cursor(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    analyst = await make_staff(runtime, "analyst")
    ids = [await provision(client, tenant, f"p{i}@example.test") for i in range(27)]
    await dashboard_sign_in(client, analyst)
    first = await client.get("/dashboard")
    import re

    next_link = re.search(r'href="(/dashboard\?[^"]*cursor=[^"]+)" rel="next"', first.text)
    assert next_link, "no next page link"
    second = await client.get(next_link.group(1).replace("&amp;", "&"))
    on_first = {i for i in ids if i in first.text}
    on_second = {i for i in ids if i in second.text}
    assert len(on_first) == 25
    assert on_first | on_second == set(ids)
    assert not on_first & on_second
    tampered = await client.get("/dashboard?cursor=abc.def")
    assert tampered.status_code == 200
    assert "no longer valid" in tampered.text


async def test_raise_request_then_four_eyes_approval(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, "b@example.test")
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    page = await client.get(f"/dashboard/applications/{client_id}")
    assert page.status_code == 200
    assert "b@example.test" in page.text
    assert "Erase application" not in page.text  # analysts cannot erase

    # Missing comment: the error is shown beside the field, nothing is raised.
    refused = await client.post(
        f"/dashboard/applications/{client_id}/info-requests",
        data={
            "csrf_token": csrf,
            "comment": "",
            "item_type_0": "question",
            "item_prompt_0": "Why?",
        },
    )
    assert refused.status_code == 400
    assert 'id="f-comment-error"' in refused.text
    raised = await client.post(
        f"/dashboard/applications/{client_id}/info-requests",
        data={
            "csrf_token": csrf,
            "comment": "Please tell us more",
            "item_type_0": "question",
            "item_prompt_0": "What does the company do?",
            "item_type_1": "document",
            "item_prompt_1": "Proof of address",
        },
    )
    assert raised.status_code == 303
    assert (await application_row(runtime, client_id)).status == "needs_info"
    page = await client.get(raised.headers["location"])
    assert "What does the company do?" in page.text
    assert "Information request raised." in page.text

    # Without the CSRF token nothing happens.
    forged = await client.post(
        f"/dashboard/applications/{client_id}/decisions", data={"action": "approve"}
    )
    assert forged.status_code == 403
    assert (await application_row(runtime, client_id)).status == "needs_info"

    proposed = await client.post(
        f"/dashboard/applications/{client_id}/decisions",
        data={
            "csrf_token": csrf,
            "action": "approve",
            "decision_comment": "Looks good",
            # The passport is not uploaded: the dashboard asks why approve anyway.
            "acknowledge_reason": "Passport seen at the branch",
        },
    )
    assert proposed.status_code == 303
    assert (await application_row(runtime, client_id)).status == "pending_approval"
    # The same analyst cannot countersign (role below mlro): refused, shown why.
    own = await client.post(
        f"/dashboard/applications/{client_id}/decisions",
        data={"csrf_token": csrf, "action": "countersign"},
    )
    assert own.status_code == 403
    assert 'id="decision-error"' in own.text
    assert (await application_row(runtime, client_id)).status == "pending_approval"

    mlro = await make_staff(runtime, "mlro")
    client.cookies.clear()
    csrf = await dashboard_sign_in(client, mlro)
    signed = await client.post(
        f"/dashboard/applications/{client_id}/decisions",
        data={"csrf_token": csrf, "action": "countersign", "decision_comment": "Approved"},
    )
    assert signed.status_code == 303
    assert (await application_row(runtime, client_id)).status == "active"
    page = await client.get(f"/dashboard/applications/{client_id}")
    assert "application.decision.approved" in page.text
    async with runtime.db.read() as session:
        actions = (await session.execute(select(Decision.action))).scalars().all()
        requests = (await session.execute(select(InfoRequest))).scalars().all()
    assert {"approve", "approved"} <= set(actions)
    assert len(requests) == 1


async def test_proposer_with_mlro_role_is_refused_the_countersign_with_the_reason(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, "c@example.test")
    mlro = await make_staff(runtime, "mlro")
    csrf = await dashboard_sign_in(client, mlro)
    proposed = await client.post(
        f"/dashboard/applications/{client_id}/decisions",
        data={"csrf_token": csrf, "action": "approve", "acknowledge_reason": "Seen in person"},
    )
    assert proposed.status_code == 303
    own = await client.post(
        f"/dashboard/applications/{client_id}/decisions",
        data={"csrf_token": csrf, "action": "countersign"},
    )
    assert own.status_code == 403
    assert "You proposed this approval" in own.text
    assert (await application_row(runtime, client_id)).status == "pending_approval"


async def test_reject_needs_a_reason_beside_the_field(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, "d@example.test")
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    refused = await client.post(
        f"/dashboard/applications/{client_id}/decisions",
        data={"csrf_token": csrf, "action": "reject"},
    )
    assert refused.status_code == 400
    assert 'id="f-rejection_reason-error"' in refused.text
    assert (await application_row(runtime, client_id)).status == "pending"
    done = await client.post(
        f"/dashboard/applications/{client_id}/decisions",
        data={"csrf_token": csrf, "action": "reject", "rejection_reason": "Out of scope"},
    )
    assert done.status_code == 303
    row = await application_row(runtime, client_id)
    assert (row.status, row.rejection_reason) == ("rejected", "Out of scope")


async def test_erase_needs_admin_and_the_typed_client_id(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, "e@example.test")
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    denied = await client.post(
        f"/dashboard/applications/{client_id}/erase",
        data={"csrf_token": csrf, "confirm": client_id},
    )
    assert denied.status_code == 403
    assert (await application_row(runtime, client_id)).erased_at is None

    admin = await make_staff(runtime, "admin")
    client.cookies.clear()
    csrf = await dashboard_sign_in(client, admin)
    page = await client.get(f"/dashboard/applications/{client_id}")
    assert "Erase application" in page.text
    wrong = await client.post(
        f"/dashboard/applications/{client_id}/erase",
        data={"csrf_token": csrf, "confirm": "yes"},
    )
    assert wrong.status_code == 400
    assert 'id="f-confirm-error"' in wrong.text
    assert (await application_row(runtime, client_id)).erased_at is None
    done = await client.post(
        f"/dashboard/applications/{client_id}/erase",
        data={"csrf_token": csrf, "confirm": client_id},
    )
    assert done.status_code == 303
    row = await application_row(runtime, client_id)
    assert row.erased_at is not None
    assert row.applicant_email is None
    assert client_id not in (await client.get("/dashboard")).text


async def test_unknown_application_is_a_404_page(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    analyst = await make_staff(runtime, "analyst")
    await dashboard_sign_in(client, analyst)
    page = await client.get("/dashboard/applications/app_missing")
    assert page.status_code == 404
    assert "No application" in page.text
    assert csrf_of(page.text)


async def test_item_review_close_cancel_hold_and_release(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, "f@example.test")
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    for prompt in ("First?", "Second?"):
        await client.post(
            f"/dashboard/applications/{client_id}/info-requests",
            data={
                "csrf_token": csrf,
                "comment": "Please",
                "item_type_0": "question",
                "item_prompt_0": prompt,
            },
        )
    async with runtime.db.read() as session:
        first, second = (
            (await session.execute(select(InfoRequest).order_by(InfoRequest.seq))).scalars().all()
        )
        from gatehouse.storage.tables.applications import InfoRequestItem

        item = (
            await session.execute(
                select(InfoRequestItem).where(InfoRequestItem.request_id == first.id)
            )
        ).scalar_one()
    # Mark the item answered as the applicant would, through the service.
    from gatehouse.audit.context import WriteContext
    from gatehouse.info_requests.queries import load_request
    from gatehouse.info_requests.service import record_answer

    async with runtime.db.write() as session:
        loaded = await load_request(session, first.id)
        ctx = WriteContext("applicant:test", loaded.application.tenant_id, None, runtime.now())
        await record_answer(
            session, ctx, loaded, loaded.item(item.id), answer="Yes", document_id=None
        )
    page = await client.get(f"/dashboard/applications/{client_id}")
    assert "Yes" in page.text  # staff see the answer
    accepted = await client.post(
        f"/dashboard/info-requests/{first.id}/items/{item.id}/accept", data={"csrf_token": csrf}
    )
    assert accepted.status_code == 303
    reopened = await client.post(
        f"/dashboard/info-requests/{first.id}/items/{item.id}/reopen", data={"csrf_token": csrf}
    )
    assert reopened.status_code == 303
    async with runtime.db.read() as session:
        again = await session.get(InfoRequest, first.id)
    assert again is not None
    assert (again.round, again.status) == (2, "open")
    closed = await client.post(
        f"/dashboard/info-requests/{first.id}/close", data={"csrf_token": csrf}
    )
    assert closed.status_code == 303
    cancelled = await client.post(
        f"/dashboard/info-requests/{second.id}/cancel", data={"csrf_token": csrf}
    )
    assert cancelled.status_code == 303
    async with runtime.db.read() as session:
        statuses = [
            (await session.get(InfoRequest, r.id)).status  # type: ignore[union-attr]
            for r in (first, second)
        ]
    assert statuses == ["closed", "cancelled"]
    # A second close is refused by the rules and shown on the page.
    refused = await client.post(
        f"/dashboard/info-requests/{first.id}/close", data={"csrf_token": csrf}
    )
    assert refused.status_code == 400
    assert 'id="decision-error"' in refused.text

    held = await client.post(
        f"/dashboard/applications/{client_id}/decisions",
        data={"csrf_token": csrf, "action": "hold"},
    )
    assert held.status_code == 303
    assert (await application_row(runtime, client_id)).status == "hold"
    released = await client.post(
        f"/dashboard/applications/{client_id}/decisions",
        data={"csrf_token": csrf, "action": "release"},
    )
    assert released.status_code == 303
    assert (await application_row(runtime, client_id)).status == "pending"
