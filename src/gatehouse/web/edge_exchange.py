"""One request as the edge sees it (web/edge.py): what it read, what went out.

An `Exchange` holds what the edge's checks (web/edge_checks.py) read and decide, and the
three channels between the server and the route:

- `deliver`: every message of the answer, which first decides the per-IP window with Redis
  (limits/ratelimit.py) and replaces the answer with the per-IP 429 when the window is full;
- `start_and_send`: adds `Service-Request-Id` and the per-key RateLimit-* headers that
  authentication recorded, then sends;
- `bounded_receive`: the request body, within the bound of its surface (`BodyTooLarge`
  once it outgrows it).
"""

from __future__ import annotations

import time
from contextvars import Token
from tempfile import SpooledTemporaryFile
from typing import Any

from starlette.types import Message, Receive, Scope, Send

from gatehouse.ids import new_id
from gatehouse.limits.ratelimit import AddressGate
from gatehouse.logs import REQUEST_ID
from gatehouse.settings import Settings
from gatehouse.web.edge_answers import refuse_address
from gatehouse.web.edge_request import body_headers, body_limit

REQUEST_ID_HEADER = b"service-request-id"


class BodyTooLarge(Exception):
    """Raised from `receive` once the body outgrows its bound; the edge answers 413."""


def folded(scope: Scope) -> str:
    """The path without a trailing slash (written back into the scope)."""
    path: str = scope["path"]
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
        scope["path"] = path
        scope["raw_path"] = path.encode()
    return path


class Exchange:
    """One HTTP request through the edge; see the module docstring."""

    __slots__ = (
        "address_refused",
        "app_receive",
        "cancelled",
        "content_type",
        "declared",
        "gate",
        "length",
        "limit",
        "path",
        "receive",
        "received",
        "request_id",
        "scope",
        "send",
        "settings",
        "spools",
        "started",
        "state",
        "status",
        "token",
        "too_large",
    )

    def __init__(self, scope: Scope, receive: Receive, send: Send, settings: Settings) -> None:
        self.started = time.perf_counter()
        self.scope, self.receive, self.send, self.settings = scope, receive, send, settings
        self.request_id = new_id("req")
        self.state: dict[str, Any] = scope.setdefault("state", {})
        self.state["request_id"] = self.request_id
        self.token: Token[str | None] = REQUEST_ID.set(self.request_id)
        self.path = folded(scope)
        self.status = 500
        self.too_large = False
        self.address_refused = False
        self.cancelled = False
        # With Redis the per-IP window of a `/v1` request is counted when first needed
        # (limits/ratelimit.py): by authentication, or at the latest before an answer
        # goes out.
        self.gate: AddressGate | None = None
        self.content_type, self.declared = body_headers(scope["headers"])
        self.limit = body_limit(self.path, self.content_type, settings)
        self.length = 0
        self.received = 0
        self.spools: list[SpooledTemporaryFile[bytes]] = []
        self.app_receive: Receive = self.bounded_receive

    async def deliver(self, message: Message) -> None:
        """Send `message` of the answer, unless the per-IP 429 has replaced it."""
        if self.address_refused:
            return  # the rest of an answer the per-IP 429 replaced
        gate = self.gate
        if gate is not None and message["type"] == "http.response.start":
            check = gate.result or await gate.decide()
            if not check.allowed:
                self.address_refused = True
                self.state.pop("ratelimit", None)
                await refuse_address(self.start_and_send, self.request_id)
                return
        await self.start_and_send(message)

    async def start_and_send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            headers = list(message.get("headers", []))
            headers.append((REQUEST_ID_HEADER, self.request_id.encode()))
            window = self.state.get("ratelimit")
            if window is not None and not any(k.lower() == b"ratelimit-limit" for k, _ in headers):
                headers.extend(window.raw_headers())
            message["headers"] = headers
            self.state["response_started"] = True
        await self.send(message)

    async def send_from_app(self, message: Message) -> None:
        # Once the body outgrew its bound, the 413 is the answer, whatever the route made
        # of the interrupted read.
        if not self.too_large:
            await self.deliver(message)

    async def bounded_receive(self) -> Message:
        if self.too_large:
            raise BodyTooLarge
        message = await self.receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                self.too_large = True
                raise BodyTooLarge
        return message

    async def refused_receive(self) -> Message:
        """For a route that must not read its body (declared over its bound)."""
        self.too_large = True
        raise BodyTooLarge

    def close(self) -> None:
        """Close what the exchange holds (spooled bodies) and forget its request id."""
        for spooled in self.spools:
            spooled.close()
        REQUEST_ID.reset(self.token)
