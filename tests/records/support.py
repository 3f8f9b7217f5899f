"""Helpers of the records tests: the docs' own recomputation of a hash, and raw changes to
stored audit entries (what someone with database access could do)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import text, update

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry

FIELDS = ("seq", "at", "actor", "action", "target", "tenantId", "applicationId", "requestId")


def docs_entry_hash(prev_hash: str, entry: dict[str, Any]) -> str:
    """The lines docs/audit-and-evidence.md shows, as they are there."""
    fields = {name: entry[name] for name in FIELDS}
    body = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((prev_hash + body).encode("utf-8")).hexdigest()


async def tamper(runtime: Runtime, seq: int, **values: Any) -> None:
    async with runtime.db.write() as session:
        await session.execute(update(AuditEntry).where(AuditEntry.seq == seq).values(**values))


async def delete_sealed(runtime: Runtime, seq: int) -> None:
    async with runtime.db.write() as session:
        await session.execute(text("DELETE FROM audit_log WHERE seq = :seq"), {"seq": seq})


async def swap(runtime: Runtime, first: int, second: int) -> None:
    """Give two sealed entries each other's seq (through a free value: seq is unique)."""
    async with runtime.db.write() as session:
        for old, new in ((first, -1), (second, first), (-1, second)):
            await session.execute(update(AuditEntry).where(AuditEntry.seq == old).values(seq=new))
