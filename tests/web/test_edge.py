"""docs/reference/tenant-api.md §4.1 steps 1 to 3 and the error body of docs/reference/tenant-api.md
§4.4, on every surface:
request ids, OPTIONS, 404/405 with Allow, trailing slash, malformed bodies,
the 500 body, and the operational routes."""

from __future__ import annotations

import httpx
import pytest

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from tests.conftest import make_settings
from tests.support.factories import StaffFixture, TenantFixture, make_tenant


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, object]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == code
    assert isinstance(error["message"], str)
    assert error["message"]
    assert error["requestId"] == response.headers["service-request-id"]
    return dict(error)


@pytest.mark.parametrize(
    "path", ["/v1/nothing/here", "/v1/probe", "/staff/v1/tenants", "/unknown", "/healthz", "/"]
)
async def test_options_is_empty_405_on_any_path(probe_client: httpx.AsyncClient, path: str) -> None:
    response = await probe_client.options(path, headers={"Origin": "https://evil.test"})
    assert response.status_code == 405
    assert response.content == b""
    assert response.headers["service-request-id"].startswith("req_")
    assert "access-control-allow-origin" not in response.headers


@pytest.mark.parametrize("path", ["/v1/nothing", "/staff/v1/nothing", "/nothing", "/v1"])
async def test_unknown_route_is_json_404_before_authentication(
    probe_client: httpx.AsyncClient, path: str
) -> None:
    assert_error(await probe_client.get(path), 404, "not-found")
    assert_error(await probe_client.post(path, content=b"{bad"), 404, "not-found")


async def test_wrong_method_is_405_with_complete_allow(
    probe_client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    response = await probe_client.delete("/staff/v1/tenants")
    assert_error(response, 405, "method-not-allowed")
    assert {m.strip() for m in response.headers["allow"].split(",")} == {"GET", "POST"}
    response = await probe_client.put("/staff/v1/tenants/ten_x", headers=staff.headers)
    assert_error(response, 405, "method-not-allowed")
    assert {m.strip() for m in response.headers["allow"].split(",")} == {"GET", "PATCH"}
    # Before authentication: no credentials, still 405.
    response = await probe_client.get("/v1/probe/things/abc")
    assert_error(response, 405, "method-not-allowed")
    assert response.headers["allow"] == "DELETE"
    response = await probe_client.get("/v1/probe/things/")
    assert_error(response, 405, "method-not-allowed")
    assert response.headers["allow"] == "POST"


async def test_trailing_slash_matches_the_same_route(
    probe_client: httpx.AsyncClient, staff: StaffFixture, tenant: TenantFixture
) -> None:
    plain = await probe_client.get("/staff/v1/tenants", headers=staff.headers)
    slashed = await probe_client.get("/staff/v1/tenants/", headers=staff.headers)
    assert plain.status_code == slashed.status_code == 200
    assert plain.json() == slashed.json()
    response = await probe_client.get("/v1/probe/", headers=tenant.headers)
    assert response.status_code == 200
    assert "location" not in response.headers
    created = await probe_client.post(
        "/v1/probe/things/", json={"name": "slash"}, headers=tenant.headers
    )
    assert created.status_code == 201


async def test_malformed_json_is_400_with_details(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, staff: StaffFixture
) -> None:
    for body in (b"{not json", b'{"name": "x",}', b"\xff\xfe", b"[1, 2]", b'"text"'):
        response = await probe_client.post(
            "/v1/probe/things",
            content=body,
            headers={**tenant.headers, "content-type": "application/json"},
        )
        error = assert_error(response, 400, "invalid-argument")
        assert error["details"]
        assert error["details"][0]["field"] == "body"
    response = await probe_client.post("/staff/v1/tenants", content=b"{oops", headers=staff.headers)
    error = assert_error(response, 400, "invalid-argument")
    assert error["details"][0]["field"] == "body"  # type: ignore[index]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": 5}, "name"),
        ({"name": "x", "count": "3"}, "count"),
        ({"name": "x", "count": 1.5}, "count"),
        ({}, "name"),
        ({"name": None}, "name"),
    ],
)
async def test_wrong_field_type_is_400_naming_the_field(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, body: dict, field: str
) -> None:
    response = await probe_client.post("/v1/probe/things", json=body, headers=tenant.headers)
    error = assert_error(response, 400, "invalid-argument")
    fields = [d["field"] for d in error["details"]]  # type: ignore[union-attr]
    assert field in fields
    assert all(set(d) == {"field", "issue"} for d in error["details"])  # type: ignore[union-attr]


