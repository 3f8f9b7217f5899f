"""Tenant administration through the dashboard forms (docs/reference/staff-api.md §4)."""

from __future__ import annotations

import re

import httpx
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Intake
from gatehouse.storage.tables.core import ApiKey, Tenant
from tests.pages.helpers import dashboard_sign_in
from tests.support.factories import make_staff


async def tenant_row(runtime: Runtime, name: str) -> Tenant:
    async with runtime.db.read() as session:
        return (await session.execute(select(Tenant).where(Tenant.name == name))).scalar_one()


async def test_analysts_see_tenants_but_cannot_change_them(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    analyst = await make_staff(runtime, "analyst")
    csrf = await dashboard_sign_in(client, analyst)
    page = await client.get("/dashboard/tenants")
    assert page.status_code == 200
    assert "Create tenant" not in page.text
    refused = await client.post("/dashboard/tenants", data={"csrf_token": csrf, "name": "X"})
    assert refused.status_code == 403
    async with runtime.db.read() as session:
        assert (await session.execute(select(Tenant))).first() is None


async def test_admin_manages_a_tenant_end_to_end(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    admin = await make_staff(runtime, "admin")
    csrf = await dashboard_sign_in(client, admin)
    empty = await client.post("/dashboard/tenants", data={"csrf_token": csrf, "name": "  "})
    assert empty.status_code == 400
    assert 'id="f-name-error"' in empty.text
    created = await client.post("/dashboard/tenants", data={"csrf_token": csrf, "name": "Acme"})
    assert created.status_code == 303
    tenant = await tenant_row(runtime, "Acme")
    page_url = f"/dashboard/tenants/{tenant.id}"
    assert created.headers["location"].startswith(page_url)

    # Suspend, then reactivate.
    await client.post(f"{page_url}/status", data={"csrf_token": csrf, "status": "suspended"})
    assert (await tenant_row(runtime, "Acme")).status == "suspended"
    await client.post(f"{page_url}/status", data={"csrf_token": csrf, "status": "active"})
    assert (await tenant_row(runtime, "Acme")).status == "active"

    # The endpoint cap: 1 to 20, the error beside the field.
    too_big = await client.post(
        f"{page_url}/cap", data={"csrf_token": csrf, "webhookEndpointCap": "25"}
    )
    assert too_big.status_code == 400
    assert 'id="f-webhookEndpointCap-error"' in too_big.text
    assert (await tenant_row(runtime, "Acme")).webhook_endpoint_cap == 5
    await client.post(f"{page_url}/cap", data={"csrf_token": csrf, "webhookEndpointCap": "12"})
    assert (await tenant_row(runtime, "Acme")).webhook_endpoint_cap == 12

    # An intake with a checklist, then detached.
    made = await client.post(
        f"{page_url}/intakes",
        data={
            "csrf_token": csrf,
            "intake_name": "KYB",
            "order": "2",
            "attached": "yes",
            "check_key_0": "passport",
            "check_label_0": "Passport",
            "check_kind_0": "document",
            "check_required_0": "yes",
            "check_label_de_0": "Reisepass",
            "check_label_ar_0": "",
        },
    )
    assert made.status_code == 303
    async with runtime.db.read() as session:
        intake = (await session.execute(select(Intake))).scalar_one()
    assert (intake.name, intake.order, intake.attached) == ("KYB", 2, True)
    # The label in German beside the plain one; the Arabic left empty is not set.
    assert intake.checklist == [
        {
            "key": "passport",
            "label": "Passport",
            "kind": "document",
            "required": True,
            "labels": {"de": "Reisepass"},
        }
    ]
    shown = await client.get(page_url)
    assert '<span lang="de">Reisepass</span>' in shown.text
    await client.post(f"/dashboard/intakes/{intake.id}", data={"csrf_token": csrf, "order": "1"})
    async with runtime.db.read() as session:
        intake = (await session.execute(select(Intake))).scalar_one()
    assert (intake.order, intake.attached) == (1, False)

    # An API key with chosen scopes, shown once, then revoked.
    answer = await client.post(
        f"{page_url}/api-keys",
        data={"csrf_token": csrf, "key_name": "backend", "scopes": ["applications:read"]},
    )
    assert answer.status_code == 201
    match = re.search(r'id="new-api-key">(service_[a-z0-9]+_[A-Za-z0-9]+)<', answer.text)
    assert match, "the new key is shown"
    api_key = match.group(1)
    assert api_key not in (await client.get(page_url)).text  # shown once only
    headers = {"Authorization": f"Bearer {api_key}"}
    assert (await client.get("/v1/intakes", headers=headers)).status_code == 200
    async with runtime.db.read() as session:
        key = (await session.execute(select(ApiKey))).scalar_one()
    assert key.scopes == ["applications:read"]
    revoked = await client.post(f"/dashboard/api-keys/{key.id}/revoke", data={"csrf_token": csrf})
    assert revoked.status_code == 303
    assert (await client.get("/v1/intakes", headers=headers)).status_code == 401
