"""Background workers run by `gatehouse worker` and, unless --no-worker, by `serve`.

Each area contributes a coroutine function taking the runtime and a stop
event; `run_workers` runs them all until the event is set.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from gatehouse.runtime import Runtime

log = logging.getLogger("gatehouse.workers")

WorkerFn = Callable[[Runtime, asyncio.Event], Awaitable[None]]
# Pause before restarting a worker that crashed, so a persistent fault cannot spin.
RESTART_DELAY_SECONDS = 1.0


def registered_workers() -> list[tuple[str, WorkerFn]]:
    """The workers of every area (imported here so areas stay decoupled)."""
    from gatehouse.sweeps import run_sweeps

    workers: list[tuple[str, WorkerFn]] = [("sweeps", run_sweeps)]
    from gatehouse.verification.delivery import run_callback_worker

    workers.append(("verification_callbacks", run_callback_worker))
    from gatehouse.webhooks.worker import run_delivery_worker

    workers.append(("webhooks", run_delivery_worker))
    return workers


async def run_workers(runtime: Runtime, stop: asyncio.Event) -> None:
    """Run every registered worker until `stop` is set; a crashed worker is restarted."""

    async def guarded(name: str, fn: WorkerFn) -> None:
        while not stop.is_set():
            try:
                await fn(runtime, stop)
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("worker crashed; restarting", extra={"worker": name})
                await asyncio.sleep(RESTART_DELAY_SECONDS)

    await asyncio.gather(*(guarded(name, fn) for name, fn in registered_workers()))
