"""Migration 0011: `staff_members.token_hash`, a copy of the first staff token's digest that
nothing read, is dropped; the token itself stays in `staff_tokens` (where 0005 copied it) and
keeps working. The downgrade brings the column back nullable and empty (the digests cannot be
made again without the tokens). SQLite by default, PostgreSQL with GATEHOUSE_TEST_DATABASE_URL."""

from __future__ import annotations

import asyncio
from typing import Any

from alembic import command
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from gatehouse.storage.db import null_pool_engine
from gatehouse.storage.migrate import alembic_config
from tests.robustness.test_migration_sandbox import execute_with, rows

STAFF_ID = "stf_abcdefghij0123456789"
DIGEST = "kabc123$" + "d" * 56


def staff_member_columns(url: str) -> dict[str, Any]:
    def read(connection: Connection) -> dict[str, Any]:
        return {
            column["name"]: column for column in inspect(connection).get_columns("staff_members")
        }

    async def run() -> dict[str, Any]:
        engine = null_pool_engine(url)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(read)
        finally:
            await engine.dispose()

    return asyncio.run(run())


def test_0011_drops_the_copy_and_keeps_the_token(empty_database_url: str) -> None:
    url = empty_database_url
    config = alembic_config(url)
    command.upgrade(config, "0004")  # before staff identity: the digest lived only here
    # A timestamp is an SQL literal: a bound string is no timestamp to asyncpg.
    execute_with(
        url,
        "INSERT INTO staff_members (id, email, role, token_hash, status, created_at) "
        "VALUES (:id, 'old@example.test', 'admin', :digest, 'active', "
        "'2026-01-01 00:00:00+00')",
        {"id": STAFF_ID, "digest": DIGEST},
    )
    command.upgrade(config, "0010")
    assert "token_hash" in staff_member_columns(url)

    command.upgrade(config, "0011")
    assert "token_hash" not in staff_member_columns(url)
    # The member and its token are untouched; the token is in staff_tokens only.
    assert rows(url, "SELECT id, email, role, status FROM staff_members") == [
        (STAFF_ID, "old@example.test", "admin", "active")
    ]
    assert rows(url, "SELECT staff_id, token_hash FROM staff_tokens") == [(STAFF_ID, DIGEST)]

    command.downgrade(config, "0010")
    restored = staff_member_columns(url)
    assert restored["token_hash"]["nullable"]
    assert rows(url, "SELECT id, token_hash FROM staff_members") == [(STAFF_ID, None)]
    assert rows(url, "SELECT staff_id, token_hash FROM staff_tokens") == [(STAFF_ID, DIGEST)]

    command.upgrade(config, "head")
    assert "token_hash" not in staff_member_columns(url)
    assert rows(url, "SELECT id FROM staff_members") == [(STAFF_ID,)]
