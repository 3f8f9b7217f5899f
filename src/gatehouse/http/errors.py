"""The error body of spec 1 §7 and the exceptions that produce it.

Every error the service answers, on every surface that speaks JSON errors,
is `{"error": {"code", "message", "requestId", "details"?}}` with
`requestId` equal to the `Service-Request-Id` header.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from fastapi import Request
from starlette.responses import Response

log = logging.getLogger("gatehouse.http")

# (HTTP status, code) pairs used across the service.
INVALID_ARGUMENT = (400, "invalid-argument")
FAILED_PRECONDITION = (400, "failed-precondition")
UNAUTHORIZED = (401, "unauthorized")
PERMISSION_DENIED = (403, "permission-denied")
NOT_FOUND = (404, "not-found")
METHOD_NOT_ALLOWED = (405, "method-not-allowed")
ALREADY_EXISTS = (409, "already-exists")
ABORTED = (409, "aborted")
GONE = (410, "failed-precondition")
PAYLOAD_TOO_LARGE = (413, "invalid-argument")
RESOURCE_EXHAUSTED = (429, "resource-exhausted")
INTERNAL = (500, "internal")


class ApiError(Exception):
    """An error answered with the documented body; carries no secrets."""

    def __init__(
        self,
        kind: tuple[int, str],
        message: str,
        *,
        details: Sequence[Mapping[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code, self.code = kind
        self.message = message
        self.details = [dict(d) for d in details] if details else None
        self.headers = dict(headers) if headers else {}


def invalid_argument(message: str, field: str | None = None, issue: str | None = None) -> ApiError:
    details = [{"field": field, "issue": issue or message}] if field else None
    return ApiError(INVALID_ARGUMENT, message, details=details)


def failed_precondition(message: str) -> ApiError:
    return ApiError(FAILED_PRECONDITION, message)


def not_found(message: str = "Not found.") -> ApiError:
    return ApiError(NOT_FOUND, message)


def permission_denied(message: str) -> ApiError:
    return ApiError(PERMISSION_DENIED, message)


def gone(message: str = "The application was erased.") -> ApiError:
    return ApiError(GONE, message)


def request_id_of(request: Request) -> str:
    return str(getattr(request.state, "request_id", ""))


def error_body(
    code: str, message: str, request_id: str, details: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message, "requestId": request_id}
    if details:
        error["details"] = details
    return {"error": error}


def error_response(
    request: Request,
    status_code: int,
    code: str,
    message: str,
    details: list[dict[str, str]] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    body = error_body(code, message, request_id_of(request), details)
    return Response(
        orjson.dumps(body),
        status_code=status_code,
        media_type="application/json",
        headers=dict(headers or {}),
    )


def _field_path(loc: Sequence[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


def validation_details(errors: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    details = []
    for err in errors:
        loc = err.get("loc", ())
        issue = str(err.get("msg", "invalid value"))
        if err.get("type") == "json_invalid":
            details.append({"field": "body", "issue": "malformed JSON"})
            continue
        details.append({"field": _field_path(loc), "issue": issue})
    return details or [{"field": "body", "issue": "invalid value"}]
