"""Waking delivery workers the moment new deliveries commit ("near real time",
docs/reference/webhooks.md §6.3).

PostgreSQL: `announce` issues `NOTIFY` in the event's transaction (sent on
commit); workers LISTEN on a raw asyncpg connection. SQLite, or any worker in
the publishing process: an after-commit hook sets the wake events of every
worker registered here. Workers also poll, so a lost wake-up only delays a
delivery by one poll interval. The mechanics are those of every leased queue
(storage/leases.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.storage.leases import WakeChannel

CHANNEL = "gatehouse_webhook_deliveries"
DELIVERIES = WakeChannel(CHANNEL)


def register(wake: asyncio.Event) -> Callable[[], None]:
    """Add a worker's wake event; returns the function that removes it."""
    return DELIVERIES.register(wake)


def signal_local() -> None:
    """Set every registered wake event of this process."""
    DELIVERIES.signal_local()


async def announce(session: AsyncSession) -> None:
    """Arrange a wake-up for when `session`'s transaction commits (once per transaction)."""
    await DELIVERIES.announce(session)


async def listen(database_url: str, wake: asyncio.Event, stop: asyncio.Event) -> None:
    """Keep a LISTEN connection open on PostgreSQL, setting `wake` on every NOTIFY."""
    await DELIVERIES.listen(database_url, wake, stop)
