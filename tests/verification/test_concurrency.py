"""Several workers and sweeps at once never send a callback or a warning twice
(docs/architecture.md, known traps: claims by row lock on PostgreSQL, one writer on SQLite)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from gatehouse.runtime import Runtime
from gatehouse.timeutil import format_ts
from gatehouse.verification.delivery import run_callback_worker
from gatehouse.verification.sweep import run_expiry_sweep
from tests.verification.conftest import LiveRecorder, Verification, eventually


@pytest.fixture
async def second_runtime(runtime: Runtime) -> AsyncIterator[Runtime]:
    """Another process's view of the same database (its own engines)."""
    other = Runtime.build(runtime.settings)
    other.clock = lambda: runtime.now()
    yield other
    await other.close()


async def test_two_workers_deliver_each_callback_once(
    verification: Verification,
    runtime: Runtime,
    second_runtime: Runtime,
    recorder: LiveRecorder,
) -> None:
    client = await verification.create_client()
    await verification.register(client, recorder.url)
    customers = [await verification.create_customer(client) for _ in range(4)]
    for customer in customers:
        for code in (9, 6, 7):
            await verification.set_status(customer["uuid"], code)
    stop = asyncio.Event()
    workers = [
        asyncio.create_task(run_callback_worker(rt, stop, idle_seconds=0.02))
        for rt in (runtime, second_runtime)
    ]
    try:
        await eventually(lambda: verification.callbacks(status="succeeded", limit="50"))
        await eventually(lambda: len(recorder.app.requests) >= 12, timeout=10)
        await asyncio.sleep(0.3)  # room for a duplicate to show up
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*workers), 5)
    assert len(recorder.app.requests) == 12
    rows = await verification.callbacks(limit="50")
    assert len(rows) == 12
    assert all(row["status"] == "succeeded" and row["attempts"] == 1 for row in rows)


async def test_concurrent_sweeps_warn_and_move_once(
    verification: Verification, runtime: Runtime, second_runtime: Runtime
) -> None:
    start = datetime(2026, 11, 22, tzinfo=UTC)
    runtime.clock = lambda: start
    client = await verification.create_client()
    for days in (5, 10, -1):
        await verification.create_customer(
            client,
            documents=[{"type": "passport", "expiresAt": format_ts(start + timedelta(days=days))}],
        )
    results = await asyncio.gather(
        run_expiry_sweep(runtime), run_expiry_sweep(second_runtime), run_expiry_sweep(runtime)
    )
    assert sum(r.warnings_sent for r in results) == 2
    assert sum(r.moved_to_draft for r in results) == 1
