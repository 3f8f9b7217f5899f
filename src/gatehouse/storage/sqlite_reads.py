"""Single-statement SQLite reads in one worker-thread call (bench/RESULTS.md).

Through aiosqlite every cursor operation of a read (BEGIN, execute, fetch,
close, ROLLBACK) is its own hop to the driver's thread and its own wake-up of
the event loop: about 1.0 ms of CPU for a one-row SELECT on the benchmark
machine. The same statement on a synchronous pysqlite engine, run as "connect,
execute, fetch all" in one executor call, costs about 0.3 ms.

No BEGIN is issued: the DBAPI connection is in autocommit mode
(`isolation_level = None`), where a lone SELECT is its own snapshot and always
sees every transaction committed before it started. That is why this is for
*single* statements only; reads that need several statements to agree keep
using `Database.read()`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeAlias, TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import Row, make_url
from sqlalchemy.sql.base import Executable

# Few threads: SQLite reads are short and hold the GIL most of the time, so more
# threads only add contention; four let a read wait on disk while others run.
READ_THREADS = 4
THREAD_NAME = "gatehouse-sqlite-read"

T = TypeVar("T")

# What `Result.all()` returns for a statement of any shape (rows of any width).
Rows: TypeAlias = Sequence[Row[*tuple[Any, ...]]]


def _unicode_lower(value: object) -> object:
    return value.lower() if isinstance(value, str) else value


def register_functions(dbapi_connection: Any) -> None:
    """SQLite's own `lower()` lowers ASCII only; PostgreSQL's lowers every script. The queue's
    search compares lowered text on both (docs/workstation.md), so every SQLite connection
    gets Python's `str.lower` as `lower()`. No SQLite index is built on `lower()`."""
    dbapi_connection.create_function("lower", 1, _unicode_lower, deterministic=True)


def sqlite_connection_setup(engine: Engine) -> None:
    """WAL, busy_timeout, foreign keys and synchronous=NORMAL on every new connection.

    `isolation_level = None` stops the driver from opening transactions of its
    own: SQLAlchemy (or, for `SqliteReader`, nobody) decides where they begin.
    """

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()
        register_functions(dbapi_connection)


class SqliteReader:
    """A pysqlite engine on the same file plus a small executor that runs its reads."""

    def __init__(self, url: str, *, echo: bool = False, pool_size: int, max_overflow: int) -> None:
        sync_url = make_url(url).set(drivername="sqlite+pysqlite")
        self.engine = create_engine(
            sync_url,
            echo=echo,
            hide_parameters=True,  # statement values never reach errors or logs
            pool_size=pool_size,
            max_overflow=max_overflow,
            # Connections move between the executor's threads (one at a time).
            connect_args={"check_same_thread": False},
        )
        sqlite_connection_setup(self.engine)
        self._executor = ThreadPoolExecutor(READ_THREADS, thread_name_prefix=THREAD_NAME)
        self._closed = False

    def _run(self, statement: Executable, params: Mapping[str, Any] | None) -> Rows:
        # Runs in a worker thread: the whole read, connection back in the pool included.
        with self.engine.connect() as connection:
            return connection.execute(statement, params).all()

    async def fetch_all(
        self, statement: Executable, params: Mapping[str, Any] | None = None
    ) -> Rows:
        """Every row of one statement, in a single hop to a worker thread."""
        if self._closed:
            raise RuntimeError("the SQLite reader has been disposed")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, statement, params)

    async def in_thread(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` in one of the reader's threads."""
        if self._closed:
            raise RuntimeError("the SQLite reader has been disposed")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, function, *args)

    async def dispose(self) -> None:
        """Refuse new reads, let running ones finish, then close every connection."""
        self._closed = True
        await asyncio.to_thread(self._executor.shutdown, wait=True)
        self.engine.dispose()
