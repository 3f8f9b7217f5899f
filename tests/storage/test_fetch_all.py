"""`Database.fetch_all`: single-statement reads without a session (bench/RESULTS.md).

On SQLite they run on a synchronous engine in one worker-thread call
(storage/sqlite_reads.py); on PostgreSQL on the autocommit read engine. Both
must return exactly what the session path returns and see every commit made
before they run.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import bindparam, select, text
from sqlalchemy.exc import DBAPIError

from gatehouse.runtime import Runtime
from gatehouse.settings import sqlite_path
from gatehouse.storage.db import Database
from gatehouse.storage.sqlite_reads import THREAD_NAME
from gatehouse.storage.tables.core import ApiKey, Tenant

CREATED = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
BY_ID = select(Tenant.id, Tenant.name, Tenant.created_at).where(
    Tenant.id == bindparam("tenant_id", type_=Tenant.id.type)
)


async def add_tenant(db: Database, tenant_id: str, name: str = "T") -> None:
    async with db.write() as session:
        session.add(
            Tenant(
                id=tenant_id,
                name=name,
                status="active",
                webhook_endpoint_cap=5,
                created_at=CREATED,
                updated_at=CREATED,
            )
        )


async def test_rows_and_params(runtime: Runtime) -> None:
    await add_tenant(runtime.db, "ten_fetch_a", "Alpha")
    await add_tenant(runtime.db, "ten_fetch_b", "Beta")
    rows = await runtime.db.fetch_all(BY_ID, {"tenant_id": "ten_fetch_b"})
    assert [tuple(row) for row in rows] == [("ten_fetch_b", "Beta", CREATED)]
    assert rows[0].name == "Beta"
    everyone = await runtime.db.fetch_all(select(Tenant.id).order_by(Tenant.id))
    assert [row.id for row in everyone] == ["ten_fetch_a", "ten_fetch_b"]


async def test_same_rows_and_types_as_a_session(runtime: Runtime) -> None:
    """Result processors (the UTC TypeDecorator, JSON) apply exactly as in the ORM path."""
    await add_tenant(runtime.db, "ten_fetch_types")
    async with runtime.db.write() as session:
        session.add(
            ApiKey(
                id="keytypes000000",
                tenant_id="ten_fetch_types",
                name="k",
                secret_hash="0" * 64,
                status="active",
                scopes=["applications:read"],
                created_at=CREATED,
            )
        )
    statement = select(ApiKey.scopes, ApiKey.created_at, Tenant.created_at).join(
        Tenant, Tenant.id == ApiKey.tenant_id
    )
    fetched = await runtime.db.fetch_all(statement)
    async with runtime.db.read() as session:
        through_session = (await session.execute(statement)).all()
    assert fetched == through_session
    scopes, key_created, tenant_created = fetched[0]
    assert scopes == ["applications:read"]
    assert key_created == CREATED
    assert key_created.tzinfo is not None
    assert tenant_created == CREATED
    assert tenant_created.utcoffset() == CREATED.utcoffset()


async def test_an_empty_result(runtime: Runtime) -> None:
    assert list(await runtime.db.fetch_all(BY_ID, {"tenant_id": "ten_nobody"})) == []


async def test_an_error_propagates(runtime: Runtime) -> None:
    with pytest.raises(DBAPIError, match="no_such_table"):
        await runtime.db.fetch_all(text("SELECT * FROM no_such_table"))
    # The failed statement left nothing behind: the next read works.
    assert list(await runtime.db.fetch_all(BY_ID, {"tenant_id": "ten_nobody"})) == []


async def test_sees_a_row_committed_just_before(runtime: Runtime) -> None:
    """No stale snapshot: each read sees every commit made before it, at once."""
    # Warm the pool first, so that pooled connections (not fresh ones) are reused.
    await runtime.db.fetch_all(BY_ID, {"tenant_id": "ten_fresh_0"})
    for n in range(5):
        tenant_id = f"ten_fresh_{n}"
        await add_tenant(runtime.db, tenant_id)
        rows = await runtime.db.fetch_all(BY_ID, {"tenant_id": tenant_id})
        assert [row.id for row in rows] == [tenant_id]
        count = await runtime.db.fetch_all(select(Tenant.id))
        assert len(count) == n + 1


async def test_fifty_concurrent_reads(runtime: Runtime) -> None:
    for n in range(10):
        await add_tenant(runtime.db, f"ten_many_{n}", f"T{n}")
    results = await asyncio.gather(
        *(runtime.db.fetch_all(BY_ID, {"tenant_id": f"ten_many_{n % 10}"}) for n in range(50))
    )
    assert [rows[0].name for rows in results] == [f"T{n % 10}" for n in range(50)]


async def test_reads_run_beside_an_open_write_transaction(runtime: Runtime) -> None:
    """A reader never queues behind the write lock (WAL): it sees the last commit."""
    await add_tenant(runtime.db, "ten_before_write", "Before")
    async with runtime.db.write() as session:
        await session.execute(
            text("UPDATE tenants SET name = 'During' WHERE id = 'ten_before_write'")
        )
        rows = await asyncio.wait_for(
            runtime.db.fetch_all(BY_ID, {"tenant_id": "ten_before_write"}), timeout=10
        )
        assert rows[0].name == "Before"
    rows = await runtime.db.fetch_all(BY_ID, {"tenant_id": "ten_before_write"})
    assert rows[0].name == "During"


def _reader_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(THREAD_NAME)]


async def test_dispose_closes_the_reader(runtime: Runtime) -> None:
    before = set(_reader_threads())
    db = Database(runtime.settings.database_url)
    assert list(await db.fetch_all(BY_ID, {"tenant_id": "ten_nobody"})) == []
    started = set(_reader_threads()) - before
    pool = db.fetch_engine.pool
    if db.is_sqlite:
        assert started
        assert pool.checkedin() >= 1  # type: ignore[attr-defined]
    await db.dispose()
    if db.is_sqlite:
        # The executor's threads have ended and its pool's connections are closed.
        assert not any(thread.is_alive() for thread in started)
        assert pool.checkedin() == 0  # type: ignore[attr-defined]
        with pytest.raises(RuntimeError, match="disposed"):
            await db.fetch_all(BY_ID, {"tenant_id": "ten_nobody"})
    else:
        assert pool.checkedin() == 0  # type: ignore[attr-defined]


async def test_sqlite_reader_connections_use_the_pragmas(runtime: Runtime) -> None:
    if not runtime.db.is_sqlite:
        pytest.skip("SQLite only")
    rows = await runtime.db.fetch_all(
        text(
            "SELECT (SELECT journal_mode FROM pragma_journal_mode), "
            "(SELECT foreign_keys FROM pragma_foreign_keys), "
            "(SELECT timeout FROM pragma_busy_timeout), "
            "(SELECT synchronous FROM pragma_synchronous)"
        )
    )
    assert tuple(rows[0]) == ("wal", 1, 30000, 1)


def test_in_memory_sqlite_is_refused_clearly(tmp_path: Path) -> None:
    for url in ("sqlite:///:memory:", "sqlite://"):
        assert sqlite_path(url) is None
        with pytest.raises(ValueError, match="In-memory SQLite"):
            Database(url)


async def test_sqlite_reads_leave_no_transaction_open(runtime: Runtime) -> None:
    """Autocommit: a pooled connection holds no snapshot (and no WAL read mark) between reads."""
    if not runtime.db.is_sqlite:
        pytest.skip("SQLite only")
    await add_tenant(runtime.db, "ten_no_txn")
    await runtime.db.fetch_all(BY_ID, {"tenant_id": "ten_no_txn"})
    with runtime.db.fetch_engine.connect() as connection:
        raw = connection.connection.dbapi_connection
        assert raw is not None
        assert raw.isolation_level is None
        assert raw.in_transaction is False
