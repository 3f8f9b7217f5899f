"""Accepted customers satisfy their application's `verification` checklist items
(docs/reference/verification.md, last point), and stop satisfying them when they leave Accepted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx

from gatehouse.runtime import Runtime
from gatehouse.timeutil import format_ts
from gatehouse.verification.links import application_verified
from tests.support.factories import TenantFixture, add_intake
from tests.verification.conftest import Verification

CHECKLIST = [
    {"key": "idv", "label": "Identity verification", "kind": "verification", "required": True},
]


async def new_application(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> str:
    label_id = await add_intake(runtime, tenant.tenant_id, name="With IDV", checklist=CHECKLIST)
    response = await client.post(
        "/v1/applications",
        json={"email": "owner@example.com", "labelId": label_id},
        headers=tenant.headers,
    )
    assert response.status_code in (200, 201), response.text
    return str(response.json()["clientId"])


async def verified_at(runtime: Runtime, application_id: str) -> datetime | None:
    async with runtime.db.read() as session:
        return await application_verified(session, application_id)


async def test_application_verified_follows_the_customer_status(
    verification: Verification, runtime: Runtime, client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    application_id = await new_application(client, runtime, tenant)
    vclient = await verification.create_client()
    customer = await verification.create_customer(vclient, clientId=application_id)
    assert customer["clientId"] == application_id
    assert await verified_at(runtime, application_id) is None

    accepted = await verification.set_status(customer["uuid"], 6)
    at = await verified_at(runtime, application_id)
    assert at is not None
    assert format_ts(at) == accepted.json()["updatedAt"]

    await verification.set_status(customer["uuid"], 7)
    assert await verified_at(runtime, application_id) is None
    again = await verification.set_status(customer["uuid"], 6)
    at = await verified_at(runtime, application_id)
    assert at is not None
    assert format_ts(at) == again.json()["updatedAt"]
    await verification.set_status(customer["uuid"], 2)
    assert await verified_at(runtime, application_id) is None


async def test_an_unlinked_or_other_applications_customer_does_not_count(
    verification: Verification, runtime: Runtime, client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    application_id = await new_application(client, runtime, tenant)
    vclient = await verification.create_client()
    unlinked = await verification.create_customer(vclient)
    await verification.set_status(unlinked["uuid"], 6)
    assert await verified_at(runtime, application_id) is None


async def test_the_checklist_item_is_satisfied_and_unsatisfied_as_the_status_moves(
    verification: Verification, runtime: Runtime, client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    application_id = await new_application(client, runtime, tenant)
    path = f"/v1/applications/{application_id}/checklist"

    async def item() -> dict[str, object]:
        response = await client.get(path, headers=tenant.headers)
        assert response.status_code == 200, response.text
        (only,) = response.json()["data"]
        return dict(only)

    vclient = await verification.create_client()
    customer = await verification.create_customer(vclient, clientId=application_id)
    assert (await item())["satisfied"] is False
    accepted = await verification.set_status(customer["uuid"], 6)
    current = await item()
    assert current["satisfied"] is True
    assert current["satisfiedAt"] == accepted.json()["updatedAt"]
    await verification.set_status(customer["uuid"], 9)
    current = await item()
    assert current["satisfied"] is False
    assert current["satisfiedAt"] is None


async def test_expiry_to_draft_unsatisfies_the_checklist(
    verification: Verification, runtime: Runtime, client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    start = datetime(2026, 11, 22, tzinfo=UTC)
    runtime.clock = lambda: start
    application_id = await new_application(client, runtime, tenant)
    vclient = await verification.create_client()
    customer = await verification.create_customer(
        vclient,
        clientId=application_id,
        documents=[{"type": "passport", "expiresAt": format_ts(start + timedelta(days=2))}],
    )
    await verification.set_status(customer["uuid"], 6)
    assert await verified_at(runtime, application_id) is not None
    runtime.clock = lambda: start + timedelta(days=3)
    assert await verification.sweep() == {"warningsSent": 0, "movedToDraft": 1}
    assert await verified_at(runtime, application_id) is None
