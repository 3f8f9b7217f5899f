"""The outermost ASGI middleware: the first checks of docs/reference/tenant-api.md §4.1.

It gives every response a `Service-Request-Id` (errors, OPTIONS and crashes
included), applies the per-IP limit to `/v1` before anything else (and keeps
the credentials epoch that the same Redis round trip read), answers
OPTIONS with an empty 405, folds a trailing slash, refuses control characters
in the path, the query string, the headers the service reads and form bodies
(`web/text.py`), bounds the request body by surface before anything buffers it, copies the
per-key RateLimit-* headers that authentication recorded, turns an unexpected
exception into the generic 500 body, records metrics and writes the access line.

What it reads of the request before routing (surface, body bound, body headers) is in
`web/edge_request.py`, the answers it writes itself (refusals in the shape of the
surface, the per-IP 429, the 500) in `web/edge_answers.py`, and the access line in
`web/edge_access.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from tempfile import SpooledTemporaryFile
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gatehouse import metrics
from gatehouse.domain.numbers import decimal_or_none
from gatehouse.ids import new_id
from gatehouse.limits.credentials import EPOCH_STATE
from gatehouse.limits.ratelimit import ADDRESS_GATE, AddressGate
from gatehouse.logs import REQUEST_ID
from gatehouse.runtime import Runtime
from gatehouse.web.client_address import client_address
from gatehouse.web.edge_access import access_log, log_access
from gatehouse.web.edge_answers import (
    refuse,
    refuse_address,
    refuse_too_large,
    send_json,
)
from gatehouse.web.edge_request import (
    PLAIN_QUERY,
    body_headers,
    body_limit,
    is_page_upload,
    surface_of,
)
from gatehouse.web.errors import error_body
from gatehouse.web.text import (
    check_form_body,
    check_json_body,
    check_request_line_and_headers,
    is_form,
    is_json,
)

log = logging.getLogger("gatehouse.http")

REQUEST_ID_HEADER = b"service-request-id"


class BodyTooLarge(Exception):
    """Raised from `receive` once the body outgrows its bound; the edge answers 413."""


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
        too_large = [False]
        # With Redis the per-IP window of a `/v1` request is counted when first needed
        # (limits/ratelimit.py): by authentication, or at the latest before an answer goes
        # out, which is then replaced by the per-IP 429 if the window is full.
        gate: AddressGate | None = None
        address_refused = [False]
        cancelled = False

        async def deliver(message: Message) -> None:
            if address_refused[0]:
                return  # the rest of an answer the per-IP 429 replaced
            if gate is not None and message["type"] == "http.response.start":
                check = gate.result or await gate.decide()
                if not check.allowed:
                    address_refused[0] = True
                    state.pop("ratelimit", None)
                    await refuse_address(start_and_send, request_id)
                    return
            await start_and_send(message)

        async def start_and_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_holder[0] = message["status"]
                headers = list(message.get("headers", []))
                headers.append((REQUEST_ID_HEADER, request_id.encode()))
                window = state.get("ratelimit")
                if window is not None and not any(
                    k.lower() == b"ratelimit-limit" for k, _ in headers
                ):
                    headers.extend(window.raw_headers())
                message["headers"] = headers
                state["response_started"] = True
            await send(message)

        async def send_from_app(message: Message) -> None:
            # Once the body outgrew its bound, the 413 below is the answer, whatever the
            # route made of the interrupted read.
            if not too_large[0]:
                await deliver(message)

        settings = self.runtime.settings
        content_type, declared = body_headers(scope["headers"])
        limit = body_limit(path, content_type, settings)
        received = [0]

        async def bounded_receive() -> Message:
            if too_large[0]:
                raise BodyTooLarge
            message = await receive()
            if message["type"] == "http.request":
                received[0] += len(message.get("body", b""))
                if received[0] > limit:
                    too_large[0] = True
                    raise BodyTooLarge
            return message

        spools: list[SpooledTemporaryFile[bytes]] = []
        try:
            if path == "/v1" or path.startswith("/v1/"):
                address = client_address(scope, settings.trusted_proxy_set)
                limits = self.runtime.limits
                if limits.redis is not None:
                    gate = state[ADDRESS_GATE] = AddressGate(limits, address)
                else:
                    check = await limits.hit_ip(address)
                    state[EPOCH_STATE] = check.credentials_epoch  # EPOCH_NOT_READ
                    if not check.allowed:
                        await refuse_address(deliver, request_id)
                        return
            if scope["method"] == "OPTIONS":
                await deliver({"type": "http.response.start", "status": 405, "headers": []})
                await deliver({"type": "http.response.body", "body": b""})
                return
            query: bytes = scope.get("query_string", b"")
            problem = check_request_line_and_headers(
                path, b"" if PLAIN_QUERY.fullmatch(query) else query, scope["headers"]
            )
            if problem is not None:
                await refuse(deliver, path, 400, problem.message, problem.field, problem.issue)
                return
            length = decimal_or_none(declared) if declared else 0
            if length is None or length < 0:
                message = "Content-Length must be a number of bytes."
                await refuse(deliver, path, 400, message, "Content-Length", "not a length")
                return
            app_receive: Receive = bounded_receive
            if length > limit and is_page_upload(path, content_type):
                # The portal's page upload routes refuse a declared length over their bound
                # with their own page, translated and beside the file input, before reading
                # anything; should one read all the same, the first read ends in the 413 below.
                async def refused_receive() -> Message:
                    too_large[0] = True
                    raise BodyTooLarge

                await self.app(scope, refused_receive, send_from_app)
                if too_large[0]:
                    raise BodyTooLarge
                return
            if length > limit:
                await refuse_too_large(deliver, path, limit)
                return
            if not content_type:
                pass  # no body to check here (JSON surfaces check theirs in web/body.py)
            elif is_form(content_type):
                # A form is read here (within its bound) and checked as the route will
                # parse it, then handed to the route unchanged.
                # Held in memory up to 1 MiB, then on disk: an upload is never held whole in
                # memory (docs/documents.md §1).
                spooled = await _spool_body(bounded_receive)
                if spooled is None:
                    return  # the client went away
                spools.append(spooled)
                problem = await check_form_body(Headers(scope=scope), _chunks_of(spooled))
                if problem is not None:
                    await refuse(deliver, path, 400, problem.message, problem.field, problem.issue)
                    return
                app_receive = _replay_spool(spooled, receive)
            elif is_json(content_type) and surface_of(path) == "page":
                # JSON posted to a page route (the dashboard's passkey steps): the JSON
                # surfaces check theirs in web/body.py; these routes parse their own.
                json_body = await _read_body(bounded_receive)
                if json_body is None:
                    return
                problem = check_json_body(json_body)
                if problem is not None:
                    await send_json(deliver, 400, {"message": problem.message})
                    return
                app_receive = _replay(json_body, receive)
            await self.app(scope, app_receive, send_from_app)
            if too_large[0]:
                raise BodyTooLarge
            if state.get("idempotency") is not None and not state.get("idempotency_completed"):
                # The route answered without `respond` (or with a 5xx of its own making):
                # nothing was stored, so free the key for a retry.
                await state["idempotency_release"]()
        except BodyTooLarge:
            await _release_idempotency(state)
            if not state.get("response_started"):
                await refuse_too_large(deliver, path, limit)
        except Exception:
            log.exception("unhandled error", extra={"request_id": request_id, "path": path})
            await _release_idempotency(state)
            if not state.get("response_started"):
                body = error_body("internal", "Internal error.", request_id)
                await send_json(deliver, 500, body)
        except asyncio.CancelledError:
            cancelled = True  # the server is stopping this request: no more waiting on Redis
            raise
        finally:
            for spooled in spools:
                spooled.close()
            if gate is not None and gate.result is None and not cancelled:
                # No answer went out (the client left first): the request still counts.
                with contextlib.suppress(Exception):
                    await gate.decide()
            seconds = time.perf_counter() - started
            # A request the per-IP limit refused is never routed, as far as the record goes.
            template: str | None = (
                None if address_refused[0] else getattr(scope.get("route"), "path", None)
            )
            metrics.observe(scope["method"], template or "unmatched", status_holder[0], seconds)
            if access_log.isEnabledFor(logging.INFO):
                log_access(scope["method"], template, path, status_holder[0], seconds, state)
            REQUEST_ID.reset(token)


async def _read_body(receive: Receive) -> bytes | None:
    """The whole body, or None when the client disconnects first."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


