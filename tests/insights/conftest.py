"""A small, exactly known onboarding history for the insights tests (docs/insights.md), made
through the tenant API, the portal and the staff API."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import update

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application
from tests.support.factories import StaffFixture, TenantFixture, add_intake, make_staff, make_tenant


@dataclass
class History:
    tenant: TenantFixture
    other: TenantFixture
    intake_a: str
    intake_b: str
    analyst: StaffFixture
    mlro: StaffFixture
    admin: StaffFixture
    # clientId by name: a_active, a_rejected, a_signed_in, a_plain, a_hold, b_submitted,
    # b_plain, u_plain, u_rejected
    cases: dict[str, str]


async def through_portal(
    client: httpx.AsyncClient, tenant: TenantFixture, label_id: str, email: str, submit: bool
) -> str:
    """An application whose applicant signed in to the portal (and submitted when asked)."""
    made = await client.post(
        "/v1/login-sessions", json={"email": email, "labelId": label_id}, headers=tenant.headers
    )
    assert made.status_code == 201, made.text
    signed = await client.post(made.json()["loginUrl"].removeprefix("http://testserver"))
    assert signed.status_code == 303, signed.text
    if submit:
        assert (await client.post("/portal/api/submit")).status_code == 200
    client.cookies.clear()
    return str(made.json()["clientId"])


async def plain(client: httpx.AsyncClient, tenant: TenantFixture, label_id: str, email: str) -> str:
    made = await client.post(
        "/v1/applications", json={"email": email, "labelId": label_id}, headers=tenant.headers
    )
    assert made.status_code == 201, made.text
    return str(made.json()["clientId"])


async def decide(client: httpx.AsyncClient, who: StaffFixture, client_id: str, action: str) -> None:
    done = await client.post(
        f"/staff/v1/applications/{client_id}/decisions",
        json={"action": action, "rejectionReason": "Not eligible."},
        headers=who.headers,
    )
    assert done.status_code == 200, done.text


async def backdate(runtime: Runtime, client_id: str, seconds: int) -> None:
    """Move the application's creation `seconds` before its current state began."""
    async with runtime.db.write() as session:
        row = await session.get_one(Application, client_id)
        created = row.status_changed_at - timedelta(seconds=seconds)
        await session.execute(
            update(Application).where(Application.id == client_id).values(created_at=created)
        )


@pytest.fixture
async def history(client: httpx.AsyncClient, runtime: Runtime) -> History:
    tenant = await make_tenant(runtime, name="Insights Bank")
    other = await make_tenant(runtime, name="Other Bank")
    intake_a = await add_intake(runtime, tenant.tenant_id, "Persons", 1)
    intake_b = await add_intake(runtime, tenant.tenant_id, "Companies", 2)
    other_intake = await add_intake(runtime, other.tenant_id, "Theirs", 1)
    analyst = await make_staff(runtime, "analyst")
    mlro = await make_staff(runtime, "mlro")
    admin = await make_staff(runtime, "admin")
    cases = {
        "a_active": await through_portal(client, tenant, intake_a, "a1@example.test", True),
        "a_rejected": await through_portal(client, tenant, intake_a, "a2@example.test", True),
        "a_signed_in": await through_portal(client, tenant, intake_a, "a3@example.test", False),
        "a_plain": await plain(client, tenant, intake_a, "a4@example.test"),
        "a_hold": await plain(client, tenant, intake_a, "a5@example.test"),
        "b_submitted": await through_portal(client, tenant, intake_b, "b1@example.test", True),
        "b_plain": await plain(client, tenant, intake_b, "b2@example.test"),
        "u_plain": await plain(client, other, other_intake, "u1@example.test"),
        "u_rejected": await plain(client, other, other_intake, "u2@example.test"),
    }
    await decide(client, analyst, cases["a_active"], "approve")
    await decide(client, mlro, cases["a_active"], "countersign")
    await decide(client, analyst, cases["a_rejected"], "reject")
    await decide(client, analyst, cases["a_hold"], "hold")
    await decide(client, admin, cases["u_rejected"], "reject")
    # Known times to decision: 2 hours and 3 days.
    await backdate(runtime, cases["a_active"], 7_200)
    await backdate(runtime, cases["a_rejected"], 259_200)
    await backdate(runtime, cases["u_rejected"], 600)
    return History(tenant, other, intake_a, intake_b, analyst, mlro, admin, cases)
