"""GET /v1/applications (docs/reference/tenant-api.md §5.11, §5)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import httpx

from gatehouse.runtime import Runtime
from gatehouse.timeutil import format_ts
from tests.api.support import add_decision, erase, provision
from tests.support.factories import TenantFixture, make_tenant

START = datetime(2026, 3, 1, 12, 0, 0)


async def _make(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    runtime: Runtime,
    count: int,
    same_time: bool = False,
) -> list[dict[str, Any]]:
    from datetime import UTC

    made = []
    for n in range(count):
        moment = START.replace(tzinfo=UTC) + timedelta(seconds=0 if same_time else n)
        runtime.clock = lambda moment=moment: moment  # type: ignore[misc]
        made.append(await provision(client, tenant, f"user{n}@x.test", externalRef=f"ref-{n}"))
    return made


async def _get(client: httpx.AsyncClient, tenant: TenantFixture, query: str) -> httpx.Response:
    return await client.get(f"/v1/applications{query}", headers=tenant.headers)


async def _walk(client: httpx.AsyncClient, tenant: TenantFixture, query: str) -> list[str]:
    seen: list[str] = []
    cursor = None
    while True:
        sep = "&" if query else ""
        url = f"?{query}{sep}cursor={cursor}" if cursor else (f"?{query}" if query else "")
        body = (await _get(client, tenant, url)).json()
        seen.extend(item["clientId"] for item in body["data"])
        assert body["hasMore"] == (body["nextCursor"] is not None)
        if not body["hasMore"]:
            return seen
        cursor = body["nextCursor"]


async def test_default_page_and_order(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    made = await _make(client, tenant, runtime, 27)
    body = (await _get(client, tenant, "")).json()
    assert set(body) == {"data", "nextCursor", "hasMore"}
    assert len(body["data"]) == 25
    assert body["hasMore"] is True
    expected = [m["clientId"] for m in reversed(made)]
    assert [item["clientId"] for item in body["data"]] == expected[:25]
    element = body["data"][0]
    for field in (
        "clientId",
        "externalRef",
        "companyName",
        "labelId",
        "applicantEmail",
        "status",
        "createdAt",
        "updatedAt",
    ):
        assert field in element
    rest = (await _get(client, tenant, f"?cursor={body['nextCursor']}")).json()
    assert [item["clientId"] for item in rest["data"]] == expected[25:]
    assert rest["hasMore"] is False
    assert rest["nextCursor"] is None


async def test_keyset_paging_breaks_time_ties_by_client_id_desc(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    made = await _make(client, tenant, runtime, 7, same_time=True)
    seen = await _walk(client, tenant, "limit=2")
    assert seen == sorted((m["clientId"] for m in made), reverse=True)


async def test_exact_page_size_has_no_more(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    await _make(client, tenant, runtime, 3)
    body = (await _get(client, tenant, "?limit=3")).json()
    assert len(body["data"]) == 3
    assert body["hasMore"] is False
    assert body["nextCursor"] is None
    assert (await _get(client, tenant, "?limit=100")).status_code == 200
    assert len((await _get(client, tenant, "?limit=1")).json()["data"]) == 1


async def test_filters(client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime) -> None:
    made = await _make(client, tenant, runtime, 6)
    await add_decision(runtime, made[1]["clientId"], "hold", "hold", runtime.now())
    await add_decision(runtime, made[4]["clientId"], "hold", "hold", runtime.now())
    held = await _walk(client, tenant, "status=hold&limit=1")
    assert held == [made[4]["clientId"], made[1]["clientId"]]
    by_ref = (await _get(client, tenant, "?externalRef=ref-3")).json()["data"]
    assert [item["clientId"] for item in by_ref] == [made[3]["clientId"]]
    assert (await _get(client, tenant, "?externalRef=ref-")).json()["data"] == []
    since = made[2]["updatedAt"]
    recent = await _walk(client, tenant, f"updatedSince={since}&limit=2")
    assert recent == [m["clientId"] for m in reversed(made[2:])]  # inclusive
    offset = (datetime.fromisoformat(since.replace("Z", "+00:00")) + timedelta(hours=2)).isoformat()
    shifted = (
        await client.get(
            "/v1/applications",
            params={"updatedSince": offset.replace("+00:00", "+02:00")},
            headers=tenant.headers,
        )
    ).json()
    assert [item["clientId"] for item in shifted["data"]] == [
        m["clientId"] for m in reversed(made[2:])
    ]
    none = (await _get(client, tenant, "?status=active")).json()
    assert none == {"data": [], "nextCursor": None, "hasMore": False}


async def test_erased_never_listed_and_tenants_isolated(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    made = await _make(client, tenant, runtime, 3)
    other = await make_tenant(runtime, name="Other")
    await provision(client, other, "someone@x.test")
    await erase(runtime, made[1]["clientId"])
    listed = await _walk(client, tenant, "")
    assert listed == [made[2]["clientId"], made[0]["clientId"]]


async def test_invalid_queries_are_400_invalid_argument(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    await _make(client, tenant, runtime, 3)
    for query in (
        "?limit=0",
        "?limit=101",
        "?limit=abc",
        "?limit=2.5",
        "?limit=-1",
        "?limit=",
        "?status=approved",
        "?status=on_hold",
        "?status=",
        "?updatedSince=yesterday",
        "?updatedSince=2026-01-01",
        "?updatedSince=2026-01-01T00:00:00",
        "?cursor=garbage",
        "?cursor=",
        "?tenantId=x",
        "?sort=asc",
        "?limit=2&limit=3",
    ):
        response = await _get(client, tenant, query)
        assert response.status_code == 400, query
        assert response.json()["error"]["code"] == "invalid-argument", query


async def test_cursor_is_bound_to_filters_and_tamper_proof(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    await _make(client, tenant, runtime, 5)
    cursor = (await _get(client, tenant, "?limit=2&status=pending")).json()["nextCursor"]
    assert (
        await _get(client, tenant, f"?limit=2&status=pending&cursor={cursor}")
    ).status_code == 200
    # The page size may change; the filters may not.
    assert (
        await _get(client, tenant, f"?limit=3&status=pending&cursor={cursor}")
    ).status_code == 200
    for query in (
        f"?limit=2&cursor={cursor}",
        f"?limit=2&status=hold&cursor={cursor}",
        f"?status=pending&externalRef=ref-1&cursor={cursor}",
    ):
        assert (await _get(client, tenant, query)).status_code == 400, query
    body, _, sig = cursor.partition(".")
    tampered = body[:-2] + ("AA" if body[-2:] != "AA" else "BB") + "." + sig
    assert (await _get(client, tenant, f"?status=pending&cursor={tampered}")).status_code == 400
    # A cursor issued for another kind of list (or signed elsewhere) is refused.
    from gatehouse.paging import CursorScope, encode_cursor

    scope = CursorScope("deliveries", tenant.tenant_id, {"status": "pending"})
    foreign = encode_cursor(runtime.crypto, scope, ["2026-01-01T00:00:00Z", "y"])
    assert (await _get(client, tenant, f"?status=pending&cursor={foreign}")).status_code == 400


async def test_list_sees_updates_through_updated_at(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    from datetime import UTC

    made = await _make(client, tenant, runtime, 3)
    later = START.replace(tzinfo=UTC) + timedelta(hours=1)
    runtime.clock = lambda: later
    repeat = await provision(client, tenant, "user0@x.test", externalRef="ref-0")
    assert repeat["updatedAt"] == format_ts(later)
    first = (await _get(client, tenant, "?limit=1")).json()["data"][0]
    assert first["clientId"] == made[0]["clientId"]
    since = (await _get(client, tenant, f"?updatedSince={format_ts(later)}")).json()["data"]
    assert [item["clientId"] for item in since] == [made[0]["clientId"]]
