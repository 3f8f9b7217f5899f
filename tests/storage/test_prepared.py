"""`Database.fetch_prepared` (storage/prepared.py): the same rows, values and types as
`fetch_all` (SQLAlchemy's own execution), every commit seen, a busy SQLite database
read from a thread, and only plain column types accepted."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import JSON, Integer, String, bindparam, column, func, select, table, tuple_
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect

from gatehouse.applications.queries.snapshot import _READ, _READ_STATEMENT
from gatehouse.applications.service.listing import _page_statement
from gatehouse.runtime import Runtime
from gatehouse.storage.prepared import PreparedRead, SqliteRunner, _utc_from_sqlite
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import Tenant
from tests.support.factories import TenantFixture

NOW = datetime(2026, 3, 4, 5, 6, 7, 891000, tzinfo=UTC)


async def provision(client: Any, tenant: TenantFixture, count: int) -> list[str]:
    ids = []
    for number in range(count):
        response = await client.post(
            "/v1/applications",
            json={"email": f"prepared-{number}@example.test", "externalRef": f"ref-{number}"},
            headers=tenant.headers,
        )
        assert response.status_code == 201, response.text
        ids.append(response.json()["clientId"])
    return ids


def _same(prepared_rows: list[Any], session_rows: Any) -> None:
    assert [tuple(row) for row in prepared_rows] == [tuple(row) for row in session_rows]
    for mine, theirs in zip(prepared_rows, session_rows, strict=True):
        assert mine._fields == tuple(theirs._fields)
        assert [type(value) for value in mine] == [type(value) for value in theirs]
        for value in mine:
            if isinstance(value, datetime):
                assert value.tzinfo is UTC or value.utcoffset() == timedelta(0)


async def test_the_application_read_gives_what_sqlalchemy_gives(
    runtime: Runtime, client: Any, tenant: TenantFixture
) -> None:
    (app_id,) = await provision(client, tenant, 1)
    params = {"application_id": app_id}
    rows = await runtime.db.fetch_prepared(_READ, params)
    assert rows
    assert rows[0].id == app_id
    assert rows[0].tenant_id == tenant.tenant_id
    _same(rows, await runtime.db.fetch_all(_READ_STATEMENT, params))
    assert await runtime.db.fetch_prepared(_READ, {"application_id": "app_none"}) == []


@pytest.mark.parametrize(
    "filters",
    [
        {},
        {"status": "pending"},
        {"external_ref": "ref-1"},
        {"updated_since": NOW - timedelta(days=3650)},
        {"after": True},
        {"status": "pending", "external_ref": "ref-0", "updated_since": NOW, "after": True},
    ],
    ids=lambda f: "+".join(f) or "none",
)
async def test_every_list_statement_gives_what_sqlalchemy_gives(
    runtime: Runtime, client: Any, tenant: TenantFixture, filters: dict[str, Any]
) -> None:
    await provision(client, tenant, 5)
    params: dict[str, Any] = {"tenant_id": tenant.tenant_id, "limit": 4}
    params.update({k: v for k, v in filters.items() if k != "after"})
    if filters.get("after"):
        newest = await runtime.db.fetch_all(
            select(Application.updated_at, Application.id)
            .where(Application.tenant_id == tenant.tenant_id)
            .order_by(Application.updated_at.desc(), Application.id.desc())
            .limit(1)
        )
        params["after_at"], params["after_id"] = newest[0]
    prepared = _page_statement(
        "status" in filters,
        "external_ref" in filters,
        "updated_since" in filters,
        "after" in filters,
    )
    rows = await runtime.db.fetch_prepared(prepared, params)
    _same(rows, await runtime.db.fetch_all(prepared.statement, params))
    if not filters:
        assert len(rows) == 4
    if "after" in filters and len(filters) == 1:
        assert len(rows) == 4
        assert params["after_id"] not in {row.id for row in rows}


async def test_a_commit_is_seen_by_the_next_read(runtime: Runtime) -> None:
    by_name = PreparedRead(
        select(Tenant.name, Tenant.created_at).where(
            Tenant.id == bindparam("tenant_id", type_=Tenant.id.type)
        )
    )
    for round_ in range(3):
        async with runtime.db.write() as session:
            if round_ == 0:
                session.add(
                    Tenant(
                        id="ten_prepared",
                        name="n0",
                        status="active",
                        webhook_endpoint_cap=5,
                        created_at=NOW,
                        updated_at=NOW,
                    )
                )
            else:
                tenant = await session.get(Tenant, "ten_prepared")
                assert tenant is not None
                tenant.name = f"n{round_}"
        rows = await runtime.db.fetch_prepared(by_name, {"tenant_id": "ten_prepared"})
        assert [tuple(row) for row in rows] == [(f"n{round_}", NOW)]


async def test_counts_and_constant_binds(runtime: Runtime) -> None:
    counted = PreparedRead(
        select(func.count().label("n")).select_from(Tenant).where(Tenant.webhook_endpoint_cap > 3)
    )
    before = (await runtime.db.fetch_prepared(counted))[0].n
    assert isinstance(before, int)


def test_only_plain_column_types_are_accepted() -> None:
    things = table("things", column("payload", JSON), column("n", Integer))
    with pytest.raises(TypeError, match="payload"):
        PreparedRead(select(things.c.payload))
    PreparedRead(select(things.c.n))


async def test_a_missing_bind_value_is_refused(runtime: Runtime) -> None:
    with pytest.raises(KeyError, match="application_id"):
        await runtime.db.fetch_prepared(_READ, {})


async def test_a_busy_sqlite_database_is_read_from_a_thread(tmp_path: Path) -> None:
    """While another connection holds the database's write lock exclusively (a database in
    rollback-journal mode: the case where a reader meets a lock), the read neither fails
    nor blocks the event loop: it waits in a thread, then answers."""
    path = tmp_path / "busy.db"
    with sqlite3.connect(path) as setup:
        setup.execute("CREATE TABLE tenants (id VARCHAR PRIMARY KEY, name VARCHAR)")
        setup.execute("INSERT INTO tenants VALUES ('ten_1', 'one')")
    things = table("tenants", column("id", String), column("name", String))
    by_id = PreparedRead(select(things.c.name).where(things.c.id == bindparam("tenant_id")))
    loop = asyncio.get_running_loop()
    runner = SqliteRunner(
        f"sqlite:///{path}", lambda function, *args: loop.run_in_executor(None, function, *args)
    )
    compiled = by_id.compiled(sqlite_dialect())
    locked = threading.Event()
    release = threading.Event()

    def hold_exclusively() -> None:
        connection = sqlite3.connect(path, isolation_level=None)
        try:
            connection.execute("BEGIN EXCLUSIVE")
            connection.execute("UPDATE tenants SET name = 'two'")
            locked.set()
            release.wait(10)
            connection.execute("COMMIT")
        finally:
            connection.close()

    holder = threading.Thread(target=hold_exclusively)
    holder.start()
    assert locked.wait(10)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while not release.is_set():
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(tick())
    loop.call_later(0.3, release.set)
    try:
        raw = await asyncio.wait_for(
            runner.fetch(compiled, compiled.values({"tenant_id": "ten_1"})), 20
        )
    finally:
        release.set()
        await ticker
        holder.join(10)
        runner.close()
    assert [tuple(row) for row in compiled.rows(raw)] == [("two",)]
    assert ticks >= 5  # the loop kept running while the read waited


def test_row_value_comparison_compiles_for_both_dialects() -> None:
    statement = select(Application.id).where(
        tuple_(Application.updated_at, Application.id)
        < tuple_(
            bindparam("after_at", type_=Application.updated_at.type),
            bindparam("after_id", type_=Application.id.type),
        )
    )
    from sqlalchemy.dialects import postgresql, sqlite

    prepared = PreparedRead(statement)
    for dialect in (sqlite.dialect(), postgresql.asyncpg.dialect()):  # type: ignore[no-untyped-call]
        compiled = prepared.compiled(dialect)
        assert compiled.required == {"after_at", "after_id"}
        assert len(compiled.positions) >= 2


async def test_a_read_the_server_refuses_leaves_the_connection_usable(runtime: Runtime) -> None:
    if runtime.db.is_sqlite:
        pytest.skip("PostgreSQL: the server refuses a square root of -1")
    root = PreparedRead(select(func.sqrt(bindparam("n", type_=Integer())).cast(Integer).label("r")))
    import asyncpg

    for _ in range(3):
        with pytest.raises(asyncpg.PostgresError):
            await runtime.db.fetch_prepared(root, {"n": -1})
        assert [tuple(row) for row in await runtime.db.fetch_prepared(root, {"n": 9})] == [(3,)]


async def test_a_sqlite_uri_names_the_database_and_a_closed_runner_refuses(
    tmp_path: Path,
) -> None:
    path = tmp_path / "by-uri.db"
    with sqlite3.connect(path) as setup:
        setup.execute("CREATE TABLE tenants (id VARCHAR PRIMARY KEY, name VARCHAR)")
        setup.execute("INSERT INTO tenants VALUES ('ten_1', 'one')")
    things = table("tenants", column("id", String), column("name", String))
    compiled = PreparedRead(select(things.c.name)).compiled(sqlite_dialect())
    runner = SqliteRunner(f"sqlite:///file:{path}?mode=ro&uri=true", None)  # type: ignore[arg-type]
    assert [tuple(row) for row in compiled.rows(await runner.fetch(compiled, []))] == [("one",)]
    runner.close()
    with pytest.raises(RuntimeError, match="disposed"):
        await runner.fetch(compiled, [])
    assert sorted(os.listdir(tmp_path)) == ["by-uri.db"]


@pytest.mark.parametrize(
    "stored",
    [
        "2026-11-24 07:10:00.123000",  # what SQLAlchemy writes
        "2026-11-24 07:10:00.000000",
        "2026-11-24T07:10:00.123456",
        "2026-11-24 07:10:00",  # written by hand, without a fraction
        "2026-11-24 07:10:00.1+0100",  # 26 characters, an offset among the last six
        "2026-11-24 07:10:00.123+02:00",
        "2026-11-24 07:10:00.123000Z",
    ],
)
def test_sqlite_timestamps_convert_as_sqlalchemy_converts_them(stored: str) -> None:
    dialect = sqlite_dialect()
    type_ = Application.created_at.type
    impl = type_.dialect_impl(dialect)
    expected = impl.process_result_value(
        type_.impl_instance.dialect_impl(dialect).result_processor(dialect, None)(stored),
        dialect,
    )
    got = _utc_from_sqlite(stored)
    assert got == expected
    assert got.utcoffset() == timedelta(0)
    assert got.replace(tzinfo=None) == expected.replace(tzinfo=None)


def test_a_value_met_twice_in_one_result_is_converted_once() -> None:
    prepared = PreparedRead(select(Application.id, Application.created_at, Application.updated_at))
    compiled = prepared.compiled(sqlite_dialect())
    rows = compiled.rows(
        [
            ("a", "2026-11-24 07:10:00.123000", "2026-11-24 07:10:00.123000"),
            ("b", "2026-11-24 07:10:00.123000", "2026-11-25 08:00:00.000000"),
            ("c", "2026-11-24 07:10:00.124000", None),
        ]
    )
    first = datetime(2026, 11, 24, 7, 10, 0, 123000, tzinfo=UTC)
    assert [tuple(row) for row in rows] == [
        ("a", first, first),
        ("b", first, datetime(2026, 11, 25, 8, tzinfo=UTC)),
        ("c", datetime(2026, 11, 24, 7, 10, 0, 124000, tzinfo=UTC), None),
    ]
    assert rows[0][1] is rows[0][2] is rows[1][1]
    assert rows[0][1].tzinfo is UTC
