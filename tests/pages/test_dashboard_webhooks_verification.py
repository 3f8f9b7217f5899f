"""The webhooks and verification pages of the dashboard (docs/portal-and-dashboard.md)."""

from __future__ import annotations

import re

import httpx
from sqlalchemy import select, update

from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import Notification
from gatehouse.storage.tables.verification import Customer, VerificationClient
from gatehouse.storage.tables.webhooks import Delivery
from gatehouse.webhooks.outbox import publish
from tests.pages.helpers import dashboard_sign_in
from tests.support.factories import TenantFixture, make_staff


async def dead_delivery(client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture) -> str:
    hook = await client.post(
        "/v1/webhooks",
        json={"url": "http://127.0.0.1:9/hooks", "events": ["*"]},
        headers=tenant.headers,
    )
    assert hook.status_code == 201, hook.text
    now = runtime.now()
    async with runtime.db.write() as session:
        await publish(
            session,
            tenant_id=tenant.tenant_id,
            event_type="application.submitted",
            occurred_at=now,
            data={"clientId": "app_x", "status": "pending", "sequence": 1},
        )
    async with runtime.db.write() as session:
        await session.execute(update(Delivery).values(status="dead", attempts=12))
        session.add(
            Notification(
                id=new_id("ntf"),
                kind="endpoint_disabled",
                tenant_id=tenant.tenant_id,
                endpoint_id=hook.json()["id"],
                reason="consecutive_failures",
                created_at=now,
            )
        )
    async with runtime.db.read() as session:
        return str((await session.execute(select(Delivery.id))).scalar_one())


async def test_webhooks_page_shows_health_dead_deliveries_and_notifications(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    delivery_id = await dead_delivery(client, runtime, tenant)
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    page = await client.get(f"/dashboard/webhooks?tenant={tenant.tenant_id}")
    assert page.status_code == 200
    assert "http://127.0.0.1:9/hooks" in page.text
    assert delivery_id in page.text
    assert "endpoint disabled" in page.text
    assert "Replay" not in page.text  # replay is admin+
    refused = await client.post(
        f"/dashboard/deliveries/{delivery_id}/replay", data={"csrf_token": csrf}
    )
    assert refused.status_code == 403

    admin = await make_staff(runtime, "admin")
    client.cookies.clear()
    csrf = await dashboard_sign_in(client, admin)
    replayed = await client.post(
        f"/dashboard/deliveries/{delivery_id}/replay", data={"csrf_token": csrf}
    )
    assert replayed.status_code == 303
    async with runtime.db.read() as session:
        rows = (await session.execute(select(Delivery.status, Delivery.event_id))).all()
    assert sorted(status for status, _ in rows) == ["dead", "pending"]
    assert len({event_id for _, event_id in rows}) == 1


async def test_verification_page_clients_customers_and_status(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    admin = await make_staff(runtime, "admin")
    csrf = await dashboard_sign_in(client, admin)
    created = await client.post(
        "/dashboard/verification/clients",
        data={"csrf_token": csrf, "client_name": "Verifier"},
    )
    assert created.status_code == 201
    secret = re.search(r'id="new-client-secret">([^<]+)<', created.text)
    assert secret
    assert secret.group(1) not in (await client.get("/dashboard/verification")).text
    async with runtime.db.read() as session:
        verifier = (await session.execute(select(VerificationClient))).scalar_one()
    bad = await client.post(
        "/dashboard/verification/customers",
        data={"csrf_token": csrf, "clientUuid": verifier.uuid, "email": "nope", "phone": "1"},
    )
    assert bad.status_code == 400
    assert 'id="f-email-error"' in bad.text
    made = await client.post(
        "/dashboard/verification/customers",
        data={
            "csrf_token": csrf,
            "clientUuid": verifier.uuid,
            "email": "v@example.test",
            "phone": "+44 20 0000",
            "document_type": "passport",
            "document_expires": "2030-01-01",
        },
    )
    assert made.status_code == 303
    async with runtime.db.read() as session:
        customer = (await session.execute(select(Customer))).scalar_one()
    assert customer.status == 5
    reserved = await client.post(
        f"/dashboard/verification/customers/{customer.uuid}/status",
        data={"csrf_token": csrf, "status": "3"},
    )
    assert reserved.status_code == 400
    accepted = await client.post(
        f"/dashboard/verification/customers/{customer.uuid}/status",
        data={"csrf_token": csrf, "status": "6", "reason": "documents checked"},
    )
    assert accepted.status_code == 303
    page = await client.get("/dashboard/verification")
    assert "6 · Accepted" in page.text
    # The page is fed from API rows (RFC 3339 strings); people read the times like every
    # other dashboard time (web/rendering.py, the `when` filter), never raw.
    assert "passport until 1 Jan 2030, 00:00 UTC" in page.text
    assert re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", page.text) is None
