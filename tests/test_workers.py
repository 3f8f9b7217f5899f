"""Background workers and sweeps (workers.py, sweeps.py): a crashed worker is
restarted, a failing sweep job does not stop the others, and stop is prompt."""

from __future__ import annotations

import asyncio

import pytest

from gatehouse import sweeps, workers
from gatehouse.runtime import Runtime


async def test_a_crashed_worker_is_restarted_until_stop(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch, captured_logs: list[str]
) -> None:
    starts: list[str] = []
    stop = asyncio.Event()

    async def flaky(rt: Runtime, stop_event: asyncio.Event) -> None:
        starts.append("flaky")
        if len([s for s in starts if s == "flaky"]) == 1:
            raise RuntimeError("first run fails")
        stop_event.set()

    async def steady(rt: Runtime, stop_event: asyncio.Event) -> None:
        starts.append("steady")
        await stop_event.wait()

    monkeypatch.setattr(workers, "RESTART_DELAY_SECONDS", 0.01)
    monkeypatch.setattr(
        workers, "registered_workers", lambda: [("flaky", flaky), ("steady", steady)]
    )
    await asyncio.wait_for(workers.run_workers(runtime, stop), timeout=5)
    assert starts.count("flaky") == 2
    assert starts.count("steady") == 1
    assert any(
        "worker crashed; restarting" in line and '"worker":"flaky"' in line
        for line in captured_logs
    )


def test_every_area_registers_its_worker_and_sweep() -> None:
    names = [name for name, _ in workers.registered_workers()]
    assert names[0] == "sweeps"
    assert len(names) == len(set(names))
    jobs = [name for name, _ in sweeps.sweep_jobs()]
    assert "idempotency" in jobs


async def test_a_failing_sweep_job_does_not_stop_the_others(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch, captured_logs: list[str]
) -> None:
    ran: list[str] = []

    async def broken(rt: Runtime) -> None:
        raise RuntimeError("sweep broke")

    async def fine(rt: Runtime) -> None:
        ran.append("fine")

    monkeypatch.setattr(sweeps, "sweep_jobs", lambda: [("broken", broken), ("fine", fine)])
    await sweeps.run_sweeps_once(runtime)
    assert ran == ["fine"]
    assert any("sweep failed" in line and '"sweep":"broken"' in line for line in captured_logs)


async def test_sweeps_run_at_once_and_stop_promptly(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = asyncio.Event()

    async def job(rt: Runtime) -> None:
        ran.set()

    monkeypatch.setattr(sweeps, "sweep_jobs", lambda: [("job", job)])
    stop = asyncio.Event()
    task = asyncio.create_task(sweeps.run_sweeps(runtime, stop))
    await asyncio.wait_for(ran.wait(), timeout=5)
    stop.set()  # the 300 s interval must not delay the stop
    await asyncio.wait_for(task, timeout=2)
