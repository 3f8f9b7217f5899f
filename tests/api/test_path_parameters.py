"""Path parameters are named one way: snake_case in the route templates (which are also the
`route` label of the access log and the metrics, docs/operations.md), camelCase in
/openapi.json and in docs/reference/ (`{client_id}` is published as `{clientId}`)."""

from __future__ import annotations

import re

import httpx
from fastapi import FastAPI
from starlette.routing import Route

from gatehouse.web.dispatch import leaf_routes
from gatehouse.web.openapi_components import PATH_NAMES

TEMPLATE_PARAM = re.compile(r"\{([^}:]+)(?::[^}]+)?\}")
SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$")


def _templates(app: FastAPI) -> list[str]:
    return [route.path for route in leaf_routes(app.routes) if isinstance(route, Route)]


def test_route_templates_name_path_parameters_in_snake_case(app: FastAPI) -> None:
    wrong = sorted(
        f"{path}: {name}"
        for path in _templates(app)
        for name in TEMPLATE_PARAM.findall(path)
        if not SNAKE.match(name)
    )
    assert wrong == []


def test_every_compound_name_has_its_published_name(app: FastAPI) -> None:
    missing = sorted(
        {
            name
            for path in _templates(app)
            if path.startswith(("/v1/", "/staff/v1/", "/portal/api/", "/verify/"))
            for name in TEMPLATE_PARAM.findall(path)
            if "_" in name and name not in PATH_NAMES
        }
    )
    assert missing == []


async def test_the_document_names_path_parameters_in_camel_case(
    client: httpx.AsyncClient,
) -> None:
    document = (await client.get("/openapi.json")).json()
    wrong: list[str] = []
    for path, item in document["paths"].items():
        names = TEMPLATE_PARAM.findall(path)
        wrong += [f"{path}: {name}" for name in names if not CAMEL.match(name)]
        for method, operation in item.items():
            if not isinstance(operation, dict):
                continue
            declared = {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"}
            if declared != set(names):
                wrong.append(f"{method.upper()} {path}: declares {sorted(declared)}")
    assert wrong == []


async def test_staff_tenant_routes_share_one_label_spelling(app: FastAPI) -> None:
    tenant_routes = [p for p in _templates(app) if p.startswith("/staff/v1/tenants/{")]
    assert tenant_routes
    assert {TEMPLATE_PARAM.findall(p)[0] for p in tenant_routes} == {"tenant_id"}
