"""Paging rules shared by every list (docs/platform.md "Paging"): the query string, `limit`,
keyset pages; each paged route of the product is checked here the same way."""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx
import pytest

from gatehouse.cases import queue
from gatehouse.domain.work_state import Reviewer
from gatehouse.errors import GatehouseError
from gatehouse.paging import DEFAULT_LIMIT, MAX_LIMIT, PageRequest, parse_page, query_values
from gatehouse.runtime import Runtime
from tests.support.factories import StaffFixture, TenantFixture, make_tenant
from tests.webhooks.conftest import create_endpoint, emit

BAD_LIMITS = (
    *("0", "101", "-1", "-0", "", "abc", "2.5", "1e3"),
    *("²", "٣", "+5", " 5", "5 ", "9" * 5000),
)


def refused(call: object, field: str) -> GatehouseError:
    assert callable(call)
    with pytest.raises(GatehouseError) as caught:
        call()
    assert caught.value.status_code == 400
    assert caught.value.code == "invalid-argument"
    assert caught.value.field == field
    return caught.value


def test_parse_page_defaults_and_bounds() -> None:
    assert parse_page(None, None) == PageRequest(DEFAULT_LIMIT, None)
    assert parse_page(None, None, default_limit=100) == PageRequest(100, None)
    assert parse_page("1", "abc.def") == PageRequest(1, "abc.def")
    assert parse_page(str(MAX_LIMIT), None).limit == MAX_LIMIT
    assert parse_page("007", None).limit == 7


@pytest.mark.parametrize("limit", BAD_LIMITS, ids=lambda v: repr(v[:12]))
def test_parse_page_refuses_every_other_limit(limit: str) -> None:
    error = refused(lambda: parse_page(limit, None), "limit")
    assert error.message == "limit must be an integer from 1 to 100."


def test_an_empty_cursor_is_refused() -> None:
    refused(lambda: parse_page(None, ""), "cursor")


def test_query_values_refuses_unknown_and_repeated_names() -> None:
    assert query_values([("limit", "2"), ("status", "x")], {"limit", "status"}) == {
        "limit": "2",
        "status": "x",
    }
    refused(lambda: query_values([("sort", "asc")], {"limit"}), "sort")
    refused(lambda: query_values([("limit", "1"), ("limit", "2")], {"limit"}), "limit")


# Every paged route of the product, with two rows in each so that a first page of one has a
# cursor.


@dataclass
class PagedList:
    name: str
    path: str
    headers: dict[str, str]
    params: dict[str, str] = field(default_factory=dict)
    # The same list for someone else: the other tenant (tenant lists), the other tenant's
    # rows (staff lists), the other verification client or customer.
    foreign: PagedList | None = None
    # Other filters than `params`, for lists that have filters.
    other_params: dict[str, str] | None = None


@dataclass
class World:
    tenant: TenantFixture
    other: TenantFixture
    staff: StaffFixture
    lists: dict[str, PagedList]


async def _verification_client(
    client: httpx.AsyncClient, staff: StaffFixture, name: str
) -> dict[str, str]:
    """A verification client with a callback and two customers, the second with callbacks."""
    made = await client.post(
        "/staff/v1/verification/clients", json={"name": name}, headers=staff.headers
    )
    assert made.status_code == 201, made.text
    verification_client = made.json()
    registered = await client.post(
        "/verify/clients/setWebhook/clientAuth",
        json={
            "clientUuid": verification_client["clientUuid"],
            "clientSecret": verification_client["clientSecret"],
            "callbackUrl": "http://127.0.0.1:9/callbacks",
            "callbackPassphrase": "correct-horse-battery",
        },
    )
    assert registered.status_code == 200, registered.text
    customer_uuid = ""
    for n in range(2):
        customer = await client.post(
            "/staff/v1/verification/customers",
            json={
                "clientUuid": verification_client["clientUuid"],
                "email": f"c{n}@example.test",
                "phone": "+971500000001",
            },
            headers=staff.headers,
        )
        assert customer.status_code == 201, customer.text
        customer_uuid = customer.json()["uuid"]
    for status in (6, 7):
        changed = await client.post(
            f"/staff/v1/verification/customers/{customer_uuid}/status",
            json={"status": status},
            headers=staff.headers,
        )
        assert changed.status_code == 200, changed.text
    return {"clientUuid": verification_client["clientUuid"], "customerUuid": customer_uuid}


async def _applications(client: httpx.AsyncClient, tenant: TenantFixture) -> list[str]:
    made = []
    for n in range(2):
        response = await client.post(
            "/v1/applications", json={"email": f"p{n}@example.test"}, headers=tenant.headers
        )
        assert response.status_code == 201, response.text
        made.append(response.json()["clientId"])
    # A second audit entry for the first application.
    again = await client.post(f"/v1/applications/{made[0]}/login-sessions", headers=tenant.headers)
    assert again.status_code == 201, again.text
    return made


