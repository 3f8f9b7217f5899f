"""The OpenAPI 3.1 document at /openapi.json and the offline docs page at /docs
(docs/api-reference.md).

FastAPI's generator gives the paths, the path parameters and the request bodies that routes
declare with `web/body.py`'s `body_schema` (routes read their bodies themselves, after
authentication, so FastAPI knows no body parameter). Everything else comes from one `Op` per
JSON operation, kept by each surface in its `openapi.py` beside its routes: a stable
operationId, a summary, the success answers as the `TypedDict`s the views return (their JSON
Schema from pydantic), the query parameters, the credential and the scope or role it needs,
the errors that can occur, and examples. The surface of a path decides the rest: the security
scheme, the error body, the headers (`Service-Request-Id` always; `RateLimit-*` on `/v1`
answers; `Retry-After` on 429; `Idempotency-Key` on `/v1` writes).

The `webhooks` section describes every event type of the catalogue (envelope and `data`) and
the verification callback, from the same `TypedDict`s.

Nothing here runs per request: the document is built once per app and kept.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, TypeAdapter
from starlette.responses import HTMLResponse

from gatehouse.web import body

REF = "#/components/schemas/{model}"
METHODS = ("get", "put", "post", "patch", "delete")

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


# -- components shared by every operation --------------------------------------------------

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Every error of /v1, /staff/v1 and /portal/api (docs/reference/README.md §2.3).",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "requestId"],
            "properties": {
                "code": {
                    "type": "string",
                    "description": "Machine-readable; branch on it and the HTTP status.",
                    "examples": ["invalid-argument"],
                },
                "message": {"type": "string", "description": "For people; wording may change."},
                "requestId": {"type": "string", "description": "= Service-Request-Id"},
                "details": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["field", "issue"],
                        "properties": {
                            "field": {"type": "string"},
                            "issue": {"type": "string"},
                        },
                    },
                },
            },
        }
    },
}
VERIFY_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Every answer of /verify but a retrieved customer, errors included.",
    "required": ["message"],
    "properties": {"message": {"type": "string"}},
}

SECURITY_SCHEMES: dict[str, Any] = {
    "apiKey": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "service_<keyId>_<secret>",
        "description": "A tenant API key (docs/reference/tenant-api.md §4.2), on /v1 only. "
        "The operation's security lists the scope it needs.",
    },
    "staffToken": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "staff_<id>_<secret>",
        "description": "A staff member's personal token (docs/reference/staff-api.md §1.2), on "
        "/staff/v1 only. The operation's security lists the least role it needs.",
    },
    "verifyClient": {
        "type": "http",
        "scheme": "basic",
        "description": "A verification client: clientUuid:clientSecret "
        "(docs/reference/verification.md).",
    },
    "portalSession": {
        "type": "apiKey",
        "in": "cookie",
        "name": "gatehouse_session",
        "description": "The applicant's portal session, started by a sign-in link "
        "(docs/reference/portal.md §3).",
    },
}

HEADERS: dict[str, Any] = {
    "ServiceRequestId": {
        "description": "Names this one response (req_…); quote it when asking an operator.",
        "required": True,
        "schema": {"type": "string"},
    },
    "RateLimitLimit": {
        "description": "Requests allowed per window for this API key.",
        "schema": {"type": "integer"},
    },
    "RateLimitRemaining": {
        "description": "Requests left in the current window.",
        "schema": {"type": "integer"},
    },
    "RateLimitReset": {
        "description": "Seconds until the window resets.",
        "schema": {"type": "integer"},
    },
    "RetryAfter": {
        "description": "Seconds to wait before trying again.",
        "schema": {"type": "integer"},
    },
    "IdempotentReplayed": {
        "description": "`true` when this answer is the stored answer of an earlier request "
        "with the same Idempotency-Key.",
        "schema": {"type": "string", "enum": ["true"]},
    },
}

IDEMPOTENCY_KEY: dict[str, Any] = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "At most 255 printable ASCII characters. A repeat with the same key and the "
    "same request within 24 h replays the stored answer (docs/reference/tenant-api.md §4.6).",
    "schema": {"type": "string", "maxLength": 255, "pattern": "^[\\x20-\\x7e]*$"},
}

ERROR_DESCRIPTIONS = {
    400: "Invalid argument (malformed JSON, a wrong field, an unknown query parameter) or "
    "failed precondition.",
    401: "Missing or invalid credentials.",
    403: "Permission denied: the scope or role, a suspended tenant, a locked application.",
    404: "Not found (another tenant's resource looks the same as none).",
    409: "Aborted (a request with the same Idempotency-Key is still running, Retry-After: 1) "
    "or already exists.",
    410: "The application was erased (failed-precondition).",
    413: "The body is larger than the surface allows.",
    415: "The body's media type is not one this route takes.",
    503: "Temporarily unavailable (a dependency such as the virus scanner); try again later.",
    429: "Resource exhausted: the per-key limit (with Retry-After) or the per-address limit "
    "(without it).",
}


def _header_ref(name: str, required: bool | None = None) -> dict[str, Any]:
    if required is None:
        return {"$ref": f"#/components/headers/{name}"}
    header: dict[str, Any] = copy.deepcopy(HEADERS[name])
    header["required"] = required
    return header


# -- path parameters: the contract's names, whatever the Python argument is called ---------

PATH_NAMES = {
    "client_id": "clientId",
    "endpoint_id": "id",
    "request_id": "requestId",
    "item_id": "itemId",
    "tenant_id": "tenantId",
    "label_id": "labelId",
    "delivery_id": "deliveryId",
    "document_id": "documentId",
    "customer_uuid": "uuid",
}
# An example of each path parameter, by its name in the document.
PATH_EXAMPLES = {
    "clientId": "app_8f2k1c9d0a7b",
    "uid": "mem_7a1b2c3d4e5f",
    "id": "we_3f9a0b1c2d4e",
    "requestId": "ir_5c1e0f7a2d9b",
    "itemId": "itm_0f1e2d3c4b5a",
    "tenantId": "ten_4d3c2b1a0f9e",
    "labelId": "lbl_2b7d9e1f0c3a",
    "deliveryId": "dlv_9e8d7c6b5a4f",
    "documentId": "doc_1a2b3c4d5e6f",
    "uuid": "0b5f1c3e-8a52-4e1b-9d7e-2f4a6c8e0b13",
    "staffId": "stf_1a2b3c4d5e6f",
    "tokenId": "tok_9f8e7d6c5b4a",
    "keyId": "k3y1d0a1b2c3d4e5",
}
_PARAM = re.compile(r"\{([^}:]+)\}")


def document_path(path: str) -> str:
    """The path as the document names it (`{client_id}` becomes `{clientId}`)."""
    return _PARAM.sub(lambda m: "{" + PATH_NAMES.get(m.group(1), m.group(1)) + "}", path)


# -- building ---------------------------------------------------------------------------------


class _Schemas:
    """JSON Schemas of TypedDicts and models, their definitions gathered as components."""

    def __init__(self, components: dict[str, Any]) -> None:
        self.components = components

    def of(self, kind: Any) -> dict[str, Any]:
        if isinstance(kind, Mapping):
            return dict(kind)
        schema: dict[str, Any] = TypeAdapter(kind).json_schema(
            ref_template=REF, mode="serialization"
        )
        for name, definition in schema.pop("$defs", {}).items():
            self.components.setdefault(name, definition)
        name = getattr(kind, "__name__", None)
        if name and schema.get("type") == "object":
            self.components.setdefault(name, schema)
            return {"$ref": REF.format(model=name)}
        return schema


def _response_headers(surface: str, status: int, write: bool) -> dict[str, Any]:
    headers: dict[str, Any] = {"Service-Request-Id": _header_ref("ServiceRequestId")}
    if surface == TENANT and status not in (401, 429):
        required = 200 <= status < 300
        for name, ref in (
            ("RateLimit-Limit", "RateLimitLimit"),
            ("RateLimit-Remaining", "RateLimitRemaining"),
            ("RateLimit-Reset", "RateLimitReset"),
        ):
            headers[name] = _header_ref(ref, required)
        if write and 200 <= status < 300:
            headers["Idempotent-Replayed"] = _header_ref("IdempotentReplayed")
    if status == 429:
        # The per-key limit says when to retry; the per-address limit, checked before
        # anything else, does not (docs/reference/tenant-api.md §4.1).
        headers["Retry-After"] = _header_ref("RetryAfter", False)
    if status == 409 and surface == TENANT:
        headers["Retry-After"] = _header_ref("RetryAfter", False)
    return headers


def _security(surface: str, access: str | None) -> list[dict[str, list[str]]]:
    scopes = [access] if access else []
    if surface == TENANT:
        return [{"apiKey": scopes}]
    if surface == STAFF:
        return [{"staffToken": scopes}]
    if surface == PORTAL:
        return [{"portalSession": []}]
    if access == "none":
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
    schemas: _Schemas,
) -> None:
    write = method != "get"
    operation["operationId"] = op.operation_id
    operation["summary"] = op.summary
    if op.description:
        operation["description"] = op.description
    operation["security"] = _security(surface, op.access)
    if op.access and surface in (TENANT, STAFF):
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
    schemas = _Schemas(components)
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
        "info": generated["info"],
        "servers": [{"url": "/", "description": "This Gatehouse server"}],
        "paths": paths,
        "webhooks": {name: _webhook_item(hook, schemas) for name, hook in webhooks.items()},
        "components": {
            "schemas": components,
            "securitySchemes": SECURITY_SCHEMES,
            "headers": HEADERS,
        },
        "tags": generated.get("tags", []),
    }
    if not document["tags"]:
        document.pop("tags")
    return document


# -- the webhooks section -----------------------------------------------------------------------

GATEHOUSE_DELIVERY_HEADERS: tuple[tuple[str, str], ...] = (
    ("Gatehouse-Event-Id", "The event id."),
    ("Gatehouse-Event-Type", "The event type."),
    ("Gatehouse-Timestamp", "Unix seconds at which this attempt was signed."),
    ("Gatehouse-Attempt", "Attempt number, from 1."),
    ("Gatehouse-Signature", "`v1=<hex HMAC-SHA256 of <timestamp>.<body>>` per active secret."),
    ("webhook-id", "Standard Webhooks: the event id."),
    ("webhook-timestamp", "Standard Webhooks: the same seconds as Gatehouse-Timestamp."),
    (
        "webhook-signature",
        "Standard Webhooks: `v1,<base64 HMAC-SHA256 of <id>.<timestamp>.<body>>` per active "
        "secret that decodes as base64 (docs/reference/webhooks.md §10).",
    ),
)


@dataclass(frozen=True)
class Webhook:
    """One entry of the `webhooks` section: a POST the receiver gets.

    `body` is the TypedDict of the whole body; for an event, `body` is the envelope and
    `data` the TypedDict of its `data`, with `event_type` the envelope's `type`.
    """

    operation_id: str
    summary: str
    body: Any
    data: Any = None
    event_type: str | None = None
    headers: Sequence[tuple[str, str]] = ()
    description: str | None = None
    example: Any = None


def _webhook_item(hook: Webhook, schemas: _Schemas) -> dict[str, Any]:
    envelope = schemas.of(hook.body)
    if hook.data is not None:
        schema: dict[str, Any] = {
            "allOf": [
                envelope,
                {
                    "type": "object",
                    "properties": {
                        "type": {"const": hook.event_type},
                        "data": schemas.of(hook.data),
                    },
                },
            ]
        }
    else:
        schema = envelope
    media: dict[str, Any] = {"schema": schema}
    if hook.example is not None:
        media["example"] = hook.example
    operation: dict[str, Any] = {
        "operationId": hook.operation_id,
        "summary": hook.summary,
        "parameters": [
            {
                "name": name,
                "in": "header",
                "required": name != "webhook-signature",
                "description": text,
                "schema": {"type": "string"},
            }
            for name, text in hook.headers
        ],
        "requestBody": {"required": True, "content": {"application/json": media}},
        "responses": {
            "2XX": {"description": "Received; any 2xx counts as delivered."},
            "default": {"description": "Not received; the delivery is tried again."},
        },
    }
    if hook.description:
        operation["description"] = hook.description
    if not operation["parameters"]:
        operation.pop("parameters")
    return {"post": operation}


# -- the docs page, from packaged assets ------------------------------------------------------

DOCS_ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon.png": "image/png",
}


def assets_directory() -> Path:
    """Swagger UI's files as the fastapi-offline package ships them (no CDN)."""
    import fastapi_offline

    return Path(fastapi_offline.__file__).resolve().parent / "static"


