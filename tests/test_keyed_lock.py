"""The per-key FIFO queue that provisioning calls for one identity wait in."""

from __future__ import annotations

import asyncio

import pytest

from gatehouse.keyed_lock import KeyedLock


async def test_holders_of_one_key_run_one_at_a_time_in_arrival_order() -> None:
    locks = KeyedLock()
    order: list[int] = []
    inside = 0
    most_inside = 0

    async def call(number: int) -> None:
        nonlocal inside, most_inside
        async with locks.hold("identity"):
            inside += 1
            most_inside = max(most_inside, inside)
            await asyncio.sleep(0.001)
            order.append(number)
            inside -= 1

    tasks = []
    for number in range(20):
        tasks.append(asyncio.create_task(call(number)))
        await asyncio.sleep(0)  # each task reaches the queue before the next starts
    await asyncio.gather(*tasks)
    assert order == list(range(20))
    assert most_inside == 1
    assert len(locks) == 0


async def test_different_keys_do_not_wait_for_each_other() -> None:
    locks = KeyedLock()
    release = asyncio.Event()
    entered: list[str] = []

    async def hold_until_released(key: str) -> None:
        async with locks.hold(key):
            entered.append(key)
            await release.wait()

    tasks = [asyncio.create_task(hold_until_released(key)) for key in ("a", "b")]
    await asyncio.sleep(0.01)
    assert sorted(entered) == ["a", "b"]
    release.set()
    await asyncio.gather(*tasks)


async def test_an_exception_releases_the_key_and_forgets_it() -> None:
    locks = KeyedLock()
    with pytest.raises(RuntimeError):
        async with locks.hold(("tenant", "email:a@example.com")):
            raise RuntimeError("boom")
    assert len(locks) == 0
    async with asyncio.timeout(1):
        async with locks.hold(("tenant", "email:a@example.com")):
            assert len(locks) == 1


async def test_a_cancelled_waiter_leaves_the_queue_intact() -> None:
    locks = KeyedLock()
    release = asyncio.Event()

    async def holder() -> None:
        async with locks.hold("k"):
            await release.wait()

    first = asyncio.create_task(holder())
    await asyncio.sleep(0)
    waiter = asyncio.create_task(holder())
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    release.set()
    await first
    assert len(locks) == 0
