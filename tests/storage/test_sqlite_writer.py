"""`Database.transaction()` on SQLite (storage/sqlite_writer.py): statements in the event
loop's thread, BEGIN IMMEDIATE that waits for another process's lock in the writer thread,
one write transaction at a time across `write()` and `transaction()`, and a WAL that is
checkpointed beside the transactions rather than by them."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import func, insert, select, text
from sqlalchemy.engine import make_url

from gatehouse.runtime import Runtime
from gatehouse.storage import sqlite_writer
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


def _count_in_file_alone(path: str, copy: Path) -> int:
    shutil.copyfile(path, copy)
    check = sqlite3.connect(copy)
    try:
        row = check.execute(
            "SELECT count(*) FROM tenants WHERE id LIKE 'ten_checkpoint%'"
        ).fetchone()
    finally:
        check.close()
    return int(row[0])


@pytest.fixture
def sqlite_runtime(runtime: Runtime) -> Runtime:
    if not runtime.db.is_sqlite:
        pytest.skip("SQLite only")
    return runtime


async def test_statements_run_in_the_event_loops_thread_with_the_write_pragmas(
    sqlite_runtime: Runtime,
) -> None:
    runtime = sqlite_runtime
    async with runtime.db.transaction() as connection:
        raw = await connection.get_raw_connection()
        driver = raw.driver_connection
        assert isinstance(driver, sqlite3.Connection)
        assert driver.in_transaction  # BEGIN IMMEDIATE was issued at begin()
        assert (await connection.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await connection.execute(text("PRAGMA foreign_keys"))).scalar() == 1
        assert (await connection.execute(text("PRAGMA synchronous"))).scalar() == 1  # NORMAL
        assert (await connection.execute(text("PRAGMA wal_autocheckpoint"))).scalar() == 0
        seen: list[str] = []
        driver.set_trace_callback(lambda _sql: seen.append(threading.current_thread().name))
        try:
            await connection.execute(insert(Tenant), _tenant_values("ten_inlinethread"))
        finally:
            driver.set_trace_callback(None)
    assert seen == [threading.main_thread().name]
    assert await _count(runtime, "ten_inlinethread") == 1


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
    # The connection is back to not waiting: the next BEGIN is tried at once.
    async with runtime.db.transaction() as connection:
        assert (await connection.execute(text("PRAGMA busy_timeout"))).scalar() == 0


async def test_write_and_transaction_take_turns(sqlite_runtime: Runtime) -> None:
    runtime = sqlite_runtime
    order: list[str] = []
    inside = asyncio.Event()
    release = asyncio.Event()

    async def session_write() -> None:
        async with runtime.db.write() as session:
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


async def test_the_wal_is_checkpointed_by_the_writer_thread(
    sqlite_runtime: Runtime, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    runtime = sqlite_runtime
    monkeypatch.setattr(sqlite_writer, "CHECKPOINT_EVERY", 5)
    writer = runtime.db._writer
    assert writer is not None
    before = writer.checkpoints
    for batch in range(2):
        for n in range(5):
            async with runtime.db.transaction() as connection:
                await connection.execute(
                    insert(Tenant), _tenant_values(f"ten_checkpoint{batch}{n}")
                )
        for _ in range(200):
            if writer.checkpoints > before + batch:
                break
            await asyncio.sleep(0.02)
        assert writer.checkpoints == before + batch + 1
    # The rows reached the database file itself, not only the WAL: a copy of the file
    # alone (without its -wal) has them.
    found = await asyncio.to_thread(_count_in_file_alone, _path(runtime), tmp_path / "copy.db")
    assert found == 10
    assert await _count(runtime, "ten_checkpoint") == 10


def test_the_database_file_is_the_one_configured(tmp_path: Path) -> None:
    engine, writer = sqlite_writer.inline_write_engine(f"sqlite+aiosqlite:///{tmp_path}/w.db")
    try:
        assert engine.dialect.driver == sqlite_writer.DRIVER
        assert engine.url.database == f"{tmp_path}/w.db"
    finally:
        writer.close()
