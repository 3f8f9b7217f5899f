"""The OpenAPI 3.1 document at /openapi.json (docs/api-reference.md).

FastAPI's generator gives the paths, the path parameters and the request bodies that routes
declare with `web/body.py`'s `body_schema` (routes read their bodies themselves, after
authentication, so FastAPI knows no body parameter). Everything else comes from one `Op` per
JSON operation, the decorator of its route function (web/openapi_ops.py): a stable
operationId, a summary, the success answers as the `TypedDict`s the views return (their JSON
Schema from pydantic), the query parameters, the credential and the scope or role it needs,
the errors that can occur, and examples. The surface of a path decides the rest: the security
scheme, the error body, the headers (web/openapi_operation.py).

The shared components are in `openapi_components.py`, the `webhooks` section (every event
type of the catalogue and the verification callback) in `openapi_webhooks.py`, the /docs page
in `openapi_docs.py`; this module names them all for the app.

Nothing here runs per request: the document is built once per app and kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from gatehouse.web import body
from gatehouse.web.openapi_components import (
    ERROR_SCHEMA,
    HEADERS,
    REF,
    SECURITY_SCHEMES,
    VERIFY_ERROR_SCHEMA,
    Schemas,
    document_path,
)
from gatehouse.web.openapi_docs import DOCS_ASSETS, assets_directory, docs_asset, docs_page
from gatehouse.web.openapi_finish import finish
from gatehouse.web.openapi_operation import complete, surface_of, surface_security
from gatehouse.web.openapi_ops import (
    BINARY,
    CURSOR,
    LIMIT,
    PAGE_SIZE,
    Media,
    Op,
    Query,
    declared_operations,
    listing,
    nullable,
    page,
    status_filter,
)
from gatehouse.web.openapi_webhooks import GATEHOUSE_DELIVERY_HEADERS, Webhook, webhook_item

__all__ = [
    "BINARY",
    "CURSOR",
    "DOCS_ASSETS",
    "GATEHOUSE_DELIVERY_HEADERS",
    "LIMIT",
    "METHODS",
    "PAGE_SIZE",
    "Media",
    "Op",
    "Query",
    "Webhook",
    "all_operations",
    "assets_directory",
    "build_document",
    "declared_operations",
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

# Gatehouse's licence (pyproject.toml), as the document states it.
LICENSE = {"name": "Apache-2.0", "identifier": "Apache-2.0"}


def build_document(
    app: FastAPI,
    webhooks: Mapping[str, Webhook],
    *,
    description: str,
) -> dict[str, Any]:
    """The whole document: FastAPI's paths, each completed from the `Op` its route declares
    (web/openapi_ops.py), and `webhooks`."""
    declared = declared_operations(app.routes)
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
            op = declared.get((method.upper(), path))
            if surface is not None and op is not None:
                complete(operation, op, surface, method, path, schemas)
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
