"""Storage engines (storage/db.py): SQLite pragmas, write transactions that take
the lock up front, and rollback on error; PostgreSQL when configured."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, insert, select, text

from gatehouse.runtime import Runtime
from gatehouse.storage.db import async_url
from gatehouse.storage.tables.core import Tenant
from gatehouse.timeutil import utcnow


def test_urls_map_onto_async_drivers() -> None:
    assert async_url("sqlite:///./g.db") == "sqlite+aiosqlite:///./g.db"
    assert async_url("postgresql://u:p@h:5432/d") == "postgresql+asyncpg://u:p@h:5432/d"
    assert async_url("postgres://u@h/d") == "postgresql+asyncpg://u@h/d"


async def test_sqlite_connections_use_wal_busy_timeout_and_foreign_keys(runtime: Runtime) -> None:
    if not runtime.db.is_sqlite:
        pytest.skip("SQLite only")
    async with runtime.db.read() as session:
        assert (await session.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await session.execute(text("PRAGMA foreign_keys"))).scalar() == 1
        assert (await session.execute(text("PRAGMA busy_timeout"))).scalar() == 30000


async def test_concurrent_read_then_write_transactions_all_commit(runtime: Runtime) -> None:
    now = utcnow()

    async def add(n: int) -> None:
        async with runtime.db.write() as session:
            # Read, yield to the other tasks, then write: a deferred SQLite
            # transaction would fail here with "database is locked".
            await session.scalar(select(func.count()).select_from(Tenant))
            await asyncio.sleep(0)
            session.add(
                Tenant(
                    id=f"ten_concurrent{n:04d}",
                    name=f"T{n}",
                    status="active",
                    webhook_endpoint_cap=5,
                    created_at=now,
                    updated_at=now,
                )
            )

    await asyncio.gather(*(add(n) for n in range(20)))
    async with runtime.db.read() as session:
        assert await session.scalar(select(func.count()).select_from(Tenant)) == 20


async def test_a_failed_write_rolls_back(runtime: Runtime) -> None:
    now = utcnow()

    async def add_then_abort() -> None:
        async with runtime.db.write() as session:
            session.add(
                Tenant(
                    id="ten_rolledback",
                    name="x",
                    status="active",
                    webhook_endpoint_cap=5,
                    created_at=now,
                    updated_at=now,
                )
            )
            await session.flush()
            raise RuntimeError("abort")

    with pytest.raises(RuntimeError, match="abort"):
        await add_then_abort()
    async with runtime.db.read() as session:
        assert await session.get(Tenant, "ten_rolledback") is None


def _tenant_values(tenant_id: str) -> dict[str, object]:
    now = utcnow()
    return {
        "id": tenant_id,
        "name": tenant_id,
        "status": "active",
        "webhook_endpoint_cap": 5,
        "created_at": now,
        "updated_at": now,
    }


async def test_plain_connection_transactions_read_then_write_and_all_commit(
    runtime: Runtime,
) -> None:
    async def add(n: int) -> None:
        async with runtime.db.transaction() as connection:
            # As with write(): read, yield, then write must not hit "database is locked".
            await connection.scalar(select(func.count()).select_from(Tenant))
            await asyncio.sleep(0)
            await connection.execute(insert(Tenant), _tenant_values(f"ten_plain{n:04d}"))

    await asyncio.gather(*(add(n) for n in range(20)))
    async with runtime.db.read() as session:
        assert await session.scalar(select(func.count()).select_from(Tenant)) == 20


async def test_a_failed_plain_connection_transaction_rolls_back(runtime: Runtime) -> None:
    async def insert_then_abort() -> None:
        async with runtime.db.transaction() as connection:
            await connection.execute(insert(Tenant), _tenant_values("ten_plainrolledback"))
            raise RuntimeError("abort")

    with pytest.raises(RuntimeError, match="abort"):
        await insert_then_abort()
    async with runtime.db.read() as session:
        assert await session.get(Tenant, "ten_plainrolledback") is None
