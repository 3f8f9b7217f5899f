"""The OpenAPI 3.1 document at /openapi.json (docs/api-reference.md).

FastAPI's generator gives the paths, the path parameters and the request bodies that routes
declare with `web/body.py`'s `body_schema` (routes read their bodies themselves, after
authentication, so FastAPI knows no body parameter). Everything else comes from one `Op` per
JSON operation, kept by each surface in its `openapi.py` beside its routes: a stable
operationId, a summary, the success answers as the `TypedDict`s the views return (their JSON
Schema from pydantic), the query parameters, the credential and the scope or role it needs,
the errors that can occur, and examples. The surface of a path decides the rest: the security
scheme, the error body, the headers (`Service-Request-Id` always; `RateLimit-*` on `/v1`
answers; `Retry-After` on 429; `Idempotency-Key` on `/v1` writes).

The shared components are in `openapi_components.py`, the `webhooks` section (every event
type of the catalogue and the verification callback) in `openapi_webhooks.py`, the /docs page
in `openapi_docs.py`; this module names them all for the app.

Nothing here runs per request: the document is built once per app and kept.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel

from gatehouse.web import body
from gatehouse.web.openapi_components import (
    ERROR_DESCRIPTIONS,
    ERROR_SCHEMA,
    HEADERS,
    IDEMPOTENCY_KEY,
    PATH_EXAMPLES,
    PATH_NAMES,
    REF,
    SECURITY_SCHEMES,
    VERIFY_ERROR_SCHEMA,
    Schemas,
    document_path,
    header_ref,
)
from gatehouse.web.openapi_docs import DOCS_ASSETS, assets_directory, docs_asset, docs_page
from gatehouse.web.openapi_finish import finish
from gatehouse.web.openapi_webhooks import GATEHOUSE_DELIVERY_HEADERS, Webhook, webhook_item

__all__ = [
    "BINARY",
    "CURSOR",
    "DOCS_ASSETS",
    "GATEHOUSE_DELIVERY_HEADERS",
    "LIMIT",
    "METHODS",
    "Op",
    "OperationTable",
    "Query",
    "Webhook",
    "all_operations",
    "assets_directory",
    "build_document",
    "docs_asset",
    "docs_page",
    "document_path",
    "listing",
    "nullable",
    "page",
    "schema_of",
    "status_filter",
    "surface_of",
    "surface_security",
]

METHODS = ("get", "put", "post", "patch", "delete")

# `x-required-scope` of a tenant operation any scope may call.
ANY_SCOPE = "any"

# Gatehouse's licence (pyproject.toml), as the document states it.
LICENSE = {"name": "Apache-2.0", "identifier": "Apache-2.0"}

# What each surface is called in the document, by path prefix.
TENANT = "tenant"
STAFF = "staff"
PORTAL = "portal"
VERIFY = "verify"

# A success answer whose body is raw bytes (a document's content), not JSON.
BINARY = object()


@dataclass(frozen=True)
class Query:
    """A query parameter the route reads itself from the query string."""

    name: str
    description: str
    schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "string"})
    required: bool = False


@dataclass(frozen=True)
class Op:
    """What the document says about one operation beyond what FastAPI knows."""

    operation_id: str
    summary: str
    # Success status -> the TypedDict or model of its body; None: no body.
    ok: Mapping[int, Any]
    # Tenant API: the scope; staff API: the least role; verify: "basic" or "none".
    access: str | None = None
    errors: Iterable[int] = ()
    query: Sequence[Query] = ()
    # A request body schema for a route whose decorator declares none.
    body: type[BaseModel] | Mapping[str, Any] | None = None
    body_required: bool = True
    body_media: str = "application/json"
    # Field -> schema, replacing what a loosely typed body model says (`Any`, a plain string
    # where the server takes one of a few values); the route's checks stay as they are.
    body_fields: Mapping[str, Any] = field(default_factory=dict)
    example: Any = None
    answer_example: Any = None
    description: str | None = None
    # Per-status wording for the success answers (e.g. created / repeated).
    ok_descriptions: Mapping[int, str] = field(default_factory=dict)


OperationTable = Mapping[tuple[str, str], Op]


def surface_of(path: str) -> str | None:
    if path == "/v1" or path.startswith("/v1/"):
        return TENANT
    if path.startswith("/staff/v1/"):
        return STAFF
    if path.startswith("/portal/api/"):
        return PORTAL
    if path.startswith("/verify/"):
        return VERIFY
    return None


# -- pieces the surfaces' tables share ------------------------------------------------------

PAGE_SIZE: Mapping[str, Any] = {"type": "integer", "minimum": 1, "maximum": 100}
LIMIT = Query("limit", "Page size, 1 to 100.", PAGE_SIZE)
CURSOR = Query("cursor", "The `nextCursor` of the previous page, with the same filters.")


def status_filter(what: str, values: Iterable[str]) -> Query:
    """`status`: only the `what` (e.g. "deliveries") with one of `values`."""
    return Query(
        "status", f"Only {what} with this status.", {"type": "string", "enum": list(values)}
    )


def nullable(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"anyOf": [dict(schema), {"type": "null"}]}


def page(element: Any) -> dict[str, Any]:
    """The example of a one-element, last page."""
    return {"data": [element], "nextCursor": None, "hasMore": False}


def listing(
    operation_id: str,
    summary: str,
    answer: Any,
    access: str,
    element_example: Any,
    *,
    filters: Sequence[Query] = (),
    paging: Sequence[Query] = (LIMIT, CURSOR),
) -> Op:
    """A paged list: the paging parameters, then `filters`; its example a one-element page."""
    return Op(
        operation_id,
        summary,
        {200: answer},
        access=access,
        query=(*paging, *filters),
        answer_example=page(element_example),
    )


# -- building ---------------------------------------------------------------------------------


def _response_headers(surface: str, status: int, write: bool) -> dict[str, Any]:
    headers: dict[str, Any] = {"Service-Request-Id": header_ref("ServiceRequestId")}
    if surface == TENANT and status not in (401, 429):
        required = 200 <= status < 300
        for name, ref in (
            ("RateLimit-Limit", "RateLimitLimit"),
            ("RateLimit-Remaining", "RateLimitRemaining"),
            ("RateLimit-Reset", "RateLimitReset"),
        ):
            headers[name] = header_ref(ref, required)
        if write and 200 <= status < 300:
            headers["Idempotent-Replayed"] = header_ref("IdempotentReplayed")
    if status == 429:
        # The per-key limit says when to retry; the per-address limit, checked before
        # anything else, does not (docs/reference/tenant-api.md §4.1).
        headers["Retry-After"] = header_ref("RetryAfter", False)
    if status == 409 and surface == TENANT:
        headers["Retry-After"] = header_ref("RetryAfter", False)
    return headers


def surface_security(surface: str | None, access: str | None = None) -> list[dict[str, list[str]]]:
    """The security requirement of an operation of `surface`. The scope or role an operation
    needs is `x-required-scope` / `x-required-role` (linters accept scopes on OAuth schemes
    only, docs/api-reference.md)."""
    if surface == TENANT:
        return [{"apiKey": []}]
    if surface == STAFF:
        return [{"staffToken": []}]
    if surface == PORTAL:
        return [{"portalSession": []}]
    if surface is None or access == "none":
        return []
    return [{"verifyClient": []}]


def _default_errors(surface: str, method: str, path: str, access: str | None) -> set[int]:
    write = method != "get"
    errors = {400}
    if surface == VERIFY:
        errors.add(401)
        if "{" in path or access != "none":
            errors.add(404)
        return errors
    errors |= {401, 403}
    if "{" in path:
        errors.add(404)
    if write:
        errors.add(413)
    if surface == TENANT:
        errors.add(429)
        if write:
            errors.add(409)
    return errors


def _apply(
    operation: dict[str, Any],
    op: Op,
    surface: str,
    method: str,
    path: str,
    schemas: Schemas,
) -> None:
    write = method != "get"
    operation["operationId"] = op.operation_id
    operation["summary"] = op.summary
    if op.description:
        operation["description"] = op.description
    operation["security"] = surface_security(surface, op.access)
    if surface == TENANT and not op.access:
        # Any scope will do (docs/reference/tenant-api.md §4.3).
        operation["x-required-scope"] = ANY_SCOPE
        operation["description"] = (
            operation.get("description", "") + "\n\nAny scope will do."
        ).strip()
    if op.access and surface in (TENANT, STAFF):
        operation["x-required-scope" if surface == TENANT else "x-required-role"] = op.access
        needs = "scope" if surface == TENANT else "role (or higher)"
        operation["description"] = (
            operation.get("description", "") + f"\n\nNeeds the `{op.access}` {needs}."
        ).strip()
    parameters = [p for p in operation.get("parameters", []) if p.get("in") != "query"]
    for parameter in parameters:
        if parameter.get("in") == "path":
            parameter["name"] = PATH_NAMES.get(parameter["name"], parameter["name"])
            parameter["schema"] = {"type": "string", "minLength": 1}
            if parameter["name"] in PATH_EXAMPLES:
                parameter["example"] = PATH_EXAMPLES[parameter["name"]]
    for query in op.query:
        parameters.append(
            {
                "name": query.name,
                "in": "query",
                "required": query.required,
                "description": query.description,
                "schema": dict(query.schema),
            }
        )
    if surface == TENANT and write:
        parameters.append(copy.deepcopy(IDEMPOTENCY_KEY))
    if parameters:
        operation["parameters"] = parameters
    else:
        operation.pop("parameters", None)
    if op.body is not None:
        operation["requestBody"] = {
            "required": op.body_required,
            "content": {op.body_media: {"schema": schemas.of(op.body)}},
        }
    if op.body_fields and "requestBody" in operation:
        for body_media in operation["requestBody"]["content"].values():
            ref = body_media["schema"].get("$ref", "")
            target = schemas.components.get(ref.rsplit("/", 1)[-1])
            if target is not None:
                properties = target.setdefault("properties", {})
                for name, schema in op.body_fields.items():
                    kept = {k: v for k, v in properties.get(name, {}).items() if k == "title"}
                    properties[name] = {**kept, **schemas.of(schema)}
    if op.example is not None and "requestBody" in operation:
        for request_media in operation["requestBody"]["content"].values():
            request_media["example"] = op.example
    responses: dict[str, Any] = {}
    for status, kind in sorted(op.ok.items()):
        answer: dict[str, Any] = {
            "description": op.ok_descriptions.get(status, "Success."),
            "headers": _response_headers(surface, status, write),
        }
        if kind is BINARY:
            answer["content"] = {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
            }
        elif kind is not None:
            media: dict[str, Any] = {"schema": schemas.of(kind)}
            if op.answer_example is not None:
                media["example"] = op.answer_example
            answer["content"] = {"application/json": media}
        responses[str(status)] = answer
    error_ref = REF.format(model="VerifyError" if surface == VERIFY else "Error")
    for status in sorted(_default_errors(surface, method, path, op.access) | set(op.errors)):
        responses[str(status)] = {
            "description": ERROR_DESCRIPTIONS.get(status, "Error."),
            "headers": _response_headers(surface, status, write),
            "content": {"application/json": {"schema": {"$ref": error_ref}}},
        }
    operation["responses"] = responses


def build_document(
    app: FastAPI,
    operations: OperationTable,
    webhooks: Mapping[str, Webhook],
    *,
    description: str,
) -> dict[str, Any]:
    """The whole document: FastAPI's paths, completed from `operations`, and `webhooks`."""
    generated = get_openapi(
        title=app.title,
        version=app.version,
        openapi_version="3.1.0",
        description=description,
        routes=app.routes,
    )
    components: dict[str, Any] = {}
    schemas = Schemas(components)
    for name, model in body.SCHEMAS.items():
        schema = model.model_json_schema(ref_template=REF)
        for def_name, definition in schema.pop("$defs", {}).items():
            components.setdefault(def_name, definition)
        components[name] = schema
    components["Error"] = ERROR_SCHEMA
    components["VerifyError"] = VERIFY_ERROR_SCHEMA
    paths: dict[str, Any] = {}
    for path, item in generated.get("paths", {}).items():
        surface = surface_of(path)
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            op = operations.get((method.upper(), path))
            if surface is not None and op is not None:
                _apply(operation, op, surface, method, path, schemas)
            else:
                operation.get("responses", {}).pop("422", None)
        paths[document_path(path)] = item
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {**generated["info"], "license": LICENSE},
        "servers": [{"url": "/", "description": "This Gatehouse server"}],
        "paths": paths,
        "webhooks": {name: webhook_item(hook, schemas) for name, hook in webhooks.items()},
        "components": {
            "schemas": components,
            "securitySchemes": SECURITY_SCHEMES,
            "headers": HEADERS,
        },
    }
    return finish(document, surface_of, surface_security)


def schema_of(kind: Any, components: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a TypedDict or model, its definitions added to `components`."""
    return Schemas(components).of(kind)


def all_operations(document: Mapping[str, Any]) -> Iterable[tuple[str, str, dict[str, Any]]]:
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                yield method, path, item[method]
