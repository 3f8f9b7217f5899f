"""The outermost ASGI middleware: the first checks of docs/reference/tenant-api.md §4.1.

It gives every response a `Service-Request-Id` (errors, OPTIONS and crashes
included), applies the per-IP limit to `/v1` before anything else, answers
OPTIONS with an empty 405, folds a trailing slash, refuses control characters
in the path, the query string, the headers the service reads and form bodies
(`web/text.py`), bounds the request body by surface before anything buffers it, copies the
per-key RateLimit-* headers that authentication recorded, turns an unexpected
exception into the generic 500 body, records metrics and writes the access line.

One request is an `Exchange` (web/edge_exchange.py); the checks are small functions
that each return an answer or None (web/edge_checks.py). What it reads of the request
before routing (surface, body bound, body headers) is in `web/edge_request.py`, the
bodies it reads in `web/edge_bodies.py`, the answers it writes itself (refusals in the
shape of the surface, the per-IP 429, the 500) in `web/edge_answers.py`, and the access
line in `web/edge_access.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from gatehouse import metrics
from gatehouse.limits.ratelimit import ADDRESS_GATE, AddressGate
from gatehouse.runtime import Runtime
from gatehouse.web.client_address import client_address
from gatehouse.web.edge_access import access_log, log_access
from gatehouse.web.edge_answers import refuse_address, refuse_too_large, send_json
from gatehouse.web.edge_checks import Answer, body_answer, first_answer
from gatehouse.web.edge_exchange import BodyTooLarge, Exchange
from gatehouse.web.errors import error_body

log = logging.getLogger("gatehouse.http")


class AddressRefusal(Answer):
    """The per-IP 429 (windows in memory: counted up front)."""

    async def send(self, exchange: Exchange, app: ASGIApp) -> None:
        await refuse_address(exchange.deliver, exchange.request_id)


class EdgeMiddleware:
    def __init__(self, app: ASGIApp, runtime: Runtime) -> None:
        self.app = app
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        exchange = Exchange(scope, receive, send, self.runtime.settings)
        try:
            path = exchange.path
            answer = None
            if path == "/v1" or path.startswith("/v1/"):
                answer = await self.limit_address(exchange)
            if answer is None:
                answer = first_answer(exchange)
            if answer is None and exchange.content_type:
                answer = await body_answer(exchange)
            if answer is not None:
                await answer.send(exchange, self.app)
            else:
                await self.route(exchange)
        except BodyTooLarge:
            await _release_idempotency(exchange.state)
            if not exchange.state.get("response_started"):
                await refuse_too_large(exchange.deliver, exchange.path, exchange.limit)
        except Exception:
            extra = {"request_id": exchange.request_id, "path": exchange.path}
            log.exception("unhandled error", extra=extra)
            await _release_idempotency(exchange.state)
            if not exchange.state.get("response_started"):
                body = error_body("internal", "Internal error.", exchange.request_id)
                await send_json(exchange.deliver, 500, body)
        except asyncio.CancelledError:
            exchange.cancelled = True  # the server is stopping it: no more waiting on Redis
            raise
        finally:
            gate = exchange.gate
            if gate is not None and gate.result is None and not exchange.cancelled:
                # No answer went out (the client left first): the request still counts.
                with contextlib.suppress(Exception):
                    await gate.decide()
            record(exchange)

    async def limit_address(self, exchange: Exchange) -> Answer | None:
        """Windows in memory: the per-IP window now. With Redis: a gate that counts it when
        first needed (limits/ratelimit.py)."""
        address = client_address(exchange.scope, exchange.settings.trusted_proxy_set)
        limits = self.runtime.limits
        if limits.redis is not None:
            exchange.gate = exchange.state[ADDRESS_GATE] = AddressGate(limits, address)
            return None
        check = await limits.hit_ip(address)
        return None if check.allowed else AddressRefusal()

    async def route(self, exchange: Exchange) -> None:
        state = exchange.state
        await self.app(exchange.scope, exchange.app_receive, exchange.send_from_app)
        if exchange.too_large:
            raise BodyTooLarge
        if state.get("idempotency") is not None and not state.get("idempotency_completed"):
            # The route answered without `respond` (or with a 5xx of its own making):
            # nothing was stored, so free the key for a retry.
            await state["idempotency_release"]()


def record(exchange: Exchange) -> None:
    """Metrics and the access line of a finished exchange; then it is closed."""
    seconds = time.perf_counter() - exchange.started
    scope, status = exchange.scope, exchange.status
    # A request the per-IP limit refused is never routed, as far as the record goes.
    template: str | None = (
        None if exchange.address_refused else getattr(scope.get("route"), "path", None)
    )
    metrics.observe(scope["method"], template or "unmatched", status, seconds)
    if access_log.isEnabledFor(logging.INFO):
        log_access(scope["method"], template, exchange.path, status, seconds)
    exchange.close()


async def _release_idempotency(state: dict[str, Any]) -> None:
    release = state.get("idempotency_release")
    if release is not None:
        try:
            await release()
        except Exception:
            log.exception("could not release idempotency record")
