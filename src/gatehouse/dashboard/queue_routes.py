"""The dashboard queue and the application page (docs/portal-and-dashboard.md,
docs/workstation.md)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from gatehouse import cases
from gatehouse.cases import CaseFile, case_file, colleagues
from gatehouse.dashboard.queue_view import headings, state_links
from gatehouse.dashboard.sessions import Viewer, require_viewer
from gatehouse.domain.principals import Role
from gatehouse.domain.realignment import intake_change_refusal
from gatehouse.domain.screening import RISK_LEVELS
from gatehouse.domain.status import STATUSES, ApplicationStatus, DecisionAction
from gatehouse.domain.work_state import STATE_WORDS, Reviewer
from gatehouse.domain.workstation import (
    ASSIGNEE_ME,
    ASSIGNEE_NONE,
    SORT_COMPANY,
    SORT_COMPANY_DESC,
    SORT_NEWEST,
    SORT_OLDEST,
    SORT_STATE_LONGEST,
    SORT_STATE_SHORTEST,
    SORT_UPDATED,
    SORT_UPDATED_OLDEST,
    WAITING_ON_APPLICANT,
    WAITING_ON_STAFF,
    age_words,
)
from gatehouse.errors import GatehouseError
from gatehouse.realignment import intake_choices
from gatehouse.retention import hold_details, hold_of
from gatehouse.risk import risk_view
from gatehouse.screening import read_screening
from gatehouse.web.auth import runtime_of
from gatehouse.web.rendering import render

router = APIRouter(include_in_schema=False)

# What the decision form calls each action; it offers only the ones `allowed_moves` allows.
DECISION_LABELS: dict[str, str] = {
    DecisionAction.APPROVE: "Propose approval",
    DecisionAction.COUNTERSIGN: "Countersign approval",
    DecisionAction.REJECT_PROPOSAL: "Turn down the proposal",
    DecisionAction.REJECT: "Reject",
    DecisionAction.HOLD: "Hold",
    DecisionAction.RELEASE: "Release from hold",
}


# The queue's query parameters, kept across pages (docs/workstation.md "The queue").
QUEUE_PARAMS = (
    "q",
    "state",
    "tenant",
    "status",
    "waiting",
    "intake",
    "assignee",
    "risk",
    "hits",
    "sort",
    "sandbox",
)
# The ones behind "Filters and order", open whenever one of them is set (or wrong).
FILTER_PARAMS = (*QUEUE_PARAMS[2:], "updated")
DEFAULT_VALUES = {"sort": SORT_UPDATED}
SORT_CHOICES = [
    (SORT_UPDATED, "Recently updated first"),
    (SORT_UPDATED_OLDEST, "Least recently updated first"),
    (SORT_OLDEST, "Oldest first"),
    (SORT_NEWEST, "Newest first"),
    (SORT_STATE_LONGEST, "Longest in its status first"),
    (SORT_STATE_SHORTEST, "Shortest in its status first"),
    (SORT_COMPANY, "Company, A to Z"),
    (SORT_COMPANY_DESC, "Company, Z to A"),
]
WAITING_CHOICES = [(WAITING_ON_APPLICANT, "The applicant"), (WAITING_ON_STAFF, "Staff")]


@router.get("/dashboard")
async def queue(request: Request) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    runtime = runtime_of(request)
    params = request.query_params
    filters, errors = cases.parse_queue_filters(params, viewer.principal.staff_id)
    reviewer = Reviewer.of(viewer.principal)
    cursor = params.get("cursor") or None
    days = runtime.settings.info_request_reminder_days
    async with runtime.db.read() as session:
        try:
            page = await _page(request, session, filters, cursor, reviewer)
        except GatehouseError:
            errors["cursor"] = "That page link is no longer valid; showing the first page."
            cursor = None
            page = await _page(request, session, filters, None, reviewer)
        counts = await cases.state_figures(session, filters, reviewer)
        tenants = await cases.tenant_choices(session)
        sandboxes = set(await cases.sandbox_tenants(session))
        intakes = await cases.intake_choices(session)
        team = await colleagues(session)
    base = {
        name: value
        for name in QUEUE_PARAMS
        if (value := params.get(name, "")) and name not in errors
    }
    if params.get("updated") and "updated" not in errors:
        base["updated"] = params["updated"]
    assignees = [
        (ASSIGNEE_ME, "Me"),
        (ASSIGNEE_NONE, "No one"),
        *((c.staff_id, c.email) for c in team if c.staff_id != viewer.principal.staff_id),
    ]
    next_url = "/dashboard?" + urlencode({**base, "cursor": page.next_cursor or ""})
    return render(
        request,
        "dashboard/queue.html",
        {
            "viewer": viewer,
            "section": "queue",
            "title": "Applications",
            "page": page,
            "filters": filters,
            "values": base,
            "errors": errors,
            "problem": errors.get("cursor"),
            "tenants": tenants,
            "sandbox_tenants": sandboxes,
            "intakes": intakes,
            "assignees": assignees,
            "statuses": [(status, status.replace("_", " ")) for status in STATUSES],
            "sorts": SORT_CHOICES,
            "state_links": state_links(base, counts, filters.state),
            "state_words": STATE_WORDS,
            "headings": headings(base, filters.sort),
            "risk_levels": [(level, level) for level in RISK_LEVELS],
            "waiting_choices": WAITING_CHOICES,
            "reminder_days": days,
            "filters_set": sum(
                1
                for name in FILTER_PARAMS
                if (name in base and base[name] != DEFAULT_VALUES.get(name)) or name in errors
            ),
            "updated_value": base.get("updated", ""),
            "cursor": cursor,
            "first_url": "/dashboard" + ("?" + urlencode(base) if base else ""),
            "next_url": next_url,
        },
        status_code=400 if errors and "cursor" not in errors else 200,
    )


async def _page(
    request: Request,
    session: AsyncSession,
    filters: cases.QueueFilters,
    cursor: str | None,
    reviewer: Reviewer,
) -> cases.QueuePage:
    runtime = runtime_of(request)
    return await cases.queue_page(
        session,
        runtime.crypto,
        filters,
        cursor,
        reviewer=reviewer,
        now=runtime.now(),
        reminder_days=runtime.settings.info_request_reminder_days,
    )


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
    """The application page, optionally with the errors of a refused form."""
    runtime = runtime_of(request)
    async with runtime.db.read() as session:
        case = await case_file(session, client_id)
        legal_hold = hold_details(await hold_of(session, client_id))
        screening, risk = await screening_panels(session, case)
        choices = [] if case is None else await intake_choices(session, case.application)
    if case is None:
        return render(
            request,
            "dashboard/not_found.html",
            {"viewer": viewer, "reason": "No application with this client ID."},
            status_code=404,
        )
    erased = case.application.erased_at is not None
    actions = {
        "review": not erased,
        "raise": not erased,
        "decide": not erased,
        "note": not erased,
        "assign": not erased,
        "erase": not erased and viewer.principal.at_least(Role.ADMIN),
        "records": not erased and viewer.principal.at_least(Role.MLRO),
        # docs/case-work.md "Changing the intake", "Checking a status"
        "change_intake": not erased
        and viewer.principal.at_least(Role.MLRO)
        and intake_change_refusal(case.application.status) is None,
        "check_status": not erased and viewer.principal.at_least(Role.ADMIN),
    }
    moves = case.moves_for(viewer.principal)
    days = runtime.settings.info_request_reminder_days
    now = runtime.now()
    return render(
        request,
        "dashboard/application.html",
        {
            "viewer": viewer,
            "section": "queue",
            "title": case.application.company_name or case.application.id,
            "case": case,
            "actions": actions,
            "decision_actions": [(move, DECISION_LABELS[move]) for move in moves],
            "decision_hint": _decision_hint(case, viewer, moves),
            "ask_acknowledgement": DecisionAction.APPROVE in moves and bool(case.unsatisfied),
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
            "errors": errors or {},
            "form": form or {},
            "notice": notice,
            "decision_error": decision_error,
            "legal_hold": legal_hold,
            "screening": screening,
            "risk": risk,
        },
        status_code=status_code,
    )


async def screening_panels(session: AsyncSession, case: CaseFile | None) -> tuple[Any, Any]:
    """The screening and risk panels' reads (docs/screening.md); none for an erased case."""
    if case is None or case.application.erased_at is not None:
        return None, None
    client_id = case.application.id
    return await read_screening(session, client_id), await risk_view(session, client_id)


def _decision_hint(case: CaseFile, viewer: Viewer, moves: tuple[str, ...]) -> str | None:
    """Why an awaited move is missing from the form, in words."""
    if (
        case.application.status != ApplicationStatus.PENDING_APPROVAL
        or DecisionAction.COUNTERSIGN in moves
    ):
        return None
    if case.application.proposed_by == viewer.principal.staff_id:
        return "You proposed this approval, so a colleague (mlro or above) must countersign it."
    return "Countersigning a proposed approval needs the mlro role or above."


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
