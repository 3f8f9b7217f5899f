"""`gatehouse --version` and `gatehouse migrate --status` (docs/operations.md, "Upgrades")."""

from __future__ import annotations

import asyncio
from importlib.metadata import version
from pathlib import Path

import pytest
from sqlalchemy import text

from gatehouse import __version__
from gatehouse.storage.db import null_pool_engine
from gatehouse.storage.migrate import latest_revision
from tests.support.processes import clean_env, run

pytestmark = pytest.mark.slow


def test_version_prints_the_installed_version(tmp_path: Path) -> None:
    done = run(["--version"], clean_env(), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"gatehouse {__version__}\n"
    assert __version__ == version("gatehouse")  # the package metadata agrees


def test_migrate_status_names_an_older_revision_and_changes_nothing(
    empty_database_url: str, tmp_path: Path
) -> None:
    env = clean_env(database_url=empty_database_url, secret_key="k" * 48)
    assert run(["migrate"], env, tmp_path).returncode == 0
    done = run(["migrate", "--status"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "up to date"
    # As if this version had been installed over a database at 0005.
    asyncio.run(_sql(empty_database_url, "UPDATE alembic_version SET version_num = '0005'"))
    head = latest_revision()
    for _ in range(2):
        done = run(["migrate", "--status"], env, tmp_path)
        assert done.returncode == 1, done.stderr  # pending: a script can tell
        lines = done.stdout.splitlines()
        assert lines == ["current: 0005", f"latest: {head}", "migrations pending"]
    assert asyncio.run(_sql(empty_database_url, "SELECT version_num FROM alembic_version")) == [
        ("0005",)
    ]


def test_a_short_secret_key_is_refused_at_start_in_one_line(
    empty_database_url: str, tmp_path: Path
) -> None:
    for key in ("k", "k" * 31, " " * 40):
        env = clean_env(database_url=empty_database_url, secret_key=key)
        for args in (["migrate"], ["serve", "--port", "1"], ["worker"]):
            done = run(args, env, tmp_path)
            assert done.returncode == 2, (args, done.stderr)
            error = [line for line in done.stderr.splitlines() if line.startswith("error:")]
            assert len(error) == 1, done.stderr
            assert "GATEHOUSE_SECRET_KEY" in error[0]
            assert "at least 32 characters" in error[0]
    env = clean_env(database_url=empty_database_url, secret_key="k" * 32)
    assert run(["migrate"], env, tmp_path).returncode == 0


async def _sql(url: str, statement: str) -> list[tuple[object, ...]]:
    engine = null_pool_engine(url)
    try:
        async with engine.begin() as connection:
            result = await connection.execute(text(statement))
            return [tuple(row) for row in result] if result.returns_rows else []
    finally:
        await engine.dispose()
