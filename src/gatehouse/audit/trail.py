"""The append-only audit trail: every staff action and every tenant write.

Entries hold ids only (actor, target, tenant, application, request id), never
secrets or personal data. A write records its entry through its
`audit.context.WriteContext`, inside the transaction of the action it describes
(hot paths that run Core statements insert `entry_values` themselves, in the
same transaction).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from gatehouse.ids import new_id


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
    """The columns of one entry, with a fresh id; `seq` and `hash` are the sealer's to set
    (docs/audit-and-evidence.md)."""
    return {
        "id": new_id("aud"),
        "at": at,
        "actor": actor,
        "action": action,
        "target": target,
        "tenant_id": tenant_id,
        "application_id": application_id,
        "request_id": request_id,
        "seq": None,
        "hash": None,
    }
