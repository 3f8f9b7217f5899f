"""Hot statements of a write transaction, compiled once and run on its driver connection.

`AsyncConnection.execute` costs SQLAlchemy's per-execution work on every call: the
statement's cache key, an execution context, a result; on PostgreSQL the asyncpg adapter's
bookkeeping on top. For the provisioning transaction that came to about 70 % of its
statements' CPU (bench/RESULTS.md). A `TxStatement` keeps SQLAlchemy for the statement,
its SQL for each dialect and the types' bind and result processing (so values go in and
come out as SQLAlchemy would give them), and runs the SQL itself, inside the transaction
of the `AsyncConnection` it is given, beside that connection's ordinary statements. The
driver connection is reached through SQLAlchemy's public `get_raw_connection()`:

- on SQLite, `Database.transaction()`'s aiosqlite connection: one hop to the driver's
  thread per statement (`execute_fetchall`), instead of one per cursor step;
- on PostgreSQL, `Database.transaction()`'s asyncpg connection, which SQLAlchemy holds in
  autocommit while `driver_transaction` holds the transaction through asyncpg's public
  `Connection.transaction()` (begun now, or at the first statement that is not `alone`).

Any other connection (a session's, for instance) runs the statement through SQLAlchemy,
with the same rows back.

A `Tx` is the write transaction as its statements see it, however it is run:
`ConnectionTx` over an `AsyncConnection` (`run_in` above), or `SqliteTx` over a synchronous
pysqlite connection inside the one worker-thread call that runs a whole SQLite write
transaction (`Database.run_transaction`, storage/sqlite_writes.py).

Rows are named tuples whose fields are the statement's columns (`exported_columns`: a
SELECT's, or an INSERT's or UPDATE's RETURNING).

Columns whose defaults SQLAlchemy computes in Python at execution are refused (a
statement must give them). Errors come from the driver as they are, not wrapped by
SQLAlchemy: these statements are for paths whose conflicts are part of the statement
(ON CONFLICT), not caught errors.
"""

from __future__ import annotations

import contextlib
from collections import namedtuple
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.base import Executable

from gatehouse.storage.base import UTCDateTime

Processor = Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class CompiledTx:
    """A statement's SQL for one dialect and how values go in and come out."""

    sql: str
    positions: tuple[str, ...]  # bind names, in the order of the placeholders
    defaults: Mapping[str, Any]  # values of the statement's own binds (literals)
    bind_processors: Mapping[str, Processor]
    result_processors: tuple[tuple[int, Processor], ...]
    make_row: Callable[[Iterable[Any]], Any]

    def values(self, params: Mapping[str, Any]) -> list[Any]:
        out = []
        processors, defaults = self.bind_processors, self.defaults
        for name in self.positions:
            value = params[name] if name in params else defaults[name]
            processor = processors.get(name)
            out.append(value if processor is None or value is None else processor(value))
        return out

    def rows(self, raw: Sequence[Sequence[Any]]) -> list[Any]:
        make = self.make_row
        if not self.result_processors:
            return [make(values) for values in raw]
        out = []
        for values in raw:
            row = list(values)
            for index, processor in self.result_processors:
                value = row[index]
                if value is not None:
                    row[index] = processor(value)
            out.append(make(row))
        return out


def _utc_from_sqlite(value: str) -> datetime:
    """`UTCDateTime` of a SQLite value in one call (SQLAlchemy's SQLite DATETIME
    processor, `datetime.fromisoformat`, then `UTCDateTime.process_result_value`)."""
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _result_processor(type_: Any, dialect: Dialect) -> Processor | None:
    if type(type_) is UTCDateTime:
        if dialect.name == "postgresql":
            return None  # asyncpg gives timestamptz values as datetimes in UTC already
        if dialect.name == "sqlite":
            return _utc_from_sqlite
    processor: Processor | None = type_.dialect_impl(dialect).result_processor(dialect, None)
    return processor


class TxStatement:
    """One statement run by `run_in`; compiled once per dialect."""

    def __init__(self, statement: Any) -> None:
        self.statement = statement
        columns = list(statement.exported_columns)
        self._types = [column.type for column in columns]
        keys = list(statement.exported_columns.keys())
        # A named tuple class per statement, made once.
        self.make_row: Callable[[Iterable[Any]], Any] = tuple
        if keys:
            self.make_row = namedtuple("Row", keys)._make  # type: ignore[attr-defined]
        self._compiled: dict[str, CompiledTx] = {}

    def compiled(self, dialect: Dialect) -> CompiledTx:
        found = self._compiled.get(dialect.name)
        if found is None:
            found = self._compiled[dialect.name] = self._compile(dialect)
        return found

    def _compile(self, dialect: Dialect) -> CompiledTx:
        compiled = self.statement.compile(dialect=dialect)
        computed = [*compiled.insert_prefetch, *compiled.update_prefetch]
        if computed:
            # SQLAlchemy's execution fills these in; this runner does not: give them.
            keys = sorted(column.key for column in computed)
            raise TypeError(f"columns with Python-side defaults must be given: {keys}")
        names = compiled.bind_names
        bind_processors = {}
        defaults = {}
        for bind in compiled.binds.values():
            name = names[bind]
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                bind_processors[name] = processor
            if not bind.required:
                defaults[name] = bind.effective_value
        result_processors = []
        for index, type_ in enumerate(self._types):
            convert = _result_processor(type_, dialect)
            if convert is not None:
                result_processors.append((index, convert))
        return CompiledTx(
            sql=compiled.string,
            positions=tuple(compiled.positiontup or ()),
            defaults=defaults,
            bind_processors=bind_processors,
            result_processors=tuple(result_processors),
            make_row=self.make_row,
        )


