"""The outermost ASGI middleware: the first four checks of CONTRACT §1.2.

It gives every response a `Service-Request-Id` (errors, OPTIONS and crashes
included), applies the per-IP limit to `/v1` before anything else (and keeps
the credentials epoch that the same Redis round trip read), answers
OPTIONS with an empty 405, folds a trailing slash, copies the per-key
RateLimit-* headers that authentication recorded, turns an unexpected
exception into the generic 500 body, and records metrics.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gatehouse.http import metrics
from gatehouse.http.client_address import client_address
from gatehouse.http.errors import error_body
from gatehouse.http.key_cache import EPOCH_STATE
from gatehouse.ids import new_id
from gatehouse.logs import REQUEST_ID
from gatehouse.runtime import Runtime

log = logging.getLogger("gatehouse.http")
access_log = logging.getLogger("gatehouse.access")

REQUEST_ID_HEADER = b"service-request-id"


def _is_v1(path: str) -> bool:
    return path == "/v1" or path.startswith("/v1/")


class EdgeMiddleware:
    def __init__(self, app: ASGIApp, runtime: Runtime) -> None:
        self.app = app
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = new_id("req")
        state: dict[str, Any] = scope.setdefault("state", {})
        state["request_id"] = request_id
        token = REQUEST_ID.set(request_id)
        path: str = scope["path"]
        if len(path) > 1 and path.endswith("/"):
            path = path.rstrip("/") or "/"
            scope["path"] = path
            scope["raw_path"] = path.encode()
        status_holder = [500]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_holder[0] = message["status"]
                headers = list(message.get("headers", []))
                headers.append((REQUEST_ID_HEADER, request_id.encode()))
                window = state.get("ratelimit")
                if window is not None and not any(
                    k.lower() == b"ratelimit-limit" for k, _ in headers
                ):
                    headers.extend(
                        (k.lower().encode(), v.encode()) for k, v in window.headers().items()
                    )
                message["headers"] = headers
                state["response_started"] = True
            await send(message)

        try:
            if _is_v1(path):
                address = client_address(scope, self.runtime.settings.trusted_proxy_set)
                check = await self.runtime.limits.hit_ip(address)
                # Read in the same Redis round trip; authentication uses it (key_cache.py).
                state[EPOCH_STATE] = check.credentials_epoch
                if not check.allowed:
                    metrics.RATE_LIMITED.labels(kind="ip").inc()
                    body = error_body(
                        "resource-exhausted", "Too many requests from this address.", request_id
                    )
                    await _send_json(send_with_headers, 429, body)
                    return
            if scope["method"] == "OPTIONS":
                await send_with_headers(
                    {"type": "http.response.start", "status": 405, "headers": []}
                )
                await send_with_headers({"type": "http.response.body", "body": b""})
                return
            await self.app(scope, receive, send_with_headers)
            if state.get("idempotency") is not None and not state.get("idempotency_completed"):
                # The route answered without `respond` (or with a 5xx of its own making):
                # nothing was stored, so free the key for a retry.
                await state["idempotency_release"]()
        except Exception:
            log.exception("unhandled error", extra={"request_id": request_id, "path": path})
            release = state.get("idempotency_release")
            if release is not None:
                try:
                    await release()
                except Exception:
                    log.exception("could not release idempotency record")
            if not state.get("response_started"):
                body = error_body("internal", "Internal error.", request_id)
                await _send_json(send_with_headers, 500, body)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            metrics.observe(scope["method"], template, status_holder[0], started)
            if access_log.isEnabledFor(logging.INFO):
                access_log.info(
                    "%s %s %s",
                    scope["method"],
                    template,
                    status_holder[0],
                    extra={
                        "method": scope["method"],
                        "route": template,
                        "status": status_holder[0],
                        "ms": round((time.perf_counter() - started) * 1000, 2),
                    },
                )
            REQUEST_ID.reset(token)


async def _send_json(send: Send, status: int, body: dict[str, Any]) -> None:
    payload = orjson.dumps(body)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
