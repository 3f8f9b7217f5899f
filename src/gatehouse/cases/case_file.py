"""What the dashboard's case page reads (docs/portal-and-dashboard.md, docs/workstation.md): one
application with everything staff look at, and what the workstation adds to it: the moves the
viewer may make now, the required checklist items still unsatisfied, the internal notes, who
has the case and the colleagues it can be handed to, and which requests are due a reminder.
Reads only; every change goes through the services of its area.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import applications
from gatehouse.applications import ChecklistItem, documents_of, read_checklist
from gatehouse.cases.assignment import Colleague, colleagues
from gatehouse.cases.evidence import CaseEvidence, case_evidence
from gatehouse.cases.notes import NoteView, notes_of
from gatehouse.domain.case_moves import CaseMoves, case_moves
from gatehouse.domain.info_requests import OWED_ITEM_STATES, REQUEST_OPEN
from gatehouse.domain.principals import StaffPrincipal
from gatehouse.domain.status import CaseState
from gatehouse.domain.workstation import reminder_due, unsatisfied_required, waiting_on
from gatehouse.screening import open_hit_count
from gatehouse.storage.tables.applications import (
    Application,
    Decision,
    Document,
    InfoRequest,
    InfoRequestItem,
    Intake,
    Member,
)
from gatehouse.storage.tables.core import Event, Tenant


@dataclass(frozen=True, slots=True)
class RequestWithItems:
    request: InfoRequest
    items: list[InfoRequestItem]

    @property
    def owes_answers(self) -> bool:
        """An open request with items the applicant still owes: one staff may remind about."""
        return self.request.status == REQUEST_OPEN and any(
            item.status in OWED_ITEM_STATES for item in self.items
        )


@dataclass(frozen=True, slots=True)
class EventSent:
    event: Event
    summary: dict[str, Any]


@dataclass
class CaseFile:
    """One application with everything the application page shows."""

    application: Application
    tenant: Tenant
    intake: Intake | None
    members: list[Member]
    checklist: list[ChecklistItem]
    documents: list[Document]
    requests: list[RequestWithItems]
    decisions: list[Decision]
    events: list[EventSent]
    evidence: CaseEvidence
    notes: list[NoteView]
    colleagues: list[Colleague]
    proposer_id: str | None = None
    open_hits: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def state(self) -> CaseState:
        a = self.application
        return CaseState(a.status, a.status_before_proposal, a.proposed_by)

    def moves_for(self, staff: StaffPrincipal) -> CaseMoves:
        """Every move `staff` may make on this case now (domain/case_moves.py)."""
        return case_moves(
            self.state,
            actor_id=staff.staff_id,
            actor_role=staff.role,
            open_hits=self.open_hits,
            erased=self.application.erased_at is not None,
        )

    @property
    def unsatisfied(self) -> list[Mapping[str, Any]]:
        """Required checklist items not satisfied: proposing approval needs a reason."""
        return unsatisfied_required(self.checklist)

    @property
    def waiting_on(self) -> str | None:
        return waiting_on(self.application.status)

    @property
    def assignee(self) -> Colleague | None:
        wanted = self.application.assigned_to
        return next((c for c in self.colleagues if c.staff_id == wanted), None)

    def reminder_due(self, entry: RequestWithItems, now: datetime, days: int) -> bool:
        """Whether to flag `entry` as due a reminder (domain/workstation.py `reminder_due`)."""
        return entry.owes_answers and reminder_due(
            self.application.status,
            self.application.status_changed_at,
            entry.request.reminded_at,
            now,
            days,
        )


async def checklist_for(session: AsyncSession, application: Application) -> list[ChecklistItem]:
    """The intake's checklist as the tenant reads it
    (docs/reference/tenant-api.md §5.13); none once erased."""
    if application.erased_at is not None:
        return []
    checklist = await read_checklist(session, application.tenant_id, application.id)
    return checklist["data"]


async def case_file(session: AsyncSession, client_id: str) -> CaseFile | None:
    application = await applications.application_by_id(session, client_id)
    if application is None:
        return None
    tenant = await session.get_one(Tenant, application.tenant_id)
    intake = await session.get(Intake, application.label_id) if application.label_id else None
    requests = await applications.info_requests_of(session, application.id)
    items = await applications.items_of(session, [request.id for request in requests])
    events = (
        await session.execute(
            select(Event)
            .where(Event.application_id == application.id)
            .order_by(Event.occurred_at.desc(), Event.id.desc())
            .limit(100)
        )
    ).scalars()
    documents = await documents_of(session, application.id)
    checklist = await checklist_for(session, application)
    labels = {str(item["key"]): str(item["label"]) for item in checklist}
    return CaseFile(
        application=application,
        tenant=tenant,
        intake=intake,
        members=await applications.members_of(session, application.id),
        checklist=checklist,
        documents=documents,
        requests=[RequestWithItems(request, items[request.id]) for request in requests],
        decisions=await applications.decisions_of(session, application.id),
        events=[EventSent(event, _event_summary(event)) for event in events],
        evidence=await case_evidence(session, application, intake, documents, labels),
        notes=await notes_of(session, application.id),
        colleagues=await colleagues(session),
        proposer_id=application.proposed_by,
        open_hits=await open_hit_count(session, application.id),
    )


def _event_summary(event: Event) -> dict[str, Any]:
    """The envelope's `data` (status, previousStatus, reason…) for display."""
    try:
        envelope = orjson.loads(event.body)
    except orjson.JSONDecodeError:
        return {}
    data = envelope.get("data") if isinstance(envelope, dict) else None
    return data if isinstance(data, dict) else {}
