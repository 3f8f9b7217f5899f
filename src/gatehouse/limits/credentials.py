"""An in-process cache of verified API keys, with revocation honoured at once.

Authenticating a `/v1` request used to cost a database transaction (and, on
PostgreSQL, three round trips) before the route did any work. This cache keeps
what that lookup found for an active key (its keyed secret hash, tenant,
scopes and tenant status) for at most `TTL_SECONDS`; the presented secret is
still hashed and compared on every request, so a wrong secret never passes.

Revocation and suspension must take effect at once (docs/reference/tenant-api.md §4.2
rule 5; docs/reference/staff-api.md §4.6, §4.8), in every process. The database gives
the signal itself: triggers on `api_keys` and `tenants` fire for every writer, whatever
it writes through (storage/tables/credentials.py), and every process listens:

- SQLite: the triggers add one to the `credential_epoch` row. Before it trusts the
  cache, a request asks SQLite whether anything was committed since it last looked
  (`PRAGMA data_version`, a read of the WAL index) and, only then, reads the row: a
  few microseconds on a connection of its own, in the event loop's thread (a WAL
  reader waits for no writer; a busy answer bypasses the cache for that request).
- PostgreSQL: the triggers send `NOTIFY gatehouse_credentials`, which a LISTEN
  connection of each process turns into an emptied cache the moment it arrives; they
  also send a NOTICE to the writing connection, which marks that connection, and the
  writing process empties its caches when the connection goes back to the pool after
  the commit, before the writing request can answer. While the listener is not
  connected (at start-up, after a lost connection) the cache is bypassed; each new
  connection empties it, since notifications may have been missed meanwhile.

A request reads the epoch *before* it queries the database, and stores what it
found only when the epoch has not moved since, so a lookup racing a revocation
can never cache the old state. When the epoch cannot be read the cache is
bypassed, with one warning per `WARNING_INTERVAL`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
import weakref
from dataclasses import dataclass
from typing import Any

from cachetools import TTLCache
from sqlalchemy import event
from sqlalchemy.engine import make_url

from gatehouse.settings import Settings, sqlite_path

log = logging.getLogger("gatehouse.limits.credentials")

TTL_SECONDS = 5.0
MAX_ENTRIES = 10_000
WARNING_INTERVAL = 10.0
# What the triggers of migration 0014 send (PostgreSQL).
CHANNEL = "gatehouse_credentials"
NOTICE = "gatehouse_credentials_changed"
# How long the first request waits for the PostgreSQL listener to connect.
LISTENER_CONNECT_SECONDS = 5.0
_READ_EPOCH = "SELECT value FROM credential_epoch WHERE id = 1"


@dataclass(frozen=True, slots=True)
class CachedKey:
    """What the database said about an active key when it was cached."""

    secret_hash: str
    tenant_id: str
    scopes: frozenset[str]
    tenant_status: str


class SqliteEpoch:
    """The `credential_epoch` row, read only when SQLite says something was committed."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._connection: sqlite3.Connection | None = None
        self._data_version: int | None = None
        self._value: int | None = None

    def current(self) -> int | None:
        """The row's value; None when it cannot be read now (busy, missing, closed)."""
        try:
            connection = self._connection
            if connection is None:
                connection = self._connection = sqlite3.connect(
                    self._path, isolation_level=None, check_same_thread=False
                )
                connection.execute("PRAGMA busy_timeout=0")
                connection.execute("PRAGMA query_only=ON")
            version = connection.execute("PRAGMA data_version").fetchone()[0]
            if version != self._data_version or self._value is None:
                row = connection.execute(_READ_EPOCH).fetchone()
                self._value = None if row is None else int(row[0])
                self._data_version = version
        except sqlite3.Error:
            self._data_version = self._value = None
            return None
        return self._value

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


class PostgresListener:
    """A LISTEN connection of this process: a count of notifications (and of connections).

    `current()` is None while not listening. Each new connection counts as a change:
    anything committed while nobody listened was missed.
    """

    def __init__(self, database_url: str) -> None:
        self._dsn = (
            make_url(database_url)
            .set(drivername="postgresql")
            .render_as_string(hide_password=False)
        )
        self._count = 0
        self._listening = False
        self._task: asyncio.Task[None] | None = None
        self._connected: asyncio.Event | None = None

    async def current(self) -> int | None:
        if self._task is None or self._task.get_loop() is not asyncio.get_running_loop():
            # Started on first use, in the loop that uses it (tests run several loops).
            self._connected = asyncio.Event()
            self._listening = False
            self._task = asyncio.get_running_loop().create_task(self._listen(self._connected))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._connected.wait(), LISTENER_CONNECT_SECONDS)
        return self._count if self._listening else None

    def _changed(self, *_args: Any) -> None:
        self._count += 1
        clear_every_cache()

    async def _listen(self, connected: asyncio.Event) -> None:
        import asyncpg

        backoff = 0.5
        while True:
            connection: Any = None
            try:
                connection = await asyncpg.connect(self._dsn)
                lost = asyncio.Event()
                connection.add_termination_listener(lambda _c, lost=lost: lost.set())
                await connection.add_listener(CHANNEL, self._changed)
                self._changed()
                self._listening, backoff = True, 0.5
                connected.set()
                await lost.wait()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("LISTEN %s failed: %s", CHANNEL, type(exc).__name__)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 10.0)
            finally:
                self._listening = False
                if connection is not None:
                    with contextlib.suppress(Exception):
                        await connection.close(timeout=2)

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None and task.get_loop() is asyncio.get_running_loop():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


