"""The answers the edge writes itself, straight to ASGI `send` (web/edge.py).

Refusals take the shape of the surface they answer for (docs/platform.md, "Text input"
and "Body size"): the error body on `/v1`, `/staff/v1`, `/portal/api` and the operational
routes, `{"message"}` on `/verify`, and a page on the dashboard and the portal's pages.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.types import Send

from gatehouse import metrics
from gatehouse.logs import REQUEST_ID
from gatehouse.web.edge_request import surface_of
from gatehouse.web.errors import error_body
from gatehouse.web.rendering import PAGE_HEADERS, refusal_page

# The portal's upload route names the file in every refusal of an upload, this one included
# (docs/reference/portal.md §7.7).
UPLOAD_ROUTE = "/portal/api/documents"


async def refuse_too_large(send: Send, path: str, limit: int) -> None:
    message = f"The request body is larger than {limit} bytes."
    field = "file" if path == UPLOAD_ROUTE else "body"
    await refuse(send, path, 413, message, field, f"larger than {limit} bytes")


async def refuse(send: Send, path: str, status: int, message: str, field: str, issue: str) -> None:
    """Answer a refusal in the shape of the surface `path` belongs to."""
    surface = surface_of(path)
    if surface == "verify":
        await send_json(send, status, {"message": message})
    elif surface == "page":
        page = refusal_page(status, message)
        await send_raw(send, status, page.encode(), b"text/html; charset=utf-8", PAGE_HEADERS)
    else:
        request_id = REQUEST_ID.get() or ""
        details = [{"field": field, "issue": issue}]
        await send_json(send, status, error_body("invalid-argument", message, request_id, details))


async def refuse_address(send: Send, request_id: str) -> None:
    """The per-IP 429: no RateLimit-* or Retry-After header (docs/platform.md)."""
    metrics.RATE_LIMITED.labels(kind="ip").inc()
    body = error_body("resource-exhausted", "Too many requests from this address.", request_id)
    await send_json(send, 429, body)


async def send_json(send: Send, status: int, body: dict[str, Any]) -> None:
    await send_raw(send, status, orjson.dumps(body), b"application/json")


async def send_raw(
    send: Send,
    status: int,
    payload: bytes,
    content_type: bytes,
    extra: dict[str, str] | None = None,
) -> None:
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(payload)).encode()),
    ]
    headers.extend((k.lower().encode(), v.encode()) for k, v in (extra or {}).items())
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
