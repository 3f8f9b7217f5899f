"""Hot single-statement reads, compiled once and run on the database driver directly.

`Database.fetch_all` runs a statement through SQLAlchemy: on every call it derives the
statement's cache key (a walk of the whole statement), builds an execution context and a
result, and on SQLite hops to a worker thread. For the application read that came to
about 160 us of this process's CPU around a 33 us query on SQLite, and 200 us against 60 us
on PostgreSQL. A `PreparedRead` keeps SQLAlchemy for what it is good at (the statement,
its SQL for each dialect, the types' bind and result processing) and runs the SQL itself:

- on SQLite, on a connection of the calling thread, without a worker thread: a SELECT
  in autocommit on a WAL database is its own snapshot and waits on no lock; in the rare
  cases where SQLite answers "busy" (recovery of the WAL index), the read is made again
  in a worker thread with the usual busy timeout;
- on PostgreSQL, on the asyncpg connection of a connection from the database's one pool
  (SQLAlchemy's, in autocommit like every single-statement read), reached through its
  public `get_raw_connection()`; asyncpg's statement cache prepares each statement once
  per connection.

Rows come back as named tuples whose fields are the statement's column names, with the
values SQLAlchemy would have given (its own result processors run on them), so callers
read them as they read SQLAlchemy rows. Only the column types listed in `PLAIN_TYPES`
are accepted: their values need no connection-level set-up (no JSON codecs).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Boolean, DateTime, Integer, String, Text
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql import Select
from sqlalchemy.types import TypeDecorator

from gatehouse.storage.base import UTCDateTime
from gatehouse.storage.sqlite_reads import register_functions

# A read that finds the database busy is made again in a thread, waiting this long at most.
BUSY_TIMEOUT_MS = 30_000
# Connections prepared reads keep borrowed from SQLAlchemy's pool between reads.
KEEP = 8
PLAIN_TYPES: tuple[type, ...] = (String, Text, Integer, Boolean, DateTime)

Processor = Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class Compiled:
    """A statement's SQL for one dialect and how values go in and come out."""

    sql: str
    positions: tuple[str, ...]  # bind names, in the order of the placeholders
    defaults: Mapping[str, Any]  # values of the statement's own binds (limits, constants)
    required: frozenset[str]
    bind_processors: Mapping[str, Processor]
    row: Callable[[Sequence[Any]], tuple[Any, ...]]
    result_processors: tuple[tuple[int, Processor], ...]

    def values(self, params: Mapping[str, Any]) -> list[Any]:
        missing = self.required - params.keys()
        if missing:
            raise KeyError(f"missing bind values: {sorted(missing)}")
        merged = {**self.defaults, **params}
        processors = self.bind_processors
        out = []
        for name in self.positions:
            value = merged[name]
            processor = processors.get(name)
            out.append(value if processor is None or value is None else processor(value))
        return out

    def rows(self, raw: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
        make = self.row
        if not self.result_processors:
            return [make(values) for values in raw]
        # Within one result a value met again (an application's createdAt that is also
        # its updatedAt) is converted once: one memo per processor, so the rows share the
        # converted object (every type of `PLAIN_TYPES` converts to an immutable value).
        memos: dict[Processor, dict[Any, Any]] = {}
        plan = [(i, f, memos.setdefault(f, {})) for i, f in self.result_processors]
        out = []
        for values in raw:
            row = list(values)
            for index, processor, memo in plan:
                value = row[index]
                if value is not None:
                    converted = memo.get(value)
                    if converted is None:
                        converted = memo[value] = processor(value)
                    row[index] = converted
            out.append(make(row))
        return out


def _plain(type_: Any) -> bool:
    if isinstance(type_, TypeDecorator):
        type_ = type_.impl_instance
    return isinstance(type_, PLAIN_TYPES)


class PreparedRead:
    """One SELECT, run by `Database.fetch_prepared`; compiled once per dialect."""

    def __init__(self, statement: Select[*tuple[Any, ...]]) -> None:
        columns = list(statement.selected_columns)
        keys = list(statement.selected_columns.keys())
        for column in columns:
            if not _plain(column.type):
                raise TypeError(f"column {column!r} has a type PreparedRead does not run")
        self.statement = statement
        self._keys = keys
        self._types = [column.type for column in columns]
        self._row = namedtuple("Row", keys)  # type: ignore[misc]
        self._compiled: dict[str, Compiled] = {}

    def compiled(self, dialect: Dialect) -> Compiled:
        found = self._compiled.get(dialect.name)
        if found is None:
            found = self._compiled[dialect.name] = self._compile(dialect)
        return found

    def _compile(self, dialect: Dialect) -> Compiled:
        compiled = self.statement.compile(dialect=dialect)
        positions = tuple(compiled.positiontup or ())
        binds = compiled.binds
        required = frozenset(name for name, bind in binds.items() if bind.required)
        defaults = compiled.construct_params(dict.fromkeys(required)) or {}
        bind_processors = {}
        for name, bind in binds.items():
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                bind_processors[name] = processor
        result_processors = []
        for index, type_ in enumerate(self._types):
            if _already_utc(type_, dialect):
                continue
            convert: Processor | None = _fast_processor(type_, dialect) or type_.dialect_impl(
                dialect
            ).result_processor(dialect, None)
            if convert is not None:
                result_processors.append((index, convert))
        row = self._row
        return Compiled(
            sql=compiled.string,
            positions=positions,
            defaults={k: v for k, v in defaults.items() if k not in required},
            required=required,
            bind_processors=bind_processors,
            row=lambda values: tuple.__new__(row, values),
            result_processors=tuple(result_processors),
        )


# How SQLAlchemy's SQLite DATETIME stores a value: `2026-11-24 07:10:00.123000`, naive
# (UTCDateTime stores UTC without an offset), always with six fraction digits.
_STORED_LENGTH = len("2026-11-24 07:10:00.123000")


def _utc_from_sqlite(value: str) -> datetime:
    """`UTCDateTime` of a SQLite value in one call: what SQLAlchemy's SQLite DATETIME
    processor (`datetime.fromisoformat`) and `UTCDateTime.process_result_value` do.

    The stored form is read as UTC by parsing it with `+00:00` appended: a third of the
    cost of `replace(tzinfo=UTC)` after the parse (a list page reads 200 of them). Any
    other text (written by hand, with an offset) takes the general path.
    """
    if len(value) == _STORED_LENGTH and value[19] == ".":
        try:
            return datetime.fromisoformat(value + "+00:00")
        except ValueError:
            pass  # not the stored form after all (an offset within the last six)
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _already_utc(type_: Any, dialect: Dialect) -> bool:
    """asyncpg gives `timestamptz` values as datetimes in UTC (`timezone.utc`), which is
    what `UTCDateTime.process_result_value` would make of them."""
    return dialect.name == "postgresql" and type(type_) is UTCDateTime


def _fast_processor(type_: Any, dialect: Dialect) -> Processor | None:
    if dialect.name == "sqlite" and type(type_) is UTCDateTime:
        return _utc_from_sqlite
    return None


class SqliteRunner:
    """Runs compiled SELECTs on per-thread connections to one SQLite file."""

    def __init__(self, url: str, fallback: Callable[..., Any]) -> None:
        parsed = make_url(url)
        self.path = parsed.database or ""
        # `sqlite:///file:…?uri=true`: the database is a SQLite URI, as for SQLAlchemy.
        self._uri = str(parsed.query.get("uri", "")).lower() in ("true", "1")
        self._closed = False
        self._local = threading.local()
        self._every: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        # Runs a function in a worker thread (the reader's executor), for busy databases.
        self._in_thread = fallback

    def _connection(self, busy_timeout_ms: int) -> sqlite3.Connection:
        connections: dict[int, sqlite3.Connection] | None = getattr(self._local, "by_timeout", None)
        if connections is None:
            connections = self._local.by_timeout = {}
        connection = connections.get(busy_timeout_ms)
        if connection is None:
            connection = sqlite3.connect(
                self.path,
                isolation_level=None,
                check_same_thread=False,
                cached_statements=256,
                uri=self._uri,
            )
            connection.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            connection.execute("PRAGMA query_only=ON")
            register_functions(connection)
            connections[busy_timeout_ms] = connection
            with self._lock:
                self._every.append(connection)
        return connection

    def _run(self, compiled: Compiled, values: list[Any], busy_timeout_ms: int) -> list[Any]:
        return self._connection(busy_timeout_ms).execute(compiled.sql, values).fetchall()

    async def fetch(self, compiled: Compiled, values: list[Any]) -> list[Any]:
        if self._closed:
            raise RuntimeError("the SQLite reader has been disposed")
        try:
            # No wait on the event loop's thread: a busy database is read from a thread.
            return self._run(compiled, values, 0)
        except sqlite3.OperationalError as exc:
            if not _busy(exc):
                raise
        result: list[Any] = await self._in_thread(self._run, compiled, values, BUSY_TIMEOUT_MS)
        return result

    def close(self) -> None:
        self._closed = True
        with self._lock:
            every, self._every = self._every, []
        for connection in every:
            connection.close()


def _busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool(code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED))
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class PostgresRunner:
    """Runs compiled SELECTs on connections borrowed from SQLAlchemy's pool (autocommit).

    One pool owns every connection of the process: its size, its `max_connections` share
    and its failover handling are SQLAlchemy's (storage/db.py). Checking a connection out
    and in for each read costs about 90 us of CPU, several times the read itself, so up
    to `KEEP` connections stay borrowed between reads, each carrying one read at a time
    (asyncpg's statement cache prepares each statement once per connection). After an
    error the server answered, a connection is kept (autocommit: nothing is left open);
    after any other failure (a broken connection, a cancelled read) SQLAlchemy is told to
    throw it away (`invalidate`), and its pool opens a new one when needed.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._idle: list[tuple[AsyncConnection, Any]] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    async def fetch(self, compiled: Compiled, values: list[Any]) -> list[Any]:
        import asyncpg

        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            # Connections belong to the loop that opened them (tests run several loops):
            # those of a finished loop are left to the pool's garbage collection.
            self._idle, self._loop = [], loop
        if self._idle:
            connection, driver = self._idle.pop()
        else:
            connection = await self._engine.connect()
            driver = (await connection.get_raw_connection()).driver_connection
        try:
            rows: list[Any] = await driver.fetch(compiled.sql, *values)
        except asyncpg.PostgresError:
            await self._give_back(connection, driver)
            raise
        except BaseException:
            with contextlib.suppress(Exception):
                await connection.invalidate()
                await connection.close()
            raise
        await self._give_back(connection, driver)
        return rows

    async def _give_back(self, connection: AsyncConnection, driver: Any) -> None:
        if len(self._idle) < KEEP:
            self._idle.append((connection, driver))
        else:
            await connection.close()

    async def close(self) -> None:
        """Return the borrowed connections to the pool (before it is disposed)."""
        idle, self._idle = self._idle, []
        if self._loop is not asyncio.get_running_loop():
            return
        for connection, _ in idle:
            with contextlib.suppress(Exception):
                await connection.close()
