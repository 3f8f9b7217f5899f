"""An in-process cache of verified API keys, with revocation honoured at once.

Authenticating a `/v1` request used to cost a database transaction (and, on
PostgreSQL, three round trips) before the route did any work. This cache keeps
what that lookup found for an active key (its keyed secret hash, tenant,
scopes and tenant status) for at most `TTL_SECONDS`; the presented secret is
still hashed and compared on every request, so a wrong secret never passes.

Revocation and suspension must take effect at once (docs/reference/tenant-api.md §4.2 rule 5;
docs/reference/staff-api.md §4.6, §4.8), in every process. Any committed change to the
`api_keys` or `tenants` tables through SQLAlchemy (an ORM flush, an ORM or Core
`update`/`delete`, or a textual UPDATE/DELETE/TRUNCATE naming them) bumps a
*credentials epoch* right after the commit, before the writing request can
answer:

- in this process: every cache is emptied synchronously;
- across processes, with GATEHOUSE_REDIS_URL: `INCR` of a Redis counter; every
  request reads it before it trusts the cache. The read rides on the per-IP
  rate-limit script of the edge (limits/ratelimit.py), so it costs no round trip
  of its own; the edge leaves the value in the request state under
  `EPOCH_STATE`, and `epoch()` takes it from there (a plain GET when absent);
- across processes, without Redis: one byte is appended to a stamp file (beside
  the SQLite database; in the temp folder, named after the database, for
  PostgreSQL); every request `stat()`s it (about a microsecond).

A request reads the epoch *before* it queries the database, and stores what it
found only when the epoch has not moved since, so a lookup racing a revocation
can never cache the old state (the edge's read happens before routing, so
before any lookup). When the epoch cannot be read (Redis down), the cache is
bypassed, with one warning per `WARNING_INTERVAL`. Several hosts on one
PostgreSQL without Redis are not covered by the stamp file (rate limits are not
shared there either); the TTL bounds staleness to a few seconds in that setting.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import re
import tempfile
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import ORMExecuteState, Session, UOWTransaction
from sqlalchemy.sql.elements import TextClause
from sqlalchemy.util import await_only

from gatehouse.settings import Settings, sqlite_path

log = logging.getLogger("gatehouse.limits.credentials")

TTL_SECONDS = 5.0
MAX_ENTRIES = 10_000
WARNING_INTERVAL = 10.0
REDIS_EPOCH_KEY = "gatehouse:credentials-epoch"
# The request-state attribute where the edge leaves the epoch it read.
EPOCH_STATE = "credentials_epoch"
WATCHED_TABLES = frozenset({"api_keys", "tenants"})
_CHANGED = "gatehouse_credentials_changed"
_TEXT_WRITE = re.compile(
    r"^\s*(update|delete|truncate)\b.*\b(api_keys|tenants)\b", re.IGNORECASE | re.DOTALL
)


class _Marker:
    """A value the shared epoch can never take (Redis answers bytes or None)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


# Nobody read the epoch for this request: `epoch()` reads it itself.
EPOCH_NOT_READ: object = _Marker("EPOCH_NOT_READ")
# The read failed (Redis down): the cache must be bypassed.
EPOCH_UNREADABLE: object = _Marker("EPOCH_UNREADABLE")


@dataclass(frozen=True, slots=True)
class CachedKey:
    """What the database said about an active key when it was cached."""

    secret_hash: str
    tenant_id: str
    scopes: frozenset[str]
    tenant_status: str
    expires: float  # time.monotonic() deadline


