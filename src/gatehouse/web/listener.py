"""The HTTP listener of `gatehouse worker --metrics-port` (docs/operations.md, "Worker
metrics"): `GET /metrics` (Prometheus text format), `/healthz` and `/readyz` (as `serve`
answers them, web/readiness.py), nothing else.

A worker serves no application, so this is a bare asyncio server on the worker's own event
loop: one GET per connection, a request head of at most MAX_HEAD bytes read within
READ_TIMEOUT_SECONDS, no body. Bind it to a private address (the default is 127.0.0.1):
it has no authentication, like serve's /metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import orjson

from gatehouse import metrics
from gatehouse.runtime import Runtime
from gatehouse.web.readiness import liveness, readiness

log = logging.getLogger("gatehouse.workers")

MAX_HEAD = 8192
READ_TIMEOUT_SECONDS = 5.0
_REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    503: "Service Unavailable",
}


class MetricsListener:
    """Serves /metrics, /healthz and /readyz for one runtime until `close`."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> tuple[str, int]:
        """Listen on host:port; the address actually bound (port 0 picks a free one)."""
        self._server = await asyncio.start_server(self._serve, host, port, limit=MAX_HEAD)
        bound = self._server.sockets[0].getsockname()
        return str(bound[0]), int(bound[1])

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(READ_TIMEOUT_SECONDS):
                head = await reader.readuntil(b"\r\n\r\n")
            status, content_type, body = await self._answer(head)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            status, content_type, body = 400, "text/plain", b"bad request\n"
        except Exception:
            log.exception("the metrics listener failed to answer")
            status, content_type, body = 503, "text/plain", b"unavailable\n"
        try:
            writer.write(
                f"HTTP/1.1 {status} {_REASONS.get(status, 'OK')}\r\n"
                f"Content-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\n"
                "Cache-Control: no-store\r\n"
                "Connection: close\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(self, head: bytes) -> tuple[int, str, bytes]:
        method, _, rest = head.split(b"\r\n", 1)[0].decode("latin-1").partition(" ")
        path = rest.partition(" ")[0].partition("?")[0]
        if path not in ("/metrics", "/healthz", "/readyz"):
            return 404, "text/plain", b"not found\n"
        if method != "GET":
            return 405, "text/plain", b"method not allowed\n"
        if path == "/metrics":
            return 200, metrics.CONTENT_TYPE, metrics.exposition()
        if path == "/healthz":
            code, answer = await liveness(self.runtime)
            return code, "application/json", orjson.dumps(answer)
        found = await readiness(self.runtime)
        return found.status_code, "application/json", orjson.dumps(found.body())
