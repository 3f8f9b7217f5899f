"""The append-only audit trail: every staff action and every tenant write.

Entries hold ids only (actor, target, tenant, application, request id), never
secrets or personal data. Call `record` inside the write transaction of the
action it describes (hot paths that run Core statements insert `entry_values`
themselves, in the same transaction).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.ids import new_id
from gatehouse.storage.tables.core import AuditEntry


def entry_values(
    *,
    at: datetime,
    actor: str,
    action: str,
    target: str,
    tenant_id: str | None = None,
    application_id: str | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    """The columns of one entry, with a fresh id."""
    return {
        "id": new_id("aud"),
        "at": at,
        "actor": actor,
        "action": action,
        "target": target,
        "tenant_id": tenant_id,
        "application_id": application_id,
        "request_id": request_id,
    }


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
    """Add the entry to the session: it is written by the session's flush."""
    session.add(
        AuditEntry(
            **entry_values(
                at=at,
                actor=actor,
                action=action,
                target=target,
                tenant_id=tenant_id,
                application_id=application_id,
                request_id=request_id,
            )
        )
    )
