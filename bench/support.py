"""What every benchmark here shares: free ports, scratch databases, processes, percentiles.

- `free_port()` (the tests' own, `tests/support/ports.py`): a loopback port for a server the
  benchmark starts, never the same one twice in a process and taken from below the kernel's
  ephemeral range, so that an outgoing connection cannot take it before its server binds it.
- `database(kind, workdir)` / `scratch_postgres()`: a scratch database, SQLite in `workdir`
  or a fresh PostgreSQL database created beside GATEHOUSE_BENCH_POSTGRES_URL (an admin DSN,
  default postgresql://postgres@127.0.0.1:5432/postgres) and dropped after.
- `wait_for_http()` / `stop_process()`: start-up and SIGTERM-then-kill of a server process.
- `percentile()`: the nearest-rank percentile of a list of timings.
"""

from __future__ import annotations

import asyncio
import math
import os
import secrets
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import asyncpg
import httpx
from sqlalchemy.engine import URL, make_url
from tests.support.ports import free_port as free_port

POSTGRES_ADMIN = os.environ.get(
    "GATEHOUSE_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("GATEHOUSE_BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")

# --- scratch databases -----------------------------------------------------------------------


def _admin() -> URL:
    return make_url(POSTGRES_ADMIN).set(drivername="postgresql")


async def _admin_execute(sql: str) -> None:
    conn = await asyncpg.connect(_admin().render_as_string(hide_password=False))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _scratch_name(prefix: str) -> str:
    return f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"


def _scratch_url(name: str) -> str:
    return _admin().set(database=name).render_as_string(hide_password=False)


@contextmanager
def database(kind: str, workdir: Path, prefix: str = "gatehouse_bench") -> Iterator[str]:
    """A scratch database's URL: `kind` is "sqlite" (a file in `workdir`) or "postgres"."""
    if kind == "sqlite":
        yield f"sqlite:///{workdir / 'bench.db'}"
        return
    name = _scratch_name(prefix)
    asyncio.run(_admin_execute(f'CREATE DATABASE "{name}"'))
    try:
        yield _scratch_url(name)
    finally:
        asyncio.run(_admin_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@asynccontextmanager
async def scratch_postgres(prefix: str = "gatehouse_bench") -> AsyncIterator[str]:
    """`database("postgres", …)` for code already inside an event loop."""
    name = _scratch_name(prefix)
    await _admin_execute(f'CREATE DATABASE "{name}"')
    try:
        yield _scratch_url(name)
    finally:
        await _admin_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --- processes -------------------------------------------------------------------------------


def wait_for_http(
    url: str,
    process: subprocess.Popen[bytes],
    what: str,
    *,
    timeout: float = 60,
    ok: int = 500,
) -> None:
    """Poll `url` until it answers with a status below `ok`; fail if `process` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code < ok:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not start within {timeout:.0f} s")


def stop_process(process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """SIGTERM, then SIGKILL if it has not exited within `timeout` seconds."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# --- figures ---------------------------------------------------------------------------------


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (`fraction` in 0..1); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]
