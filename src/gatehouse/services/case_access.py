"""Loading an application for staff case work, and what every case move shares
(CONTRACT §4): 404 for a missing application, 410 for writes on an erased
one, the row lock that makes `data.sequence` allocation safe, the mapping of
domain refusals onto error answers, and the status.changed event.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain import events
from gatehouse.domain.status import EVENT_STATUS_CHANGED, CaseRuleError
from gatehouse.http.errors import (
    FAILED_PRECONDITION,
    INVALID_ARGUMENT,
    PERMISSION_DENIED,
    ApiError,
    gone,
    not_found,
)
from gatehouse.services import applications_repo as repo
from gatehouse.storage.tables.applications import Application
from gatehouse.webhooks.outbox import publish

APPLICATION_NOT_FOUND = "No application with this clientId."

_KINDS = {
    "failed_precondition": FAILED_PRECONDITION,
    "permission_denied": PERMISSION_DENIED,
    "invalid_argument": INVALID_ARGUMENT,
}


def rule_error(error: CaseRuleError) -> ApiError:
    """The documented answer for a refusal of the domain rules."""
    details = [{"field": error.field, "issue": error.message}] if error.field else None
    return ApiError(_KINDS[error.kind], error.message, details=details)


async def application_for_write(session: AsyncSession, client_id: str) -> Application:
    """The row-locked application; 404 when missing, 410 when erased."""
    application = await repo.application_by_id(session, client_id, for_update=True)
    if application is None:
        raise not_found(APPLICATION_NOT_FOUND)
    if application.erased_at is not None:
        raise gone()
    return application


async def application_for_read(session: AsyncSession, client_id: str) -> Application:
    """The application for a staff read; missing and erased are the same 404."""
    application = await repo.application_by_id(session, client_id)
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
    """`application.status.changed` when the status moved (spec 2 §6.1)."""
    if application.status == previous_status:
        return
    await publish(
        session,
        tenant_id=application.tenant_id,
        event_type=EVENT_STATUS_CHANGED,
        occurred_at=at,
        data=events.status_changed(application.status, previous_status, reason),
        application=application,
    )
