"""The OpenAPI document and the docs page (docs/api-reference.md).

- Every route of a JSON surface (/v1, /staff/v1, /portal/api, /verify) is in the document with
  a stable operationId (never FastAPI's default), a summary, its security, a response schema
  for every JSON answer and the error body for every error; a route added without its `Op`
  beside it (web/openapi_ops.py) fails here.
- Every example conforms to the schema beside it.
- The `webhooks` section covers the whole event catalogue and the verification callback.
- /docs loads nothing from outside the server, and its assets are served.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import httpx
import jsonschema
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from openapi_spec_validator import validate

from gatehouse.domain.event_types import EventType
from gatehouse.web.dispatch import leaf_routes
from gatehouse.web.openapi import METHODS, all_operations, document_path, surface_of

# Routes of a JSON surface that are not API operations: wrong-method answers, the verification
# interface's catch-all and the sign-in link's redemption (a browser form post).
NOT_OPERATIONS = re.compile(r"^/portal/login/|^/verify/\{rest:path\}$")
OPERATION_ID = re.compile(r"^[a-z][A-Za-z0-9]+$")


@pytest.fixture
async def document(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def _json_routes(app: FastAPI) -> set[tuple[str, str]]:
    found = set()
    for route in leaf_routes(app.routes):
        if not isinstance(route, APIRoute) or not route.include_in_schema:
            continue
        if surface_of(route.path) is None or NOT_OPERATIONS.search(route.path):
            continue
        for method in route.methods or ():
            if method.lower() in METHODS:
                found.add((method.lower(), document_path(route.path)))
    return found


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    found: dict[str, Any] = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
    return found


def _validator(document: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Validator:
    root = {**schema, "components": document["components"]}
    return jsonschema.Draft202012Validator(root)


async def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"] == "3.1.0"
    validate(document)


async def test_every_json_route_is_a_complete_operation(
    app: FastAPI, document: dict[str, Any]
) -> None:
    routes = _json_routes(app)
    assert len(routes) > 60
    ids: list[str] = []
    problems = []
    for method, path in sorted(routes):
        operation = document["paths"].get(path, {}).get(method)
        if operation is None:
            problems.append(f"{method} {path}: not in the document")
            continue
        name = f"{method.upper()} {path}"
        operation_id = operation.get("operationId", "")
        ids.append(operation_id)
        if not OPERATION_ID.fullmatch(operation_id) or "_" in operation_id:
            problems.append(f"{name}: operationId {operation_id!r} is a framework default")
        if not operation.get("summary"):
            problems.append(f"{name}: no summary")
        if "security" not in operation:
            problems.append(f"{name}: no security")
        responses = operation.get("responses", {})
        successes = [s for s in responses if s.startswith("2")]
        if not successes:
            problems.append(f"{name}: no success answer")
        for status, answer in responses.items():
            if status == "204":
                continue
            content = answer.get("content")
            if not content or not any(media.get("schema") for media in content.values()):
                problems.append(f"{name}: {status} has no schema")
            if "Service-Request-Id" not in answer.get("headers", {}):
                problems.append(f"{name}: {status} does not name Service-Request-Id")
        if surface_of(path) == "tenant":
            if operation["security"] != [{"apiKey": []}] or not operation.get("x-required-scope"):
                problems.append(f"{name}: no scope")
            if "429" not in responses or "401" not in responses:
                problems.append(f"{name}: 401 or 429 missing")
            if method != "get":
                headers = [p["name"] for p in operation["parameters"] if p["in"] == "header"]
                if "Idempotency-Key" not in headers:
                    problems.append(f"{name}: no Idempotency-Key")
    assert not problems, "\n".join(problems)
    assert len(ids) == len(set(ids)), "operationIds repeat"


# An operationId naming a create: its POST answers 201 (docs/api-reference.md §1).
CREATES = re.compile(r"^(create|add|register|raise|replay|upload|invite)[A-Z]")
# A create that answers 200 by the contract: the verification callback registration replaces
# the one before it (docs/reference/verification.md).
NOT_CREATED = {"registerVerificationCallback"}


def _typed(document: dict[str, Any], schema: dict[str, Any]) -> bool:
    """Whether a schema says what the body holds: an object names its properties."""
    schema = _resolve(document, schema)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return all(_typed(document, part) for part in schema[key])
    if schema.get("type") == "object":
        return bool(schema.get("properties"))
    return bool(schema.get("type"))


async def test_answers_are_typed_with_exact_codes_and_headers(document: dict[str, Any]) -> None:
    """Every success answer has a typed body or is a 204 without one; creates are 201; every
    error carries its surface's error body; /v1 successes name the RateLimit-* headers; every
    path and query parameter is declared with a schema."""
    problems = []
    for method, path, operation in all_operations(document):
        name = f"{method.upper()} {path} ({operation['operationId']})"
        surface = surface_of(path)
        responses = operation["responses"]
        for status, answer in responses.items():
            content = answer.get("content", {})
            if status == "204":
                if content:
                    problems.append(f"{name}: 204 with a body")
            elif status.startswith("2"):
                if not content:
                    problems.append(f"{name}: {status} without a body (204?)")
                for media_type, media in content.items():
                    if not _typed(document, media.get("schema", {})):
                        problems.append(f"{name}: {status} {media_type} is untyped")
                if surface == "tenant":
                    missing = {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"}
                    missing -= set(answer["headers"])
                    if missing:
                        problems.append(f"{name}: {status} lacks {sorted(missing)}")
            else:
                error = "VerifyError" if surface == "verify" else "Error"
                schema = content.get("application/json", {}).get("schema", {})
                if schema != {"$ref": f"#/components/schemas/{error}"}:
                    problems.append(f"{name}: {status} is not the {error} body")
        is_create = CREATES.match(operation["operationId"])
        exempt = operation["operationId"] in NOT_CREATED
        if method == "post" and is_create and not exempt and "201" not in responses:
            problems.append(f"{name}: a create without 201")
        if "201" in responses and method != "post":
            problems.append(f"{name}: 201 on {method.upper()}")
        parameters = operation.get("parameters", [])
        for parameter in parameters:
            if "schema" not in parameter:
                problems.append(f"{name}: parameter {parameter['name']} has no schema")
            if parameter["in"] == "query" and not parameter.get("description"):
                problems.append(f"{name}: query parameter {parameter['name']} undescribed")
        for parameter_name in re.findall(r"\{([^}]+)\}", path):
            if not any(p["in"] == "path" and p["name"] == parameter_name for p in parameters):
                problems.append(f"{name}: path parameter {parameter_name} undeclared")
        if "requestBody" in operation:
            for media_type, media in operation["requestBody"]["content"].items():
                if not _typed(document, media.get("schema", {})):
                    problems.append(f"{name}: request body {media_type} is untyped")
    assert not problems, "\n".join(problems)


def test_the_typed_check_sees_an_untyped_answer() -> None:
    document: dict[str, Any] = {"components": {"schemas": {"Loose": {"type": "object"}}}}
    assert not _typed(document, {"$ref": "#/components/schemas/Loose"})
    assert not _typed(document, {})
    assert not _typed(document, {"anyOf": [{"type": "null"}, {"type": "object"}]})
    assert _typed(document, {"type": "object", "properties": {"a": {"type": "string"}}})
    assert _typed(document, {"type": "string", "format": "binary"})


async def test_security_schemes_and_headers(document: dict[str, Any]) -> None:
    schemes = document["components"]["securitySchemes"]
    assert schemes["apiKey"]["scheme"] == "bearer"
    assert schemes["staffToken"]["scheme"] == "bearer"
    assert schemes["verifyClient"]["scheme"] == "basic"
    create = document["paths"]["/v1/applications"]["post"]
    assert create["operationId"] == "createApplication"
    assert create["security"] == [{"apiKey": []}]
    assert create["x-required-scope"] == "applications:write"
    assert {"200", "201"} <= set(create["responses"])
    ok = create["responses"]["201"]
    assert ok["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Application"
    }
    assert ok["headers"]["RateLimit-Limit"]["required"] is True
    limited = create["responses"]["429"]["headers"]
    assert "Retry-After" in limited  # per key; the per-address 429 has none
    assert document["paths"]["/v1/applications/{clientId}/members/{uid}"]["delete"][
        "responses"
    ].keys() >= {"204"}
    assert document["paths"]["/staff/v1/tenants"]["post"]["security"] == [{"staffToken": []}]
    assert document["paths"]["/staff/v1/tenants"]["post"]["x-required-role"] == "admin"
    assert document["paths"]["/verify/clients/customers/{uuid}"]["get"]["security"] == [
        {"verifyClient": []}
    ]
    assert document["paths"]["/verify/clients/setWebhook/clientAuth"]["post"]["security"] == []
    listing = document["paths"]["/v1/applications"]["get"]
    assert {p["name"] for p in listing["parameters"]} == {
        "limit",
        "cursor",
        "status",
        "externalRef",
        "updatedSince",
    }


async def test_every_paged_answer_takes_limit_and_cursor(document: dict[str, Any]) -> None:
    """A list answering `{data, nextCursor, hasMore}` takes `limit` and `cursor`, and no other
    operation does (docs/reference/staff-api.md §1.5)."""
    paged = set()
    for method, path, operation in all_operations(document):
        media = operation["responses"].get("200", {}).get("content", {}).get("application/json")
        schema = _resolve(document, media["schema"]) if media else {}
        is_page = {"data", "nextCursor", "hasMore"} <= set(schema.get("properties", {}))
        query = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        assert ({"limit", "cursor"} <= query) == is_page, (method, path)
        if is_page:
            paged.add(operation["operationId"])
            example = media.get("example")
            assert example is None or example["nextCursor"] is None, (method, path)
    assert {"listApplications", "listTenants", "listVerificationCallbacks"} <= paged


async def test_request_bodies_come_from_the_models(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    assert set(schemas["ProvisionBody"]["properties"]) == {
        "email",
        "externalRef",
        "companyName",
        "labelId",
    }
    assert "redirectPath" in schemas["LoginSessionBody"]["properties"]
    assert schemas["MemberBody"]["required"] == ["email"]
    body = document["paths"]["/v1/webhooks"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/CreateWebhookBody"
    }


async def test_every_example_conforms_to_its_schema(document: dict[str, Any]) -> None:
    checked = 0
    items = list(document["paths"].items()) + list(document["webhooks"].items())
    for path, item in items:
        for method, operation in item.items():
            media_types = []
            if "requestBody" in operation:
                media_types += list(operation["requestBody"]["content"].values())
            for answer in operation.get("responses", {}).values():
                media_types += list(answer.get("content", {}).values())
            for media in media_types:
                if "example" in media:
                    validator = _validator(document, media["schema"])
                    errors = [e.message for e in validator.iter_errors(media["example"])]
                    assert not errors, (method, path, errors)
                    checked += 1
    assert checked > 60


async def test_every_operation_has_an_example(document: dict[str, Any]) -> None:
    """Each operation shows an example: of its body, of its answer or of its parameters (an
    operation with none of them, such as logout, has nothing to show)."""
    missing = []
    for method, path, operation in all_operations(document):
        places = list(operation.get("requestBody", {}).get("content", {}).values())
        for answer in operation["responses"].values():
            places += list(answer.get("content", {}).values())
        examples = [m for m in places if "example" in m and "$ref" not in m.get("example", {})]
        examples += [p for p in operation.get("parameters", []) if "example" in p]
        has_json = any(
            "application/json" in answer.get("content", {})
            for status, answer in operation["responses"].items()
            if status.startswith("2")
        )
        if not examples and (has_json or operation.get("parameters")):
            missing.append(f"{method.upper()} {path}")
    assert not missing, missing


async def test_webhooks_cover_the_catalogue_and_the_callback(document: dict[str, Any]) -> None:
    hooks = document["webhooks"]
    assert set(hooks) == {str(t) for t in EventType} | {"verification.callback"}
    envelope = document["components"]["schemas"]["EventEnvelope"]
    assert envelope["properties"]["environment"]["enum"] == ["live", "sandbox"]
    assert "environment" in envelope["required"]
    submitted = hooks["application.submitted"]["post"]
    headers = {p["name"] for p in submitted["parameters"]}
    assert {"webhook-id", "webhook-timestamp", "webhook-signature", "Gatehouse-Signature"} <= (
        headers
    )
    schema = submitted["requestBody"]["content"]["application/json"]["schema"]
    assert schema["allOf"][1]["properties"]["type"] == {"const": "application.submitted"}
    # What the receiver's answer means: 410 disables the endpoint; a test send and a callback
    # have no such rule.
    assert set(submitted["responses"]) == {"2XX", "410", "default"}
    assert set(hooks["webhook.test"]["post"]["responses"]) == {"2XX", "default"}
    assert "never retried" in hooks["webhook.test"]["post"]["responses"]["default"]["description"]
    assert "POST /v1/webhooks/{id}/test" in hooks["webhook.test"]["post"]["description"]
    assert set(hooks["verification.callback"]["post"]["responses"]) == {"2XX", "default"}
    callback = hooks["verification.callback"]["post"]["requestBody"]["content"]
    properties = _resolve(document, callback["application/json"]["schema"])["properties"]
    assert set(properties) == {
        "id",
        "uuid",
        "email",
        "phone",
        "newStatus",
        "updatedAt",
        "event",
        "expiryWarningFor",
        "passphrase",
    }


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.urls.append(value)
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.inline.append(data)


async def test_docs_page_loads_nothing_from_outside(client: httpx.AsyncClient) -> None:
    page = await client.get("/docs")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    links = _Links()
    links.feed(page.text)
    assert links.urls, "the page names its assets"
    for url in links.urls:
        assert url.startswith("/"), url
        assert not url.startswith("//"), url
        asset = await client.get(url)
        assert asset.status_code == 200, url
        assert len(asset.content) > 100
    script = "\n".join(links.inline)
    assert not re.search(r"https?://", script), "the inline script names an outside URL"
    assert "'/openapi.json'" in script
    assert '"validatorUrl": null' in script  # no badge fetched from the public validator
    assert '"persistAuthorization": true' in script
    missing = await client.get("/docs/assets/elsewhere.js")
    assert missing.status_code == 404