_ASSET_CACHE: dict[str, bytes] = {}


def docs_asset(name: str) -> bytes | None:
    """One of `DOCS_ASSETS`, read once per process; None for any other name."""
    if name not in DOCS_ASSETS:
        return None
    content = _ASSET_CACHE.get(name)
    if content is None:
        content = _ASSET_CACHE[name] = (assets_directory() / name).read_bytes()
    return content


def docs_page(openapi_url: str = "/openapi.json") -> HTMLResponse:
    """Swagger UI on the app's own assets; Authorize keeps the credentials across reloads."""
    return get_swagger_ui_html(
        openapi_url=openapi_url,
        title="Gatehouse API",
        swagger_js_url="/docs/assets/swagger-ui-bundle.js",
        swagger_css_url="/docs/assets/swagger-ui.css",
        swagger_favicon_url="/docs/assets/favicon.png",
        swagger_ui_parameters={
            "dom_id": "#swagger-ui",
            "layout": "BaseLayout",
            "deepLinking": True,
            "persistAuthorization": True,
            "displayOperationId": True,
            "validatorUrl": None,
        },
    )


def schema_of(kind: Any, components: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a TypedDict or model, its definitions added to `components`."""
    return _Schemas(components).of(kind)


def all_operations(document: Mapping[str, Any]) -> Iterable[tuple[str, str, dict[str, Any]]]:
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                yield method, path, item[method]
