"""Changing a case's intake and repairing its status (docs/reference/staff-api.md "Intake change
and repair"; docs/case-work.md "Changing the intake", "Checking a status").

Each use case runs in the caller's write transaction: it locks the application, applies a pure
rule of `domain/realignment.py`, writes the state, the decision-history entry, the outbox event
and the audit entry together.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications import application_for_write, load_application_view
from gatehouse.audit.context import WriteContext
from gatehouse.cases import (
    StaffApplication,
    publish_status_change,
    staff_application_view,
)
from gatehouse.decisions import add_history
from gatehouse.domain.checklist import is_usable_configuration
from gatehouse.domain.decisions import HistoryEntry, clean_comment
from gatehouse.domain.principals import StaffPrincipal
from gatehouse.domain.realignment import (
    CaseFacts,
    intake_change_refusal,
    kept_answers,
    repaired_status,
    status_after_intake_change,
)
from gatehouse.domain.status import (
    PENDING_APPROVAL,
    REASON_PAIR_CHANGE,
    REASON_REPAIR,
    HistoryAction,
)
from gatehouse.errors import GatehouseError, failed_precondition, invalid_argument
from gatehouse.intakes import attached_intakes
from gatehouse.realignment import queries
from gatehouse.realignment.schemas import RepairResult
from gatehouse.risk import recompute_risk
from gatehouse.screening import request_screening
from gatehouse.storage.db import Database
from gatehouse.storage.tables.applications import Application, Intake

NOT_AN_INTAKE = "labelId does not name an attached intake of this application's tenant."
# The history's `byRole` for a repair made by the command line (docs/case-work.md).
SYSTEM_ROLE = "system"


def _form_keys(intake: Intake | None) -> list[str]:
    fields = intake.form_fields if intake is not None else None
    return [
        str(entry["key"])
        for entry in fields or []
        if isinstance(entry, dict) and isinstance(entry.get("key"), str)
    ]


async def _target_intake(session: AsyncSession, application: Application, label_id: str) -> Intake:
    """The intake the case moves to: the tenant's and attached (else 400 invalid-argument)."""
    intake = await session.get(Intake, label_id) if label_id else None
    if intake is None or intake.tenant_id != application.tenant_id or not intake.attached:
        raise invalid_argument(NOT_AN_INTAKE, "labelId", "not an attached intake of the tenant")
    return intake


async def change_intake(
    session: AsyncSession,
    ctx: WriteContext,
    staff: StaffPrincipal,
    client_id: str,
    *,
    label_id: str,
    comment: str | None = None,
) -> StaffApplication:
    """Move the case to another attached intake of its tenant → the staff application read.

    The checklist and the form follow the new intake (answers under keys both forms name are
    kept); a pending_approval case returns to pending (the proposal lapses, history action
    `pair_change`, `application.status.changed` reason `pair_change`). The same intake changes
    nothing; active and rejected cases are refused.
    """
    cleaned = clean_comment(comment)
    application = await application_for_write(session, client_id)
    intake = await _target_intake(session, application, label_id)
    refused = intake_change_refusal(application.status)
    if refused is not None:
        raise refused
    if intake.id != application.label_id:
        if not is_usable_configuration(intake.checklist, intake.form_fields):
            raise failed_precondition("The intake's configuration is not usable.")
        await _move(session, ctx, staff, application, intake, cleaned)
    view = await load_application_view(session, application)
    return staff_application_view(application, view)


async def _move(
    session: AsyncSession,
    ctx: WriteContext,
    staff: StaffPrincipal,
    application: Application,
    intake: Intake,
    comment: str | None,
) -> None:
    old = await session.get(Intake, application.label_id) if application.label_id else None
    application.form_data = kept_answers(
        application.form_data or {},
        _form_keys(old) if old is not None else _form_keys(intake),
        _form_keys(intake),
    )
    application.label_id = intake.id
    application.updated_at = ctx.now
    previous = application.status
    application.status = status_after_intake_change(previous)
    if application.status != previous:
        # The proposal lapses with the intake it was made under.
        application.status_before_proposal = None
        application.proposed_by = None
        entry = HistoryEntry(
            action=HistoryAction.PAIR_CHANGE,
            from_status=previous,
            to_status=application.status,
            by_role=staff.role,
            by_staff_id=staff.staff_id,
            comment=comment,
            at=ctx.now,
        )
        add_history(session, application.id, entry)
        await publish_status_change(
            session, application, previous_status=previous, reason=REASON_PAIR_CHANGE, at=ctx.now
        )
    # Screening and risk follow the new intake (docs/screening.md): the subjects it names are
    # screened and the risk computed under its rules, now and again by the workers.
    await recompute_risk(session, application.id)
    await request_screening(session, application.id, "intake_changed", now=ctx.now)
    ctx.audit(
        session,
        "application.intake.change",
        intake.id,
        application.id,
        tenant_id=application.tenant_id,
    )
    await session.flush()


