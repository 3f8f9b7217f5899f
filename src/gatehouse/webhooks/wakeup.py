"""Waking delivery workers the moment new deliveries commit (spec 2 §6.3 "near real time").

PostgreSQL: `publish` issues `NOTIFY` in the event's transaction (sent on
commit); workers LISTEN on a raw asyncpg connection. SQLite, or any worker in
the publishing process: an after-commit hook sets the in-process wake events
of every worker registered here. Workers also poll, so a lost wake-up only
delays a delivery by one poll interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession

log = logging.getLogger("gatehouse.webhooks")

CHANNEL = "gatehouse_webhook_deliveries"
_SESSION_FLAG = "gatehouse_webhook_wakeup"

_lock = threading.Lock()
_local: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []


def register(wake: asyncio.Event) -> Callable[[], None]:
    """Add a worker's wake event; returns the function that removes it."""
    entry = (asyncio.get_running_loop(), wake)
    with _lock:
        _local.append(entry)

    def unregister() -> None:
        with _lock:
            if entry in _local:
                _local.remove(entry)

    return unregister


def signal_local() -> None:
    """Set every registered wake event (thread-safe: each in its own loop)."""
    with _lock:
        entries = list(_local)
    for loop, wake in entries:
        if loop.is_closed():
            continue
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(wake.set)


async def announce(session: AsyncSession) -> None:
    """Arrange a wake-up for when `session`'s transaction commits (once per transaction)."""
    if session.info.get(_SESSION_FLAG):
        return
    session.info[_SESSION_FLAG] = True

    def after_commit(sync_session: Any) -> None:
        sync_session.info.pop(_SESSION_FLAG, None)
        signal_local()

    def after_rollback(sync_session: Any) -> None:
        sync_session.info.pop(_SESSION_FLAG, None)

    event.listen(session.sync_session, "after_commit", after_commit, once=True)
    event.listen(session.sync_session, "after_soft_rollback", after_rollback, once=True)
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        await session.execute(text(f"NOTIFY {CHANNEL}"))


def asyncpg_dsn(database_url: str) -> str:
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


async def listen(database_url: str, wake: asyncio.Event, stop: asyncio.Event) -> None:
    """Keep a LISTEN connection open on PostgreSQL, setting `wake` on every NOTIFY."""
    import asyncpg

    backoff = 0.5
    while not stop.is_set():
        connection: Any = None
        try:
            connection = await asyncpg.connect(asyncpg_dsn(database_url))
            lost = asyncio.Event()
            connection.add_termination_listener(lambda _c, lost=lost: lost.set())
            await connection.add_listener(CHANNEL, lambda *_args: wake.set())
            backoff = 0.5
            wake.set()  # catch up on anything committed while not listening
            stop_wait = asyncio.ensure_future(stop.wait())
            lost_wait = asyncio.ensure_future(lost.wait())
            try:
                await asyncio.wait({stop_wait, lost_wait}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stop_wait.cancel()
                lost_wait.cancel()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("webhook LISTEN connection failed: %s", type(exc).__name__)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 10.0)
        finally:
            if connection is not None:
                with contextlib.suppress(Exception):
                    await connection.close(timeout=2)
