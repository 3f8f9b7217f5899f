"""The screening worker (registered in `gatehouse.workers`): claims due screening jobs and
runs them one after another (docs/screening.md, "Operating it")."""

from __future__ import annotations

import asyncio
import logging
import time

from sqlalchemy import func, select

from gatehouse.runtime import Runtime
from gatehouse.screening import jobs
from gatehouse.screening.runner import AfterScreening, run_job
from gatehouse.storage.leases import pause, seconds_until
from gatehouse.storage.tables.screening import ScreeningJob

log = logging.getLogger("gatehouse.screening")
IDLE_POLL_SECONDS = 2.0
CLAIM = 10
# How often the worker looks for applications whose risk inputs changed without a request
# (docs/screening.md, "Risk").
STALE_RISK_SECONDS = 30.0


async def run_screening_worker(
    runtime: Runtime, stop: asyncio.Event, *, after: AfterScreening
) -> None:
    """Run screening jobs until `stop` is set; `after` recomputes what depends on a
    screening (the risk) in the job's write transaction."""
    wake = asyncio.Event()
    unregister = jobs.SCREENINGS.register(wake)
    listener = None
    listen_url = runtime.settings.listen_url  # None: polling (a transaction pooler)
    if listen_url is not None:
        listener = asyncio.create_task(jobs.SCREENINGS.listen(listen_url, wake, stop))
    last_look = 0.0
    try:
        while not stop.is_set():
            wake.clear()
            if time.monotonic() - last_look >= STALE_RISK_SECONDS:
                last_look = time.monotonic()
                async with runtime.db.write() as session:
                    await jobs.enqueue_stale_risk(session, runtime.now())
            claimed = await jobs.claim(runtime, CLAIM)
            for job in claimed:
                try:
                    await run_job(runtime, job, after)
                except Exception:
                    # The job keeps its lease and runs again when the lease ends.
                    log.exception(
                        "screening job failed", extra={"application_id": job.application_id}
                    )
            if claimed:
                continue
            await pause(wake, await _seconds_to_next(runtime), stop)
    finally:
        unregister()
        if listener is not None:
            listener.cancel()


async def _seconds_to_next(runtime: Runtime) -> float:
    async with runtime.db.read() as session:
        soonest = await session.scalar(
            select(func.min(func.coalesce(ScreeningJob.lease_until, ScreeningJob.due_at)))
        )
    if isinstance(soonest, str):  # SQLite returns an aggregate of an expression as text
        from datetime import UTC, datetime

        soonest = datetime.fromisoformat(soonest).replace(tzinfo=UTC)
    return seconds_until(soonest, runtime.now(), IDLE_POLL_SECONDS)
