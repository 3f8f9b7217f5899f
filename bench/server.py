"""The benchmark's server entry point: one app, served by uvicorn or granian.

Run by `bench/run.py` as a separate process:

    python bench/server.py --app gatehouse --server uvicorn --workers 1 --port N
    python bench/server.py --app bare --server granian --workers 2 --port N

`--app gatehouse` serves bench/product.py (the product's own factory, as
`gatehouse serve --no-worker` runs it, plus bench-only routes), after the same
start-up steps as `gatehouse serve` (settings, secret key, migrations).
`--app bare` serves bench/bare.py, a one-route FastAPI app with no Gatehouse
code, with the same server, options and number of processes.

uvicorn runs with the options of `gatehouse serve` (src/gatehouse/cli.py).
granian runs its ASGI interface (with lifespan) with the nearest options:
uvloop, HTTP/1, no access log, one runtime thread per worker.

This module imports no Gatehouse code at import time, so that the bare app's
processes hold FastAPI alone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path, where bench/queue.py and
# bench/profile.py would shadow the standard library's modules of those names.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH]

BASELINE_PATH = "/bench/baseline"
AUTHENTICATED_PATH = "/v1/bench/authenticated"
PID_PATH = "/bench/pid"
SLOW_PATH = "/bench/slow"

SERVERS = ("uvicorn", "granian")
APPS = {
    "gatehouse": "bench.product:asgi_app",
    "bare": "bench.bare:create_app",
}


def serve_uvicorn(target: str, host: str, port: int, workers: int) -> None:
    import uvicorn

    # The same options as `gatehouse serve` (src/gatehouse/cli.py).
    uvicorn.run(
        target,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_config=None,
        access_log=False,
        proxy_headers=False,
        server_header=False,
        # Spawned workers import the whole app; on a shared, loaded machine that can
        # take longer than uvicorn's 5 s health check, which would restart them forever.
        timeout_worker_healthcheck=60,
    )


def serve_granian(target: str, host: str, port: int, workers: int) -> None:
    from granian import Granian
    from granian.constants import HTTPModes, Interfaces, Loops
    from granian.log import LogLevels

    Granian(
        target,
        address=host,
        port=port,
        interface=Interfaces.ASGI,  # ASGI with lifespan ("asginl" would skip it)
        workers=workers,
        factory=True,
        loop=Loops.uvloop,
        http=HTTPModes.http1,
        log_level=LogLevels.warning,
        log_access=False,
        # A worker that has not stopped 30 s after SIGTERM is killed.
        workers_kill_timeout=30,
    ).serve()


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve an app for the benchmark.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--server", choices=SERVERS, default="uvicorn")
    parser.add_argument("--app", choices=sorted(APPS), default="gatehouse")
    args = parser.parse_args()
    root = str(Path(__file__).resolve().parent.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    if args.app == "gatehouse":
        from gatehouse.settings import Settings
        from gatehouse.storage.migrate import upgrade

        # What `gatehouse serve` does before it starts the server.
        settings = Settings()
        settings.resolved_secret_key()
        upgrade(settings.database_url)
    serve = serve_uvicorn if args.server == "uvicorn" else serve_granian
    serve(APPS[args.app], args.host, args.port, args.workers)


if __name__ == "__main__":
    main()