@pytest.fixture
async def world(client: httpx.AsyncClient, runtime: Runtime, staff: StaffFixture) -> World:
    tenant = await make_tenant(runtime, name="Paging A")
    other = await make_tenant(runtime, name="Paging B")
    endpoints, client_ids = {}, {}
    for who in (tenant, other):
        client_ids[who.tenant_id] = await _applications(client, who)
        created = await create_endpoint(client, who, "http://127.0.0.1:9/in")
        endpoints[who.tenant_id] = created["id"]
        for _ in range(2):
            await emit(runtime, who.tenant_id)
    rows = await _verification_client(client, staff, "Paging KYC")
    other_rows = await _verification_client(client, staff, "Other KYC")
    mine, theirs = endpoints[tenant.tenant_id], endpoints[other.tenant_id]
    lists = [
        PagedList(
            "applications",
            "/v1/applications",
            tenant.headers,
            {"status": "pending"},
            foreign=PagedList("", "/v1/applications", other.headers, {"status": "pending"}),
            other_params={"status": "pending", "externalRef": "x"},
        ),
        PagedList(
            "webhook deliveries",
            f"/v1/webhooks/{mine}/deliveries",
            tenant.headers,
            {"status": "pending"},
            foreign=PagedList(
                "", f"/v1/webhooks/{theirs}/deliveries", other.headers, {"status": "pending"}
            ),
            other_params={},
        ),
        PagedList(
            "staff applications",
            "/staff/v1/applications",
            staff.headers,
            {"tenantId": tenant.tenant_id},
            foreign=PagedList(
                "", "/staff/v1/applications", staff.headers, {"tenantId": other.tenant_id}
            ),
            other_params={"tenantId": tenant.tenant_id, "status": "pending"},
        ),
        PagedList(
            "application audit",
            f"/staff/v1/applications/{client_ids[tenant.tenant_id][0]}/audit",
            staff.headers,
            foreign=PagedList(
                "",
                f"/staff/v1/applications/{client_ids[other.tenant_id][0]}/audit",
                staff.headers,
            ),
        ),
        PagedList(
            "tenant audit",
            f"/staff/v1/tenants/{tenant.tenant_id}/audit",
            staff.headers,
            foreign=PagedList("", f"/staff/v1/tenants/{other.tenant_id}/audit", staff.headers),
        ),
        PagedList(
            "staff deliveries",
            "/staff/v1/deliveries",
            staff.headers,
            {"tenantId": tenant.tenant_id},
            foreign=PagedList(
                "", "/staff/v1/deliveries", staff.headers, {"tenantId": other.tenant_id}
            ),
            other_params={"tenantId": tenant.tenant_id, "status": "pending"},
        ),
        PagedList("tenants", "/staff/v1/tenants", staff.headers),
        PagedList(
            "verification customers",
            "/staff/v1/verification/customers",
            staff.headers,
            {"clientUuid": rows["clientUuid"]},
            foreign=PagedList(
                "",
                "/staff/v1/verification/customers",
                staff.headers,
                {"clientUuid": other_rows["clientUuid"]},
            ),
            other_params={"clientUuid": rows["clientUuid"], "status": "5"},
        ),
        PagedList(
            "verification callbacks",
            "/staff/v1/verification/callbacks",
            staff.headers,
            {"customerUuid": rows["customerUuid"]},
            foreign=PagedList(
                "",
                "/staff/v1/verification/callbacks",
                staff.headers,
                {"customerUuid": other_rows["customerUuid"]},
            ),
            other_params={"customerUuid": rows["customerUuid"], "status": "pending"},
        ),
    ]
    return World(tenant, other, staff, {paged.name: paged for paged in lists})


LIST_NAMES = (
    "applications",
    "webhook deliveries",
    "staff applications",
    "application audit",
    "tenant audit",
    "staff deliveries",
    "tenants",
    "verification customers",
    "verification callbacks",
)


async def get(client: httpx.AsyncClient, paged: PagedList, **params: str) -> httpx.Response:
    return await client.get(paged.path, params={**paged.params, **params}, headers=paged.headers)


def assert_invalid(response: httpx.Response, field: str) -> None:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid-argument"
    assert [detail["field"] for detail in error["details"]] == [field]


@pytest.mark.parametrize("name", LIST_NAMES)
async def test_every_list_pages_through_its_rows(
    client: httpx.AsyncClient, world: World, name: str
) -> None:
    paged = world.lists[name]
    first = await get(client, paged, limit="1")
    assert first.status_code == 200, first.text
    body = first.json()
    assert set(body) == {"data", "nextCursor", "hasMore"}
    assert len(body["data"]) == 1
    assert body["hasMore"] is True
    assert body["nextCursor"]
    seen = [body["data"][0]]
    cursor = body["nextCursor"]
    while cursor:
        more = (await get(client, paged, limit="1", cursor=cursor)).json()
        seen += more["data"]
        cursor = more["nextCursor"]
        assert more["hasMore"] == (cursor is not None)
    everything = (await get(client, paged, limit="100")).json()
    assert everything["hasMore"] is False
    assert everything["nextCursor"] is None
    assert seen == everything["data"]


