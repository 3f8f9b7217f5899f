"""Several processes migrating one empty database at the same moment
(docs/platform.md, "Migrations"): every one succeeds and the schema is
created once, at the single head of the history. SQLite by default,
PostgreSQL with GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from gatehouse.storage import tables  # noqa: F401  (registers every table)
from gatehouse.storage.base import Base
from gatehouse.storage.db import null_pool_engine
from gatehouse.storage.migrate import alembic_config
from tests.support.leaks import EXTERNAL_LINES
from tests.support.patience import patient
from tests.support.processes import clean_env

pytestmark = pytest.mark.slow

PROCESSES = 6

# Each process imports everything first, then waits until all of them are ready,
# so the migrations really start together rather than one interpreter start-up apart.
_BARRIER = """
import os, sys, time
from gatehouse.cli import app
folder, count = sys.argv[1], int(sys.argv[2])
open(os.path.join(folder, str(os.getpid())), "w").close()
while len(os.listdir(folder)) < count:
    time.sleep(0.002)
app(sys.argv[3:])
"""


def start_together(
    args: list[str], count: int, env: dict[str, str], tmp_path: Path
) -> list[subprocess.CompletedProcess[str]]:
    """Run `gatehouse <args>` in `count` processes released at the same moment."""
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _BARRIER, str(barrier), str(count), *args],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    done = []
    for process in processes:
        out, err = process.communicate(timeout=patient(60))
        EXTERNAL_LINES.extend(err.splitlines())
        done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done


def _state(connection: Connection) -> tuple[list[str], set[str]]:
    versions = [
        row[0] for row in connection.execute(text("SELECT version_num FROM alembic_version"))
    ]
    return versions, set(inspect(connection).get_table_names())


async def schema_state(url: str) -> tuple[list[str], set[str]]:
    engine = null_pool_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(_state)
    finally:
        await engine.dispose()


async def test_processes_migrating_an_empty_database_together_all_succeed(
    empty_database_url: str, tmp_path: Path
) -> None:
    env = clean_env(database_url=empty_database_url, secret_key="k" * 48)
    results = start_together(["migrate"], PROCESSES, env, tmp_path)

    failures = [r.stderr[-2000:] for r in results if r.returncode != 0]
    assert failures == []
    versions, names = await schema_state(empty_database_url)
    head = ScriptDirectory.from_config(alembic_config(empty_database_url)).get_current_head()
    assert versions == [head]
    assert set(Base.metadata.tables) <= names