async def test_query_validation_error_uses_the_error_body(
    probe_client: httpx.AsyncClient, staff: StaffFixture
) -> None:
    response = await probe_client.get(
        "/staff/v1/tenants", params={"limit": "many"}, headers=staff.headers
    )
    error = assert_error(response, 400, "invalid-argument")
    assert error["details"][0]["field"] == "limit"  # type: ignore[index]


@pytest.mark.parametrize(
    ("status", "code"),
    [(400, "invalid-argument"), (410, "failed-precondition"), (503, "unavailable")],
)
async def test_framework_http_exceptions_use_the_error_body(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, status: int, code: str
) -> None:
    response = await probe_client.get(f"/v1/probe/http-exception/{status}", headers=tenant.headers)
    assert_error(response, status, code)


async def test_unexpected_exception_is_generic_500_logged_with_request_id(
    probe_client: httpx.AsyncClient, tenant: TenantFixture, captured_logs: list[str]
) -> None:
    before = len(captured_logs)
    response = await probe_client.post("/v1/probe/crash", headers=tenant.headers)
    error = assert_error(response, 500, "internal")
    assert "details" not in error
    assert "probe crash" not in response.text
    assert "RuntimeError" not in response.text
    assert error["message"] == "Internal error."
    request_id = response.headers["service-request-id"]
    new_lines = captured_logs[before:]
    crash_lines = [line for line in new_lines if "unhandled error" in line]
    assert crash_lines
    assert request_id in crash_lines[0]
    assert "RuntimeError" in crash_lines[0]
    # The API key in the exception text never reaches the log.
    assert "service_abcdefghijkl_" + "A" * 40 not in "\n".join(new_lines)


async def test_every_response_has_its_own_request_id(
    probe_client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    ids = set()
    for method, path in [
        ("GET", "/healthz"),
        ("GET", "/v1/probe"),
        ("GET", "/nowhere"),
        ("OPTIONS", "/v1/probe"),
        ("GET", "/metrics"),
    ]:
        response = await probe_client.request(method, path, headers=tenant.headers)
        ids.add(response.headers["service-request-id"])
    assert len(ids) == 5
    assert all(i.startswith("req_") for i in ids)


async def test_healthz_checks_the_database(client: httpx.AsyncClient, tmp_path: object) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}

    broken = make_settings(f"sqlite:///{tmp_path}/missing/dir/db.sqlite")
    runtime = Runtime.build(broken)
    app = create_app(broken, runtime)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as down:
        response = await down.get("/healthz")
    await runtime.close()
    assert response.status_code == 503
    assert response.json()["database"] == "down"
    assert response.headers["service-request-id"].startswith("req_")


async def test_metrics_count_requests_latency_and_refusals(
    runtime: Runtime, staff: StaffFixture
) -> None:
    settings = make_settings(runtime.settings.database_url, rate_limit_per_ip=1)
    local = Runtime.build(settings)
    app = create_app(settings, local)
    transport = httpx.ASGITransport(app=app, client=("192.0.2.77", 1234))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        await c.get("/staff/v1/tenants", headers=staff.headers)
        await c.get("/v1/x")
        refused = await c.get("/v1/x")
        assert refused.status_code == 429
        text = (await c.get("/metrics")).text
    await local.close()
    assert 'gatehouse_http_requests_total{method="GET",route="/staff/v1/tenants",status="200"}' in (
        text
    )
    assert 'gatehouse_http_request_seconds_bucket{le="0.005",route="/staff/v1/tenants"}' in text
    assert 'gatehouse_rate_limited_total{kind="ip"}' in text
    line = next(
        x for x in text.splitlines() if x.startswith('gatehouse_rate_limited_total{kind="ip"}')
    )
    assert float(line.split()[-1]) >= 1


async def test_openapi_and_docs(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    assert document["openapi"].startswith("3.")
    assert "/staff/v1/tenants" in document["paths"]
    post = document["paths"]["/staff/v1/tenants"]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/TenantCreate"
    )
    assert "TenantCreate" in document["components"]["schemas"]
    docs = await client.get("/docs")
    assert docs.status_code == 200
    assert "swagger" in docs.text.lower()


async def test_json_404_and_request_id_on_other_surfaces(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    await make_tenant(runtime)
    assert_error(await client.get("/staff/v1/tenants/ten_missing/nope"), 404, "not-found")
