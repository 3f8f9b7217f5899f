"""The ASGI factory uvicorn imports in each `serve` process."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from gatehouse import logs
from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.workers import run_workers


def asgi_app() -> FastAPI:
    settings = Settings()
    logs.configure(settings.log_level)
    runtime = Runtime.build(settings)
    app = create_app(settings, runtime)
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
                stop.set()
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    app.router.lifespan_context = lifespan
    return app