# A form body is held in memory up to this size, then on disk (an upload can be 10 MiB).
SPOOL_IN_MEMORY = 1024 * 1024
SPOOL_CHUNK = 64 * 1024


async def _spool_body(receive: Receive) -> SpooledTemporaryFile[bytes] | None:
    """The whole body in a spooled file, or None when the client disconnects first."""
    spooled: SpooledTemporaryFile[bytes]
    spooled = SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115 (the edge closes it)
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            spooled.close()
            return None
        spooled.write(message.get("body", b""))
        if not message.get("more_body", False):
            return spooled


async def _chunks_of(spooled: SpooledTemporaryFile[bytes]) -> AsyncIterator[bytes]:
    spooled.seek(0)
    while chunk := spooled.read(SPOOL_CHUNK):
        yield chunk


def _replay_spool(spooled: SpooledTemporaryFile[bytes], receive: Receive) -> Receive:
    """A `receive` that hands over the spooled body in pieces, then what the client sends."""
    spooled.seek(0)
    ahead = [spooled.read(SPOOL_CHUNK)]
    done = [False]

    async def replay() -> Message:
        if done[0]:
            return await receive()
        chunk = ahead[0]
        ahead[0] = spooled.read(SPOOL_CHUNK)
        done[0] = not ahead[0]
        return {"type": "http.request", "body": chunk, "more_body": not done[0]}

    return replay


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands over `body` once, then what the client sends (disconnect)."""
    handed = [False]

    async def replay() -> Message:
        if not handed[0]:
            handed[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _release_idempotency(state: dict[str, Any]) -> None:
    release = state.get("idempotency_release")
    if release is not None:
        try:
            await release()
        except Exception:
            log.exception("could not release idempotency record")
