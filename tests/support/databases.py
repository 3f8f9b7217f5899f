"""Test databases: a migrated SQLite file, or a fresh PostgreSQL database per run.

GATEHOUSE_TEST_DATABASE_URL selects PostgreSQL (e.g.
`postgresql://postgres@127.0.0.1:5432/test`); a database named after this
run is created beside the one named there, migrated, and dropped at the end.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncpg
from sqlalchemy import text
from sqlalchemy.engine import make_url

from gatehouse.storage.base import Base
from gatehouse.storage.db import Database
from gatehouse.storage.migrate import upgrade

POSTGRES_URL = os.environ.get("GATEHOUSE_TEST_DATABASE_URL")
REDIS_URL = os.environ.get("GATEHOUSE_TEST_REDIS_URL")


def _asyncpg_dsn(url: str) -> str:
    parsed = make_url(url).set(drivername="postgresql")
    return parsed.render_as_string(hide_password=False)


@contextmanager
def migrated_database(tmp_dir: Path) -> Iterator[str]:
    """Yield the URL of an empty, migrated database for this test run."""
    if not POSTGRES_URL:
        path = tmp_dir / "gatehouse-test.db"
        url = f"sqlite:///{path}"
        upgrade(url)
        yield url
        return
    name = f"gh_test_{os.getpid()}_{secrets.token_hex(3)}"
    admin_dsn = _asyncpg_dsn(POSTGRES_URL)

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(admin_dsn)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    url = make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    try:
        upgrade(url)
        yield url
    finally:
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def clear_all_tables(db: Database) -> None:
    """Empty every table (children first) so each test starts clean.

    The credentials epoch keeps its one row (migration 0014): it is the signal, not data.
    """
    tables = [t for t in Base.metadata.sorted_tables if t.name != "credential_epoch"]
    async with db.write() as session:
        if db.is_sqlite:
            for table in reversed(tables):
                await session.execute(table.delete())
        else:
            names = ", ".join(f'"{t.name}"' for t in tables)
            await session.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