class CredentialCache:
    """Verified API keys of this process; see the module docstring."""

    def __init__(self, settings: Settings, engines: tuple[Any, ...] = ()) -> None:
        self._entries: TTLCache[str, CachedKey] = TTLCache(
            MAX_ENTRIES, TTL_SECONDS, timer=lambda: time.monotonic()
        )
        self._generation = 0
        self._seen: int | None = None
        self._last_warning = -WARNING_INTERVAL
        self._sqlite: SqliteEpoch | None = None
        self._postgres: PostgresListener | None = None
        if make_url(settings.database_url).get_backend_name() == "sqlite":
            path = sqlite_path(settings.database_url)
            if path is not None:
                self._sqlite = SqliteEpoch(str(path))
        else:
            self._postgres = PostgresListener(settings.database_url)
            for engine in engines:
                watch_notices(getattr(engine, "sync_engine", engine))
        _CACHES.add(self)

    async def epoch(self) -> int | None:
        """The current generation, after dropping everything a credential change made stale.

        None when the signal cannot be read: the caller must not use the cache.
        """
        if self._sqlite is not None:
            seen = self._sqlite.current()
        elif self._postgres is not None:
            seen = await self._postgres.current()
        else:
            return self._generation
        if seen is None:
            self._epoch_unavailable()
            return None
        if seen != self._seen:
            self._seen = seen
            self.clear()
        return self._generation

    def _epoch_unavailable(self) -> None:
        # Every request gets here while it lasts: one warning per interval.
        now = time.monotonic()
        if now - self._last_warning >= WARNING_INTERVAL:
            self._last_warning = now
            log.warning("credential epoch unavailable; API key cache bypassed")

    def get(self, key_id: str) -> CachedKey | None:
        return self._entries.get(key_id)

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
        self._entries[key_id] = CachedKey(secret_hash, tenant_id, scopes, tenant_status)

    def clear(self) -> None:
        self._entries.clear()
        self._generation += 1

    def __len__(self) -> int:
        return len(self._entries)

    async def close(self) -> None:
        if self._sqlite is not None:
            self._sqlite.close()
        if self._postgres is not None:
            await self._postgres.close()


_CACHES: weakref.WeakSet[CredentialCache] = weakref.WeakSet()


def clear_every_cache() -> None:
    """Empty every cache of this process."""
    for cache in list(_CACHES):
        cache.clear()


def credential_cache(runtime: Any) -> CredentialCache:
    """The runtime's cache (`Runtime.credentials`), made on first use if missing."""
    cache: CredentialCache | None = getattr(runtime, "credentials", None)
    if cache is None:
        cache = CredentialCache(runtime.settings, (runtime.db.write_engine, runtime.db.read_engine))
        runtime.credentials = cache
    return cache


# --- PostgreSQL: this process's own writes -----------------------------------------------

# asyncpg connections whose current transaction (or last autocommit statement) changed
# credentials: the triggers' NOTICE reached them.
_CHANGED: weakref.WeakSet[Any] = weakref.WeakSet()
_WATCHED: weakref.WeakSet[Any] = weakref.WeakSet()


def _on_notice(connection: Any, message: Any) -> None:
    if getattr(message, "message", None) == NOTICE:
        _CHANGED.add(connection)


def _driver(dbapi_connection: Any) -> Any:
    return getattr(dbapi_connection, "driver_connection", None)


def watch_notices(engine: Any) -> None:
    """Empty this process's caches when a connection of `engine` that changed credentials
    goes back to the pool (after its commit); forget a rolled-back change."""
    if engine in _WATCHED or engine.dialect.driver != "asyncpg":
        return
    _WATCHED.add(engine)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        driver = _driver(dbapi_connection)
        if driver is not None:
            driver.add_log_listener(_on_notice)

    @event.listens_for(engine, "rollback")
    def _on_rollback(connection: Any) -> None:
        # An autocommit connection's "rollback" undoes nothing: its statements committed.
        if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
            forget_change(connection.connection.driver_connection)

    @event.listens_for(engine, "checkin")
    def _on_checkin(dbapi_connection: Any, _record: Any) -> None:
        committed(_driver(dbapi_connection))


def forget_change(driver: Any) -> None:
    """A transaction of `driver` rolled back: what it changed never happened."""
    if driver is not None:
        _CHANGED.discard(driver)


def committed(driver: Any) -> None:
    """`driver`'s transaction is over: empty the caches if it changed credentials."""
    if driver is not None and driver in _CHANGED:
        _CHANGED.discard(driver)
        clear_every_cache()
