"""The stored risk level (what the staff queue filters on) is recomputed in the transaction
that changes one of its inputs (docs/screening.md, "Risk"): a verification result, which
does not touch the application's own row, included; and the follow-up mechanism behind it
(storage/follow_ups.py) fails a write whose mark nobody handles."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.follow_ups import FollowUp
from gatehouse.storage.tables.screening import ApplicationRisk
from gatehouse.storage.tables.verification import VerificationClient
from tests.support.factories import StaffFixture, TenantFixture
from tests.verification.conftest import Verification

CHECKLIST = [
    {"key": "idv", "label": "Identity verification", "kind": "verification", "required": True}
]
RULES = {
    "rules": [
        {
            "key": "unverified",
            "label": "Identity not verified",
            "points": 25,
            "when": {"checklist": "idv", "satisfied": False},
        }
    ],
    "thresholds": {"medium": 10, "high": 20},
}


async def _stored_level(runtime: Runtime, client_id: str) -> str | None:
    async with runtime.db.read() as session:
        row = await session.get(ApplicationRisk, client_id)
        return None if row is None else row.level


async def _queue(client: httpx.AsyncClient, staff: StaffFixture, level: str) -> set[str]:
    got = await client.get(f"/staff/v1/applications?risk={level}", headers=staff.headers)
    assert got.status_code == 200, got.text
    return {entry["clientId"] for entry in got.json()["data"]}


async def test_a_verification_result_moves_the_stored_level_at_once(
    client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture, tenant: TenantFixture
) -> None:
    made = await client.post(
        f"/staff/v1/tenants/{tenant.tenant_id}/intakes",
        json={"name": "With IDV", "checklist": CHECKLIST, "riskRules": RULES},
        headers=staff.headers,
    )
    assert made.status_code == 201, made.text
    created = await client.post(
        "/v1/applications",
        json={"email": "owner@example.com", "labelId": made.json()["labelId"]},
        headers=tenant.headers,
    )
    assert created.status_code in (200, 201), created.text
    client_id = created.json()["clientId"]
    verification = Verification(client, staff)
    customer = await verification.create_customer(
        await verification.create_client(), clientId=client_id
    )
    # No screening job or stale-risk sweep runs in this test: each level below is the one
    # the write that changed the verification stored.
    accepted = await verification.set_status(customer["uuid"], 6)
    assert accepted.status_code == 200, accepted.text
    assert await _stored_level(runtime, client_id) == "low"
    assert client_id in await _queue(client, staff, "low")
    refused = await verification.set_status(customer["uuid"], 7)
    assert refused.status_code == 200, refused.text
    assert await _stored_level(runtime, client_id) == "high"
    assert client_id in await _queue(client, staff, "high")
    assert client_id not in await _queue(client, staff, "low")


async def test_a_mark_nobody_handles_fails_the_write_and_changes_nothing(
    runtime: Runtime,
) -> None:
    orphan = FollowUp("nobody listens")
    now = runtime.now()
    row = VerificationClient(
        uuid="vc-orphan", name="Orphan", secret_hash="x", created_at=now, updated_at=now
    )

    async def write() -> None:
        async with runtime.db.write() as session:
            session.add(row)
            orphan.mark(session, "app_x")

    with pytest.raises(RuntimeError, match="nobody listens"):
        await write()
    async with runtime.db.read() as session:
        assert await session.scalar(select(VerificationClient.uuid)) is None
