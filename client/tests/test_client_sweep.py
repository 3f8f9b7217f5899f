"""A sweep over 1,000 applications that change while it runs (docs/reference/tenant-api.md §5.11,
docs/reference/webhooks.md §7.2 rule 4): every application is seen at least once, and the
checkpoint it returns loses nothing on the next sweep."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import httpx
from gatehouse_client import AsyncClient
from sqlalchemy import select, update
from tests.support.factories import TenantFixture

from gatehouse.ids import new_id
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application as ApplicationRow

COUNT = 1000
OVERLAP = timedelta(seconds=2)


async def seed(runtime: Runtime, tenant: TenantFixture) -> list[str]:
    """1,000 applications, last changed over the past hour (direct inserts: fast)."""
    now = runtime.now()
    ids = [new_id("app") for _ in range(COUNT)]
    async with runtime.db.write() as session:
        for i, client_id in enumerate(ids):
            changed = now - timedelta(hours=1) + timedelta(seconds=3 * i)
            session.add(
                ApplicationRow(
                    id=client_id,
                    tenant_id=tenant.tenant_id,
                    identity=f"ref:bulk-{i}",
                    external_ref=f"bulk-{i}",
                    applicant_email=f"bulk{i}@example.test",
                    company_name=f"Bulk {i}",
                    label_id=tenant.label_id,
                    status="pending",
                    created_at=changed,
                    updated_at=changed,
                )
            )
    return ids


async def touch(runtime: Runtime, client_ids: list[str], status: str | None = None) -> None:
    """Change applications the way any write does: updatedAt moves to now."""
    values: dict[str, object] = {"updated_at": runtime.now()}
    if status is not None:
        values["status"] = status
    async with runtime.db.write() as session:
        await session.execute(
            update(ApplicationRow).where(ApplicationRow.id.in_(client_ids)).values(**values)
        )


async def current_versions(runtime: Runtime, tenant: TenantFixture) -> dict[str, object]:
    async with runtime.db.read() as session:
        rows = await session.execute(
            select(ApplicationRow.id, ApplicationRow.updated_at).where(
                ApplicationRow.tenant_id == tenant.tenant_id
            )
        )
        return {row.id: row.updated_at for row in rows}


async def test_sweep_under_concurrent_updates_sees_all_and_loses_nothing(
    runtime: Runtime, tenant: TenantFixture, live_server: str
) -> None:
    ids = await seed(runtime, tenant)
    rng = random.Random(7)
    updated_during_sweep: set[str] = set()
    changing = True
    pages_left = [None] * 8

    class ChangingWhilePaging(httpx.AsyncHTTPTransport):
        """After each of the sweep's first pages, ten applications change (seen or not yet
        seen): each jumps to the head of the updatedAt-descending list, as concurrent writes
        do. Driven by the pages, not by the clock, so the hazard happens on any machine."""

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            response = await super().handle_async_request(request)
            if changing and request.url.path == "/v1/applications" and pages_left:
                pages_left.pop()
                batch = rng.sample(ids, 10)
                await touch(runtime, batch, status=rng.choice(["needs_info", "hold", "pending"]))
                updated_during_sweep.update(batch)
            return response

    async with AsyncClient(
        live_server, tenant.api_key, backoff_base=0.01, transport=ChangingWhilePaging()
    ) as client:
        first = await client.sweep(None, OVERLAP, page_size=50)
        changing = False
        # The hazard was real: many applications changed while the sweep ran.
        assert len(updated_during_sweep) >= 50

        seen = {a.client_id: a for a in first.applications}
        assert set(seen) == set(ids)  # every application, at least once
        assert len(first.applications) == COUNT  # deduplicated by clientId
        assert first.checkpoint is not None
        assert first.checkpoint == max(a.updated_at for a in first.applications if a.updated_at)

        # Changes after the sweep, then the next sweep from the stored checkpoint.
        later = rng.sample(ids, 25)
        await asyncio.sleep(0.01)
        await touch(runtime, later)
        final = await current_versions(runtime, tenant)
        second = await client.sweep(first.checkpoint, OVERLAP, page_size=50)

    second_seen = {a.client_id: a for a in second.applications}
    # Nothing is lost: every change the first sweep did not observe is in the second,
    # in its latest version.
    unobserved = {cid for cid in ids if seen[cid].updated_at != final[cid]}
    assert set(later) <= unobserved
    assert unobserved <= set(second_seen)
    for client_id in unobserved:
        assert second_seen[client_id].updated_at == final[client_id]
    # ...and the checkpoint saved work: the second sweep is a small window.
    assert len(second.applications) < COUNT // 2
    assert second.checkpoint is not None
    assert second.checkpoint >= first.checkpoint


async def test_a_single_pass_alone_would_miss_applications_updated_mid_page(
    runtime: Runtime, tenant: TenantFixture, live_server: str
) -> None:
    """Why the sweep runs catch-up passes: in updatedAt-descending order an
    application changed behind the cursor is not on any later page."""
    ids = await seed(runtime, tenant)
    async with AsyncClient(live_server, tenant.api_key) as client:
        page = await client.list_applications(limit=100)
        oldest = ids[:5]  # not yet seen: the list starts with the newest
        await touch(runtime, oldest)
        rest = [a.client_id async for a in _after(client, page.next_cursor)]
        single_pass = {a.client_id for a in page.data} | set(rest)
        assert not set(oldest) & single_pass

        swept = await client.sweep(None, OVERLAP, page_size=100)
        assert {a.client_id for a in swept.applications} == set(ids)


async def _after(client: AsyncClient, cursor: str | None):  # type: ignore[no-untyped-def]
    while cursor:
        page = await client.list_applications(limit=100, cursor=cursor)
        for application in page.data:
            yield application
        cursor = page.next_cursor
