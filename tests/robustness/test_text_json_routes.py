"""Every JSON route of every surface refuses a control character in each of its string
fields, in the surface's documented shape, and stores nothing (docs/platform.md, "Text
input"). The routes and their fields are read from the OpenAPI document, so a route
added later is walked too. SQLite by default, PostgreSQL with GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from gatehouse.accounts.service import create_api_key, create_tenant
from gatehouse.app import openapi_document
from gatehouse.domain.principals import ALL_SCOPES
from gatehouse.runtime import Runtime
from gatehouse.storage.base import Base
from gatehouse.web.text import refused_char
from tests.support.factories import StaffFixture, TenantFixture
from tests.support.leaks import remember

SURFACES = ("/v1/", "/staff/v1/", "/portal/api/", "/verify/")
REFUSED = ["\x00", "\x01", "\x1b", "\x7f", "\x85", "\x9f", "\ud800", "\udfff"]


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def sample(schema: dict[str, Any], components: dict[str, Any]) -> Any:
    """A value of the schema's shape with a string wherever a string may stand."""
    schema = _resolve(schema, components)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [o for o in schema[key] if _resolve(o, components).get("type") != "null"]
            return sample(options[0], components)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {name: sample(prop, components) for name, prop in props.items()}
    if kind == "array":
        return [sample(schema.get("items", {}), components)]
    if kind == "integer" or kind == "number":
        return 1
    if kind == "boolean":
        return True
    return "sample"  # a string, or a value of any type


