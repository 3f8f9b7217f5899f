"""Migration 0008 (docs/sandbox.md): existing tenants become live, existing verification
clients are not sandbox ones, and every stored event body gains `"environment": "live"`
while staying the same JSON otherwise; the downgrade takes it out again. SQLite by default,
PostgreSQL with GATEHOUSE_TEST_DATABASE_URL."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from alembic import command
from sqlalchemy import text

from gatehouse.storage.db import null_pool_engine
from gatehouse.storage.migrate import alembic_config
from tests.robustness.test_migration_history import execute

ENVELOPE = {
    "id": "evt_old",
    "type": "application.submitted",
    "apiVersion": "v1",
    "occurredAt": "2026-11-22T10:00:00.000Z",
    "tenantId": "ten_old",
    "idempotencyKey": "evt_old",
    "data": {"clientId": "app_old", "comment": 'say "environment" {here}', "sequence": 1},
}


def execute_with(url: str, sql: str, params: dict[str, Any]) -> None:
    async def run() -> None:
        engine = null_pool_engine(url)
        try:
            async with engine.begin() as connection:
                await connection.execute(text(sql), params)
        finally:
            await engine.dispose()

    asyncio.run(run())


def rows(url: str, sql: str) -> list[Any]:
    async def read() -> list[Any]:
        engine = null_pool_engine(url)
        try:
            async with engine.connect() as connection:
                return list((await connection.execute(text(sql))).all())
        finally:
            await engine.dispose()

    return asyncio.run(read())


def test_0008_backfills_environments_and_event_bodies(empty_database_url: str) -> None:
    config = alembic_config(empty_database_url)
    command.upgrade(config, "0006")
    # Timestamps are SQL literals: a bound string is no timestamp to asyncpg.
    execute(
        empty_database_url,
        "INSERT INTO tenants (id, name, status, webhook_endpoint_cap, created_at, updated_at) "
        "VALUES ('ten_old', 'Old', 'active', 5, "
        "'2026-11-22 10:00:00+00', '2026-11-22 10:00:00+00')",
    )
    execute_with(
        empty_database_url,
        "INSERT INTO verification_clients (uuid, name, secret_hash, customer_created_events, "
        "created_at, updated_at) VALUES ('c-old', 'Old', :secret_hash, false, "
        "'2026-11-22 10:00:00+00', '2026-11-22 10:00:00+00')",
        {"secret_hash": "0" * 64},
    )
    execute_with(
        empty_database_url,
        "INSERT INTO events (id, tenant_id, application_id, type, sequence, occurred_at, body, "
        "created_at) VALUES ('evt_old', 'ten_old', 'app_old', 'application.submitted', 1, "
        "'2026-11-22 10:00:00+00', :body, '2026-11-22 10:00:00+00')",
        {"body": orjson.dumps(ENVELOPE).decode()},
    )

    command.upgrade(config, "0008")

    assert rows(empty_database_url, "SELECT environment FROM tenants") == [("live",)]
    [(sandbox,)] = rows(empty_database_url, "SELECT sandbox FROM verification_clients")
    assert not sandbox
    [(stored,)] = rows(empty_database_url, "SELECT body FROM events")
    assert orjson.loads(stored) == {**ENVELOPE, "environment": "live"}

    command.downgrade(config, "0006")
    [(restored,)] = rows(empty_database_url, "SELECT body FROM events")
    assert orjson.loads(restored) == ENVELOPE
    command.upgrade(config, "head")
    [(again,)] = rows(empty_database_url, "SELECT body FROM events")
    assert orjson.loads(again)["environment"] == "live"
