"""CONTRACT §1.2: request ids, OPTIONS, 404/405, trailing slash, 500 body."""

from __future__ import annotations

import httpx

from tests.support.factories import TenantFixture


async def test_options_on_unknown_path_is_empty_405(client: httpx.AsyncClient) -> None:
    response = await client.options("/v1/nothing/here")
    assert response.status_code == 405
    assert response.content == b""
    assert response.headers["service-request-id"].startswith("req_")


async def test_unknown_route_is_json_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/nothing")
    assert response.status_code == 404
    body = response.json()
    assert body["error"]["code"] == "not-found"
    assert body["error"]["requestId"] == response.headers["service-request-id"]


async def test_healthz(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


async def test_missing_auth_is_401(client: httpx.AsyncClient, tenant: TenantFixture) -> None:
    response = await client.get("/metrics")
    assert response.status_code == 200
