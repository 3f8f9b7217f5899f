"""Leased work queues: claiming due rows, leases, waiting and wake-ups.

Every background sender (webhook deliveries, verification callbacks) works the
same way, and this module holds what they share:

- a claim is one write transaction that picks due rows with
  `FOR UPDATE SKIP LOCKED` (PostgreSQL; SQLite has one writer and ignores the
  clause) inside a CTE, and marks them leased with an UPDATE of those rows
  only — so two workers never hold the same row, and a worker that dies
  leaves rows that fall due again when their lease ends;
- a `Lease` is taken on the runtime clock (`runtime.now()`, which tests move),
  and its `token` fences the writes of its holder: an outcome is recorded only
  while the row still carries the lease it was sent under;
- a `WakeChannel` wakes the workers of this process the moment new work
  commits (and, on PostgreSQL, of every process, through LISTEN/NOTIFY);
  workers also poll, so a lost wake-up only delays work by one poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import CTE, ColumnElement, Update, event, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from gatehouse.ids import new_id

log = logging.getLogger("gatehouse.storage.leases")


@dataclass(frozen=True, slots=True)
class Lease:
    """One claim's hold on its rows: a fencing token and the moment it ends."""

    token: str
    taken_at: datetime
    until: datetime

    @classmethod
    def take(cls, now: datetime, length: timedelta) -> Lease:
        return cls(token=new_id("clm"), taken_at=now, until=now + length)


def claim_due(
    model: type[Any],
    key: InstrumentedAttribute[Any],
    due: ColumnElement[bool],
    *,
    order_by: Sequence[ColumnElement[Any] | InstrumentedAttribute[Any]],
    limit: int,
    values: dict[str, Any],
) -> Update:
    """`WITH due AS (SELECT key … FOR UPDATE SKIP LOCKED LIMIT n) UPDATE model SET values`.

    The CTE runs once: an `IN (subquery)` may be re-run by the PostgreSQL
    planner and, skipping its own locks, claim far more than `limit` rows.
    The UPDATE repeats `due`, so a row that stopped being due between the
    pick and the write (read committed) is left alone. Add `.returning(…)`.
    """
    picked: CTE = (
        select(key.label("key"))
        .where(due)
        .order_by(*order_by)
        .limit(limit)
        .with_for_update(skip_locked=True)
        .cte("due")
    )
    return (
        update(model)
        .where(key == picked.c.key, due)
        .values(**values)
        .execution_options(synchronize_session=False)
    )


def seconds_until(due: datetime | None, now: datetime, cap: float) -> float:
    """How long a worker may sleep before `due` (never more than `cap`, never negative)."""
    if due is None:
        return cap
    return max(0.0, min(cap, (due - now).total_seconds()))


async def pause(wake: asyncio.Event, seconds: float | None, stop: asyncio.Event) -> None:
    """Sleep up to `seconds` (None: no limit), or until `wake` or `stop` is set."""
    if stop.is_set() or (seconds is not None and seconds <= 0):
        return
    wake_wait = asyncio.ensure_future(wake.wait())
    stop_wait = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait(
            {wake_wait, stop_wait}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        for task in (wake_wait, stop_wait):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class WakeChannel:
    """Wake-ups for one kind of queued work.

    `register` adds a worker's event; `announce` (async, in the writing
    transaction) or `on_commit` (sync, this process only) arrange for every
    registered event to be set when the transaction commits. On PostgreSQL
    `announce` also issues `NOTIFY <name>`, which `listen` turns into wake-ups
    in other processes.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._flag = f"gatehouse_wake_{name}"
        self._lock = threading.Lock()
        self._local: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    def register(self, wake: asyncio.Event) -> Callable[[], None]:
        """Add a worker's wake event; returns the function that removes it."""
        entry = (asyncio.get_running_loop(), wake)
        with self._lock:
            self._local.append(entry)

        def unregister() -> None:
            with self._lock:
                if entry in self._local:
                    self._local.remove(entry)

        return unregister

    def signal_local(self) -> None:
        """Set every registered wake event (thread-safe: each in its own loop)."""
        with self._lock:
            entries = list(self._local)
        for loop, wake in entries:
            if loop.is_closed():
                continue
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(wake.set)

    def on_commit(self, session: AsyncSession) -> bool:
        """Wake this process's workers when `session` commits (once per transaction).

        Returns False when the transaction already had a wake-up arranged.
        """
        if session.info.get(self._flag):
            return False
        session.info[self._flag] = True

        def after_commit(sync_session: Any) -> None:
            sync_session.info.pop(self._flag, None)
            self.signal_local()

        def after_rollback(sync_session: Any) -> None:
            sync_session.info.pop(self._flag, None)

        event.listen(session.sync_session, "after_commit", after_commit, once=True)
        event.listen(session.sync_session, "after_soft_rollback", after_rollback, once=True)
        return True

    async def announce(self, session: AsyncSession) -> None:
        """`on_commit`, plus `NOTIFY` on PostgreSQL for workers of other processes."""
        if not self.on_commit(session):
            return
        if session.bind is not None and session.bind.dialect.name == "postgresql":
            await session.execute(text(f"NOTIFY {self.name}"))

    async def listen(self, database_url: str, wake: asyncio.Event, stop: asyncio.Event) -> None:
        """Keep a LISTEN connection open on PostgreSQL, setting `wake` on every NOTIFY."""
        import asyncpg

        backoff = 0.5
        while not stop.is_set():
            connection: Any = None
            try:
                connection = await asyncpg.connect(asyncpg_dsn(database_url))
                lost = asyncio.Event()
                connection.add_termination_listener(lambda _c, lost=lost: lost.set())
                await connection.add_listener(self.name, lambda *_args: wake.set())
                backoff = 0.5
                wake.set()  # catch up on anything committed while not listening
                await pause(lost, None, stop)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("LISTEN %s failed: %s", self.name, type(exc).__name__)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 10.0)
            finally:
                if connection is not None:
                    with contextlib.suppress(Exception):
                        await connection.close(timeout=2)


def asyncpg_dsn(database_url: str) -> str:
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
