"""Percentiles are nearest-rank and the same on SQLite and PostgreSQL (docs/insights.md "Time
to decision"): the SQL agrees with the Python reference on the database under test, and, when
the run is on PostgreSQL, with a SQLite database holding exactly the same rows."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gatehouse.domain.sandbox import SANDBOX
from gatehouse.insights import Filters, compute_insights, insights_view, nearest_rank
from gatehouse.runtime import Runtime
from gatehouse.storage.migrate import upgrade
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import Tenant
from tests.conftest import make_settings
from tests.support.databases import POSTGRES_URL

NOW = datetime(2026, 11, 20, 12, 0, 0, tzinfo=UTC)
FILTERS = Filters(NOW - timedelta(days=30), NOW)


def durations(seed: int, count: int) -> list[int]:
    """Seconds to decision with ties, a zero, fractions of a second around the boundaries."""
    chooser = random.Random(seed)
    return [
        chooser.choice((0, 1, 59, 3_600, 86_400))
        if n % 7 == 0
        else chooser.randrange(0, 40 * 86_400)
        for n in range(count)
    ]


async def seed(runtime: Runtime, spans: list[int]) -> None:
    """One live tenant whose decided applications took `spans` seconds (creations spread
    over the period, with milliseconds), plus open ones and a sandbox tenant's decided one."""
    async with runtime.db.write() as session:
        session.add(
            Tenant(id="ten_live", name="Live", status="active", created_at=NOW, updated_at=NOW)
        )
        session.add(
            Tenant(
                id="ten_play",
                name="Play",
                status="active",
                environment=SANDBOX,
                created_at=NOW,
                updated_at=NOW,
            )
        )
        await session.flush()
        for n, span in enumerate(spans):
            created = NOW - timedelta(days=29, milliseconds=n * 997) + timedelta(hours=n % 500)
            session.add(
                Application(
                    id=f"app_{n:06d}",
                    tenant_id="ten_live",
                    identity=f"email:{n}@example.test",
                    status="active" if n % 3 else "rejected",
                    created_at=created,
                    updated_at=created,
                    status_changed_at=created + timedelta(seconds=span, milliseconds=n % 1000),
                    form_data={},
                )
            )
        for n in range(5):
            session.add(
                Application(
                    id=f"app_open{n}",
                    tenant_id="ten_live",
                    identity=f"email:open{n}@example.test",
                    status="pending",
                    created_at=NOW - timedelta(days=n * 9),
                    updated_at=NOW,
                    status_changed_at=NOW,
                    form_data={},
                )
            )
        session.add(
            Application(
                id="app_sandbox",
                tenant_id="ten_play",
                identity="email:s@example.test",
                status="active",
                created_at=NOW - timedelta(days=1),
                updated_at=NOW,
                status_changed_at=NOW,
                form_data={},
            )
        )


async def figures(runtime: Runtime) -> dict[str, object]:
    async with runtime.db.read() as session:
        return dict(insights_view(await compute_insights(session, FILTERS, NOW)))


@pytest.mark.parametrize("count", [1, 2, 10, 101, 400])
async def test_the_sql_matches_the_nearest_rank_reference(runtime: Runtime, count: int) -> None:
    spans = durations(count, count)
    await seed(runtime, spans)

    found = await figures(runtime)

    # Whole seconds: the difference of the two moments' whole seconds since 1970.
    async with runtime.db.read() as session:
        rows = [await session.get_one(Application, f"app_{n:06d}") for n in range(count)]
    seconds = [
        int(row.status_changed_at.timestamp()) - int(row.created_at.timestamp()) for row in rows
    ]
    assert found["timeToDecision"] == {
        "p50Seconds": nearest_rank(seconds, 50),
        "p90Seconds": nearest_rank(seconds, 90),
    }
    # The decided ones, and the open ones created inside the period (9, 18 and 27 days ago).
    assert found["funnel"]["created"] == count + 3  # type: ignore[index]
    assert found["openByAge"] == [
        {"bucket": "<1d", "count": 1},
        {"bucket": "1-3d", "count": 0},
        {"bucket": "3-7d", "count": 0},
        {"bucket": "7-30d", "count": 3},
        {"bucket": ">30d", "count": 1},
    ]


def test_the_reference_is_nearest_rank() -> None:
    assert nearest_rank([], 50) is None
    assert nearest_rank([5], 90) == 5
    assert nearest_rank([4, 1, 3, 2], 50) == 2
    assert nearest_rank([4, 1, 3, 2], 90) == 4
    assert nearest_rank(list(range(1, 11)), 90) == 9
    assert nearest_rank(list(range(1, 101)), 50) == 50


@pytest.fixture
async def sqlite_twin(tmp_path: Path) -> AsyncIterator[Runtime]:
    """A second, SQLite database beside the PostgreSQL one of this run."""
    url = f"sqlite:///{tmp_path}/twin.db"
    await asyncio.to_thread(upgrade, url)
    twin = Runtime.build(make_settings(url))
    yield twin
    await twin.close()


@pytest.mark.skipif(not POSTGRES_URL, reason="compares PostgreSQL with SQLite")
async def test_postgresql_and_sqlite_give_the_same_figures(
    runtime: Runtime, sqlite_twin: Runtime
) -> None:
    spans = durations(7, 333)
    await seed(runtime, spans)
    await seed(sqlite_twin, spans)
    assert runtime.settings.database_url.startswith("postgresql")

    on_postgres, on_sqlite = await figures(runtime), await figures(sqlite_twin)

    assert on_postgres == on_sqlite
    assert on_postgres["timeToDecision"] != {"p50Seconds": None, "p90Seconds": None}
