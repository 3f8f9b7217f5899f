"""Simulating the applicant's and the staff's steps in a sandbox tenant (docs/sandbox.md).

`simulate` makes one step on one application of the calling sandbox tenant by calling the
services the real actors use, in the caller's write transaction, so the step obeys the same
rules and leaves the same history, audit entries, events and webhook deliveries:

- `submit` and `respond` act as the applicant (applicants/service.py `mark_submitted`,
  info_requests/service.py `record_answer` for every item still owed);
- `request_info`, `reject`, `hold` and `release` act as a simulated analyst
  (info_requests/service.py `raise_request`, decisions/service.py `make_decision`);
- `approve` is a proposal by a simulated analyst and a countersignature by a simulated mlro,
  two decisions, each with its own events.

The audit trail names the caller as `sandbox:<keyId>`; the decision history names the
simulated staff by role only. A tenant that is not a sandbox one, or any other tenant's
application, is told nothing: 404.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import applications
from gatehouse.applicants import mark_submitted
from gatehouse.applications import Application as ApplicationView
from gatehouse.applications import get_tenant_application, load_application_view, refusal_error
from gatehouse.audit.context import WriteContext
from gatehouse.decisions import make_decision
from gatehouse.domain import info_requests as request_rules
from gatehouse.domain import sandbox as rules
from gatehouse.domain.access import Refusal
from gatehouse.domain.principals import StaffPrincipal, TenantPrincipal
from gatehouse.domain.status import APPROVE, COUNTERSIGN
from gatehouse.errors import failed_precondition, gone, not_found
from gatehouse.info_requests import load_request, raise_request, record_answer
from gatehouse.sandbox.queries import environment_of
from gatehouse.storage.tables.applications import Application

# What every caller outside a sandbox tenant gets: the answer to a path no route has
# (web/handlers.py answers unknown routes with this message).
NO_SUCH_ROUTE = "No such route."

_ANALYST = StaffPrincipal(
    rules.simulated_staff_id(rules.SIMULATED_ANALYST), "", rules.SIMULATED_ANALYST
)
_MLRO = StaffPrincipal(rules.simulated_staff_id(rules.SIMULATED_MLRO), "", rules.SIMULATED_MLRO)


@dataclass(frozen=True, slots=True)
class SimulatedActor:
    """The caller of a simulated step, as the audit trail names it: `sandbox:<keyId>`."""

    key_id: str
    tenant_id: str

    @property
    def actor(self) -> str:
        return f"sandbox:{self.key_id}"

    @classmethod
    def of(cls, principal: TenantPrincipal) -> SimulatedActor:
        return cls(principal.key_id, principal.tenant_id)


@dataclass(frozen=True, slots=True)
class Simulation:
    """One step: `action` (domain/sandbox.py `SIMULATE_ACTIONS`) and its optional inputs."""

    action: str
    comment: str | None = None
    rejection_reason: str | None = None
    items: object = None


async def simulate(
    session: AsyncSession,
    ctx: WriteContext,
    tenant: TenantPrincipal,
    client_id: str,
    step: Simulation,
) -> ApplicationView:
    """Make one simulated step; returns the application read
    (docs/reference/tenant-api.md §5.3 shape).

    Order: the tenant must be a sandbox one (else 404 as for an unknown route), the action
    known (400 invalid-argument), the application the tenant's (404) and not erased (410),
    the tenant not suspended (403); then the step, whose rules answer 400 failed-precondition
    for a move the state does not allow.
    """
    found = await environment_of(session, tenant.tenant_id)
    if found != rules.SANDBOX:
        raise not_found(NO_SUCH_ROUTE)
    action = rules.check_action(step.action)
    application = await get_tenant_application(
        session, tenant.tenant_id, client_id, for_update=True
    )
    if application.erased_at is not None:
        raise gone()
    if tenant.suspended:
        raise refusal_error(Refusal.SUSPENDED)
    if action in rules.APPLICANT_ACTIONS and application.locked:
        raise failed_precondition("The application is locked: the applicant cannot act on it.")
    await _STEPS[action](session, ctx, application, step)
    await session.flush()
    return await load_application_view(session, application)


async def _submit(
    session: AsyncSession, ctx: WriteContext, application: Application, step: Simulation
) -> None:
    if application.submitted_at is not None:
        raise failed_precondition("The application is already submitted.")
    await mark_submitted(session, ctx, application)


async def _respond(
    session: AsyncSession, ctx: WriteContext, application: Application, step: Simulation
) -> None:
    """Answer every item still owed (open or reopened) of every open request, oldest first."""
    requests = [
        request
        for request in reversed(await applications.info_requests_of(session, application.id))
        if request.status == request_rules.REQUEST_OPEN
    ]
    answer = (step.comment or "").strip() or rules.DEFAULT_ANSWER
    answered = 0
    for request in requests:
        loaded = await load_request(session, request.id, application_id=application.id)
        for item in list(loaded.items):
            if item.status not in request_rules.OWED_ITEM_STATES:
                continue
            checked = request_rules.check_answer(answer)
            await record_answer(session, ctx, loaded, item, answer=checked, document_id=None)
            answered += 1
    if not answered:
        raise failed_precondition("No information request is waiting for the applicant.")


async def _request_info(
    session: AsyncSession, ctx: WriteContext, application: Application, step: Simulation
) -> None:
    items = step.items if step.items is not None else [dict(i) for i in rules.DEFAULT_REQUEST_ITEMS]
    comment = step.comment if step.comment is not None else rules.DEFAULT_REQUEST_COMMENT
    await raise_request(session, ctx, _ANALYST, application.id, comment=comment, items=items)


async def _approve(
    session: AsyncSession, ctx: WriteContext, application: Application, step: Simulation
) -> None:
    for staff, action in ((_ANALYST, APPROVE), (_MLRO, COUNTERSIGN)):
        await make_decision(
            session,
            ctx,
            staff,
            application.id,
            action=action,
            comment=step.comment,
            rejection_reason=None,
        )


async def _reject(
    session: AsyncSession, ctx: WriteContext, application: Application, step: Simulation
) -> None:
    reason = step.rejection_reason
    if reason is None or not reason.strip():
        reason = rules.DEFAULT_REJECTION_REASON
    await _decide(session, ctx, application, step, rules.REJECT, reason)


async def _hold(
    session: AsyncSession, ctx: WriteContext, application: Application, step: Simulation
) -> None:
    await _decide(session, ctx, application, step, rules.HOLD, None)


async def _release(
    session: AsyncSession, ctx: WriteContext, application: Application, step: Simulation
) -> None:
    await _decide(session, ctx, application, step, rules.RELEASE, None)


async def _decide(
    session: AsyncSession,
    ctx: WriteContext,
    application: Application,
    step: Simulation,
    action: str,
    rejection_reason: str | None,
) -> None:
    await make_decision(
        session,
        ctx,
        _ANALYST,
        application.id,
        action=action,
        comment=step.comment,
        rejection_reason=rejection_reason,
    )


_STEPS = {
    rules.SUBMIT: _submit,
    rules.REQUEST_INFO: _request_info,
    rules.RESPOND: _respond,
    rules.APPROVE: _approve,
    rules.REJECT: _reject,
    rules.HOLD: _hold,
    rules.RELEASE: _release,
}
