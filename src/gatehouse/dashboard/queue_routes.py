"""The dashboard queue (docs/portal-and-dashboard.md, docs/workstation.md); the case page is
case_routes.py."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.cases import queue as queries
from gatehouse.cases.assignment import colleagues
from gatehouse.dashboard.sessions import require_viewer
from gatehouse.domain.status import STATUSES
from gatehouse.domain.workstation import (
    ASSIGNEE_ME,
    ASSIGNEE_NONE,
    SORT_NEWEST,
    SORT_OLDEST,
    SORT_UPDATED,
    WAITING_ON_APPLICANT,
    WAITING_ON_STAFF,
)
from gatehouse.errors import GatehouseError
from gatehouse.web.auth import runtime_of
from gatehouse.web.rendering import render

router = APIRouter(include_in_schema=False)

# The queue's query parameters, kept across pages (docs/workstation.md "The queue").
QUEUE_PARAMS = ("q", "tenant", "status", "waiting", "intake", "assignee", "sort", "sandbox")
# The ones behind "Filters and order", open whenever one of them is set (or wrong).
FILTER_PARAMS = (*QUEUE_PARAMS[1:], "updated")
DEFAULT_VALUES = {"sort": SORT_UPDATED}
SORT_CHOICES = [
    (SORT_UPDATED, "Recently updated first"),
    (SORT_OLDEST, "Oldest first"),
    (SORT_NEWEST, "Newest first"),
]
WAITING_CHOICES = [(WAITING_ON_APPLICANT, "The applicant"), (WAITING_ON_STAFF, "Staff")]


@router.get("/dashboard")
async def queue(request: Request) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    runtime = runtime_of(request)
    params = request.query_params
    filters, errors = queries.parse_queue_filters(params, viewer.principal.staff_id)
    cursor = params.get("cursor") or None
    days = runtime.settings.info_request_reminder_days
    now = runtime.now()
    async with runtime.db.read() as session:
        try:
            page = await queries.queue_page(
                session, runtime.crypto, filters, cursor, now=now, reminder_days=days
            )
        except GatehouseError:
            errors["cursor"] = "That page link is no longer valid; showing the first page."
            cursor = None
            page = await queries.queue_page(
                session, runtime.crypto, filters, None, now=now, reminder_days=days
            )
        tenants = await queries.tenant_choices(session)
        sandboxes = set(await queries.sandbox_tenants(session))
        intakes = await queries.intake_choices(session)
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
