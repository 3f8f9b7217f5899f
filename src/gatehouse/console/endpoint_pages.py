"""Drawing the console's endpoint pages: the list with its health and the add form, and one
endpoint with its state, its edit form, a secret or test result to show once, and its
delivery history (docs/console.md). The routes that post to them are in
`console/endpoint_routes.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from starlette.datastructures import FormData
from starlette.responses import Response

from gatehouse import webhooks
from gatehouse.console.session_http import not_found_page, page
from gatehouse.consoles import LiveConsole, take_secret
from gatehouse.domain.webhooks import DELIVERY_STATUSES
from gatehouse.errors import GatehouseError
from gatehouse.web.auth import runtime_of
from gatehouse.webhooks import RotatedSecret, endpoint_health, endpoint_view

HISTORY_PAGE = 8
NOTICES = {
    "updated": "Endpoint saved.",
    "disabled": "Endpoint disabled: it receives nothing until enabled again.",
    "enabled": "Endpoint enabled.",
    "deleted": "Endpoint deleted; its pending deliveries were cancelled.",
}


@dataclass(frozen=True, slots=True)
class EndpointForm:
    """The endpoint form as posted (fields `url`, `description`, `events` one per line)."""

    url: str = ""
    description: str = ""
    events: str = ""

    @classmethod
    def of(cls, form: FormData) -> EndpointForm:
        def text(name: str) -> str:
            value = form.get(name)
            return value if isinstance(value, str) else ""

        return cls(text("url").strip(), text("description"), text("events"))

    def event_list(self) -> list[str]:
        return [line.strip() for line in self.events.splitlines() if line.strip()]

    def values(self) -> dict[str, str]:
        return {"url": self.url, "description": self.description, "events": self.events}


@dataclass(frozen=True, slots=True)
class Shown:
    """What the endpoint page shows besides its state: a form being corrected, a refusal, a
    secret shown once, a test result."""

    form: EndpointForm | None = None
    errors: Mapping[str, str] = field(default_factory=dict)
    problem: str | None = None
    secret: dict[str, Any] | None = None
    test: Mapping[str, Any] | None = None
    status_code: int = 200


def refusal(error: GatehouseError) -> tuple[dict[str, str], str | None]:
    """A refused form: the message beside its field (url, description, events), else on top."""
    if error.field in ("url", "description", "events"):
        return {error.field: error.message}, None
    return {}, error.message


async def render_list(
    request: Request,
    live: LiveConsole,
    *,
    form: EndpointForm | None = None,
    errors: Mapping[str, str] | None = None,
    problem: str | None = None,
    status_code: int = 200,
) -> Response:
    runtime = runtime_of(request)
    tenant_id = live.principal.tenant_id
    async with runtime.db.read() as session:
        listed = (await webhooks.list_endpoints(session, tenant_id))["data"]
        health = {h.endpoint_id: h for h in await endpoint_health(session, tenant_id)}
    rows = [{**view, "health": health.get(view["id"])} for view in listed]
    context = {
        "section": "endpoints",
        "title": "Endpoints",
        "endpoints": rows,
        "values": (form or EndpointForm(events="*")).values(),
        "errors": errors or {},
        "problem": problem,
        "notice": NOTICES.get(request.query_params.get("done") or ""),
    }
    return page(request, live, "endpoints.html", context, status_code=status_code)


def _history_params(request: Request) -> list[tuple[str, str]]:
    """The page's query string as the delivery list reads it (an empty status is none), ten
    deliveries a page unless it says otherwise (each page stays under 30 KB)."""
    params = [(k, v) for k, v in request.query_params.multi_items() if v != "" and k != "done"]
    if not any(k == "limit" for k, _ in params):
        params.append(("limit", str(HISTORY_PAGE)))
    return params


async def render_endpoint(
    request: Request, live: LiveConsole, endpoint_id: str, shown: Shown | None = None
) -> Response:
    """The endpoint page; another tenant's endpoint (or none) is the 404 page."""
    shown = shown or Shown()
    runtime = runtime_of(request)
    problem = shown.problem
    history: dict[str, Any] = {"data": [], "nextCursor": None}
    status_code = shown.status_code
    try:
        query = webhooks.parse_delivery_query(_history_params(request))
    except GatehouseError as error:
        query, problem, status_code = None, error.message, error.status_code
    async with runtime.db.read() as session:
        try:
            endpoint = await webhooks.load_endpoint(session, live.principal.tenant_id, endpoint_id)
        except GatehouseError as error:
            if error.status_code != 404:
                raise
            return not_found_page(request, live)
        if query is not None:
            try:
                history = await webhooks.endpoint_deliveries(
                    session, runtime.crypto, endpoint, query, with_latency=True
                )
            except GatehouseError as error:
                problem, status_code = error.message, error.status_code
    view = endpoint_view(endpoint)
    secret = shown.secret
    if secret is None and live.has_kept_secret:
        kept = await take_secret(runtime, live.principal.session_id, endpoint.id)
        if kept is not None:
            secret = {"heading": "The endpoint's signing secret", "value": kept}
    form = shown.form or EndpointForm(view["url"], view["description"], "\n".join(view["events"]))
    status = query.status if query is not None else None
    next_query = ""
    if history.get("nextCursor"):
        next_query = urlencode({"status": status or "", "cursor": history["nextCursor"]})
    context = {
        "section": "endpoints",
        "title": f"Endpoint {view['url']}",
        "endpoint": view,
        "values": form.values(),
        "errors": shown.errors,
        "problem": problem,
        "notice": NOTICES.get(request.query_params.get("done") or ""),
        "secret": secret,
        "test": shown.test,
        "deliveries": history["data"],
        "next_cursor": history.get("nextCursor"),
        "next_query": next_query,
        "status": status,
        "statuses": [(value, value) for value in DELIVERY_STATUSES],
    }
    return page(request, live, "endpoint.html", context, status_code=status_code)


def rotated_secret(rotation: RotatedSecret) -> dict[str, Any]:
    """The new secret, and until when the previous one still signs."""
    return {
        "heading": "The new signing secret",
        "value": rotation["secret"],
        "previous_expires": rotation["previousSecretExpiresAt"],
    }
