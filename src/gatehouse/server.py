"""The ASGI factory uvicorn imports in each `serve` process, and the HTTP protocol it serves
with (bounds on headers and slow clients, docs/platform.md "Slow and oversized requests")."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from gatehouse import logs
from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.workers import run_workers

# How long `serve` waits for its in-process workers to finish in-flight work on shutdown
# (a delivery attempt is bounded by its 10 s timeout).
WORKER_STOP_GRACE_SECONDS = 15.0

log = logging.getLogger(__name__)


def asgi_app() -> FastAPI:
    settings = Settings()
    logs.configure(settings.log_level)
    GuardedHttpToolsProtocol.header_seconds = settings.http_header_timeout_seconds
    GuardedHttpToolsProtocol.body_seconds = settings.http_body_timeout_seconds
    runtime = Runtime.build(settings)
    app = create_app(settings, runtime)
    _freeze_after_start(app)
    if os.environ.get("GATEHOUSE_SERVE_NO_WORKER") == "1":
        return app
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: FastAPI) -> AsyncIterator[None]:
        stop = asyncio.Event()
        task = asyncio.create_task(run_workers(runtime, stop))
        async with inner(a):
            try:
                yield
            finally:
                # Workers finish what they have in flight (a delivery attempt, a sweep);
                # only what outlasts the grace period is cut.
                stop.set()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(task), WORKER_STOP_GRACE_SECONDS)
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    app.router.lifespan_context = lifespan
    return app


def _freeze_after_start(app: FastAPI) -> None:
    """Once the process has started, keep what it built out of the garbage collector's
    full collections.

    The modules, routes, models and tables of a started process are some 190,000 objects
    that live as long as it does; a full collection walked them all, 50 to 80 ms during
    which no request moved (bench/RESULTS.md). `gc.freeze()` sets them aside, so a full
    collection walks only what requests made since.
    """
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: FastAPI) -> AsyncIterator[None]:
        async with inner(a):
            gc.collect()
            gc.freeze()
            yield

    app.router.lifespan_context = lifespan


# Bounds on what a client may hold before the app sees its request (docs/platform.md,
# "Slow and oversized requests").
MAX_HEADER_BYTES = 32 * 1024  # the request line and headers; 431 beyond
BODY_BYTES_PER_SECOND = 16 * 1024  # a body's deadline grows a second per 16 KiB received
LINGER_SECONDS = 2.0  # after a 431, what the client still sends is read and dropped this long
IDLE, HEADERS, BODY, ANSWERING, REFUSED = "idle", "headers", "body", "answering", "refused"


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol (its `http` setting takes a protocol class) with bounds
    that uvicorn does not have: the header block is at most MAX_HEADER_BYTES (431 beyond),
    headers must arrive within `header_seconds` of the connection or of the request's first
    byte, and a body within `body_seconds` of the headers plus a second per
    BODY_BYTES_PER_SECOND received; a client past a deadline is disconnected. Only the
    parser's callbacks and the asyncio protocol methods are extended. `asgi_app` sets the
    two deadlines from the settings in each process."""

    header_seconds: float = 10.0
    body_seconds: float = 30.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.guard_phase = IDLE
        self.guard_header_bytes = 0
        self.guard_block_bytes = 0
        self.guard_body_bytes = 0
        self.guard_body_start = 0.0
        self.guard_timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._guard_arm(self.header_seconds)  # a connection that sends nothing is closed too

    def data_received(self, data: bytes) -> None:
        if self.transport.is_closing() or self.guard_phase == REFUSED:
            return  # dropped: a refused client's rest is read only so that it sees the 431
        if self.guard_phase == BODY:
            self.guard_body_bytes += len(data)
            budget = self.body_seconds + self.guard_body_bytes / BODY_BYTES_PER_SECOND
            self._guard_arm(self.guard_body_start + budget - self.loop.time())
        else:
            self.guard_header_bytes += len(data)
        super().data_received(data)
        if self.guard_phase in (IDLE, HEADERS) and self.guard_header_bytes > MAX_HEADER_BYTES:
            self._guard_refuse_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._guard_disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        if self.guard_phase == REFUSED:
            return
        super().on_message_begin()
        if self.guard_phase == IDLE:
            self._guard_arm(self.header_seconds)
        self.guard_phase = HEADERS
        self.guard_block_bytes = 0

    def on_url(self, url: bytes) -> None:
        if self.guard_phase != REFUSED:
            self.guard_block_bytes += len(url)
            super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if self.guard_phase != REFUSED:
            self.guard_block_bytes += len(name) + len(value) + 4
            super().on_header(name, value)

    def on_headers_complete(self) -> None:
        if self.guard_phase == REFUSED:
            return
        if self.guard_block_bytes > MAX_HEADER_BYTES:
            # A whole block past the bound that came in one piece.
            self._guard_refuse_headers()
            return
        self.guard_phase = BODY
        self.guard_header_bytes = 0
        self.guard_body_bytes = 0
        self.guard_body_start = self.loop.time()
        self._guard_arm(self.body_seconds)
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if self.guard_phase != REFUSED:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self.guard_phase == REFUSED:
            return
        super().on_message_complete()
        self.guard_phase = ANSWERING
        self._guard_disarm()  # the app's time is not the client's

    def on_response_complete(self) -> None:
        if self.guard_phase == REFUSED:
            return
        super().on_response_complete()
        if self.guard_phase == ANSWERING:
            self.guard_phase = IDLE  # uvicorn's keep-alive timeout closes an idle connection

    def _guard_arm(self, seconds: float) -> None:
        self._guard_disarm()
        self.guard_timer = self.loop.call_later(max(seconds, 0.0), self._guard_expired)

    def _guard_disarm(self) -> None:
        if self.guard_timer is not None:
            self.guard_timer.cancel()
            self.guard_timer = None

    def _guard_expired(self) -> None:
        self.guard_timer = None
        if self.guard_phase != ANSWERING and not self.transport.is_closing():
            if self.guard_phase != REFUSED:
                log.info("slow client disconnected", extra={"phase": self.guard_phase})
            self.transport.close()

    def _guard_refuse_headers(self) -> None:
        message = b"Request header fields too large."
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(message)).encode("ascii") + b"\r\n"
            b"connection: close\r\n\r\n" + message
        )
        # Half-close, and read (and drop) what is still coming for a moment: closing at
        # once with unread bytes would reset the connection before the client reads the 431.
        self.guard_phase = REFUSED
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self._guard_arm(LINGER_SECONDS)
