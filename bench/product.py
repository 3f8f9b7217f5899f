"""The product app as the benchmark serves it: Gatehouse's own factory plus bench-only routes.

`bench/server.py --app gatehouse` serves `asgi_app` exactly as `gatehouse serve
--no-worker` serves `gatehouse.server:asgi_app`; with GATEHOUSE_BENCH_BASELINE=1
it adds routes that are never part of the product:

- `GET /bench/baseline`: trivial JSON behind the same middleware (the edge),
  settings and server stack. The ratio of a scenario to it measures
  Gatehouse's own work on top of its stack; its ratio to the bare FastAPI app
  (bench/bare.py) measures the edge itself.
- `GET /v1/bench/authenticated`: a trivial *authenticated* `/v1` route (per-IP
  limit, API key, per-key limit, scope; no database work beyond the key lookup,
  which the key cache usually answers), the tenant API's fixed cost.
- `GET /bench/pid` and `GET /bench/slow?ms=N`: which process answered, and an
  answer that takes N ms, for the server checks (several workers, graceful
  shutdown). Not measured.

It also writes one line to stderr when each process's lifespan starts and ends
("bench-lifespan startup pid=N" / "... shutdown pid=N"), so that the benchmark
can check from the server's log that the server ran both halves in every worker.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from starlette.responses import Response

from bench.server import AUTHENTICATED_PATH, BASELINE_PATH, PID_PATH, SLOW_PATH
from gatehouse import server
from gatehouse.web.dependencies import read_access
from gatehouse.web.responses import JSONResponse

LIFESPAN_MARK = "bench-lifespan"


def add_bench_routes(app: FastAPI) -> None:
    @app.get(BASELINE_PATH, include_in_schema=False)
    async def baseline() -> Response:
        return JSONResponse({"status": "ok"})

    @app.get(AUTHENTICATED_PATH, include_in_schema=False)
    async def authenticated(request: Request) -> Response:
        # Access checked exactly as the product's read and list routes check it
        # (api/applications.py): a plain call to `read_access`, not a dependency.
        principal = await read_access(request)
        return JSONResponse({"tenantId": principal.tenant_id})

    @app.get(PID_PATH, include_in_schema=False)
    async def pid() -> Response:
        return JSONResponse({"pid": os.getpid()})

    @app.get(SLOW_PATH, include_in_schema=False)
    async def slow(ms: int = 1000) -> Response:
        await asyncio.sleep(min(ms, 30_000) / 1000)
        return JSONResponse({"sleptMs": ms})


def mark_lifespan(app: FastAPI) -> None:
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: FastAPI) -> AsyncIterator[None]:
        async with inner(a):
            print(f"{LIFESPAN_MARK} startup pid={os.getpid()}", file=sys.stderr, flush=True)
            try:
                yield
            finally:
                print(f"{LIFESPAN_MARK} shutdown pid={os.getpid()}", file=sys.stderr, flush=True)

    app.router.lifespan_context = lifespan


def asgi_app() -> FastAPI:
    """The product's own factory (as `serve --no-worker` runs it), plus the bench routes."""
    os.environ["GATEHOUSE_SERVE_NO_WORKER"] = "1"
    app = server.asgi_app()
    if os.environ.get("GATEHOUSE_BENCH_BASELINE") == "1":
        add_bench_routes(app)
        mark_lifespan(app)
    return app
