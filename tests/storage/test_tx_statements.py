"""`run_in` (storage/tx_statements.py): a statement compiled once and run on a write
transaction's driver connection gives the rows SQLAlchemy gives, writes inside that
transaction (rolled back with it), and with `alone` on PostgreSQL runs on its own only
while the transaction has not begun."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import bindparam, insert, select, text
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Intake
from gatehouse.storage.tables.core import Tenant
from gatehouse.storage.tx_statements import TxStatement, run_in
from tests.support.factories import TenantFixture

NOW = datetime(2026, 3, 4, 5, 6, 7, 891000, tzinfo=UTC)

_INTAKES = TxStatement(
    select(
        Intake.id,
        Intake.tenant_id,
        Intake.attached,
        Intake.order,
        Intake.checklist,
        Intake.form_fields,
        Intake.created_at,
    ).where(Intake.tenant_id == bindparam("tenant_id"))
)
_TENANT = TxStatement(
    insert(Tenant)
    .values(
        id=bindparam("id"),
        name=bindparam("name"),
        status="active",  # a literal of the statement itself
        webhook_endpoint_cap=5,
        environment="live",
        created_at=bindparam("now", type_=Tenant.created_at.type),
        updated_at=bindparam("now", type_=Tenant.updated_at.type),
    )
    .returning(Tenant.id, Tenant.status, Tenant.created_at)
)


async def _tenant_ids(runtime: Runtime, prefix: str) -> list[str]:
    async with runtime.db.read() as session:
        found = await session.scalars(select(Tenant.id).where(Tenant.id.startswith(prefix)))
        return sorted(found)


async def test_rows_are_what_sqlalchemy_gives(runtime: Runtime, tenant: TenantFixture) -> None:
    async with runtime.db.transaction() as connection:
        mine = await run_in(connection, _INTAKES, {"tenant_id": tenant.tenant_id})
        theirs = (
            await connection.execute(_INTAKES.statement, {"tenant_id": tenant.tenant_id})
        ).all()
    assert mine
    assert [tuple(row) for row in mine] == [tuple(row) for row in theirs]
    for row, other in zip(mine, theirs, strict=True):
        assert row._fields == tuple(other._fields)
        assert [type(value) for value in row] == [type(value) for value in other]
        assert isinstance(row.checklist, list)  # JSON decoded
        assert row.created_at.utcoffset() == timedelta(0)


async def test_returning_and_the_statements_own_literals(runtime: Runtime) -> None:
    async with runtime.db.transaction() as connection:
        rows = await run_in(connection, _TENANT, {"id": "ten_txreturning", "name": "R", "now": NOW})
    assert [tuple(row) for row in rows] == [("ten_txreturning", "active", NOW)]
    assert await _tenant_ids(runtime, "ten_txreturning") == ["ten_txreturning"]


async def test_writes_belong_to_the_transaction(runtime: Runtime) -> None:
    async def insert_then_abort() -> None:
        async with runtime.db.transaction() as connection:
            await run_in(connection, _TENANT, {"id": "ten_txrolledback", "name": "R", "now": NOW})
            raise RuntimeError("abort")

    with pytest.raises(RuntimeError, match="abort"):
        await insert_then_abort()
    assert await _tenant_ids(runtime, "ten_txrolledback") == []


async def test_alone_runs_on_its_own_only_before_the_transaction_begins(
    runtime: Runtime,
) -> None:
    async def three_then_abort() -> None:
        async with runtime.db.transaction(lazy=True) as connection:
            await run_in(
                connection, _TENANT, {"id": "ten_txalone1", "name": "A", "now": NOW}, alone=True
            )
            await run_in(connection, _TENANT, {"id": "ten_txalone2", "name": "A", "now": NOW})
            # The transaction has begun: this one is part of it.
            await run_in(
                connection, _TENANT, {"id": "ten_txalone3", "name": "A", "now": NOW}, alone=True
            )
            raise RuntimeError("abort")

    with pytest.raises(RuntimeError, match="abort"):
        await three_then_abort()
    kept = await _tenant_ids(runtime, "ten_txalone")
    if runtime.db.is_sqlite:
        assert kept == []  # SQLite's transaction began at begin(): everything rolled back
    else:
        assert kept == ["ten_txalone1"]


async def test_a_transaction_that_is_not_lazy_holds_alone_statements_too(
    runtime: Runtime,
) -> None:
    async def alone_then_abort() -> None:
        async with runtime.db.transaction() as connection:
            await run_in(
                connection, _TENANT, {"id": "ten_txeager1", "name": "A", "now": NOW}, alone=True
            )
            await connection.execute(text("SELECT 1"))
            raise RuntimeError("abort")

    with pytest.raises(RuntimeError, match="abort"):
        await alone_then_abort()
    assert await _tenant_ids(runtime, "ten_txeager") == []


async def test_plain_statements_share_the_driver_transaction(runtime: Runtime) -> None:
    """SQLAlchemy's own statements and `run_in`'s commit or roll back together."""
    values = {"id": "ten_txmixed2", "name": "M", "status": "active", "webhook_endpoint_cap": 5}

    async def mixed_then_abort() -> None:
        async with runtime.db.transaction(lazy=True) as connection:
            await run_in(connection, _TENANT, {"id": "ten_txmixed1", "name": "M", "now": NOW})
            await connection.execute(
                insert(Tenant), {**values, "created_at": NOW, "updated_at": NOW}
            )
            raise RuntimeError("abort")

    with pytest.raises(RuntimeError, match="abort"):
        await mixed_then_abort()
    assert await _tenant_ids(runtime, "ten_txmixed") == []
    async with runtime.db.transaction(lazy=True) as connection:
        await run_in(connection, _TENANT, {"id": "ten_txmixed1", "name": "M", "now": NOW})
        await connection.execute(insert(Tenant), {**values, "created_at": NOW, "updated_at": NOW})
    assert await _tenant_ids(runtime, "ten_txmixed") == ["ten_txmixed1", "ten_txmixed2"]


async def test_a_session_connection_runs_it_too(runtime: Runtime, tenant: TenantFixture) -> None:
    """On SQLite `write()` is aiosqlite's: the statement goes through SQLAlchemy there."""
    async with runtime.db.write() as session:
        connection = await session.connection()
        rows: list[Any] = await run_in(connection, _INTAKES, {"tenant_id": tenant.tenant_id})
        await run_in(connection, _TENANT, {"id": "ten_txsession", "name": "S", "now": NOW})
    assert rows
    assert rows[0].tenant_id == tenant.tenant_id
    assert isinstance(rows[0].checklist, list)
    assert rows[0].created_at.utcoffset() == timedelta(0)
    assert await _tenant_ids(runtime, "ten_txsession") == ["ten_txsession"]


def test_python_side_defaults_are_refused() -> None:
    """`environment` has a Python-side default SQLAlchemy would fill in at execution."""
    statement = TxStatement(insert(Tenant).values(id=bindparam("id"), name=bindparam("name")))
    with pytest.raises(TypeError, match="environment"):
        statement.compiled(sqlite_dialect())
