"""SQLite write transactions in one worker-thread call each (bench/RESULTS.md).

Through aiosqlite every statement of a write transaction (BEGIN IMMEDIATE, each
statement, COMMIT) is its own hop to the driver's thread and its own wake-up of the
event loop. `SqliteWriter.run(work)` instead runs the whole transaction in one call
into a thread of its own, on a synchronous pysqlite engine: BEGIN IMMEDIATE, `work`,
COMMIT (or ROLLBACK on any exception), with the same pragmas as every other connection.

`work` is the ordinary async code of the transaction, written against a `Tx`
(storage/tx_statements.py), so the same code runs on PostgreSQL's driver. Here it is
given a `SqliteTx`, whose statements run at once in this thread, so its coroutine never
suspends and is run to its end by `drive`, with no event loop in the thread. Awaiting
anything else (a sleep, a network call) inside `work` is refused: it would need the
loop that the thread does not have.

The thread runs the request's context variables (`contextvars.copy_context()`), so logs
and traces inside `work` see the request that asked for it. A caller cancelled while its
transaction runs leaves the transaction to end in the thread as it would have.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sqlalchemy import create_engine, event
from sqlalchemy.engine import make_url

from gatehouse.storage.sqlite_reads import sqlite_connection_setup
from gatehouse.storage.tx_statements import SqliteTx, Tx

T = TypeVar("T")
THREAD_NAME = "gatehouse-sqlite-write"

Work = Callable[[Tx], Coroutine[Any, Any, T]]


def drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends to its end; its result or its exception."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    coroutine.close()
    raise RuntimeError("a SQLite write transaction awaited something other than its statements")


class SqliteWriter:
    """A one-connection pysqlite engine on the database file and the one thread that uses it."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.engine = create_engine(
            make_url(url).set(drivername="sqlite+pysqlite"),
            echo=echo,
            hide_parameters=True,  # statement values never reach errors or logs
            pool_size=1,
            max_overflow=0,
            # Only the writer's thread uses the connection; disposal may close it elsewhere.
            connect_args={"check_same_thread": False},
        )
        sqlite_connection_setup(self.engine)

        @event.listens_for(self.engine, "begin")
        def _on_begin(conn: Any) -> None:
            # On the driver itself: SQLAlchemy's execution of it costs more than the rest
            # of a short transaction's bookkeeping.
            conn.connection.driver_connection.execute("BEGIN IMMEDIATE")

        self._executor = ThreadPoolExecutor(1, thread_name_prefix=THREAD_NAME)
        self._closed = False

    def _transaction(self, work: Work[T]) -> T:
        # In the writer's thread: the whole transaction, connection back in the pool included.
        with self.engine.begin() as connection:
            return drive(work(SqliteTx(connection)))

    async def run(self, work: Work[T]) -> T:
        """`work(tx)` in one write transaction, in one call into the writer's thread."""
        if self._closed:
            raise RuntimeError("the SQLite writer has been disposed")
        context = contextvars.copy_context()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, context.run, self._transaction, work)

    async def dispose(self) -> None:
        """Refuse new transactions, let a running one finish, then close the connection."""
        self._closed = True
        await asyncio.to_thread(self._executor.shutdown, wait=True)
        self.engine.dispose()
