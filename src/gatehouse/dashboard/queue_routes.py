"""The dashboard queue (docs/portal-and-dashboard.md, docs/workstation.md); the case page is
case_routes.py."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from gatehouse import cases
from gatehouse.cases import colleagues
from gatehouse.dashboard.queue_view import headings, state_links
from gatehouse.dashboard.sessions import require_viewer
from gatehouse.domain.screening import RISK_LEVELS
from gatehouse.domain.status import STATUSES, DecisionAction
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
)
from gatehouse.errors import GatehouseError
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
