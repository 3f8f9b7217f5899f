"""Sign-in links redeemed while the tenant locks the application (docs/reference/portal.md §2,
docs/reference/tenant-api.md §5.9): every answer is a redemption (303) or a refused link
(410), the lock always succeeds, and once it has answered no session of the application is
left. On PostgreSQL a redemption that locked the link before the application row deadlocked
with the lock (which takes the application row, then the links and sessions): one of them
failed with a 500. SQLite by default, PostgreSQL with GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import asyncio

import httpx
from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import PortalSession
from tests.pages.helpers import client_with
from tests.portal.conftest import mint, provision
from tests.support.factories import TenantFixture, make_tenant

ROUNDS = 8
LINKS = 10


async def live_sessions(runtime: Runtime, client_id: str) -> list[str]:
    async with runtime.db.read() as session:
        rows = await session.scalars(
            select(PortalSession.id).where(
                PortalSession.application_id == client_id, PortalSession.ended_at.is_(None)
            )
        )
        return list(rows)


async def test_redemptions_racing_a_lock_all_answer_and_leave_no_session(
    database_url: str,
) -> None:
    # More calls than the default per-key limit allows in a minute.
    async with client_with(database_url, rate_limit_per_key=10_000) as (client, runtime):
        tenant = await make_tenant(runtime)
        for round_ in range(ROUNDS):
            await race_one(client, runtime, tenant, round_)


async def race_one(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, round_: int
) -> None:
    provisioned = await provision(
        client, tenant, email=f"race{round_}@example.test", externalRef=f"race-{round_}"
    )
    client_id = provisioned.client_id
    tokens = [provisioned.token]
    tokens += [await mint(client, tenant, client_id) for _ in range(LINKS)]

    async def lock(delay: float) -> httpx.Response:
        await asyncio.sleep(delay)
        return await client.post(f"/v1/applications/{client_id}/lock", headers=tenant.headers)

    answers = await asyncio.gather(
        lock(0.002 * round_), *(client.post("/portal/login/" + t) for t in tokens)
    )
    locked, redeemed = answers[0], answers[1:]
    assert locked.status_code == 200, (round_, locked.text)
    assert {r.status_code for r in redeemed} <= {303, 410}, [r.text[:200] for r in redeemed]
    assert await live_sessions(runtime, client_id) == [], round_
    unlocked = await client.post(f"/v1/applications/{client_id}/unlock", headers=tenant.headers)
    assert unlocked.status_code == 200
    for token in tokens:  # a lock revokes every unused link, for good
        assert (await client.post("/portal/login/" + token)).status_code == 410
