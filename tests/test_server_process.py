"""What `gatehouse.server.asgi_app` does in each serving process, run in a fresh one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.processes import clean_env, run

STARTED = """
import asyncio, gc
from gatehouse import server

app = server.asgi_app()
before = gc.get_freeze_count()

async def main():
    async with app.router.lifespan_context(app):
        print(before, gc.get_freeze_count(), len(gc.get_objects()))

asyncio.run(main())
"""


def test_a_started_process_sets_its_objects_aside_from_the_collector(tmp_path: Path) -> None:
    env = clean_env(database_url=f"sqlite:///{tmp_path}/gatehouse.db", serve_no_worker="1")
    assert run(["migrate"], env, tmp_path).returncode == 0
    done = subprocess.run(
        [sys.executable, "-c", STARTED],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    before, frozen, tracked = (int(n) for n in done.stdout.split())
    assert before == 0
    assert frozen > 50_000  # the modules, routes and models of the started process
    assert tracked < frozen / 10  # what a full collection still walks