class CredentialCache:
    """Verified API keys of this process; see the module docstring."""

    def __init__(self, settings: Settings, engines: tuple[Any, ...] = ()) -> None:
        self._entries: dict[str, CachedKey] = {}
        self._generation = 0
        self._seen_shared: object = None
        self.stamp_path = stamp_path_for(settings.database_url)
        # `os.stat` of a str: a Path is converted on every call (once per request).
        self._stamp = None if self.stamp_path is None else str(self.stamp_path)
        self.redis_url = settings.redis_url
        self._redis: Any = None
        self._last_warning = -WARNING_INTERVAL
        if self.stamp_path is not None:
            _touch(self.stamp_path)
        _CACHES.add(self)
        for engine in engines:
            _BY_ENGINE[getattr(engine, "sync_engine", engine)] = self

    # --- reading -------------------------------------------------------------------------

    async def epoch(self, prefetched: object = EPOCH_NOT_READ) -> int | None:
        """The current generation, after dropping everything an epoch bump made stale.

        `prefetched` is the Redis epoch the edge read for this request (see the
        module docstring); it is used only when this cache shares through Redis.
        None when the shared epoch cannot be read: the caller must not use the cache.
        """
        if not self.redis_url or prefetched is EPOCH_NOT_READ:
            try:
                shared = await self._shared_epoch()
            except Exception:
                self._epoch_unavailable(exc_info=True)
                return None
        elif prefetched is EPOCH_UNREADABLE:
            self._epoch_unavailable(exc_info=False)
            return None
        else:
            shared = prefetched
        if shared != self._seen_shared:
            self._seen_shared = shared
            self.clear()
        return self._generation

    @property
    def redis_epoch_seen(self) -> bytes | None:
        """The Redis epoch the entries were read under (None: none yet, or no Redis).

        With Redis, `_seen_shared` only ever holds what Redis answered (bytes or None), and
        every entry was stored under it (a change empties the cache).
        """
        seen = self._seen_shared
        return seen if isinstance(seen, bytes) else None

    def _epoch_unavailable(self, exc_info: bool) -> None:
        # Redis down means every request gets here: one warning per interval.
        now = time.monotonic()
        if now - self._last_warning >= WARNING_INTERVAL:
            self._last_warning = now
            log.warning("credential epoch unavailable; API key cache bypassed", exc_info=exc_info)

    def get(self, key_id: str) -> CachedKey | None:
        entry = self._entries.get(key_id)
        if entry is None:
            return None
        if entry.expires <= time.monotonic():
            self._entries.pop(key_id, None)
            return None
        return entry

    def put(
        self,
        generation: int,
        key_id: str,
        secret_hash: str,
        tenant_id: str,
        scopes: frozenset[str],
        tenant_status: str,
    ) -> None:
        """Cache an active key, unless an invalidation happened since `generation`."""
        if generation != self._generation:
            return
        if len(self._entries) >= MAX_ENTRIES:
            self._entries.pop(next(iter(self._entries)))
        self._entries[key_id] = CachedKey(
            secret_hash, tenant_id, scopes, tenant_status, time.monotonic() + TTL_SECONDS
        )

    def clear(self) -> None:
        self._entries.clear()
        self._generation += 1

    def __len__(self) -> int:
        return len(self._entries)

    async def _shared_epoch(self) -> object:
        if self.redis_url:
            value = await self._redis_client().get(REDIS_EPOCH_KEY)
            return value
        if self._stamp is not None:
            try:
                info = os.stat(self._stamp)
            except FileNotFoundError:
                _touch(Path(self._stamp))
                info = os.stat(self._stamp)
            return (info.st_ino, info.st_size, info.st_mtime_ns)
        return None

    def _redis_client(self) -> Any:
        if self._redis is None and self.redis_url:
            import coredis

            self._redis = coredis.Redis.from_url(self.redis_url)
        return self._redis

    # --- bumping -------------------------------------------------------------------------

    def publish_bump(self) -> None:
        """Tell the other processes (called after a commit; see `_after_commit`)."""
        if self.stamp_path is not None:
            _append_byte(self.stamp_path)
        if self.redis_url:
            client = self._redis_client()
            try:
                # Inside AsyncSession.commit(): wait for the INCR in the commit's greenlet,
                # so the writing request cannot answer before other processes can see it.
                await_only(client.incr(REDIS_EPOCH_KEY))
            except Exception:
                # Outside a greenlet (a sync session), or Redis failed: best effort.
                self._schedule_incr(client)

    async def close(self) -> None:
        if self._redis is not None:
            client, self._redis = self._redis, None
            with contextlib.suppress(Exception):
                client.connection_pool.disconnect()

    def _schedule_incr(self, client: Any) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(client.incr(REDIS_EPOCH_KEY))
        _PENDING.add(task)
        task.add_done_callback(_PENDING.discard)


