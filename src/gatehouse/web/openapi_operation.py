"""Completing one operation of /openapi.json from its route's `Op` (web/openapi_ops.py) and
its surface (docs/api-reference.md): the security scheme and the scope or role in words, the
query parameters and published path parameter names, the request body, and every answer with
its headers (`Service-Request-Id` always; `RateLimit-*` on `/v1` answers; `Retry-After` on
429; `Idempotency-Key` on `/v1` writes) and the surface's error body.
"""

from __future__ import annotations

import copy
from typing import Any

from gatehouse.web.openapi_components import (
    ERROR_DESCRIPTIONS,
    IDEMPOTENCY_KEY,
    PATH_EXAMPLES,
    PATH_NAMES,
    REF,
    Schemas,
    header_ref,
)
from gatehouse.web.openapi_ops import BINARY, Media, Op

# `x-required-scope` of a tenant operation any scope may call.
ANY_SCOPE = "any"

# What each surface is called in the document, by path prefix.
TENANT = "tenant"
STAFF = "staff"
PORTAL = "portal"
VERIFY = "verify"


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


def complete(
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
    _apply_access(operation, op, surface)
    _apply_parameters(operation, op, surface, write)
    _apply_body(operation, op, schemas)
    operation["responses"] = _responses(op, surface, method, path, schemas)


def _apply_access(operation: dict[str, Any], op: Op, surface: str) -> None:
    """Security from the surface; the scope or role it needs, named in words too."""
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


def _apply_parameters(operation: dict[str, Any], op: Op, surface: str, write: bool) -> None:
    """Path parameters by their published names, the `Op`'s query parameters, and the
    Idempotency-Key header of the tenant API's writes."""
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


def _apply_body(operation: dict[str, Any], op: Op, schemas: Schemas) -> None:
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


def _responses(op: Op, surface: str, method: str, path: str, schemas: Schemas) -> dict[str, Any]:
    """The documented answers, then the error answers the surface and the `Op` name."""
    write = method != "get"
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
        elif isinstance(kind, Media):
            answer["content"] = copy.deepcopy(dict(kind.content))
            if kind.json is not None:
                answer["content"]["application/json"] = {"schema": schemas.of(kind.json)}
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
    return responses
