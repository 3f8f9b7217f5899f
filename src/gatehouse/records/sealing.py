"""Sealing audit entries into the chain (docs/audit-and-evidence.md, "Sealing").

Writers add their entry with `seq` and `hash` null and never wait for the chain. The sealer,
one of the background workers, links the entries committed since its last turn: in one write
transaction it locks the chain head (`queries.lock_head`, the one lock every sealer takes),
numbers the unsealed entries oldest first from the head's `seq`, hashes each onto the one
before it and moves the head. Two workers never extend the chain at once; an entry is sealed
within SEAL_INTERVAL_SECONDS (plus one batch) of its commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime

from gatehouse.records import queries
from gatehouse.records.chain import chained_fields, entry_hash
from gatehouse.runtime import Runtime
from gatehouse.storage.db import Database

log = logging.getLogger("gatehouse.records.sealing")

SEAL_BATCH = 500
SEAL_INTERVAL_SECONDS = 2.0


async def seal_batch(db: Database, now: datetime, limit: int = SEAL_BATCH) -> int:
    """Seal up to `limit` entries in one transaction; how many were sealed."""
    async with db.write() as session:
        head = await queries.lock_head(session)
        rows = await queries.unsealed(session, limit)
        if not rows:
            return 0
        seq, last = head.seq, head.hash
        seals = []
        for row in rows:
            seq += 1
            fields = chained_fields(
                seq,
                row.at,
                row.actor,
                row.action,
                row.target,
                row.tenant_id,
                row.application_id,
                row.request_id,
            )
            last = entry_hash(last, fields)
            seals.append({"id": row.id, "seq": seq, "hash": last})
        await queries.write_seals(session, seals)
        head.seq, head.hash, head.sealed_at = seq, last, now
    return len(rows)


async def seal_pending(runtime: Runtime) -> int:
    """Seal every entry committed so far, batch after batch; how many were sealed."""
    total = 0
    while True:
        sealed = await seal_batch(runtime.db, runtime.now())
        total += sealed
        if sealed < SEAL_BATCH:
            return total


async def run_sealer(runtime: Runtime, stop: asyncio.Event) -> None:
    """The sealing worker: seal, then wait SEAL_INTERVAL_SECONDS, until `stop` is set."""
    while not stop.is_set():
        try:
            await seal_pending(runtime)
        except Exception:  # a database hiccup: the next turn tries again
            log.exception("sealing the audit chain failed")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), SEAL_INTERVAL_SECONDS)
