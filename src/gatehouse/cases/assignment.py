"""Who has a case (docs/workstation.md "Assignment"; docs/reference/staff-api.md §12.4).

Any analyst or above may claim a case, hand it to a colleague (an active staff member) or
unassign it; each change is audited (`application.assign` naming the new assignee's id in the
target, `application.unassign`). Assignment is staff-only: it changes nothing a tenant reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications import application_for_write
from gatehouse.audit.context import WriteContext
from gatehouse.cases.schemas import Assignment
from gatehouse.errors import failed_precondition, invalid_argument
from gatehouse.storage.tables.core import StaffMember

ACTIVE = "active"


@dataclass(frozen=True, slots=True)
class Colleague:
    """A staff member a case can be handed to."""

    staff_id: str
    email: str
    role: str


async def colleagues(session: AsyncSession) -> list[Colleague]:
    """Every active staff member, by email."""
    rows = await session.execute(
        select(StaffMember.id, StaffMember.email, StaffMember.role)
        .where(StaffMember.status == ACTIVE)
        .order_by(StaffMember.email)
    )
    return [Colleague(*row) for row in rows.all()]


async def assign(
    session: AsyncSession,
    ctx: WriteContext,
    client_id: str,
    assignee: str | None,
) -> Assignment:
    """Give the case to `assignee` (a staff id; the actor's own to claim it), or to no one.

    400 invalid-argument when the assignee is not an active staff member; 400
    failed-precondition when the case already is where it was asked to go.
    """
    application = await application_for_write(session, client_id)
    if assignee is not None:
        status = await session.scalar(select(StaffMember.status).where(StaffMember.id == assignee))
        if status != ACTIVE:
            raise invalid_argument(
                "Choose an active colleague to hand the case to.", "staffId", "not active staff"
            )
    if application.assigned_to == assignee:
        raise failed_precondition(
            "The case is not assigned to anyone."
            if assignee is None
            else "The case is already assigned to this staff member."
        )
    application.assigned_to = assignee
    if assignee is None:
        ctx.audit(
            session,
            "application.unassign",
            application.id,
            application.id,
            tenant_id=application.tenant_id,
        )
    else:
        ctx.audit(
            session, "application.assign", assignee, application.id, tenant_id=application.tenant_id
        )
    await session.flush()
    return {"clientId": application.id, "assignedTo": assignee}
