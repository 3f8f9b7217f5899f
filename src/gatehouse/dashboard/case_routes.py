"""The case page (docs/workstation.md "The case page"): the evidence on one side, the decision
panel on the other, one timeline; and the thumbnails of image documents
(docs/documents.md §5).

What the page offers comes from one place, the case's moves (domain/case_moves.py); the page
renders them and holds no rule of its own.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from gatehouse.cases import CaseFile, case_file, case_timeline, page_number
from gatehouse.dashboard.sessions import Viewer, require_viewer
from gatehouse.domain.case_moves import CaseMoves
from gatehouse.domain.status import ACTION_WORDS, DecisionAction
from gatehouse.domain.workstation import age_words
from gatehouse.realignment import intake_choices
from gatehouse.retention import hold_details, hold_of
from gatehouse.risk import risk_view
from gatehouse.screening import read_screening
from gatehouse.web.auth import runtime_of
from gatehouse.web.rendering import render

router = APIRouter(include_in_schema=False)

# What the decision panel calls each action; it offers only the case's moves.
DECISION_LABELS: dict[str, str] = {
    DecisionAction.APPROVE: "Propose approval",
    DecisionAction.COUNTERSIGN: "Countersign approval",
    DecisionAction.REJECT_PROPOSAL: "Turn down the proposal",
    DecisionAction.REJECT: "Reject",
    DecisionAction.HOLD: "Hold",
    DecisionAction.RELEASE: "Release from hold",
}
# The fields of the information-request form: an error on one shows the form again.
REQUEST_FORM_FIELDS = (
    "comment",
    "items",
    *(f"item_{part}_{i}" for part in ("prompt", "type") for i in range(3)),
)


def decision_context(
    case: CaseFile, moves: CaseMoves, errors: dict[str, str], asked: bool
) -> dict[str, Any]:
    """What the decision panel shows, from the case's moves; the information-request form
    when `asked` for (`?ask=1`) or refused."""
    return {
        "decision_actions": [(move, DECISION_LABELS[move]) for move in moves.decisions],
        "withheld": [(ACTION_WORDS[w.action], w.reason) for w in moves.withheld],
        "ask_acknowledgement": DecisionAction.APPROVE in moves.decisions and bool(case.unsatisfied),
        "ask_rejection_reason": DecisionAction.REJECT in moves.decisions,
        "request_form_open": asked or any(name in errors for name in REQUEST_FORM_FIELDS),
    }


async def render_case(
    request: Request,
    viewer: Viewer,
    client_id: str,
    *,
    errors: dict[str, str] | None = None,
    form: dict[str, Any] | None = None,
    notice: str | None = None,
    decision_error: str | None = None,
    status_code: int = 200,
) -> Response:
    """The case page, optionally with the errors of a refused form."""
    runtime = runtime_of(request)
    page = page_number(request.query_params.get("timeline"))
    async with runtime.db.read() as session:
        case = await case_file(session, client_id)
        if case is None:
            return render(
                request,
                "dashboard/not_found.html",
                {"viewer": viewer, "reason": "No application with this client ID."},
                status_code=404,
            )
        legal_hold = hold_details(await hold_of(session, client_id))
        screening, risk = await screening_panels(session, case)
        choices = await intake_choices(session, case.application)
        timeline = await case_timeline(session, case, page)
    moves = case.moves_for(viewer.principal)
    days = runtime.settings.info_request_reminder_days
    now = runtime.now()
    errors = errors or {}
    return render(
        request,
        "dashboard/application.html",
        {
            "viewer": viewer,
            "section": "queue",
            "title": case.application.company_name or case.application.id,
            "case": case,
            "actions": moves.actions(),
            **decision_context(case, moves, errors, request.query_params.get("ask") == "1"),
            "reminders_due": {
                entry.request.id for entry in case.requests if case.reminder_due(entry, now, days)
            },
            "reminder_days": days,
            "handover_choices": [
                (c.staff_id, f"{c.email} ({c.role})")
                for c in case.colleagues
                if c.staff_id not in (case.application.assigned_to, viewer.principal.staff_id)
            ],
            "intake_choices": [(intake.id, intake.name) for intake in choices],
            "state_age": age_words(now - case.application.status_changed_at),
            "timeline": timeline,
            "errors": errors,
            "form": form or {},
            "notice": notice,
            "decision_error": decision_error,
            "legal_hold": legal_hold,
            "screening": screening,
            "risk": risk,
        },
        status_code=status_code,
    )


async def screening_panels(session: AsyncSession, case: CaseFile) -> tuple[Any, Any]:
    """The screening and risk panels' reads (docs/screening.md); none for an erased case."""
    if case.application.erased_at is not None:
        return None, None
    client_id = case.application.id
    return await read_screening(session, client_id), await risk_view(session, client_id)


@router.get("/dashboard/applications/{client_id}")
async def application_page(request: Request, client_id: str) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    notice = request.query_params.get("done")
    return await render_case(request, viewer, client_id, notice=_NOTICES.get(notice or ""))


_NOTICES = {
    "decision": "Decision recorded.",
    "raised": "Information request raised.",
    "accepted": "Item accepted.",
    "reopened": "Item reopened; the request is open again in a new round.",
    "closed": "Request closed.",
    "cancelled": "Request cancelled.",
    "erased": "The application was erased.",
    "noted": "Note added. Only staff can see it.",
    "assigned": "Assignment changed.",
    "reminded": "Reminder sent: the tenant was told, and can send the applicant a fresh link.",
    "hold": "Legal hold changed.",
    "intake_changed": "Intake changed: the checklist and the form now follow the new intake.",
    "repaired": "Status checked and repaired: it did not match the case's facts. The history "
    "shows the change (action repair) and the tenant was sent application.status.changed.",
    "status_ok": "Status checked: it matches the case's facts. Nothing changed.",
}
