"""The parts of /openapi.json every operation shares (docs/api-reference.md): the error bodies,
the security schemes, the response headers and their descriptions, the contract's names of
path parameters, and the gathering of JSON Schemas into `components`."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter

REF = "#/components/schemas/{model}"

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
        "The scope an operation needs is its `x-required-scope`.",
    },
    "staffToken": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "staff_<id>_<secret>",
        "description": "A staff member's personal token (docs/reference/staff-api.md §1.2), on "
        "/staff/v1 only. The least role an operation needs is its `x-required-role`.",
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
        "(named `__Host-gatehouse_session` when the server's PUBLIC_URL is https) "
        "(docs/reference/portal.md §3). A POST whose `Origin` header is not the server's own "
        "origin (`null` included) is 403 permission-denied (docs/reference/portal.md §6).",
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


def header_ref(name: str, required: bool | None = None) -> dict[str, Any]:
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
    "staff_id": "staffId",
    "token_id": "tokenId",
    "key_id": "keyId",
    "hit_id": "hitId",
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
    "tokenId": "stk_9f8e7d6c5b4a",
    "keyId": "k3y1d0a1b2c3d4e5",
    "hitId": "hit_6d5c4b3a2f1e",
}
_PARAM = re.compile(r"\{([^}:]+)\}")


def document_path(path: str) -> str:
    """The path as the document names it (`{client_id}` becomes `{clientId}`)."""
    return _PARAM.sub(lambda m: "{" + PATH_NAMES.get(m.group(1), m.group(1)) + "}", path)


# -- schemas ------------------------------------------------------------------------------------


class Schemas:
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
