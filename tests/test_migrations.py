"""The Alembic history matches the models (autogenerate finds no difference),
on SQLite and on PostgreSQL (GATEHOUSE_TEST_DATABASE_URL)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from gatehouse.storage import tables  # noqa: F401  (registers every table)
from gatehouse.storage.base import Base
from gatehouse.storage.db import null_pool_engine
from gatehouse.storage.migrate import alembic_config, latest_revision, upgrade_async
from tests.support.databases import migrated_database


def _differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "render_as_batch": True}
    )
    return list(compare_metadata(context, Base.metadata))


def _heads(connection: Connection) -> set[str]:
    return set(MigrationContext.configure(connection).get_current_heads())


async def test_migrations_match_the_models(database_url: str) -> None:
    engine = null_pool_engine(database_url)
    try:
        async with engine.connect() as connection:
            differences = await connection.run_sync(_differences)
            applied = await connection.run_sync(_heads)
    finally:
        await engine.dispose()
    assert differences == [], "models and migrations differ:\n" + "\n".join(map(str, differences))
    script = ScriptDirectory.from_config(alembic_config(database_url))
    # Every head of every branch is applied (a head may be recorded through a
    # revision that depends on it).
    reached = {rev.revision for rev in script.revision_map.iterate_revisions(applied, "base")}
    assert set(script.get_heads()) <= reached


async def test_upgrade_is_repeatable_and_creates_every_table(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/fresh.db"
    await upgrade_async(url)
    await upgrade_async(url)  # a second run changes nothing

    def names(connection: Connection) -> set[str]:
        return set(inspect(connection).get_table_names())

    engine = null_pool_engine(url)
    try:
        async with engine.connect() as connection:
            existing = await connection.run_sync(names)
    finally:
        await engine.dispose()
    assert set(Base.metadata.tables) <= existing


def test_every_migration_downgrades_and_upgrades_again(tmp_path: Path) -> None:
    """head -> base -> head on a database of its own (SQLite, or a PostgreSQL database made
    for the test): every downgrade runs, leaves no table of ours, and the history rebuilds a
    schema that matches the models."""
    with migrated_database(tmp_path) as url:
        config = alembic_config(url)
        command.downgrade(config, "base")

        async def read(check: Callable[[Connection], Any]) -> Any:
            engine = null_pool_engine(url)
            try:
                async with engine.connect() as connection:
                    return await connection.run_sync(check)
            finally:
                await engine.dispose()

        left = asyncio.run(read(lambda c: set(inspect(c).get_table_names())))
        assert left <= {"alembic_version"}
        command.upgrade(config, "head")
        assert asyncio.run(read(_differences)) == []
        assert asyncio.run(read(_heads)) == {latest_revision()}
