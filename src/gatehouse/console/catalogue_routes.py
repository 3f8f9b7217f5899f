"""The console's read-only pages: the event catalogue and, for a key holding
applications:read, the application list (docs/console.md)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.applications import list_applications, parse_list_query
from gatehouse.console.session_http import not_found_page, page, require_session
from gatehouse.domain.principals import SCOPE_READ
from gatehouse.domain.status import STATUSES
from gatehouse.errors import GatehouseError
from gatehouse.web.auth import runtime_of
from gatehouse.webhooks import catalogue

router = APIRouter(include_in_schema=False)

# Applications a page unless the query says otherwise (each page stays under 30 KB).
APPLICATIONS_PAGE = 15


@router.get("/console/events")
async def events_page(request: Request) -> Response:
    live = await require_session(request)
    if isinstance(live, Response):
        return live
    context = {"section": "events", "title": "Event catalogue", "types": catalogue()["data"]}
    return page(request, live, "events.html", context)


@router.get("/console/events/{event_type}")
async def event_page(request: Request, event_type: str) -> Response:
    live = await require_session(request)
    if isinstance(live, Response):
        return live
    found = next((e for e in catalogue()["data"] if e["type"] == event_type), None)
    if found is None:
        return not_found_page(request, live)
    context = {
        "section": "events",
        "title": event_type,
        "event": found,
        "schema": json.dumps(found["schema"], indent=2, ensure_ascii=False),
        "example": json.dumps(found["example"], indent=2, ensure_ascii=False),
    }
    return page(request, live, "event.html", context)


@router.get("/console/applications")
async def applications_page(request: Request) -> Response:
    """The `/v1` list (status filter, paging), for a key holding applications:read (else 403)."""
    live = await require_session(request, SCOPE_READ)
    if isinstance(live, Response):
        return live
    runtime = runtime_of(request)
    params = [(k, v) for k, v in request.query_params.multi_items() if v != ""]
    if not any(k == "limit" for k, _ in params):
        params.append(("limit", str(APPLICATIONS_PAGE)))
    status = dict(params).get("status")
    result: dict[str, Any] = {"data": [], "nextCursor": None}
    problem, status_code = None, 200
    try:
        query = parse_list_query(params)
        result = await list_applications(
            runtime.db, runtime.crypto, live.principal.tenant_id, query
        )
    except GatehouseError as error:
        problem, status_code = error.message, error.status_code
    next_query = ""
    if result.get("nextCursor"):
        next_query = urlencode({"status": status or "", "cursor": result["nextCursor"]})
    context = {
        "section": "applications",
        "title": "Applications",
        "applications": result["data"],
        "next_cursor": result.get("nextCursor"),
        "next_query": next_query,
        "status": status if status in STATUSES else None,
        "statuses": [(value, value.replace("_", " ")) for value in STATUSES],
        "problem": problem,
    }
    return page(request, live, "applications.html", context, status_code=status_code)
