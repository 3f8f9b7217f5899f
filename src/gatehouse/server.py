"""The ASGI factory uvicorn imports in each `serve` process."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from gatehouse import logs
from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.workers import run_workers

# How long `serve` waits for its in-process workers to finish in-flight work on shutdown
# (a delivery attempt is bounded by its 10 s timeout).
WORKER_STOP_GRACE_SECONDS = 15.0


def asgi_app() -> FastAPI:
    settings = Settings()
    logs.configure(settings.log_level)
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
