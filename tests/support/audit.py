"""Reading the audit trail back in tests."""

from __future__ import annotations

from sqlalchemy import select

from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry


async def audit_actions(runtime: Runtime, like: str) -> list[tuple[str, str, str]]:
    """(action, actor, target) of every audit entry whose action is LIKE `like`, oldest first."""
    async with runtime.db.read() as session:
        rows = await session.execute(
            select(AuditEntry.action, AuditEntry.actor, AuditEntry.target)
            .where(AuditEntry.action.like(like))
            .order_by(AuditEntry.at, AuditEntry.id)
        )
    return [tuple(row) for row in rows]  # type: ignore[misc]
