"""Engines and transactions over SQLite (default) and PostgreSQL.

SQLite: WAL, busy_timeout and foreign keys on every connection; write
transactions start with BEGIN IMMEDIATE so that a transaction which reads and
then writes can never fail with "database is locked" (DESIGN.md, known traps).
Reads use a second engine whose transactions stay deferred, so readers never
queue behind the write lock.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import NullPool


def async_url(url: str) -> str:
    """Map the configured URL onto the async drivers."""
    parsed = make_url(url)
    if parsed.drivername in ("sqlite", "sqlite+pysqlite"):
        return str(parsed.set(drivername="sqlite+aiosqlite"))
    if parsed.drivername in ("postgresql", "postgres", "postgresql+psycopg2"):
        return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
    return parsed.render_as_string(hide_password=False)


def _sqlite_pragmas(engine: AsyncEngine, *, immediate: bool) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide where transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


class Database:
    """The two session factories every service uses: `read()` and `write()`."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = async_url(url)
        self.dialect = make_url(self.url).get_backend_name()
        self.is_sqlite = self.dialect == "sqlite"
        if self.is_sqlite:
            self.write_engine = create_async_engine(
                self.url, echo=echo, pool_size=1, max_overflow=0, pool_timeout=60
            )
            self.read_engine = create_async_engine(self.url, echo=echo, pool_size=8, max_overflow=8)
            _sqlite_pragmas(self.write_engine, immediate=True)
            _sqlite_pragmas(self.read_engine, immediate=False)
        else:
            self.write_engine = create_async_engine(
                self.url, echo=echo, pool_size=10, max_overflow=20, pool_pre_ping=False
            )
            # Under READ COMMITTED every statement takes its own snapshot, so wrapping
            # reads in a transaction only adds BEGIN and COMMIT round trips: reads run
            # in autocommit on the same pool (issue 8).
            self.read_engine = self.write_engine.execution_options(isolation_level="AUTOCOMMIT")
        self._write = async_sessionmaker(self.write_engine, expire_on_commit=False)
        self._read = async_sessionmaker(self.read_engine, expire_on_commit=False)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """One write transaction: commits on success, rolls back on any exception."""
        async with self._write() as session, session.begin():
            yield session

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A read-only transaction (never commits anything)."""
        async with self._read() as session, session.begin():
            yield session

    async def dispose(self) -> None:
        await self.write_engine.dispose()
        if self.is_sqlite:
            await self.read_engine.dispose()


def null_pool_engine(url: str) -> AsyncEngine:
    """An engine that keeps no connections (for CLI one-shots)."""
    return create_async_engine(async_url(url), poolclass=NullPool)