# Where `driver_transaction` leaves its state, in the connection's `info` (SQLAlchemy's
# public per-connection dictionary) for as long as the transaction lasts.
_STATE = "gatehouse_driver_transaction"


@dataclass(slots=True)
class _DriverTransaction:
    """A PostgreSQL transaction held on asyncpg's own API, begun now or when first needed."""

    driver: Any  # the asyncpg connection
    transaction: Any = field(default=None)  # asyncpg's Transaction, once begun

    async def begin(self) -> None:
        if self.transaction is None:
            transaction = self.driver.transaction()
            await transaction.start()
            self.transaction = transaction


@contextlib.asynccontextmanager
async def driver_transaction(connection: AsyncConnection, *, lazy: bool) -> AsyncIterator[None]:
    """Hold one transaction on `connection` (in autocommit for SQLAlchemy) through asyncpg.

    Commits on success, rolls back on any exception. Should the rollback itself fail (a
    broken connection, a cancellation), the connection is invalidated, so that it never
    goes back to the pool with a transaction open.
    """
    raw = await connection.get_raw_connection()
    state = _DriverTransaction(raw.driver_connection)
    info = connection.info
    info[_STATE] = state
    try:
        if not lazy:
            await state.begin()
        yield
    except BaseException:
        info.pop(_STATE, None)
        if state.transaction is not None:
            try:
                await state.transaction.rollback()
            except BaseException:
                await connection.invalidate()
                raise
        raise
    info.pop(_STATE, None)
    if state.transaction is not None:
        try:
            await state.transaction.commit()
        except BaseException:
            await connection.invalidate()
            raise


async def run_in(
    connection: AsyncConnection,
    statement: TxStatement,
    params: Mapping[str, Any],
    *,
    alone: bool = False,
) -> list[Any]:
    """Run `statement` in `connection`'s transaction; its rows (none for plain DML).

    `alone`: on PostgreSQL, in a lazy `Database.transaction()` that has not begun yet, the
    statement runs on its own (autocommit) and the transaction stays unopened, saving its
    BEGIN and COMMIT round trips; for a statement that is whole by itself and whose caller
    needs nothing else in its transaction. SQLite's transaction is always open (BEGIN
    IMMEDIATE at `begin()`), so there it runs in the transaction.
    """
    dialect = connection.dialect
    compiled = statement.compiled(dialect)
    if dialect.name == "postgresql":
        state: _DriverTransaction | None = connection.info.get(_STATE)
        if state is not None:
            if not alone:
                await state.begin()
            raw = await state.driver.fetch(compiled.sql, *compiled.values(params))
            return compiled.rows(raw)
    elif dialect.driver == "aiosqlite":
        driver: Any = (await connection.get_raw_connection()).driver_connection
        raw = await driver.execute_fetchall(compiled.sql, compiled.values(params))
        return compiled.rows(list(raw))
    result = await connection.execute(statement.statement, dict(params))
    if not result.returns_rows:
        return []
    return [statement.make_row(tuple(row)) for row in result.all()]


class Tx(Protocol):
    """One write transaction, as the statements of a use case see it."""

    @property
    def is_sqlite(self) -> bool: ...

    async def run(
        self, statement: TxStatement, params: Mapping[str, Any], *, alone: bool = False
    ) -> list[Any]:
        """`statement`'s rows (none for plain DML); `alone` as for `run_in`."""
        ...

    async def execute(self, statement: Executable, params: Mapping[str, Any] | None = None) -> None:
        """Any other Core statement, through SQLAlchemy; its rows are not kept."""
        ...


class ConnectionTx:
    """A `Tx` over an `AsyncConnection`: `Database.transaction()`'s, or a session's."""

    __slots__ = ("connection", "is_sqlite")

    def __init__(self, connection: AsyncConnection) -> None:
        self.connection = connection
        self.is_sqlite = connection.dialect.name == "sqlite"

    async def run(
        self, statement: TxStatement, params: Mapping[str, Any], *, alone: bool = False
    ) -> list[Any]:
        return await run_in(self.connection, statement, params, alone=alone)

    async def execute(self, statement: Executable, params: Mapping[str, Any] | None = None) -> None:
        await self.connection.execute(statement, params)


class SqliteTx:
    """A `Tx` over a synchronous pysqlite connection whose transaction is open.

    Used only inside the worker thread that runs a whole SQLite write transaction
    (storage/sqlite_writes.py): every statement runs at once, so a coroutine awaiting these
    methods never suspends. `run` executes on the driver connection (SQLAlchemy's public
    `driver_connection`), inside the transaction SQLAlchemy began.
    """

    __slots__ = ("_connection", "_dialect", "_driver")
    is_sqlite = True

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._dialect = connection.dialect
        self._driver: Any = connection.connection.driver_connection

    async def run(
        self, statement: TxStatement, params: Mapping[str, Any], *, alone: bool = False
    ) -> list[Any]:
        compiled = statement.compiled(self._dialect)
        cursor = self._driver.execute(compiled.sql, compiled.values(params))
        try:
            raw = cursor.fetchall()
        finally:
            cursor.close()
        return compiled.rows(raw)

    async def execute(self, statement: Executable, params: Mapping[str, Any] | None = None) -> None:
        self._connection.execute(statement, params)


def as_tx(target: Tx | AsyncConnection) -> Tx:
    """`target` as a `Tx` (an `AsyncConnection` is wrapped)."""
    if isinstance(target, AsyncConnection):
        return ConnectionTx(target)
    return target
