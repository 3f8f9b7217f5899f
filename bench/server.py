"""The benchmark's server entry point: the product app plus one bench-only route.

Run by `bench/run.py` as a separate process, exactly like `gatehouse serve
--no-worker` (same uvicorn options), except that the ASGI factory is this
module's, which adds `GET /bench/baseline` when GATEHOUSE_BENCH_BASELINE=1.
The baseline is a trivial JSON route behind the same middleware, settings and
server stack, so the ratio of a scenario to it measures Gatehouse's own work.
The route is never part of the product.
"""

from __future__ import annotations

import argparse
import os

from fastapi import FastAPI
from starlette.responses import Response

from gatehouse import server
from gatehouse.http.dependencies import ReadApplications
from gatehouse.http.responses import JSONResponse
from gatehouse.settings import Settings
from gatehouse.storage.migrate import upgrade

BASELINE_PATH = "/bench/baseline"
AUTHENTICATED_PATH = "/v1/bench/authenticated"


def add_baseline_route(app: FastAPI) -> None:
    """A trivial JSON route served by the same stack (ASGI app, middleware, orjson).

    Also a trivial *authenticated* `/v1` route (per-IP limit, API key, per-key
    limit, scope, no database work), which splits a scenario's cost into the
    tenant API's fixed part and the route's own.
    """

    @app.get(BASELINE_PATH, include_in_schema=False)
    async def baseline() -> Response:
        return JSONResponse({"status": "ok"})

    @app.get(AUTHENTICATED_PATH, include_in_schema=False)
    async def authenticated(principal: ReadApplications) -> Response:
        return JSONResponse({"tenantId": principal.tenant_id})


def asgi_app() -> FastAPI:
    """The product's own factory (as `serve --no-worker` runs it), plus the bench routes."""
    os.environ["GATEHOUSE_SERVE_NO_WORKER"] = "1"
    app = server.asgi_app()
    if os.environ.get("GATEHOUSE_BENCH_BASELINE") == "1":
        add_baseline_route(app)
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve Gatehouse for the benchmark.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    settings = Settings()
    settings.resolved_secret_key()
    upgrade(settings.database_url)
    import uvicorn

    # The same options as `gatehouse serve` (src/gatehouse/cli.py).
    uvicorn.run(
        "bench.server:asgi_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_config=None,
        access_log=False,
        proxy_headers=False,
        server_header=False,
        # Spawned workers import the whole app; on this shared, loaded machine that can
        # take longer than uvicorn's 5 s health check, which would restart them forever.
        timeout_worker_healthcheck=60,
    )


if __name__ == "__main__":
    main()
