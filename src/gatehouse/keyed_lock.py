"""First-come-first-served queues per key, within one process.

Concurrent provisioning calls for one identity all want the same database row
lock. PostgreSQL does not hand a contended row lock out in arrival order (a
waiter re-reads the updated row and competes again with newcomers), so under
load a few calls wait far longer than the rest. Queueing them here first, in
arrival order, leaves the database lock uncontended within a process and keeps
the slowest call close to the typical one; other processes still meet at the
row lock, which stays the guarantee of correctness.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager


class KeyedLock:
    """`async with locks.hold(key):` runs one holder per key at a time, FIFO.

    An entry lives only while someone holds or waits for its key.
    """

    def __init__(self) -> None:
        self._locks: dict[Hashable, tuple[asyncio.Lock, list[int]]] = {}

    @asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        entry = self._locks.get(key)
        if entry is None:
            entry = self._locks[key] = (asyncio.Lock(), [0])
        lock, users = entry
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self._locks[key]

    def __len__(self) -> int:
        return len(self._locks)
