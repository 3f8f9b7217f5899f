"""Control characters in the path, the query string, the headers the service reads and
HTTP Basic credentials are refused at the edge of every route, authenticated or not, in
the shape of the route's surface (docs/platform.md, "Text input"). SQLite by default,
PostgreSQL with GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import _IncludedRouter
from starlette.routing import Route

from gatehouse.runtime import Runtime
from tests.robustness.test_text_json_routes import row_counts
from tests.support.factories import TenantFixture


def surface(path: str) -> str:
    if path.startswith("/verify"):
        return "verify"
    if path.startswith("/portal/api"):
        return "json"
    if path.startswith(("/dashboard", "/portal", "/console")):
        return "page"
    return "json"


def check_refused(response: httpx.Response, path: str, field: str, point: str) -> None:
    assert response.status_code == 400, (path, response.status_code, response.text[:300])
    kind = surface(path)
    if kind == "verify":
        assert response.json() == {
            "message": f"{field} contains a control character ({point}), which is not accepted."
        }
    elif kind == "page":
        assert response.headers["content-type"].startswith("text/html")
        assert "The request was refused" in response.text
        assert field in response.text
        assert response.headers["x-frame-options"] == "DENY"
    else:
        error = response.json()["error"]
        assert error["code"] == "invalid-argument"
        assert error["details"] == [
            {"field": field, "issue": f"contains a control character ({point})"}
        ]


def _walk(routes: list[Any], prefix: str) -> Iterator[tuple[str, str]]:
    for route in routes:
        if isinstance(route, _IncludedRouter):
            inner = prefix + (getattr(route.include_context, "prefix", "") or "")
            yield from _walk(route.original_router.routes, inner)
        elif isinstance(route, Route):
            for method in sorted(route.methods or ()):
                if method != "HEAD":
                    yield method, prefix + route.path


def every_route(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path template) of every route the app serves, pages included."""
    return list(_walk(app.routes, ""))


async def test_a_nul_in_the_path_or_query_of_every_route_is_refused(
    app: FastAPI, client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture
) -> None:
    routes = every_route(app)
    assert len(routes) > 60
    before = await row_counts(runtime)
    for method, template in routes:
        if "{" in template:
            url = re.sub(r"\{[^}]+\}", "a%00b", template, count=1)
            url = re.sub(r"\{[^}]+\}", "x_1", url)
            field = "path"
        else:
            url, field = template + "?q=a%00b", "q"
        response = await client.request(method, url, headers=tenant.headers)
        check_refused(response, template, field, "U+0000")
    assert await row_counts(runtime) == before


@pytest.mark.parametrize("encoded", ["%01", "%1B", "%7F", "%C2%85", "%0A", "%09", "%0D"], ids=str)
async def test_every_refused_character_in_a_query_value_and_name(
    client: httpx.AsyncClient, tenant: TenantFixture, encoded: str
) -> None:
    response = await client.get(f"/v1/applications?limit=1{encoded}", headers=tenant.headers)
    assert response.status_code == 400
    assert response.json()["error"]["details"][0]["field"] == "limit"
    response = await client.get(f"/v1/applications?li{encoded}mit=1", headers=tenant.headers)
    assert response.status_code == 400
    assert response.json()["error"]["details"][0] == {
        "field": "query",
        "issue": response.json()["error"]["details"][0]["issue"],
    }
    assert "a name with a control character" in response.json()["error"]["details"][0]["issue"]


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("idempotency-key", "Idempotency-Key"),
        ("authorization", "Authorization"),
        ("origin", "Origin"),
        ("cookie", "Cookie"),
        ("content-type", "Content-Type"),
    ],
)
@pytest.mark.parametrize("char", [b"\x00", b"\x01", b"\x7f", b"\x85"], ids=repr)
async def test_a_control_character_in_a_header_we_read_is_refused(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenant: TenantFixture,
    name: str,
    shown: str,
    char: bytes,
) -> None:
    before = await row_counts(runtime)
    headers = {"authorization": tenant.headers["Authorization"].encode()}
    headers[name] = {
        "authorization": headers["authorization"] + char,
        "content-type": b"application/json" + char,
    }.get(name, b"value" + char)
    response = await client.post(
        "/v1/applications", json={"email": "header@example.test"}, headers=headers
    )
    check_refused(response, "/v1/applications", shown, f"U+{char[0]:04X}")
    assert await row_counts(runtime) == before


async def test_basic_credentials_with_a_control_character_are_refused(
    client: httpx.AsyncClient,
) -> None:
    for pair in ("client\x00:secret", "client:sec\x85ret", "client:secret\n"):
        encoded = base64.b64encode(pair.encode()).decode()
        response = await client.get(
            "/verify/clients/customers/c_1", headers={"Authorization": f"Basic {encoded}"}
        )
        assert response.status_code == 400
        assert set(response.json()) == {"message"}
        assert response.json()["message"].startswith("Authorization contains a control character")


async def test_an_unauthenticated_page_refuses_a_nul_in_the_link(
    client: httpx.AsyncClient,
) -> None:
    for method in ("GET", "POST"):
        response = await client.request(method, "/portal/login/abc%00def")
        check_refused(response, "/portal/login/x", "path", "U+0000")
