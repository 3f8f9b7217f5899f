"""Each console page, full, weighs at most 30 KB with its stylesheet and script
(docs/console.md): a history page of the longest deliveries beside a test result, a page of
applications with long names, the largest event type page. The pages load nothing else."""

from __future__ import annotations

import re

import httpx
from sqlalchemy import update

from gatehouse.applications.service.provisioning import create_application
from gatehouse.audit.context import WriteContext
from gatehouse.domain.identity import normalize_applicant
from gatehouse.domain.principals import TenantPrincipal
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.webhooks import Delivery
from tests.console.pages import endpoint_id_of
from tests.console.support import open_console
from tests.support.factories import TenantFixture
from tests.webhooks.conftest import emit

BUDGET = 30 * 1024
ASSET_RE = re.compile(r'(?:href|src)="(/static/[^"]+)"')
EXTERNAL_RE = re.compile(r'(?:href|src|action)="(?:https?:)?//')


async def weight(client: httpx.AsyncClient, page: httpx.Response) -> int:
    assert page.status_code == 200, page.text
    assert not EXTERNAL_RE.search(page.text), "a page refers to another site"
    assets = ASSET_RE.findall(page.text)
    assert sorted(assets) == ["/static/gatehouse.css", "/static/gatehouse.js"]
    sizes = [len((await client.get(path)).content) for path in assets]
    return len(page.content) + sum(sizes)


async def test_full_pages_stay_under_30_kb(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    csrf = await open_console(client, tenant)
    made = await client.post(
        "/console/webhooks",
        data={
            "csrf_token": csrf,
            "url": "http://127.0.0.1:9/" + "p" * 200,
            "events": "*",
            "description": "d" * 500,
        },
    )
    endpoint_id = endpoint_id_of(made)
    for _ in range(30):
        await emit(runtime, tenant.tenant_id, "application.info_request.responded")
    async with runtime.db.write() as session:
        await session.execute(
            update(Delivery).values(
                status="dead",
                attempts=12,
                last_http_status=503,
                last_latency_ms=10_000,
                last_error="e" * 300,
            )
        )
    tested = await client.post(f"/console/webhooks/{endpoint_id}/test", data={"csrf_token": csrf})
    assert "Headers sent" in tested.text
    weights = {"endpoint with a test result": await weight(client, tested)}
    principal = TenantPrincipal(tenant.tenant_id, tenant.key_id, frozenset(), "active")
    for n in range(25):
        email = "x" * 60 + f"{n}@example.test"
        applicant = normalize_applicant(email, f"{n}" + "r" * 190, "C" * 200)
        async with runtime.db.transaction() as connection:
            ctx = WriteContext.of(principal, None, runtime.now())
            await create_application(connection, runtime, ctx, principal, applicant, None)
    weights["applications"] = await weight(client, await client.get("/console/applications"))
    weights["endpoints"] = await weight(client, await client.get("/console"))
    weights["events"] = await weight(client, await client.get("/console/events"))
    largest = "/console/events/application.info_request.responded"
    weights["event type"] = await weight(client, await client.get(largest))
    print("full console page weights (bytes):", weights)
    heavy = {name: size for name, size in weights.items() if size > BUDGET}
    assert not heavy, weights
