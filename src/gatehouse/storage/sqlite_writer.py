"""Short SQLite write transactions in the event loop's thread (docs/platform.md).

Through aiosqlite every step of a statement (cursor, execute, fetch, close) is a hop to
the driver's thread and a wake-up of the event loop: the provisioning transaction's six
statements made some thirty of them, most of its CPU (bench/RESULTS.md).
`Database.transaction()` on SQLite runs instead on one pysqlite connection used from the
event loop's own thread, through SQLAlchemy's async API unchanged (the dialect below is
pysqlite's, declared async: SQLAlchemy runs it in its greenlet, and it never waits):

- BEGIN IMMEDIATE is tried without waiting. When another process holds the write lock,
  the BEGIN is made again in the writer thread, which waits for it (the usual busy
  timeout) while the event loop runs on.
- The statements then run in the loop's thread: with the write lock held on a WAL
  database nothing waits for a lock (the connection's busy timeout is 0, so a statement
  that found the database busy all the same would fail at once rather than hold the
  loop), and pages are read as the prepared reads read them (storage/prepared.py).
- COMMIT writes the transaction's pages to the WAL, without a sync (synchronous=NORMAL).
  What syncs the disk is the checkpoint, so this connection never checkpoints on commit
  (`wal_autocheckpoint=0`): every `CHECKPOINT_EVERY` commits, a passive checkpoint runs
  in the writer thread on a connection of its own, beside the transactions that follow.

Within one process, `Database` lets one write transaction run at a time across this
engine and the aiosqlite one (`write()`), as their single shared connection did before.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from sqlalchemy import event
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import AsyncAdaptedQueuePool
from sqlalchemy.util import await_only

from gatehouse.storage.sqlite_reads import register_functions

DRIVER = "gatehouse_inline"
THREAD_NAME = "gatehouse-sqlite-write"
BUSY_TIMEOUT_MS = 30_000
# A transaction of the hot paths adds 4 to 10 pages to the WAL; SQLite's own
# automatic checkpoint comes every 1,000 pages.
CHECKPOINT_EVERY = 100


def _busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool(code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED))
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class WriterThread:
    """The thread that waits for the write lock and checkpoints the WAL, for one engine."""

    def __init__(self, path: str, *, uri: bool) -> None:
        self._path, self._uri = path, uri
        self._executor = ThreadPoolExecutor(1, thread_name_prefix=THREAD_NAME)
        self._checkpointing: Future[None] | None = None
        self._own: sqlite3.Connection | None = None  # used in the thread only
        self.commits = 0
        self.checkpoints = 0

    def run(self, function: Callable[..., Any], *args: Any) -> Any:
        """`function(*args)` in the thread, awaited from SQLAlchemy's greenlet."""
        loop = asyncio.get_running_loop()
        return await_only(loop.run_in_executor(self._executor, function, *args))

    def committed(self) -> None:
        self.commits += 1
        if self.commits % CHECKPOINT_EVERY == 0 and (
            self._checkpointing is None or self._checkpointing.done()
        ):
            # After `close` there is no thread: the commit stands, a later writer checkpoints.
            with contextlib.suppress(RuntimeError):
                self._checkpointing = self._executor.submit(self._checkpoint)

    def _checkpoint(self) -> None:
        if self._own is None:
            self._own = sqlite3.connect(
                self._path, isolation_level=None, check_same_thread=False, uri=self._uri
            )
        # PASSIVE: copies what no reader still needs, waits for nobody and blocks no writer.
        self._own.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        self.checkpoints += 1

    def close(self) -> None:
        """Let a running checkpoint finish, then close the thread's connection."""
        self._executor.shutdown(wait=True)
        if self._own is not None:
            self._own.close()
            self._own = None


class _Cursor(sqlite3.Cursor):
    async def _async_soft_close(self) -> None:
        """What SQLAlchemy's async results call on an async driver's cursor: this one's
        rows stay readable, there is nothing to do."""


class _Connection(sqlite3.Connection):
    writer: WriterThread

    def cursor(self, factory: Any = _Cursor) -> Any:
        return super().cursor(factory)


async def _now(function: Callable[..., Any], *args: Any) -> Any:
    return function(*args)


class InlineSqliteDialect(SQLiteDialect_pysqlite):
    """pysqlite, run by SQLAlchemy's async engine in the event loop's thread."""

    driver = DRIVER
    is_async = True
    supports_statement_cache = True

    # SQLAlchemy's async API requires a statement to await something: it awaits a
    # coroutine that runs the statement and finishes without suspending.

    def do_execute(self, cursor: Any, statement: str, parameters: Any, context: Any = None) -> None:
        await_only(_now(cursor.execute, statement, parameters))

    def do_execute_no_params(self, cursor: Any, statement: str, context: Any = None) -> None:
        await_only(_now(cursor.execute, statement))

    def do_executemany(
        self, cursor: Any, statement: str, parameters: Any, context: Any = None
    ) -> None:
        await_only(_now(cursor.executemany, statement, parameters))

    def do_commit(self, dbapi_connection: Any) -> None:
        dbapi_connection.commit()
        dbapi_connection.writer.committed()


registry.register(f"sqlite.{DRIVER}", __name__, "InlineSqliteDialect")


def _begin_waiting(connection: sqlite3.Connection) -> None:
    connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    try:
        connection.execute("BEGIN IMMEDIATE")
    finally:
        connection.execute("PRAGMA busy_timeout=0")


def begin_immediate(connection: _Connection) -> None:
    """BEGIN IMMEDIATE now if the write lock is free, else wait for it in the writer thread."""
    try:
        connection.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if not _busy(exc):
            raise
        connection.writer.run(_begin_waiting, connection)


def inline_write_engine(url: str, *, echo: bool = False) -> tuple[AsyncEngine, WriterThread]:
    """One connection (writes serialize), used from the event loop's thread."""
    parsed = make_url(url)
    uri = str(parsed.query.get("uri", "")).lower() in ("true", "1")
    writer = WriterThread(parsed.database or "", uri=uri)
    engine = create_async_engine(
        parsed.set(drivername=f"sqlite+{DRIVER}"),
        echo=echo,
        hide_parameters=True,
        poolclass=AsyncAdaptedQueuePool,
        pool_size=1,
        max_overflow=0,
        pool_timeout=60,
        connect_args={"check_same_thread": False, "cached_statements": 256, "factory": _Connection},
    )

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.writer = writer
        for pragma in (
            "journal_mode=WAL",
            "foreign_keys=ON",
            "synchronous=NORMAL",
            # BEGIN IMMEDIATE does not wait here (`begin_immediate` waits in the thread);
            # inside the transaction, with the write lock held, nothing waits.
            "busy_timeout=0",
            "wal_autocheckpoint=0",
        ):
            dbapi_connection.execute(f"PRAGMA {pragma}")
        register_functions(dbapi_connection)

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        begin_immediate(conn.connection.driver_connection)

    return engine, writer
