"""`Database.run_transaction` (storage/db.py, storage/sqlite_writes.py): one write transaction
handed a `Tx`; committed when the work returns, rolled back when it raises, on both databases.
On SQLite the whole transaction is one call into the writer's thread: the work starts, runs
its statements and ends there, sees the request's context variables, may not await anything
but its statements, and takes turns with `write()`."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Coroutine
from typing import Any

import pytest
from sqlalchemy import bindparam, func, insert, select, text

from gatehouse.runtime import Runtime
from gatehouse.storage.sqlite_writes import THREAD_NAME, drive
from gatehouse.storage.tables.core import Tenant
from gatehouse.storage.tx_statements import Tx, TxStatement
from gatehouse.timeutil import utcnow

_INSERT = TxStatement(
    insert(Tenant).values(
        id=bindparam("id"),
        name=bindparam("id"),
        status="active",
        webhook_endpoint_cap=5,
        environment="live",
        created_at=bindparam("now", type_=Tenant.created_at.type),
        updated_at=bindparam("now", type_=Tenant.updated_at.type),
    )
)
_COUNT = TxStatement(select(func.count()).select_from(Tenant).where(Tenant.id == bindparam("id")))

_REQUEST = contextvars.ContextVar[str]("request", default="none")


async def _count(runtime: Runtime, tenant_id: str) -> int:
    async with runtime.db.read() as session:
        found = await session.scalar(
            select(func.count()).select_from(Tenant).where(Tenant.id == tenant_id)
        )
    return int(found or 0)


async def test_the_work_commits_when_it_returns(runtime: Runtime) -> None:
    async def work(tx: Tx) -> int:
        await tx.run(_INSERT, {"id": "ten_runcommit", "now": utcnow()})
        rows = await tx.run(_COUNT, {"id": "ten_runcommit"})
        return int(rows[0][0])

    assert await runtime.db.run_transaction(work) == 1  # its own write, seen inside
    assert await _count(runtime, "ten_runcommit") == 1


async def test_the_work_rolls_back_when_it_raises(runtime: Runtime) -> None:
    async def work(tx: Tx) -> None:
        await tx.run(_INSERT, {"id": "ten_runrollback", "now": utcnow()})
        await tx.execute(text("UPDATE tenants SET name = 'x' WHERE id = 'ten_runrollback'"))
        raise LookupError("refused")

    with pytest.raises(LookupError, match="refused"):
        await runtime.db.run_transaction(work)
    assert await _count(runtime, "ten_runrollback") == 0


@pytest.fixture
def sqlite_runtime(runtime: Runtime) -> Runtime:
    if not runtime.db.is_sqlite:
        pytest.skip("SQLite only")
    return runtime


async def test_sqlite_runs_the_whole_transaction_in_one_call_into_its_thread(
    sqlite_runtime: Runtime,
) -> None:
    threads: list[str] = []
    _REQUEST.set("req_seen")

    async def work(tx: Tx) -> str:
        threads.append(threading.current_thread().name)
        await tx.run(_INSERT, {"id": "ten_runthread", "now": utcnow()})
        threads.append(threading.current_thread().name)
        await tx.execute(text("UPDATE tenants SET name = 'y' WHERE id = 'ten_runthread'"))
        threads.append(threading.current_thread().name)
        return _REQUEST.get()

    assert await sqlite_runtime.db.run_transaction(work) == "req_seen"  # the caller's context
    assert len(set(threads)) == 1  # start, statements and end: one thread, one call
    assert threads[0].startswith(THREAD_NAME)
    assert threading.current_thread().name != threads[0]
    assert await _count(sqlite_runtime, "ten_runthread") == 1


async def test_sqlite_refuses_work_that_awaits_anything_else(sqlite_runtime: Runtime) -> None:
    async def work(tx: Tx) -> None:
        await tx.run(_INSERT, {"id": "ten_runsleeps", "now": utcnow()})
        await asyncio.sleep(0)  # needs an event loop the writer's thread does not have

    with pytest.raises(RuntimeError, match="awaited something other than its statements"):
        await sqlite_runtime.db.run_transaction(work)
    assert await _count(sqlite_runtime, "ten_runsleeps") == 0


async def test_sqlite_write_and_run_transaction_take_turns(sqlite_runtime: Runtime) -> None:
    runtime = sqlite_runtime
    order: list[str] = []
    inside = asyncio.Event()
    release = asyncio.Event()

    async def session_write() -> None:
        async with runtime.db.write() as session:
            order.append("write begins")
            inside.set()
            await release.wait()
            await session.execute(text("SELECT 1"))
        order.append("write ends")

    async def work(tx: Tx) -> None:
        order.append("run begins")
        await tx.run(_INSERT, {"id": "ten_runturns", "now": utcnow()})

    first = asyncio.create_task(session_write())
    await inside.wait()
    second = asyncio.create_task(runtime.db.run_transaction(work))
    await asyncio.sleep(0.1)
    assert order == ["write begins"]  # the transaction waits its turn, in this process
    release.set()
    await asyncio.gather(first, second)
    assert order == ["write begins", "write ends", "run begins"]
    assert await _count(runtime, "ten_runturns") == 1


def test_drive_runs_a_coroutine_that_never_suspends() -> None:
    async def answer() -> int:
        return 42

    async def fails() -> None:
        raise KeyError("inside")

    async def suspends() -> None:
        await asyncio.sleep(0)

    assert drive(answer()) == 42
    with pytest.raises(KeyError, match="inside"):
        drive(fails())
    coroutine: Coroutine[Any, Any, None] = suspends()
    with pytest.raises(RuntimeError):
        drive(coroutine)
    assert coroutine.cr_frame is None  # closed, not left pending
