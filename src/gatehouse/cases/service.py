"""What every case move shares (docs/reference/staff-api.md): the status.changed event.
Loading the application (404 missing, 410 for writes on an erased one, the row lock that makes
`data.sequence` allocation safe) is the applications feature's `application_for_write`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain import events
from gatehouse.domain.status import EVENT_STATUS_CHANGED
from gatehouse.storage.tables.applications import Application
from gatehouse.webhooks import publish


async def publish_status_change(
    session: AsyncSession,
    application: Application,
    *,
    previous_status: str,
    reason: str,
    at: datetime,
) -> None:
    """`application.status.changed` when the status moved (docs/reference/webhooks.md §5.2),
    and the time of the change in `status_changed_at` (the age of the case's current state,
    docs/workstation.md). Every status change ends here, whichever service made it."""
    if application.status == previous_status:
        return
    application.status_changed_at = at
    await publish(
        session,
        tenant_id=application.tenant_id,
        event_type=EVENT_STATUS_CHANGED,
        occurred_at=at,
        data=events.status_changed(application.status, previous_status, reason),
        application=application,
    )