_CACHES: weakref.WeakSet[CredentialCache] = weakref.WeakSet()
# The cache of the runtime that owns an engine: it publishes that database's bumps.
_BY_ENGINE: weakref.WeakKeyDictionary[Any, CredentialCache] = weakref.WeakKeyDictionary()
_PENDING: set[asyncio.Task[Any]] = set()


def stamp_path_for(database_url: str) -> Path | None:
    """Beside a SQLite file; in the temp folder for other databases; None in memory."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        path = sqlite_path(database_url)
        return None if path is None else path.with_name(path.name + ".credentials-stamp")
    # The same file whichever driver names the database (postgresql, postgresql+asyncpg).
    plain = url.set(drivername=url.get_backend_name()).render_as_string(hide_password=True)
    digest = hashlib.sha256(plain.encode()).hexdigest()
    return Path(tempfile.gettempdir()) / f"gatehouse-credentials-{digest[:16]}.stamp"


def _touch(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
        os.close(fd)


def _append_byte(path: Path) -> None:
    # O_APPEND writes are atomic, so concurrent bumps from several processes all count.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    except OSError:
        log.warning("could not write the credential stamp file", exc_info=True)
        return
    try:
        os.write(fd, b".")
    finally:
        os.close(fd)


def invalidate_all(engine: Any = None) -> None:
    """Empty every cache of this process and tell the other processes.

    `engine` is the (sync) engine of the database whose credentials changed; its
    runtime's cache publishes the bump (Redis and stamp file), else the stamp file
    alone is bumped.
    """
    for cache in list(_CACHES):
        cache.clear()
    owner = _BY_ENGINE.get(engine) if engine is not None else None
    if owner is not None:
        owner.publish_bump()
    elif engine is not None:
        path = stamp_path_for(engine.url.render_as_string(hide_password=False))
        if path is not None:
            _append_byte(path)


def credential_cache(runtime: Any) -> CredentialCache:
    """The runtime's cache (`Runtime.credentials`), made on first use if missing."""
    cache: CredentialCache | None = getattr(runtime, "credentials", None)
    if cache is None:
        cache = CredentialCache(runtime.settings, (runtime.db.write_engine, runtime.db.read_engine))
        runtime.credentials = cache
    return cache


# --- detecting credential changes --------------------------------------------------------


def _statement_touches_credentials(state: ORMExecuteState) -> bool:
    if state.is_select:
        return False
    statement = state.statement
    if state.is_update or state.is_delete:
        table = getattr(statement, "table", None)
        return getattr(table, "name", None) in WATCHED_TABLES
    if isinstance(statement, TextClause):
        return _TEXT_WRITE.search(statement.text) is not None
    return False


@event.listens_for(Session, "do_orm_execute")
def _watch_statements(state: ORMExecuteState) -> None:
    if _statement_touches_credentials(state):
        state.session.info[_CHANGED] = True


@event.listens_for(Session, "before_flush")
def _watch_flush(session: Session, _context: UOWTransaction, _instances: Any) -> None:
    for obj in (*session.dirty, *session.deleted):
        if getattr(type(obj), "__tablename__", None) in WATCHED_TABLES:
            session.info[_CHANGED] = True
            return


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    if session.info.pop(_CHANGED, False):
        invalidate_all(session.get_bind())


@event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop(_CHANGED, None)
