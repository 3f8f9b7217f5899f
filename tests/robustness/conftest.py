"""Fixtures for the robustness tests: a fresh, EMPTY database per test.

SQLite by default; PostgreSQL when GATEHOUSE_TEST_DATABASE_URL is set (a
database named after the test is created beside the one named there and
dropped afterwards).
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from tests.support.databases import POSTGRES_URL


def _admin_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _admin(sql: str) -> None:
    assert POSTGRES_URL is not None

    async def execute() -> None:
        conn = await asyncpg.connect(_admin_dsn(POSTGRES_URL))
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(execute())


@pytest.fixture
def empty_database_url(tmp_path: Path) -> Iterator[str]:
    """The URL of a database that exists and holds nothing (no tables at all)."""
    if not POSTGRES_URL:
        (tmp_path / "data").mkdir()
        yield f"sqlite:///{tmp_path}/data/gatehouse.db"
        return
    name = f"gh_empty_{os.getpid()}_{secrets.token_hex(3)}"
    _admin(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
