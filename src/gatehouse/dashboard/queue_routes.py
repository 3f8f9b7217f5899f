"""The dashboard queue and the application page (issue 6)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.dashboard import queries
from gatehouse.dashboard.rendering import render
from gatehouse.dashboard.sessions import Viewer, require_viewer
from gatehouse.http.auth import runtime_of
from gatehouse.http.errors import ApiError

router = APIRouter(include_in_schema=False)

DECISION_ACTIONS = (
    ("approve", "Propose approval", "analyst"),
    ("countersign", "Countersign approval", "mlro"),
    ("reject_proposal", "Turn down the proposal", "mlro"),
    ("reject", "Reject", "analyst"),
    ("hold", "Hold", "analyst"),
    ("release", "Release from hold", "analyst"),
)


@router.get("/dashboard")
async def queue(request: Request) -> Response:
    viewer = await require_viewer(request)
    if isinstance(viewer, Response):
        return viewer
    runtime = runtime_of(request)
    params = request.query_params
    filters, errors = queries.parse_queue_filters(
        params.get("tenant"), params.get("status"), params.get("updated")
    )
    cursor = params.get("cursor") or None
    async with runtime.db.read() as session:
        try:
            page = await queries.queue_page(session, runtime.crypto, filters, cursor)
        except ApiError:
            errors["cursor"] = "That page link is no longer valid; showing the first page."
            cursor = None
            page = await queries.queue_page(session, runtime.crypto, filters, None)
        tenants = await queries.tenant_choices(session)
    base = {
        key: value
        for key, value in (
            ("tenant", filters.tenant_id),
            ("status", filters.status),
            ("updated", params.get("updated") if "updated" not in errors else None),
        )
        if value
    }
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
            "errors": errors,
            "problem": errors.get("cursor"),
            "tenants": tenants,
            "statuses": [(status, status.replace("_", " ")) for status in queries.STATUSES],
            "updated_value": base.get("updated", ""),
            "cursor": cursor,
            "first_url": "/dashboard" + ("?" + urlencode(base) if base else ""),
            "next_url": next_url,
        },
        status_code=400 if errors and "cursor" not in errors else 200,
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
        case = await queries.case_file(session, client_id)
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
        "erase": not erased and viewer.principal.at_least("admin"),
    }
    # Every action is offered; one the viewer may not take is refused with the
    # reason shown (the four-eyes rule is the service's to apply).
    choices = [
        (action, label if viewer.principal.at_least(role) else f"{label} (needs {role})")
        for action, label, role in DECISION_ACTIONS
    ]
    return render(
        request,
        "dashboard/application.html",
        {
            "viewer": viewer,
            "section": "queue",
            "title": case.application.company_name or case.application.id,
            "case": case,
            "actions": actions,
            "decision_actions": choices,
            "errors": errors or {},
            "form": form or {},
            "notice": notice,
            "decision_error": decision_error,
        },
        status_code=status_code,
    )


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
}