@pytest.mark.parametrize("name", LIST_NAMES)
async def test_every_list_refuses_a_bad_limit_naming_it(
    client: httpx.AsyncClient, world: World, name: str
) -> None:
    paged = world.lists[name]
    for limit in BAD_LIMITS:
        assert_invalid(await get(client, paged, limit=limit), "limit")
    assert_invalid(await get(client, paged, cursor=""), "cursor")


async def first_cursor(client: httpx.AsyncClient, paged: PagedList) -> str:
    response = await get(client, paged, limit="1")
    assert response.status_code == 200, response.text
    cursor = response.json()["nextCursor"]
    assert isinstance(cursor, str)
    assert cursor
    return cursor


def tampered(cursor: str) -> list[str]:
    """The cursor with one character of its body changed, and with its MAC cut short."""
    body, _, mac = cursor.partition(".")
    flipped = ("B" if body[0] == "A" else "A") + body[1:]
    return [f"{flipped}.{mac}", f"{body}.{mac[:-1]}", body]


@pytest.mark.parametrize("name", LIST_NAMES)
async def test_every_list_refuses_any_cursor_not_issued_for_the_request(
    client: httpx.AsyncClient, world: World, name: str
) -> None:
    paged = world.lists[name]
    cursor = await first_cursor(client, paged)
    assert (await get(client, paged, cursor=cursor)).status_code == 200
    assert (await get(client, paged, limit="5", cursor=cursor)).status_code == 200
    for forged in tampered(cursor):
        assert_invalid(await get(client, paged, cursor=forged), "cursor")
    if paged.foreign is not None:
        # Issued to one tenant (or for one tenant's rows, or one client's): not another's.
        assert_invalid(await get(client, paged.foreign, cursor=cursor), "cursor")
    if paged.other_params is not None:
        moved = PagedList(name, paged.path, paged.headers, paged.other_params)
        assert_invalid(await get(client, moved, cursor=cursor), "cursor")
    # A cursor of every other list, sent to this one.
    for other_name in LIST_NAMES:
        if other_name == name:
            continue
        stranger = await first_cursor(client, world.lists[other_name])
        assert_invalid(await get(client, paged, cursor=stranger), "cursor")


async def test_a_foreign_cursor_is_refused_on_the_tenant_list_even_with_equal_filters(
    client: httpx.AsyncClient, world: World
) -> None:
    """Two tenants with the same filters: one's cursor means nothing to the other."""
    mine = PagedList("", "/v1/applications", world.tenant.headers)
    theirs = PagedList("", "/v1/applications", world.other.headers)
    cursor = await first_cursor(client, mine)
    assert_invalid(await get(client, theirs, cursor=cursor), "cursor")
    assert_invalid(await get(client, theirs, limit="1", cursor=cursor), "cursor")
    own = await first_cursor(client, theirs)
    assert (await get(client, theirs, cursor=own)).status_code == 200


# Who reads the queue: its cursors do not depend on the reader.
READER = Reviewer("stf_reader", may_countersign=False)


async def test_the_dashboard_queue_refuses_other_cursors(
    client: httpx.AsyncClient, runtime: Runtime, world: World
) -> None:
    """The queue's cursors (the dashboard shows the first page for any other) are bound to
    the tenant filter and to the queue."""
    for n in range(25):
        made = await client.post(
            "/v1/applications", json={"email": f"q{n}@example.test"}, headers=world.tenant.headers
        )
        assert made.status_code == 201
    mine = queue.QueueFilters(tenant_id=world.tenant.tenant_id)
    async with runtime.db.read() as session:
        first = await queue.queue_page(session, runtime.crypto, mine, None, reviewer=READER)
        assert first.next_cursor is not None
        second = await queue.queue_page(
            session, runtime.crypto, mine, first.next_cursor, reviewer=READER
        )
        assert {row.application.id for row in second.rows}.isdisjoint(
            row.application.id for row in first.rows
        )
        staff_cursor = await first_cursor(client, world.lists["staff applications"])
        for filters, cursor in (
            (queue.QueueFilters(tenant_id=world.other.tenant_id), first.next_cursor),
            (queue.QueueFilters(), first.next_cursor),
            (queue.QueueFilters(world.tenant.tenant_id, "pending"), first.next_cursor),
            (mine, staff_cursor),
            *((mine, forged) for forged in tampered(first.next_cursor)),
        ):
            with pytest.raises(GatehouseError) as caught:
                await queue.queue_page(session, runtime.crypto, filters, cursor, reviewer=READER)
            assert caught.value.field == "cursor"
