"""Apply Alembic migrations programmatically (`gatehouse migrate`, `serve`, `worker`).

The history is one chain, 0001 → 0002 → … (docs/platform.md, "Migrations").
Migrating takes a database-wide lock first, so processes that start together
on an empty database migrate one after another: the first creates the schema,
the others find it at head. PostgreSQL: a transaction's advisory lock on a fixed
key, held by a transaction of its own. SQLite: an exclusive lock on a file beside the
database (`<database>-migrate.lock`, mode 0600).

Databases created while the history had one branch per area (core, webhooks,
verification, dashboard) may hold several rows in alembic_version; they are
joined onto the chain before upgrading (`_join_old_branches`).
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.operations import Operations
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, make_url

from gatehouse.storage.db import null_pool_engine

MIGRATIONS = Path(__file__).parent / "migrations"
# The key of pg_advisory_lock (a bigint); the same in every Gatehouse process.
MIGRATION_LOCK_KEY = 0x4761_7465_686F_7573  # "Gatehous"
LOCK_SUFFIX = "-migrate.lock"
# The revisions of the old branch layout, in chain order, each with the first table
# it creates: which of them a database holds is read from its tables, because the
# old rows in alembic_version name branch heads, not what lies beneath them.
OLD_LAYOUT = {
    "0001": "audit_log",
    "0002": "webhook_endpoints",
    "0003": "verification_clients",
    "0004": "dashboard_sessions",
}

log = logging.getLogger("gatehouse.migrate")


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["url"] = url
    return config


def latest_revision() -> str:
    """The head of the history (there is exactly one)."""
    head = ScriptDirectory.from_config(alembic_config("")).get_current_head()
    if head is None:
        raise RuntimeError("the migration history has no head")
    return head


def _versions(connection: Connection) -> list[str]:
    if not inspect(connection).has_table("alembic_version"):
        return []
    rows = connection.execute(text("SELECT version_num FROM alembic_version"))
    return sorted(row[0] for row in rows)


def _join_old_branches(connection: Connection, script: ScriptDirectory) -> None:
    """Bring a database migrated with the old branch layout onto the chain.

    Its alembic_version may hold several rows (e.g. 0002, 0003, 0004), and a
    single row such as 0003 there meant "0001 and 0003", not "0001 to 0003".
    The revisions it holds are read from their tables; any revision of the
    chain missing below the newest one held is applied, then alembic_version
    is left with that newest revision alone. A database already on the chain
    passes through unchanged.
    """
    versions = _versions(connection)
    if not versions or not set(versions) <= set(OLD_LAYOUT):
        return
    tables = set(inspect(connection).get_table_names())
    held = [revision for revision, table in OLD_LAYOUT.items() if table in tables]
    if not held:
        return
    newest = held[-1]
    missing = [revision for revision in OLD_LAYOUT if revision < newest and revision not in held]
    if versions == [newest] and not missing:
        return
    log.info(
        "joining the old migration branches",
        extra={"versions": versions, "applying": missing, "stamp": newest},
    )
    with Operations.context(MigrationContext.configure(connection)):
        for revision in missing:
            found = script.get_revision(revision)
            if found is None or found.module is None:
                raise RuntimeError(f"migration {revision} is not in this version's history")
            found.module.upgrade()
    connection.execute(text("DELETE FROM alembic_version"))
    connection.execute(
        text("INSERT INTO alembic_version (version_num) VALUES (:revision)"),
        {"revision": newest},
    )


def _upgrade(connection: Connection, url: str) -> None:
    config = alembic_config(url)
    config.attributes["connection"] = connection
    _join_old_branches(connection, ScriptDirectory.from_config(config))
    command.upgrade(config, "head")


@asynccontextmanager
async def _postgres_lock(url: str) -> AsyncIterator[None]:
    engine = null_pool_engine(url)
    try:
        # A transaction's advisory lock, held by a transaction kept open while migrating and
        # released when it ends: a pooler in transaction mode keeps one server connection
        # for a transaction, never for a session (storage/pooler.py).
        async with engine.begin() as connection:
            key = {"key": MIGRATION_LOCK_KEY}
            taken = await connection.scalar(
                text("SELECT pg_try_advisory_xact_lock(CAST(:key AS bigint))"), key
            )
            if not taken:
                log.info("waiting for another process to finish migrating")
                await connection.execute(
                    text("SELECT pg_advisory_xact_lock(CAST(:key AS bigint))"), key
                )
            yield
    finally:
        await engine.dispose()


def lock_path(url: str) -> Path:
    """The lock file beside a SQLite database."""
    database = make_url(url).database or ""
    return Path(database + LOCK_SUFFIX).resolve()


@asynccontextmanager
async def _file_lock(path: Path) -> AsyncIterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.info("waiting for another process to finish migrating")
            await asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


@asynccontextmanager
async def migration_lock(url: str) -> AsyncIterator[None]:
    """Hold the database's migration lock (waiting for it if another process has it)."""
    if make_url(url).get_backend_name() == "sqlite":
        async with _file_lock(lock_path(url)):
            yield
    else:
        async with _postgres_lock(url):
            yield


async def upgrade_async(url: str) -> None:
    """Bring the schema to the head of the history, under the migration lock."""
    async with migration_lock(url):
        engine = null_pool_engine(url)
        try:
            async with engine.begin() as connection:
                await connection.run_sync(_upgrade, url)
        finally:
            await engine.dispose()


def upgrade(url: str) -> None:
    asyncio.run(upgrade_async(url))


@dataclass(frozen=True)
class MigrationStatus:
    current: list[str]  # the rows of alembic_version; empty for an empty database
    latest: str

    @property
    def up_to_date(self) -> bool:
        return self.current == [self.latest]


async def status_async(url: str) -> MigrationStatus:
    """The database's current revision(s) and the latest one; changes nothing."""
    latest = latest_revision()
    if make_url(url).get_backend_name() == "sqlite":
        database = make_url(url).database or ""
        if not await asyncio.to_thread(Path(database).exists):  # connecting would create it
            return MigrationStatus([], latest)
    engine = null_pool_engine(url)
    try:
        async with engine.connect() as connection:
            current = await connection.run_sync(_versions)
    finally:
        await engine.dispose()
    return MigrationStatus(current, latest)


def status(url: str) -> MigrationStatus:
    return asyncio.run(status_async(url))
