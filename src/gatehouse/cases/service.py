"""Loading an application for staff case work, and what every case move shares
(docs/reference/staff-api.md): 404 for a missing application, 410 for writes on an erased
one, the row lock that makes `data.sequence` allocation safe, and the status.changed event.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import applications
from gatehouse.domain import events
from gatehouse.domain.status import EVENT_STATUS_CHANGED
from gatehouse.errors import (
    gone,
    not_found,
)
from gatehouse.storage.tables.applications import Application
from gatehouse.webhooks import publish

APPLICATION_NOT_FOUND = "No application with this clientId."


async def application_for_write(session: AsyncSession, client_id: str) -> Application:
    """The row-locked application; 404 when missing, 410 when erased."""
    application = await applications.application_by_id(session, client_id, for_update=True)
    if application is None:
        raise not_found(APPLICATION_NOT_FOUND)
    if application.erased_at is not None:
        raise gone()
    return application


async def application_for_read(session: AsyncSession, client_id: str) -> Application:
    """The application for a staff read; missing and erased are the same 404."""
    application = await applications.application_by_id(session, client_id)
    if application is None or application.erased_at is not None:
        raise not_found(APPLICATION_NOT_FOUND)
    return application


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
