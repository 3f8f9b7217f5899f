"""Engines and transactions over SQLite (default) and PostgreSQL.

SQLite: WAL, busy_timeout and foreign keys on every connection; write
transactions start with BEGIN IMMEDIATE so that a transaction which reads and
then writes can never fail with "database is locked" (docs/platform.md).
Reads use a second engine whose transactions stay deferred, so readers never
queue behind the write lock. Single-statement reads (`fetch_all`) skip
aiosqlite and run on a synchronous engine in one worker-thread call
(storage/sqlite_reads.py). `run_transaction` runs a whole write transaction in
one worker-thread call on a synchronous engine (storage/sqlite_writes.py). The write
paths (`write()`, `transaction()`, `run_transaction()`) take turns at one gate, so one
write transaction runs at a time in a process. The database file and its -wal and
-shm files are readable by their owner only (mode 0600, `protect_sqlite_file`).

PostgreSQL: `transaction()` runs on a connection in autocommit and holds the
transaction itself, through the driver's public transaction API
(storage/tx_statements.py), so that a statement that is whole by itself can run
before any BEGIN.

Every engine hides statement parameters (`hide_parameters`): errors and logs
show the SQL, never the values in it (docs/platform.md, "Operations").
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import NullPool
from sqlalchemy.sql.base import Executable

from gatehouse import tracing
from gatehouse.storage import pooler
from gatehouse.storage.prepared import PostgresRunner, PreparedRead, SqliteRunner
from gatehouse.storage.sqlite_reads import Rows, SqliteReader, sqlite_connection_setup
from gatehouse.storage.sqlite_writes import SqliteWriter, Work
from gatehouse.storage.tx_statements import ConnectionTx, driver_transaction

T = TypeVar("T")

log = logging.getLogger("gatehouse.storage")

READ_POOL_SIZE = 8
READ_MAX_OVERFLOW = 8
# PostgreSQL connections per process, unless a pool size is given (GATEHOUSE_DB_POOL_SIZE).
POSTGRES_POOL_SIZE = 16
# How long a SQLite write waits for the one before it (the write pool's one connection).
SQLITE_WRITE_WAIT_SECONDS = 60


def async_url(url: str) -> str:
    """Map the configured URL onto the async drivers."""
    parsed = make_url(url)
    if parsed.drivername in ("sqlite", "sqlite+pysqlite"):
        return str(parsed.set(drivername="sqlite+aiosqlite"))
    if parsed.drivername in ("postgresql", "postgres", "postgresql+psycopg2"):
        return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
    return parsed.render_as_string(hide_password=False)


def _refuse_in_memory(url: str) -> None:
    """Each engine (and pooled connection) would get its own empty in-memory database."""
    parsed = make_url(url)
    database = parsed.database or ""
    if database in ("", ":memory:") or parsed.query.get("mode") == "memory":
        raise ValueError(
            "In-memory SQLite is not supported: the read and write engines must share "
            "one database file (use e.g. sqlite:///./gatehouse.db)."
        )


SQLITE_FILE_MODE = 0o600


def protect_sqlite_file(url: str) -> None:
    """Make the SQLite database readable by its owner only, before SQLite opens it.

    A missing file is created with mode 0600 (SQLite would create it with the umask's
    default, usually world-readable); SQLite then gives the -wal and -shm files it
    creates the database file's mode. Files left wider by an earlier version are
    narrowed. A file this process does not own keeps its mode (logged).
    """
    parsed = make_url(url)
    database = parsed.database or ""
    if (
        parsed.get_backend_name() != "sqlite"
        or database in ("", ":memory:")
        or database.startswith("file:")
        or parsed.query.get("mode") == "memory"
    ):
        return
    path = Path(database)
    if not path.parent.is_dir():
        return  # SQLite reports the missing folder
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, SQLITE_FILE_MODE))
    for name in (database, f"{database}-wal", f"{database}-shm", f"{database}-journal"):
        try:
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, SQLITE_FILE_MODE)
        except FileNotFoundError:
            continue
        except PermissionError:
            log.warning("cannot narrow the mode of a database file", extra={"file": name})


def _sqlite_pragmas(engine: AsyncEngine, *, immediate: bool) -> None:
    sqlite_connection_setup(engine.sync_engine)

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


class Database:
    """The two session factories every service uses: `read()` and `write()`,
    and `fetch_all()` for reads that are a single statement."""

    def __init__(
        self,
        url: str,
        *,
        echo: bool = False,
        pool_size: int = POSTGRES_POOL_SIZE,
        transaction_pooler: bool = False,
    ) -> None:
        self.url = async_url(url)
        self.dialect = make_url(self.url).get_backend_name()
        self.is_sqlite = self.dialect == "sqlite"
        self._transaction_pooler = transaction_pooler
        self._sqlite_reader: SqliteReader | None = None
        self._sqlite_writer: SqliteWriter | None = None
        self._gate_loop: asyncio.AbstractEventLoop | None = None
        self._gate = asyncio.Lock()
        if self.is_sqlite:
            _refuse_in_memory(self.url)
            protect_sqlite_file(self.url)
            self.write_engine = create_async_engine(
                self.url,
                echo=echo,
                hide_parameters=True,
                pool_size=1,
                max_overflow=0,
                pool_timeout=SQLITE_WRITE_WAIT_SECONDS,
            )
            self.read_engine = create_async_engine(
                self.url,
                echo=echo,
                hide_parameters=True,
                pool_size=READ_POOL_SIZE,
                max_overflow=READ_MAX_OVERFLOW,
            )
            _sqlite_pragmas(self.write_engine, immediate=True)
            _sqlite_pragmas(self.read_engine, immediate=False)
            self._sqlite_reader = SqliteReader(
                self.url, echo=echo, pool_size=READ_POOL_SIZE, max_overflow=READ_MAX_OVERFLOW
            )
            self._prepared: SqliteRunner | PostgresRunner = SqliteRunner(
                self.url, self._sqlite_reader.in_thread
            )
            self._sqlite_writer = SqliteWriter(self.url, echo=echo)
        else:
            self.write_engine = create_async_engine(
                self.url,
                echo=echo,
                hide_parameters=True,
                # The one pool of the process (the prepared reads borrow from it too), which
                # never overflows: processes x pool size is the whole budget
                # (docs/operations.md, "Connections").
                pool_size=pool_size,
                max_overflow=0,
                pool_pre_ping=False,
                connect_args=pooler.engine_connect_args() if transaction_pooler else {},
            )
            # Under READ COMMITTED every statement takes its own snapshot, so wrapping
            # reads in a transaction only adds BEGIN and COMMIT round trips: reads run
            # in autocommit on the same pool (bench/RESULTS.md).
            # Behind a transaction pooler (storage/pooler.py) a statement is prepared and run
            # inside one transaction, so reads run in transactions there.
            # The driver's own statements (prepared reads, `transaction()`) hold their
            # transactions through asyncpg, on connections SQLAlchemy keeps in autocommit.
            self._driver_engine = self.write_engine.execution_options(isolation_level="AUTOCOMMIT")
            self.read_engine = self.write_engine if transaction_pooler else self._driver_engine
            # Prepared reads run on this pool's connections too (one pool owner).
            self._prepared = PostgresRunner(self._driver_engine, in_transaction=transaction_pooler)
        self._write = async_sessionmaker(self.write_engine, expire_on_commit=False)
        self._read = async_sessionmaker(self.read_engine, expire_on_commit=False)
        self._trace_statements()

    def _trace_statements(self) -> None:
        """Statement spans while traces are on (tracing.py; docs/operations.md, "Traces"),
        on the engines whose statements run in the event loop's thread. `fetch_all` on
        SQLite and `fetch_prepared` run theirs in other threads or outside SQLAlchemy: they
        open their spans around the call."""
        engines = [self.write_engine.sync_engine]  # on PostgreSQL the reads share its events
        if self._sqlite_writer is not None:
            engines += [self.read_engine.sync_engine, self._sqlite_writer.engine]
        for engine in engines:
            tracing.instrument_engine(engine, self.dialect)

    async def _turn(self) -> asyncio.Lock:
        """SQLite: wait for this process's write gate (FIFO) and hold it; the caller releases.

        The gate keeps this process's writers off SQLite's own lock, where they would
        poll. A wait longer than the one the write pool had gives up, as that pool did.
        """
        loop = asyncio.get_running_loop()
        if self._gate_loop is not loop:  # a lock serves one event loop
            self._gate_loop, self._gate = loop, asyncio.Lock()
        gate = self._gate
        if gate.locked():
            async with asyncio.timeout(SQLITE_WRITE_WAIT_SECONDS):
                await gate.acquire()
        else:
            await gate.acquire()
        return gate

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """One write transaction: commits on success, rolls back on any exception."""
        if not self.is_sqlite:
            async with self._write() as session, session.begin():
                yield session
            return
        gate = await self._turn()
        try:
            async with self._write() as session, session.begin():
                yield session
        finally:
            gate.release()

    async def run_transaction(self, work: Work[T], *, lazy: bool = False) -> T:
        """`work(tx)` in one write transaction: commits when it returns, rolls back when it
        raises. The same guarantees as `transaction()`, `tx` a `Tx`
        (storage/tx_statements.py).

        SQLite: the whole transaction is one worker-thread call (storage/sqlite_writes.py),
        so `work` awaits nothing but `tx`'s statements. PostgreSQL: `transaction(lazy=…)`'s
        connection, `lazy` as there.
        """
        if self._sqlite_writer is not None:
            gate = await self._turn()
            try:
                return await self._sqlite_writer.run(work)
            finally:
                gate.release()
        async with self.transaction(lazy=lazy) as connection:
            return await work(ConnectionTx(connection))

    @asynccontextmanager
    async def transaction(self, *, lazy: bool = False) -> AsyncIterator[AsyncConnection]:
        """One write transaction on a plain connection, for hot paths without ORM work.

        The same guarantees as `write()` (BEGIN IMMEDIATE on SQLite; commit on
        success, rollback on any exception) without a session's bookkeeping.
        Statements compiled once (storage/tx_statements.py, `run_in`) run here on
        the driver itself.

        `lazy` (PostgreSQL): the BEGIN waits for the first `run_in` statement that is
        not `alone`; until then statements run each on its own (autocommit). For a
        caller whose first statements are `run_in` ones; plain `execute` before any
        of them would run outside the transaction. SQLite's transaction always
        begins at once (BEGIN IMMEDIATE).
        """
        if self.is_sqlite:
            gate = await self._turn()
            try:
                async with self.write_engine.begin() as connection:
                    yield connection
            finally:
                gate.release()
            return
        # Behind a transaction pooler every statement runs inside the transaction
        # (storage/pooler.py): it begins at once.
        async with (
            self._driver_engine.connect() as connection,
            driver_transaction(connection, lazy=lazy and not self._transaction_pooler),
        ):
            yield connection

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A read-only transaction (never commits anything)."""
        async with self._read() as session, session.begin():
            yield session

    async def fetch_all(
        self, statement: Executable, params: Mapping[str, Any] | None = None
    ) -> Rows:
        """Every row of ONE read statement, without a session or a transaction.

        The statement sees everything committed before it runs (autocommit: a
        lone statement is its own snapshot on both databases). Reads made of
        several statements that must agree use `read()` instead.
        """
        if self._sqlite_reader is not None:
            with tracing.statement(self.dialect, statement):
                return await self._sqlite_reader.fetch_all(statement, params)
        async with self.read_engine.connect() as connection:
            return (await connection.execute(statement, params)).all()

    async def fetch_prepared(
        self, prepared: PreparedRead, params: Mapping[str, Any] | None = None
    ) -> list[Any]:
        """Every row of one prepared read (storage/prepared.py), as named tuples.

        The same guarantees as `fetch_all` (one statement, autocommit, everything
        committed before it is seen), without SQLAlchemy's per-execution work.
        """
        compiled = prepared.compiled(self.write_engine.dialect)
        with tracing.statement(self.dialect, compiled.sql):
            raw = await self._prepared.fetch(compiled, compiled.values(params or {}))
        return compiled.rows(raw)

    @property
    def fetch_engine(self) -> Engine:
        """The (synchronous) engine whose events see `fetch_all`'s statements."""
        if self._sqlite_reader is not None:
            return self._sqlite_reader.engine
        return self.read_engine.sync_engine

    async def dispose(self) -> None:
        if isinstance(self._prepared, SqliteRunner):
            self._prepared.close()
        else:
            await self._prepared.close()
        await self.write_engine.dispose()
        if self.is_sqlite:
            await self.read_engine.dispose()
        if self._sqlite_reader is not None:
            await self._sqlite_reader.dispose()
        if self._sqlite_writer is not None:
            await self._sqlite_writer.dispose()


def null_pool_engine(url: str) -> AsyncEngine:
    """An engine that keeps no connections (for CLI one-shots and migrations)."""
    protect_sqlite_file(url)
    return create_async_engine(async_url(url), poolclass=NullPool, hide_parameters=True)
