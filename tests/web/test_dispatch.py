"""Routing through the route table (web/dispatch.py): the same answers as a scan of every
route in order, 404 and 405 with Allow per surface, and FastAPI's routing kept when the
app cannot be flattened."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from fastapi import APIRouter, FastAPI
from starlette.routing import BaseRoute, Match

from gatehouse.web import dispatch
from tests.support.factories import StaffFixture, TenantFixture
from tests.web.test_edge import assert_error


def _scope(method: str, path: str) -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "root_path": "", "headers": []}


def _scan(routes: list[BaseRoute], scope: dict[str, Any]) -> BaseRoute | None:
    """What Starlette's router picks: the first full match, else the first partial one."""
    partial = None
    for route in routes:
        found, _ = route.matches(scope)
        if found is Match.FULL:
            return route
        if found is Match.PARTIAL and partial is None:
            partial = route
    return partial


def _concrete(template: str) -> list[str]:
    """Paths a template matches, and near misses (a segment more, a segment less)."""
    path = re.sub(r"\{[^}:]+:path\}", "a/b", template)
    path = re.sub(r"\{[^}]+\}", "x_1", path)
    return [path, path + "/extra", path.rsplit("/", 1)[0] or "/", path + "x"]


def test_the_app_is_routed_through_the_table(app: FastAPI) -> None:
    table = dispatch.route_table(app)
    assert table is not None
    assert table.size == len(list(dispatch.leaf_routes(app.router.routes)))
    assert table.size > 100


def test_the_table_picks_the_route_a_scan_in_order_picks(app: FastAPI) -> None:
    table = dispatch.route_table(app)
    assert table is not None
    routes = list(dispatch.leaf_routes(app.router.routes))
    paths = {p for route in routes for p in _concrete(getattr(route, "path", ""))}
    paths |= {"/", "/nothing", "/v1", "/v1/", "/verify", "/verify/x", "/static", "/portal/api"}
    checked = 0
    for path in sorted(paths):
        for method in (*dispatch.CANDIDATE_METHODS, "OPTIONS"):
            scope = _scope(method, path)
            found, child_scope = table.match(scope)
            assert found is _scan(routes, scope), (method, path)
            if found is not None:
                assert child_scope["route"] is found
            checked += 1
    assert checked > 1000


def test_a_route_added_after_the_first_request_is_routed(app: FastAPI) -> None:
    table = dispatch.route_table(app)
    assert table is not None
    before = table.size

    @app.get("/added-later")
    async def added() -> dict[str, str]:
        return {}

    table = dispatch.route_table(app)
    assert table is not None
    assert table.size == before + 1
    found, _ = table.match(_scope("GET", "/added-later"))
    assert getattr(found, "path", None) == "/added-later"


async def test_404_and_405_on_each_surface(
    client: httpx.AsyncClient, tenant: TenantFixture, staff: StaffFixture
) -> None:
    assert_error(await client.get("/v1/applications/app_x/nothing"), 404, "not-found")
    assert_error(await client.get("/staff/v1/applications/app_x/nothing"), 404, "not-found")
    assert_error(await client.get("/nothing/at/all"), 404, "not-found")
    response = await client.put("/v1/applications", headers=tenant.headers)
    assert_error(response, 405, "method-not-allowed")
    assert {m.strip() for m in response.headers["allow"].split(",")} == {"GET", "POST"}
    response = await client.patch("/v1/applications/app_x/", headers=tenant.headers)
    assert_error(response, 405, "method-not-allowed")
    assert response.headers["allow"] == "GET"
    # The same words under /staff/v1 are another surface with other methods.
    response = await client.put("/staff/v1/applications/app_x", headers=staff.headers)
    assert_error(response, 405, "method-not-allowed")
    assert response.headers["allow"] == "GET"
    response = await client.delete("/v1/webhooks")
    assert_error(response, 405, "method-not-allowed")
    assert {m.strip() for m in response.headers["allow"].split(",")} == {"GET", "POST"}
    response = await client.post("/healthz")
    assert_error(response, 405, "method-not-allowed")
    assert response.headers["allow"] == "GET"


def test_an_app_that_cannot_be_flattened_keeps_fastapi_routing() -> None:
    router = APIRouter()

    @router.get("/thing")
    async def thing() -> dict[str, str]:
        return {"thing": "yes"}

    app = FastAPI()
    app.include_router(router, prefix="/under")
    assert dispatch.install(app) is False
    assert dispatch.route_table(app) is None


@pytest.mark.parametrize("path", ["/under/thing", "/under/thing/"])
async def test_routing_without_the_table_still_answers(path: str) -> None:
    router = APIRouter()

    @router.get("/thing")
    async def thing() -> dict[str, str]:
        return {"thing": "yes"}

    app = FastAPI(redirect_slashes=False)
    app.include_router(router, prefix="/under")
    dispatch.install(app)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        response = await c.get(path)
    assert response.status_code == (200 if path == "/under/thing" else 404)
