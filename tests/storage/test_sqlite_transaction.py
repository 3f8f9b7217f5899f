"""`Database.transaction()` on SQLite (storage/db.py): statements in the driver's thread,
never the event loop's; BEGIN IMMEDIATE that waits for another process's lock while the
loop runs on; one write transaction at a time across `write()` and `transaction()`."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import pytest
from sqlalchemy import func, insert, select, text
from sqlalchemy.engine import make_url

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import Tenant
from gatehouse.timeutil import utcnow


def _tenant_values(tenant_id: str) -> dict[str, object]:
    now = utcnow()
    return {
        "id": tenant_id,
        "name": tenant_id,
        "status": "active",
        "webhook_endpoint_cap": 5,
        "created_at": now,
        "updated_at": now,
    }


def _path(runtime: Runtime) -> str:
    return make_url(runtime.db.url).database or ""


async def _count(runtime: Runtime, prefix: str) -> int:
    async with runtime.db.read() as session:
        found = await session.scalar(
            select(func.count()).select_from(Tenant).where(Tenant.id.startswith(prefix))
        )
    return int(found or 0)


@pytest.fixture
def sqlite_runtime(runtime: Runtime) -> Runtime:
    if not runtime.db.is_sqlite:
        pytest.skip("SQLite only")
    return runtime


async def test_statements_run_in_the_drivers_thread_with_the_write_pragmas(
    sqlite_runtime: Runtime,
) -> None:
    runtime = sqlite_runtime
    async with runtime.db.transaction() as connection:
        raw = await connection.get_raw_connection()
        driver = raw.driver_connection
        assert driver.in_transaction  # BEGIN IMMEDIATE was issued at begin()
        assert (await connection.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await connection.execute(text("PRAGMA foreign_keys"))).scalar() == 1
        assert (await connection.execute(text("PRAGMA synchronous"))).scalar() == 1  # NORMAL
        seen: list[str] = []
        await driver.set_trace_callback(lambda _sql: seen.append(threading.current_thread().name))
        try:
            await connection.execute(insert(Tenant), _tenant_values("ten_threaded"))
        finally:
            await driver.set_trace_callback(None)
    assert seen
    assert threading.main_thread().name not in seen  # never the event loop's thread
    assert await _count(runtime, "ten_threaded") == 1


async def test_begin_waits_in_a_thread_for_another_processs_write_lock(
    sqlite_runtime: Runtime,
) -> None:
    runtime = sqlite_runtime
    other = sqlite3.connect(_path(runtime), isolation_level=None, check_same_thread=False)
    try:
        other.execute("BEGIN IMMEDIATE")  # another writer holds the lock
        ticks = 0
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0.01)

        async def write() -> None:
            async with runtime.db.transaction() as connection:
                await connection.execute(insert(Tenant), _tenant_values("ten_waitedforlock"))
            done.set()

        ticking = asyncio.create_task(ticker())
        writing = asyncio.create_task(write())
        await asyncio.sleep(0.3)
        assert not writing.done()  # waiting for the lock, not failing
        assert ticks >= 10  # and the event loop ran on meanwhile
        other.execute("COMMIT")
        await asyncio.wait_for(writing, 10)
        await ticking
    finally:
        other.close()
    assert await _count(runtime, "ten_waitedforlock") == 1


async def test_write_and_transaction_take_turns(sqlite_runtime: Runtime) -> None:
    runtime = sqlite_runtime
    order: list[str] = []
    inside = asyncio.Event()
    release = asyncio.Event()

    async def session_write() -> None:
        async with runtime.db.write() as session:
            await session.execute(text("SELECT 1"))  # the session takes its connection
            order.append("write begins")
            inside.set()
            await release.wait()
            session.add(Tenant(**_tenant_values("ten_turnsession")))
        order.append("write ends")

    async def plain_transaction() -> None:
        await inside.wait()
        async with runtime.db.transaction() as connection:
            order.append("transaction begins")
            await connection.execute(insert(Tenant), _tenant_values("ten_turnplain"))

    first = asyncio.create_task(session_write())
    second = asyncio.create_task(plain_transaction())
    await inside.wait()
    await asyncio.sleep(0.1)
    assert order == ["write begins"]  # the transaction waits its turn, in this process
    release.set()
    await asyncio.gather(first, second)
    assert order == ["write begins", "write ends", "transaction begins"]
    assert await _count(runtime, "ten_turn") == 2
