"""Housekeeping sweeps every SWEEP_INTERVAL_SECONDS: expired idempotency records,
and the sweep jobs other areas register in `SWEEP_JOBS`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from gatehouse.runtime import Runtime
from gatehouse.web.idempotency import purge_expired

log = logging.getLogger("gatehouse.sweeps")

SweepJob = Callable[[Runtime], Awaitable[object]]


def sweep_jobs() -> list[tuple[str, SweepJob]]:
    jobs: list[tuple[str, SweepJob]] = [("idempotency", purge_expired)]
    from gatehouse.verification import run_expiry_sweep

    jobs.append(("verification_expiry", run_expiry_sweep))
    from gatehouse.erasure import erase_documents

    jobs.append(("erased_documents", erase_documents))
    from gatehouse.retention import run_retention_sweep

    jobs.append(("retention", run_retention_sweep))
    return jobs


async def run_sweeps_once(runtime: Runtime) -> None:
    for name, job in sweep_jobs():
        try:
            await job(runtime)
        except Exception:
            log.exception("sweep failed", extra={"sweep": name})


async def run_sweeps(runtime: Runtime, stop: asyncio.Event) -> None:
    while not stop.is_set():
        await run_sweeps_once(runtime)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), runtime.settings.sweep_interval_seconds)
