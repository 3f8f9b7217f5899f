"""Who sees the simulate route (docs/sandbox.md, "Who sees the route"): a live tenant's key
gets exactly the answer of an unknown path, for every method; callers without a valid key
see a documented route (405, 401); a sandbox tenant reaches only its own applications."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from gatehouse.runtime import Runtime
from tests.sandbox.conftest import provision, simulate, simulated
from tests.support.cases import application_row, outbox_events
from tests.support.factories import StaffFixture, TenantFixture, make_tenant

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
# Headers that belong to one exchange; everything else must be the same.
PER_EXCHANGE = {"service-request-id", "date", "content-length"}


def shape(response: httpx.Response) -> tuple[int, dict[str, str], Any]:
    """Status, headers and body of an answer, without what differs between two exchanges."""
    headers = {k: v for k, v in response.headers.items() if k not in PER_EXCHANGE}
    body: Any = None
    if response.content:
        body = response.json()
        body["error"].pop("requestId")
    return response.status_code, headers, body


async def send(
    client: httpx.AsyncClient, method: str, path: str, headers: dict[str, str], **extra: Any
) -> httpx.Response:
    return await client.request(method, path, headers=headers, **extra)


@pytest.mark.parametrize("method", METHODS)
async def test_a_live_tenant_gets_the_answer_of_an_unknown_path(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, method: str
) -> None:
    client_id = await provision(client, tenant, "live@example.test")
    extra: dict[str, Any] = (
        {"json": {"action": "submit"}} if method in ("POST", "PUT", "PATCH") else {}
    )
    real = await send(
        client, method, f"/v1/sandbox/applications/{client_id}/simulate", tenant.headers, **extra
    )
    unknown = await send(
        client, method, f"/v1/sandbox/applications/{client_id}/simulat", tenant.headers, **extra
    )
    assert real.status_code == 404
    assert shape(real) == shape(unknown)
    if method != "HEAD":
        assert real.json()["error"]["code"] == "not-found"
        assert real.json()["error"]["message"] == "No such route."
    assert "ratelimit-limit" not in real.headers
    assert "allow" not in real.headers
    assert (await application_row(runtime, client_id)).submitted_at is None


async def test_a_live_tenant_is_not_found_whatever_else_it_sends(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    client_id = await provision(client, tenant, "live@example.test")
    path = f"/v1/sandbox/applications/{client_id}/simulate"
    variants: list[dict[str, Any]] = [
        {"content": b"{not json", "headers": {"Content-Type": "application/json"}},
        {"json": {"action": "teleport"}},
        {"json": {"action": "submit"}, "headers": {"Idempotency-Key": "k-1"}},
        {"json": {"action": "submit"}, "headers": {"Idempotency-Key": "k" * 300}},
        {"json": ["a list"]},
    ]
    for variant in variants:
        headers = {**tenant.headers, **variant.pop("headers", {})}
        real = await client.post(path, headers=headers, **variant)
        unknown = await client.post(path + "x", headers=headers, **variant)
        assert real.status_code == 404, real.text
        assert shape(real) == shape(unknown)
    # A trailing slash names the same route, and still nothing.
    slashed = await client.post(path + "/", json={"action": "submit"}, headers=tenant.headers)
    assert slashed.status_code == 404
    assert (await application_row(runtime, client_id)).submitted_at is None
    assert await outbox_events(runtime, client_id) == []


async def test_a_live_tenants_refusals_do_not_count_against_its_key(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    first = await client.get("/v1/intakes", headers=tenant.headers)
    for _ in range(3):
        await client.post(
            "/v1/sandbox/applications/app_x/simulate",
            json={"action": "submit"},
            headers=tenant.headers,
        )
    second = await client.get("/v1/intakes", headers=tenant.headers)
    remaining = int(first.headers["ratelimit-remaining"])
    assert int(second.headers["ratelimit-remaining"]) == remaining - 1


@pytest.mark.parametrize("method", ["GET", "PUT", "PATCH", "DELETE"])
async def test_wrong_methods_are_405_for_sandbox_keys_and_callers_without_a_key(
    client: httpx.AsyncClient, sandbox_tenant: TenantFixture, tenant: TenantFixture, method: str
) -> None:
    path = "/v1/sandbox/applications/app_x/simulate"
    # What routing answers for a wrong method on any POST-only route.
    routed = await send(client, method, "/v1/applications/app_x/lock", {})
    assert routed.status_code == 405
    assert routed.headers["allow"] == "POST"
    for headers in ({}, {"Authorization": "Bearer nonsense"}, sandbox_tenant.headers):
        answer = await send(client, method, path, headers)
        assert shape(answer) == shape(routed), headers.keys()


async def test_a_post_without_a_valid_key_is_401(
    client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    path = "/v1/sandbox/applications/app_x/simulate"
    for headers in (
        {},
        {"Authorization": "Bearer service_abcdefghijkl_" + "a" * 32},
        staff.headers,
    ):
        answer = await client.post(path, json={"action": "submit"}, headers=headers)
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] == "unauthorized"


async def test_a_sandbox_tenant_cannot_reach_another_tenants_application(
    client: httpx.AsyncClient,
    runtime: Runtime,
    sandbox_tenant: TenantFixture,
    tenant: TenantFixture,
) -> None:
    other_sandbox = await make_tenant(runtime, name="Other sandbox", environment="sandbox")
    live_app = await provision(client, tenant, "live@example.test")
    other_app = await provision(client, other_sandbox, "other@example.test")
    own_app = await provision(client, sandbox_tenant, "own@example.test")
    for client_id in (live_app, other_app, "app_doesnotexist"):
        answer = await simulate(client, sandbox_tenant, client_id, "hold")
        assert answer.status_code == 404
        assert answer.json()["error"]["message"] == "No application with this clientId."
    for client_id in (live_app, other_app):
        assert (await application_row(runtime, client_id)).status == "pending"
        assert await outbox_events(runtime, client_id) == []
    # The other sandbox tenant's own key works on its own application.
    assert (await simulated(client, other_sandbox, other_app, "hold"))["status"] == "hold"
    assert (await simulated(client, sandbox_tenant, own_app, "hold"))["status"] == "hold"


async def test_the_route_is_in_the_openapi_document(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    [route] = [
        item
        for path, item in paths.items()
        if re.fullmatch(r"/v1/sandbox/applications/\{[^/}]+\}/simulate", path)
    ]
    assert {method for method in route if method != "parameters"} == {"post"}
