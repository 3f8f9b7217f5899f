"""Liveness and readiness of a process (docs/operations.md, "Health and readiness").

`/healthz` is liveness: the process answers and its database does. `/readyz` says whether
the process should be given work: every check below passes.

- `database`: a round trip (`SELECT 1`);
- `redis`: a PING, when GATEHOUSE_REDIS_URL is set (`not configured` otherwise). Redis
  never decides readiness: the rate limits fail open without it, so a Redis outage is
  reported as `degraded` and the process stays ready (taking every API process out of the
  load balancer for a Redis blip would turn a degraded limit into an outage);
- `migrations`: the database's revision is the head of this version's history (`ok`), or a
  revision this version does not know (`ahead`: a newer version migrated it during a rolling
  upgrade; passes, since a release's migrations only add to the schema while both versions
  run, unless its upgrade notes say otherwise: docs/operations.md "Upgrades"). A
  database behind this version (`pending`) fails: this version expects what it lacks.

Each check has READY_TIMEOUT_SECONDS; a check that does not answer in time fails (`down`).
Used by serve's `/readyz` and by the worker's metrics listener (web/listener.py).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from gatehouse.runtime import Runtime

READY_TIMEOUT_SECONDS = 2.0
PASSING = frozenset({"ok", "not configured", "ahead", "degraded"})
# Checks whose failure is reported as `degraded` rather than `down` (they never fail /readyz).
DEGRADABLE = frozenset({"redis"})


@dataclass(frozen=True, slots=True)
class Readiness:
    checks: dict[str, str]

    @property
    def ready(self) -> bool:
        return all(value in PASSING for value in self.checks.values())

    @property
    def status_code(self) -> int:
        return 200 if self.ready else 503

    @property
    def degraded(self) -> list[str]:
        return sorted(name for name, value in self.checks.items() if value == "degraded")

    def body(self) -> dict[str, object]:
        body: dict[str, object] = {
            "status": "ready" if self.ready else "unready",
            "checks": self.checks,
        }
        if self.degraded:
            body["degraded"] = self.degraded
        return body


@functools.cache
def _history() -> tuple[str, frozenset[str]]:
    """(head, every revision) of this version's migrations, read once per process."""
    from alembic.script import ScriptDirectory

    from gatehouse.storage.migrate import alembic_config

    script = ScriptDirectory.from_config(alembic_config(""))
    head = script.get_current_head()
    if head is None:
        raise RuntimeError("the migration history has no head")
    return head, frozenset(revision.revision for revision in script.walk_revisions())


def migration_state(current: list[str]) -> str:
    """`ok`, `ahead` or `pending` for the rows of alembic_version."""
    head, known = _history()
    if current == [head]:
        return "ok"
    if current and not set(current) & known:
        return "ahead"
    return "pending"


async def _database(runtime: Runtime) -> str:
    async with runtime.db.read() as session:
        await session.execute(text("SELECT 1"))
    return "ok"


async def _migrations(runtime: Runtime) -> str:
    try:
        async with runtime.db.read() as session:
            rows = await session.execute(text("SELECT version_num FROM alembic_version"))
            current = sorted(str(row[0]) for row in rows)
    except DBAPIError:  # asked once the database answered: no alembic_version, no schema
        return "pending"
    return migration_state(current)


async def _redis(runtime: Runtime) -> str:
    redis = runtime.limits.redis
    if redis is None:
        return "not configured"
    await redis.client.ping()
    return "ok"


async def _check(probe: Callable[[Runtime], Awaitable[str]], runtime: Runtime) -> str:
    try:
        async with asyncio.timeout(READY_TIMEOUT_SECONDS):
            return await probe(runtime)
    except Exception:
        return "down"


async def readiness(runtime: Runtime) -> Readiness:
    """Run the checks (the database and Redis at once, then the migrations)."""
    database, redis = await asyncio.gather(_check(_database, runtime), _check(_redis, runtime))
    if redis == "down":
        redis = "degraded"  # the limits fail open: see DEGRADABLE
    migrations = await _check(_migrations, runtime) if database == "ok" else "unknown"
    return Readiness({"database": database, "redis": redis, "migrations": migrations})


async def liveness(runtime: Runtime) -> tuple[int, dict[str, str]]:
    """What `/healthz` answers: 200 when the database answers a round trip, else 503."""
    if await _check(_database, runtime) == "ok":
        return 200, {"status": "ok", "database": "ok"}
    return 503, {"status": "unavailable", "database": "down"}
