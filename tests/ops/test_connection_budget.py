"""The connection budget (docs/operations.md, "Connections"): a process opens at most
GATEHOUSE_DB_POOL_SIZE PostgreSQL connections, and compose.yaml's processes stay within
PostgreSQL's default max_connections (100, three of them reserved for superusers)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from gatehouse.settings import MIN_DB_POOL_SIZE, Settings
from gatehouse.storage.db import Database

ROOT = Path(__file__).resolve().parents[2]
POSTGRES_DEFAULT_BUDGET = 100 - 3


def default_of(value: str) -> str:
    """`${NAME:-default}` as compose reads it with NAME unset."""
    found = re.fullmatch(r"\$\{[A-Z_]+:-([^}]*)\}", value)
    return found.group(1) if found else value


async def test_the_one_pool_of_a_process_is_its_pool_size() -> None:
    db = Database("postgresql://nobody@127.0.0.1:1/none", pool_size=12)
    try:
        assert db.write_engine.pool.size() == 12  # type: ignore[attr-defined]
        assert "Current Overflow: -12" in db.write_engine.pool.status()
    finally:
        await db.dispose()


def test_a_pool_smaller_than_the_workers_need_is_refused() -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(db_pool_size=MIN_DB_POOL_SIZE - 1)
    assert "GATEHOUSE_DB_POOL_SIZE=4 is smaller than the 5 connections" in str(refused.value)
    assert Settings(db_pool_size=MIN_DB_POOL_SIZE).db_pool_size == MIN_DB_POOL_SIZE


def test_compose_stays_within_postgresqls_default_max_connections() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    environment = compose["x-gatehouse"]["environment"]
    pool = int(default_of(environment["GATEHOUSE_DB_POOL_SIZE"]))
    serve = services["serve"]["command"]
    api_processes = int(default_of(serve[serve.index("--workers") + 1]))
    assert "--no-worker" in serve
    workers = int(services["worker"]["deploy"]["replicas"])
    # Each process's pool and its one LISTEN (credentials or wake-ups), and the migrate service.
    assert (api_processes + workers) * (pool + 1) + 1 <= POSTGRES_DEFAULT_BUDGET