def string_paths(value: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(value, str):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in string_paths(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in string_paths(v, (*path, str(i)))]
    return []


def with_value(body: Any, path: tuple[str, ...], value: str) -> Any:
    copy = json.loads(json.dumps(body))
    target = copy
    for part in path[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    last = path[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return copy


def json_routes(app: FastAPI) -> list[tuple[str, str, Any]]:
    """(method, path template, sample body) of every route taking a JSON body."""
    document = openapi_document(app)
    components = document["components"]["schemas"]
    found = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            content = (operation.get("requestBody") or {}).get("content", {})
            if "application/json" in content:
                body = sample(content["application/json"]["schema"], components)
                found.append((method.upper(), path, body))
    return found


async def row_counts(runtime: Runtime) -> dict[str, int]:
    async with runtime.db.read() as session:
        return {
            table.name: (
                await session.execute(select(func.count()).select_from(table))
            ).scalar_one()
            for table in Base.metadata.sorted_tables
        }


def encoded(body: Any) -> bytes:
    # ensure_ascii: every control character and lone surrogate travels as a \\u escape.
    return json.dumps(body, ensure_ascii=True).encode()


@pytest.fixture
async def credentials(
    client: httpx.AsyncClient, runtime: Runtime, tenant: TenantFixture, staff: StaffFixture
) -> dict[str, dict[str, str]]:
    """Headers reaching each surface's body parser: an API key, a staff token, a portal
    session cookie (the client keeps it), nothing for the verification interface."""
    response = await client.post(
        "/v1/login-sessions",
        json={"email": "owner@example.test", "externalRef": "text-walk"},
        headers=tenant.headers,
    )
    assert response.status_code == 201, response.text
    token = response.json()["loginUrl"].rsplit("/", 1)[1]
    assert (await client.post("/portal/login/" + token)).status_code == 303
    # Sandbox routes answer only a sandbox tenant's key (docs/sandbox.md).
    sandbox = await create_tenant(runtime, "Sandbox", environment="sandbox")
    key = await create_api_key(runtime, str(sandbox["tenantId"]), "test", list(ALL_SCOPES))
    remember(str(key["apiKey"]))
    # Sandbox routes of the verification interface: a sandbox client's HTTP Basic.
    made = await client.post(
        "/staff/v1/verification/clients",
        json={"name": "Sandbox client", "sandbox": True},
        headers=staff.headers,
    )
    assert made.status_code == 201, made.text
    pair = f"{made.json()['clientUuid']}:{made.json()['clientSecret']}"
    remember(made.json()["clientSecret"])
    basic = "Basic " + base64.b64encode(pair.encode()).decode()
    return {
        "/v1/": tenant.headers,
        "/v1/sandbox/": {"Authorization": f"Bearer {key['apiKey']}"},
        "/verify/sandbox/": {"Authorization": basic},
        "/staff/v1/": staff.headers,
        "/portal/api/": {},
        "/verify/": {},
    }


def headers_for(credentials: dict[str, dict[str, str]], template: str) -> dict[str, str]:
    """The credentials of the longest prefix the route's path starts with."""
    prefix = max((p for p in credentials if template.startswith(p)), key=len)
    return {**credentials[prefix], "content-type": "application/json"}


def check_refusal(response: httpx.Response, prefix: str, field: str, char: str) -> None:
    point = f"U+{ord(char):04X}"
    assert response.status_code == 400, (field, response.status_code, response.text)
    body = response.json()
    if prefix == "/verify/":
        assert set(body) == {"message"}
        assert body["message"].startswith(field + " ")
        assert point in body["message"]
        return
    error = body["error"]
    assert error["code"] == "invalid-argument"
    assert error["requestId"] == response.headers["service-request-id"]
    assert error["details"] == [
        {"field": field, "issue": f"contains a control character ({point})"}
    ]


async def test_every_json_route_refuses_nul_in_every_string_field(
    app: FastAPI,
    client: httpx.AsyncClient,
    runtime: Runtime,
    credentials: dict[str, dict[str, str]],
) -> None:
    routes = json_routes(app)
    assert {prefix for prefix in SURFACES if any(p.startswith(prefix) for _, p, _ in routes)} == (
        set(SURFACES)
    )
    before = await row_counts(runtime)
    walked = 0
    for method, template, body in routes:
        prefix = next(p for p in SURFACES if template.startswith(p))
        url = re.sub(r"\{[^}]+\}", "x_1", template)
        paths = string_paths(body)  # a body of numbers and booleans only has none
        for path in paths:
            response = await client.request(
                method,
                url,
                content=encoded(with_value(body, path, "sam\x00ple")),
                headers=headers_for(credentials, template),
            )
            check_refusal(response, prefix, ".".join(path), "\x00")
            walked += 1
    assert walked >= 40
    assert await row_counts(runtime) == before


@pytest.mark.parametrize("char", REFUSED, ids=lambda c: f"U+{ord(c):04X}")
async def test_every_refused_character_in_every_json_route(
    app: FastAPI,
    client: httpx.AsyncClient,
    runtime: Runtime,
    credentials: dict[str, dict[str, str]],
    char: str,
) -> None:
    before = await row_counts(runtime)
    for method, template, body in json_routes(app):
        prefix = next(p for p in SURFACES if template.startswith(p))
        url = re.sub(r"\{[^}]+\}", "x_1", template)
        paths = string_paths(body)
        if not paths:
            continue  # a body of numbers and booleans only
        path = paths[-1]
        response = await client.request(
            method,
            url,
            content=encoded(with_value(body, path, "a" + char)),
            headers=headers_for(credentials, template),
        )
        check_refusal(response, prefix, ".".join(path), char)
    assert await row_counts(runtime) == before


async def test_raw_control_characters_and_keys_are_named_too(
    client: httpx.AsyncClient, tenant: TenantFixture, runtime: Runtime
) -> None:
    before = await row_counts(runtime)
    # An unescaped control character inside a JSON string (not valid JSON) still names
    # its field.
    raw = b'{"email": "a@example.test", "companyName": "Ac\x01me"}'
    response = await client.post(
        "/v1/applications",
        content=raw,
        headers={**tenant.headers, "content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == [
        {"field": "companyName", "issue": "contains a control character (U+0001)"}
    ]
    # A key with a control character is named by the object that holds it.
    response = await client.post(
        "/v1/applications",
        content=encoded({"email": "a@example.test", "comp\x00any": "x"}),
        headers={**tenant.headers, "content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == [
        {"field": "body", "issue": "contains a name with a control character (U+0000)"}
    ]
    assert await row_counts(runtime) == before


async def test_line_breaks_pass_in_free_text_only(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    # A webhook description is free text: tab and line breaks are kept.
    created = await client.post(
        "/v1/webhooks",
        json={
            "url": "https://receiver.example.test/hook",
            "events": ["application.submitted"],
            "description": "line one\r\nline two\twith a tab",
        },
        headers=tenant.headers,
    )
    assert created.status_code == 201, created.text
    assert created.json()["description"] == "line one\r\nline two\twith a tab"
    # Elsewhere a line break is refused like any other control character, once the value is
    # trimmed: at the ends it is white space, and goes.
    refused = await client.post(
        "/v1/webhooks",
        json={"url": "https://receiver.example.test/ho\nok", "events": ["application.submitted"]},
        headers=tenant.headers,
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["details"] == [
        {"field": "url", "issue": "contains a control character (U+000A)"}
    ]
    trimmed = await client.post(
        "/v1/webhooks",
        json={"url": "https://receiver.example.test/hook\n", "events": ["application.submitted"]},
        headers=tenant.headers,
    )
    assert trimmed.status_code == 201, trimmed.text
    assert trimmed.json()["url"] == "https://receiver.example.test/hook"


@pytest.mark.parametrize(
    ("value", "multi_line", "refused"),
    [
        ("plain text é ✓", False, None),
        ("tab\there", False, "\t"),
        ("tab\there", True, None),
        ("a\r\nb", True, None),
        ("a\x0bb", True, "\x0b"),
        ("a\x00b", True, "\x00"),
        ("a\x7fb", True, "\x7f"),
        ("a\x80b", False, "\x80"),
        ("a\xa0b", False, None),  # NO-BREAK SPACE is text
        ("a\u2028b", False, None),
        ("a\ud83db", False, "\ud83d"),
    ],
)
def test_the_rule(value: str, multi_line: bool, refused: str | None) -> None:
    assert refused_char(value, multi_line=multi_line) == refused
