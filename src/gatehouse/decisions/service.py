"""Staff decisions on an application (docs/reference/staff-api.md §6.2, §6.3).

One call makes one move of the status machine: it writes the decision-history
row, updates the application, publishes the decision event and
`application.status.changed` (reason `decision`) to the outbox and records an
audit entry, all in the caller's write transaction.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications import application_for_write, load_application_view, read_checklist
from gatehouse.audit.context import WriteContext
from gatehouse.cases import (
    StaffApplication,
    publish_status_change,
    staff_application_view,
)
from gatehouse.domain import events
from gatehouse.domain.case_moves import BLOCKED_BY_OPEN_HITS, screening_refusal
from gatehouse.domain.decisions import HistoryEntry, plan_decision
from gatehouse.domain.principals import StaffPrincipal
from gatehouse.domain.status import (
    APPROVE,
    HOLD,
    REASON_DECISION,
    REJECTED,
    CaseState,
)
from gatehouse.domain.workstation import (
    Acknowledgement,
    acknowledgement_for,
    unsatisfied_required,
)
from gatehouse.ids import new_id
from gatehouse.screening import open_hit_count
from gatehouse.storage.tables.applications import Application, Decision
from gatehouse.webhooks import publish


def add_history(
    session: AsyncSession,
    application_id: str,
    entry: HistoryEntry,
    acknowledgement: Acknowledgement | None = None,
) -> Decision:
    """Write one decision-history row (docs/reference/tenant-api.md §5.12), with the staff-only
    acknowledgement of unsatisfied checklist items when the proposal had one."""
    row = Decision(
        id=new_id("dec"),
        application_id=application_id,
        action=entry.action,
        from_status=entry.from_status,
        to_status=entry.to_status,
        by_role=entry.by_role,
        by_staff_id=entry.by_staff_id,
        comment=entry.comment,
        at=entry.at,
        acknowledgement=acknowledgement.reason if acknowledgement else None,
        acknowledged_items=list(acknowledgement.items) if acknowledgement else None,
    )
    session.add(row)
    return row


async def make_decision(
    session: AsyncSession,
    ctx: WriteContext,
    staff: StaffPrincipal,
    client_id: str,
    *,
    action: str,
    comment: str | None,
    rejection_reason: str | None,
    acknowledgement: str | None = None,
    require_acknowledgement: bool = False,
) -> StaffApplication:
    """Apply a decision action; returns the application read (docs/reference/staff-api.md §6.2).

    A proposal while required checklist items are unsatisfied records `acknowledgement` (the
    staff member's reason) in the history row and the audit trail; with
    `require_acknowledgement` (the dashboard) such a proposal without a reason is refused.
    The staff API leaves it optional (docs/reference/staff-api.md §12.1).
    """
    at = ctx.now
    application = await application_for_write(session, client_id)
    state = CaseState(
        application.status, application.status_before_proposal, application.proposed_by
    )
    move, entry = plan_decision(
        state,
        action,
        actor_id=staff.staff_id,
        actor_role=staff.role,
        comment=comment,
        rejection_reason=rejection_reason,
        at=at,
    )
    await _no_open_hits(session, action, application.id)
    acknowledged = None
    if action == APPROVE:
        checklist = await read_checklist(session, application.tenant_id, application.id)
        acknowledged = acknowledgement_for(
            action,
            unsatisfied_required(checklist["data"]),
            acknowledgement,
            required=require_acknowledgement,
        )
    _apply(application, move.to_status, at)
    application.status_before_proposal = move.status_before_proposal
    application.proposed_by = move.proposed_by
    application.rejection_reason = move.rejection_reason if move.to_status == REJECTED else None
    if move.to_status == HOLD:
        application.status_before_hold = move.from_status
    row = add_history(session, application.id, entry, acknowledged)
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
    ctx.audit(
        session,
        f"application.decision.{action}",
        application.id,
        application.id,
        tenant_id=application.tenant_id,
    )
    if acknowledged is not None:
        # The reason stays in the history row; the trail names that row (ids only).
        ctx.audit(
            session,
            "application.decision.acknowledge_unsatisfied",
            row.id,
            application.id,
            tenant_id=application.tenant_id,
        )
    await session.flush()
    view = await load_application_view(session, application)
    return staff_application_view(application, view)


async def _no_open_hits(session: AsyncSession, action: str, application_id: str) -> None:
    """The screening guard rail (docs/screening.md; domain/case_moves.py): no proposal or
    countersignature of an approval while a hit is open."""
    if action in BLOCKED_BY_OPEN_HITS:
        blocked = screening_refusal(action, await open_hit_count(session, application_id))
        if blocked is not None:
            raise blocked


def _apply(application: Application, status: str, at: datetime) -> None:
    application.status = status
    application.updated_at = at