async def intake_choices(session: AsyncSession, application: Application) -> list[Intake]:
    """The intakes a case may move to: its tenant's attached intakes other than its own."""
    return [
        intake
        for intake in await attached_intakes(session, application.tenant_id)
        if intake.id != application.label_id
    ]


async def _facts(session: AsyncSession, application: Application) -> CaseFacts:
    entries = await queries.last_entries(session, [application.id])
    owing = await queries.owing_answers(session, [application.id])
    return CaseFacts(application.status, entries.get(application.id), application.id in owing)


async def repair_application(
    session: AsyncSession,
    ctx: WriteContext,
    client_id: str,
    *,
    actor_role: str,
    actor_id: str | None,
) -> RepairResult:
    """Bring the case's status in line with its facts (`domain/realignment.py`
    `repaired_status`); when it changes, history action `repair` and
    `application.status.changed` reason `repair`. Audited whether or not it changed."""
    application = await application_for_write(session, client_id)
    previous = application.status
    facts = await _facts(session, application)
    target = repaired_status(facts)
    if target != previous:
        application.status = target
        if target == PENDING_APPROVAL and facts.last_entry is not None:
            # The waiting proposal is the case's again: reject_proposal returns where it was
            # made from, and its proposer still may not countersign it.
            application.status_before_proposal = facts.last_entry.from_status
            application.proposed_by = facts.last_entry.by_staff_id
        application.updated_at = ctx.now
        entry = HistoryEntry(
            action=HistoryAction.REPAIR,
            from_status=previous,
            to_status=target,
            by_role=actor_role,
            by_staff_id=actor_id,
            comment=None,
            at=ctx.now,
        )
        add_history(session, application.id, entry)
        await publish_status_change(
            session, application, previous_status=previous, reason=REASON_REPAIR, at=ctx.now
        )
    ctx.audit(
        session,
        "application.status.repair",
        application.id,
        application.id,
        tenant_id=application.tenant_id,
    )
    await session.flush()
    return {
        "clientId": application.id,
        "previousStatus": previous,
        "status": application.status,
        "changed": application.status != previous,
    }


@dataclass(frozen=True, slots=True)
class RepairLine:
    """One case a repair of every application changes (or, without applying, would change)."""

    client_id: str
    tenant_id: str
    previous_status: str
    status: str
    applied: bool

    def as_json(self) -> dict[str, object]:
        return {
            "clientId": self.client_id,
            "tenantId": self.tenant_id,
            "previousStatus": self.previous_status,
            "status": self.status,
            "applied": self.applied,
        }


async def _planned(session: AsyncSession, ids: list[str]) -> list[tuple[str, str, str, str]]:
    """(clientId, tenantId, status, repaired status) of each case of the batch that would
    change."""
    rows = await queries.applications_of(session, ids)
    entries = await queries.last_entries(session, ids)
    owing = await queries.owing_answers(session, ids)
    planned = []
    for client_id, (tenant_id, status) in rows.items():
        target = repaired_status(CaseFacts(status, entries.get(client_id), client_id in owing))
        if target != status:
            planned.append((client_id, tenant_id, status, target))
    return planned


async def repair_all(
    db: Database, context: Callable[[], WriteContext], *, apply: bool, batch: int = 500
) -> AsyncIterator[RepairLine]:
    """Every application not erased whose status its facts contradict, in id order: without
    `apply` only read (nothing changes); with it, each case repaired in its own transaction,
    as `repair_application` does (by role `system`, in the write context `context()` makes)."""
    after: str | None = None
    while True:
        async with db.read() as session:
            ids = await queries.live_application_ids(session, after=after, limit=batch)
            planned = await _planned(session, ids)
        if not ids:
            return
        after = ids[-1]
        for client_id, tenant_id, status, target in planned:
            if not apply:
                yield RepairLine(client_id, tenant_id, status, target, applied=False)
                continue
            try:
                async with db.write() as session:
                    done = await repair_application(
                        session, context(), client_id, actor_role=SYSTEM_ROLE, actor_id=None
                    )
            except GatehouseError:
                continue  # erased since the batch was read: nothing left to repair
            if done["changed"]:
                yield RepairLine(
                    client_id, tenant_id, done["previousStatus"], done["status"], applied=True
                )
