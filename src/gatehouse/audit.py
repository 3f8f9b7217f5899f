"""The append-only audit trail: every staff action and every tenant write.

Entries hold ids only (actor, target, tenant, application, request id), never
secrets or personal data. Call `record` inside the write transaction of the
action it describes.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.ids import new_id
from gatehouse.storage.tables.core import AuditEntry


def record(
    session: AsyncSession,
    *,
    at: datetime,
    actor: str,
    action: str,
    target: str,
    tenant_id: str | None = None,
    application_id: str | None = None,
    request_id: str | None = None,
) -> None:
    session.add(
        AuditEntry(
            id=new_id("aud"),
            at=at,
            actor=actor,
            action=action,
            target=target,
            tenant_id=tenant_id,
            application_id=application_id,
            request_id=request_id,
        )
    )
