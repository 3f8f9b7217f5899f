"""Apply Alembic migrations programmatically (`gatehouse migrate`, `serve` on start).

The history has one branch per area (core, webhooks, verification); `heads`
applies them all.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection

from gatehouse.storage.db import null_pool_engine

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["url"] = url
    return config


def _upgrade(connection: Connection, url: str) -> None:
    config = alembic_config(url)
    config.attributes["connection"] = connection
    command.upgrade(config, "heads")


async def upgrade_async(url: str) -> None:
    """Bring the schema to the newest revision of every branch."""
    engine = null_pool_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_upgrade, url)
    finally:
        await engine.dispose()


def upgrade(url: str) -> None:
    asyncio.run(upgrade_async(url))
