"""Staff decisions on an application (CONTRACT §4 "Decision actions", §6; spec 1 §3.1).

One call makes one move of the status machine: it writes the decision-history
row, updates the application, publishes the decision event and
`application.status.changed` (reason `decision`) to the outbox and records an
audit entry, all in the caller's write transaction.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import audit
from gatehouse.domain import events
from gatehouse.domain.decisions import HistoryEntry, plan_decision
from gatehouse.domain.status import (
    HOLD,
    REASON_DECISION,
    REJECTED,
    CaseRuleError,
    CaseState,
)
from gatehouse.http.auth import StaffPrincipal
from gatehouse.ids import new_id
from gatehouse.services.application_reads import load_application_view
from gatehouse.services.case_access import (
    application_for_write,
    publish_status_change,
    rule_error,
)
from gatehouse.services.case_reads import staff_application_view
from gatehouse.storage.tables.applications import Application, Decision
from gatehouse.webhooks.outbox import publish


class DecisionBody(BaseModel):
    """`POST /staff/v1/applications/{clientId}/decisions` body (CONTRACT §4)."""

    action: str
    comment: str | None = None
    rejectionReason: str | None = None


def add_history(session: AsyncSession, application_id: str, entry: HistoryEntry) -> None:
    """Write one decision-history row (spec 1 §4.12)."""
    session.add(
        Decision(
            id=new_id("dec"),
            application_id=application_id,
            action=entry.action,
            from_status=entry.from_status,
            to_status=entry.to_status,
            by_role=entry.by_role,
            by_staff_id=entry.by_staff_id,
            comment=entry.comment,
            at=entry.at,
        )
    )


async def make_decision(
    session: AsyncSession,
    *,
    client_id: str,
    staff: StaffPrincipal,
    body: DecisionBody,
    at: datetime,
    request_id: str | None,
) -> dict[str, Any]:
    """Apply a decision action; returns the application read (CONTRACT §4: 200 application)."""
    application = await application_for_write(session, client_id)
    state = CaseState(
        application.status, application.status_before_proposal, application.proposed_by
    )
    try:
        move, entry = plan_decision(
            state,
            body.action,
            actor_id=staff.staff_id,
            actor_role=staff.role,
            comment=body.comment,
            rejection_reason=body.rejectionReason,
            at=at,
        )
    except CaseRuleError as error:
        raise rule_error(error) from None
    _apply(application, move.to_status, at)
    application.status_before_proposal = move.status_before_proposal
    application.proposed_by = move.proposed_by
    application.rejection_reason = move.rejection_reason if move.to_status == REJECTED else None
    if move.to_status == HOLD:
        application.status_before_hold = move.from_status
    add_history(session, application.id, entry)
    if move.event_type is not None:
        await publish(
            session,
            tenant_id=application.tenant_id,
            event_type=move.event_type,
            occurred_at=at,
            data=events.decision(
                move.event_type,
                status=move.to_status,
                previous_status=move.from_status,
                actor_role=staff.role,
                comment=entry.comment,
                rejection_reason=move.rejection_reason,
            ),
            application=application,
        )
    await publish_status_change(
        session, application, previous_status=move.from_status, reason=REASON_DECISION, at=at
    )
    audit.record(
        session,
        at=at,
        actor=staff.actor,
        action=f"application.decision.{body.action}",
        target=application.id,
        tenant_id=application.tenant_id,
        application_id=application.id,
        request_id=request_id,
    )
    await session.flush()
    view = await load_application_view(session, application)
    return staff_application_view(application, view)


def _apply(application: Application, status: str, at: datetime) -> None:
    application.status = status
    application.updated_at = at
