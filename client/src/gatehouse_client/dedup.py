"""Durable event deduplication for webhook receivers (docs/reference/webhooks.md §7.1 rule 6, §6.4
rule 1).

Accept-once-then-2xx: `accept(event_id, payload)` atomically records the
event (and, optionally, its raw body, so the store doubles as the inbox the
business processing reads asynchronously) and returns True the first time,
False for any later delivery of the same event. Answer 2xx in both cases;
answer 5xx when `accept` raises, so the sender delivers again.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

__all__ = ["DedupStore", "PendingEvent", "SqliteDedupStore"]


@runtime_checkable
class DedupStore(Protocol):
    """What a receiver needs from a deduplication store.

    `accept` must be atomic and durable before it returns: two concurrent
    calls with the same id return True exactly once, also across restarts.
    """

    def accept(self, event_id: str, payload: bytes | None = None) -> bool: ...


@dataclass(frozen=True)
class PendingEvent:
    event_id: str
    payload: bytes | None
    accepted_at: float


_SCHEMA = """
CREATE TABLE IF NOT EXISTS gatehouse_events (
    scope TEXT NOT NULL,
    event_id TEXT NOT NULL,
    payload BLOB,
    accepted_at REAL NOT NULL,
    processed_at REAL,
    PRIMARY KEY (scope, event_id)
)
"""


class SqliteDedupStore:
    """A `DedupStore` in a SQLite file (the default; standard library only).

    `scope` separates independent workflows sharing one file (docs/reference/webhooks.md §7.2
    rule 1: deduplicate per workflow or endpoint). Safe across threads and
    processes: every accept is one `INSERT OR IGNORE` in its own committed
    transaction, with synchronous=FULL so an accepted event survives a crash.
    """

    def __init__(self, path: str | Path, *, scope: str = "default") -> None:
        self.path = Path(path)
        self.scope = scope
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            str(self.path), timeout=30, isolation_level=None, check_same_thread=False
        )
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute(_SCHEMA)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def accept(self, event_id: str, payload: bytes | None = None) -> bool:
        """Record the event; True the first time only."""
        if not event_id:
            raise ValueError("event_id is required")
        with self._transaction() as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO gatehouse_events (scope, event_id, payload, accepted_at)"
                " VALUES (?, ?, ?, ?)",
                (self.scope, event_id, payload, time.time()),
            )
            return cursor.rowcount == 1

    def seen(self, event_id: str) -> bool:
        with self._lock:
            row = self._conn.execute(
                "SELECT 1 FROM gatehouse_events WHERE scope = ? AND event_id = ?",
                (self.scope, event_id),
            ).fetchone()
        return row is not None

    def pending(self, limit: int = 100) -> list[PendingEvent]:
        """Accepted events not yet marked processed, oldest first (the inbox)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT event_id, payload, accepted_at FROM gatehouse_events"
                " WHERE scope = ? AND processed_at IS NULL ORDER BY accepted_at, event_id LIMIT ?",
                (self.scope, limit),
            ).fetchall()
        return [PendingEvent(row[0], row[1], row[2]) for row in rows]

    def mark_processed(self, event_id: str) -> None:
        with self._transaction() as conn:
            conn.execute(
                "UPDATE gatehouse_events SET processed_at = ?, payload = NULL"
                " WHERE scope = ? AND event_id = ?",
                (time.time(), self.scope, event_id),
            )

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SqliteDedupStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
