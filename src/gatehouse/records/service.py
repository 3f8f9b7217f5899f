"""Use cases of the audit chain: the signed head and the NDJSON export
(docs/reference/staff-api.md §16.2, §16.3)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

import orjson

from gatehouse.crypto import Crypto
from gatehouse.records import queries
from gatehouse.records.chain import GENESIS
from gatehouse.records.schemas import AuditHead, exported, signed_head
from gatehouse.storage.db import Database
from gatehouse.storage.tables.records import AuditChain

EXPORT_PAGE = 1000


async def current_head(db: Database, crypto: Crypto) -> AuditHead:
    """`GET /staff/v1/audit/head`: the last sealed entry's seq and hash, signed."""
    async with db.read() as session:
        head = await queries.read_head(session)
    return signed_head(crypto, head or AuditChain(seq=0, hash=GENESIS, sealed_at=None))


async def export_chain(
    db: Database,
    crypto: Crypto,
    *,
    since: datetime | None = None,
    before: datetime | None = None,
    tenant_id: str | None = None,
) -> AsyncIterator[bytes]:
    """NDJSON lines: each sealed entry (filtered by `at` and tenant) with `prevHash` and
    `hash`, in seq order up to the head read first, then `{"head": …}` for that head."""
    head = await current_head(db, crypto)
    after = 0
    last: tuple[int, str] = (0, GENESIS)
    while True:
        async with db.read() as session:
            rows = await queries.sealed_after(
                session,
                after,
                head["seq"],
                EXPORT_PAGE,
                since=since,
                before=before,
                tenant_id=tenant_id,
            )
            wanted = [row.seq - 1 for row in rows]
            known = await queries.hashes_of(
                session, [seq for seq in wanted if seq > 0 and seq != last[0]]
            )
        for row in rows:
            prev = last[1] if row.seq - 1 == last[0] else known.get(row.seq - 1, GENESIS)
            yield orjson.dumps(exported(row, prev)) + b"\n"
            last = (row.seq, row.hash)
        if len(rows) < EXPORT_PAGE:
            break
        after = rows[-1].seq
    yield orjson.dumps({"head": head}) + b"\n"
