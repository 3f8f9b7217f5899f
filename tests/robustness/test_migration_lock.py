"""`serve`, `worker` and `migrate` migrate under the database's migration lock,
and `gatehouse migrate --status` reports the current and latest revision
(docs/platform.md, "Migrations"). SQLite by default, PostgreSQL with
GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from gatehouse.storage.migrate import latest_revision, migration_lock, status_async
from tests.support.live import free_port
from tests.support.patience import patient
from tests.support.processes import Running, clean_env, run, started

pytestmark = pytest.mark.slow

WAITING = "waiting for another process to finish migrating"


def wait_for_log(process: Running, message: str) -> None:
    deadline = time.monotonic() + patient(30)
    while time.monotonic() < deadline:
        for line in list(process.stderr):
            if line.startswith("{") and json.loads(line).get("message") == message:
                return
        assert process.process.poll() is None, "".join(process.stderr[-20:])
        time.sleep(0.05)
    raise AssertionError(f"{message!r} was not logged: " + "".join(process.stderr[-20:]))


@pytest.mark.parametrize("command", [["serve", "--no-worker"], ["worker"], ["migrate"]])
async def test_every_command_that_migrates_waits_for_the_migration_lock(
    empty_database_url: str, tmp_path: Path, command: list[str]
) -> None:
    env = clean_env(database_url=empty_database_url, secret_key="k" * 48)
    port = free_port()
    args = [*command, "--port", str(port)] if command[0] == "serve" else command
    async with AsyncExitStack() as held:
        await held.enter_async_context(migration_lock(empty_database_url))
        with started(args, env, tmp_path) as process:
            wait_for_log(process, WAITING)
            # Held off: nothing is migrated while another process holds the lock.
            assert (await status_async(empty_database_url)).current == []

            await held.aclose()  # release the lock: the command goes on and migrates
            deadline = time.monotonic() + patient(60)
            while (await status_async(empty_database_url)).current != [latest_revision()]:
                assert time.monotonic() < deadline, "".join(process.stderr[-20:])
                await asyncio.sleep(0.1)
            if command[0] == "serve":
                process.wait_healthy(f"http://127.0.0.1:{port}")
            elif command[0] == "migrate":
                assert process.process.wait(timeout=patient(30)) == 0


def test_migrate_status_prints_the_current_and_the_latest_revision(
    empty_database_url: str, tmp_path: Path
) -> None:
    env = clean_env(database_url=empty_database_url, secret_key="k" * 48)
    head = latest_revision()

    before = run(["migrate", "--status"], env, tmp_path)
    assert before.returncode == 1, before.stderr  # pending
    assert before.stdout.splitlines() == [
        "current: none (empty database)",
        f"latest: {head}",
        "migrations pending",
    ]
    if make_url(empty_database_url).get_backend_name() == "sqlite":
        # Asking changes nothing: not even an empty database file is created.
        assert not Path(make_url(empty_database_url).database or "").exists()

    assert run(["migrate"], env, tmp_path).returncode == 0
    after = run(["migrate", "--status"], env, tmp_path)
    assert after.returncode == 0, after.stderr
    assert after.stdout.splitlines() == [f"current: {head}", f"latest: {head}", "up to date"]
