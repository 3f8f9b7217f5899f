"""Background workers run by `gatehouse worker` and, unless --no-worker, by `serve`.

Each area contributes a coroutine function taking the runtime and a stop
event; `run_workers` runs them all until the event is set, samples the queue and
pool gauges of /metrics meanwhile (docs/operations.md, "Worker metrics"), and closes
the process's outbound HTTP client once every worker has stopped (an attempt still in
flight in one worker is never cut by another worker stopping first).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable

from gatehouse import metrics
from gatehouse.outbound.transport import close_client

# Imported here, by every process that serves or works (app.py imports this module): the
# risk package registers the follow-up that keeps stored levels current
# (storage/follow_ups.py).
from gatehouse.risk import recompute_risk
from gatehouse.runtime import Runtime

log = logging.getLogger("gatehouse.workers")

WorkerFn = Callable[[Runtime, asyncio.Event], Awaitable[None]]
# Pause before restarting a worker that crashed, so a persistent fault cannot spin.
RESTART_DELAY_SECONDS = 1.0
# How often the queue gauges are read from the database (two indexed queries) and the
# pool gauge from the engines.
SAMPLE_SECONDS = 5.0


def registered_workers() -> list[tuple[str, WorkerFn]]:
    """The workers of every area (imported here so areas stay decoupled)."""
    from gatehouse.sweeps import run_sweeps

    workers: list[tuple[str, WorkerFn]] = [("sweeps", run_sweeps)]
    from gatehouse.verification import run_callback_worker

    workers.append(
        (
            "verification_callbacks",
            functools.partial(run_callback_worker, close_client_at_exit=False),
        )
    )
    from gatehouse.webhooks import run_delivery_worker

    workers.append(("webhooks", run_delivery_worker))
    from gatehouse.records import run_sealer

    workers.append(("audit_sealer", run_sealer))
    from gatehouse.screening import run_screening_worker

    workers.append(("screening", functools.partial(run_screening_worker, after=recompute_risk)))
    return workers


async def run_workers(runtime: Runtime, stop: asyncio.Event, *, sample: bool = True) -> None:
    """Run every registered worker until `stop` is set; a crashed worker is restarted.

    With `sample`, the queue and pool gauges are refreshed every SAMPLE_SECONDS.
    """

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

    workers = registered_workers()
    log.info("workers started", extra={"workers": [name for name, _ in workers]})
    sampler = asyncio.create_task(sample_periodically(runtime, stop)) if sample else None
    try:
        await asyncio.gather(*(guarded(name, fn) for name, fn in workers))
    finally:
        if sampler is not None:
            sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sampler
        with contextlib.suppress(Exception):
            await close_client()
        log.info("workers stopped")


async def sample_once(runtime: Runtime) -> None:
    """Refresh the queue gauges of every queue and the pool gauge."""
    from gatehouse.verification import sample_queue as callbacks_queue
    from gatehouse.webhooks import sample_queue as webhooks_queue

    sample_pools(runtime)
    for sample in (webhooks_queue, callbacks_queue):
        try:
            await sample(runtime)
        except Exception:
            log.warning("reading a queue's depth failed", exc_info=True)


def sample_pools(runtime: Runtime) -> None:
    """Connections checked out of each distinct pool of the runtime's database."""
    db = runtime.db
    seen: set[int] = set()
    for name, pool in (
        ("write", db.write_engine.pool),
        ("read", db.read_engine.pool),
        ("fetch", db.fetch_engine.pool),
    ):
        checked_out = getattr(pool, "checkedout", None)
        if id(pool) in seen or checked_out is None:
            continue
        seen.add(id(pool))
        metrics.DB_CONNECTIONS_IN_USE.labels(pool=name).set(checked_out())


async def sample_periodically(runtime: Runtime, stop: asyncio.Event) -> None:
    while not stop.is_set():
        await sample_once(runtime)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), SAMPLE_SECONDS)
