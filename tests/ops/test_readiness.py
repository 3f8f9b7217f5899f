"""/readyz (docs/operations.md, "Health and readiness"): 200 when the database answers,
Redis answers when configured, and the schema is at this version's head (or ahead of it);
503 naming the failing check otherwise. /healthz stays liveness."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from gatehouse.storage.migrate import upgrade_async
from gatehouse.web.readiness import migration_state
from tests.conftest import make_settings


@asynccontextmanager
async def app_client(database_url: str, **settings: Any) -> AsyncIterator[httpx.AsyncClient]:
    runtime = Runtime.build(make_settings(database_url, **settings))
    try:
        app = create_app(runtime.settings, runtime)
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client
    finally:
        await runtime.close()


async def test_ready_when_every_check_passes(client: httpx.AsyncClient) -> None:
    answer = await client.get("/readyz")
    assert answer.status_code == 200
    assert answer.json() == {
        "status": "ready",
        "checks": {"database": "ok", "redis": "not configured", "migrations": "ok"},
    }
    assert (await client.get("/healthz")).json() == {"status": "ok", "database": "ok"}


async def test_redis_is_checked_when_configured(database_url: str, redis_url: str) -> None:
    async with app_client(database_url, redis_url=redis_url) as client:
        answer = await client.get("/readyz")
        assert answer.status_code == 200
        assert answer.json()["checks"]["redis"] == "ok"
    async with app_client(database_url, redis_url="redis://127.0.0.1:1/0") as client:
        # Redis down: the limits fail open, so the process stays in the load balancer and
        # says Redis is degraded (docs/operations.md, "Health and readiness").
        answer = await client.get("/readyz")
        assert answer.status_code == 200
        assert answer.json() == {
            "status": "ready",
            "checks": {"database": "ok", "redis": "degraded", "migrations": "ok"},
            "degraded": ["redis"],
        }
        # Liveness does not depend on Redis.
        assert (await client.get("/healthz")).status_code == 200


@pytest.mark.parametrize(
    "url",
    ["postgresql://postgres@127.0.0.1:1/none", "sqlite:////nonexistent-gatehouse-dir/x.db"],
    ids=["postgresql", "sqlite"],
)
async def test_an_unreachable_database_is_unready_and_not_alive(url: str) -> None:
    async with app_client(url) as client:
        answer = await client.get("/readyz")
        assert answer.status_code == 503
        assert answer.json()["checks"] == {
            "database": "down",
            "redis": "not configured",
            "migrations": "unknown",
        }
        assert (await client.get("/healthz")).status_code == 503


async def test_a_schema_behind_this_version_is_unready_and_one_ahead_is_ready(
    empty_database_url: str,
) -> None:
    async with app_client(empty_database_url) as client:
        # Nothing migrated yet: no alembic_version at all.
        answer = await client.get("/readyz")
        assert answer.status_code == 503
        assert answer.json()["checks"]["migrations"] == "pending"

    await upgrade_async(empty_database_url)
    async with app_client(empty_database_url) as client:
        assert (await client.get("/readyz")).status_code == 200
        runtime: Runtime = client._transport.app.state.runtime  # type: ignore[attr-defined]
        for revision, status, state in (("0001", 503, "pending"), ("9999_later", 200, "ahead")):
            async with runtime.db.write() as session:
                await session.execute(
                    text("UPDATE alembic_version SET version_num = :v"), {"v": revision}
                )
            answer = await client.get("/readyz")
            assert answer.status_code == status
            assert answer.json()["checks"]["migrations"] == state


def test_migration_states() -> None:
    from gatehouse.storage.migrate import latest_revision

    assert migration_state([latest_revision()]) == "ok"
    assert migration_state([]) == "pending"
    assert migration_state(["0001"]) == "pending"
    assert migration_state(["0001", latest_revision()]) == "pending"  # two rows: not one chain
    assert migration_state(["ffff_from_a_later_version"]) == "ahead"
