"""The documented error body, as an HTTP answer (docs/reference/tenant-api.md §4.4).

Every error the service answers, on every surface that speaks JSON errors, is
`{"error": {"code", "message", "requestId", "details"?}}` with `requestId` equal to the
`Service-Request-Id` header.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from fastapi import Request
from starlette.responses import Response

log = logging.getLogger("gatehouse.http")


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
