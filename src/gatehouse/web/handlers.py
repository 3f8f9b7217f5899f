"""Exception handlers: every error leaves as the body of docs/reference/tenant-api.md §4.4"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import HTMLResponse, Response
from starlette.routing import Match

from gatehouse.errors import GatehouseError
from gatehouse.web import dispatch, idempotency
from gatehouse.web.browser import CrossSiteRequest
from gatehouse.web.edge_request import surface_of
from gatehouse.web.errors import error_response, validation_details
from gatehouse.web.rendering import PAGE_HEADERS, refusal_page

_STATUS_CODES = {
    400: "invalid-argument",
    401: "unauthorized",
    403: "permission-denied",
    404: "not-found",
    405: "method-not-allowed",
    409: "already-exists",
    410: "failed-precondition",
    413: "invalid-argument",
    415: "invalid-argument",
    429: "resource-exhausted",
    503: "unavailable",
}


async def _finish(request: Request, response: Response) -> Response:
    await idempotency.finish_error(request, response)
    return response


async def api_error_handler(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, GatehouseError):
        raise exc  # registered for GatehouseError only: anything else stays unhandled
    if isinstance(exc, CrossSiteRequest) and surface_of(request.scope["path"]) == "page":
        # A cross-site post to a page route (the portal's sign-in link, its language
        # choice): the refusal page, as every page refusal.
        page = refusal_page(exc.status_code, exc.message)
        return HTMLResponse(page, status_code=exc.status_code, headers=PAGE_HEADERS)
    response = error_response(
        request, exc.status_code, exc.code, exc.message, exc.details, exc.headers
    )
    return await _finish(request, response)


async def validation_error_handler(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, RequestValidationError):
        raise exc  # registered for RequestValidationError only: anything else stays unhandled
    response = error_response(
        request,
        400,
        "invalid-argument",
        "The request is not valid.",
        validation_details(exc.errors()),
    )
    return await _finish(request, response)


def allowed_methods(request: Request) -> list[str]:
    """Every method some route offers for this path (for the Allow header).

    Probes the routes with each method: those of the path's surface in the app's
    route table (web/dispatch.py), else every route of the app's router, so routers
    nested by `include_router` are searched the way a real request would be.
    """
    table = dispatch.route_table(request.app)
    if table is not None:
        return table.allowed_methods(request.scope)
    methods = []
    for method in dispatch.CANDIDATE_METHODS:
        probe = {**request.scope, "method": method}
        if any(route.matches(probe)[0] == Match.FULL for route in request.app.router.routes):
            methods.append(method)
    return methods


async def http_exception_handler(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, StarletteHTTPException):
        raise exc  # registered for StarletteHTTPException only: anything else stays unhandled
    if exc.status_code in (400, 413) and surface_of(request.scope["path"]) == "page":
        # A page route's form the parsers refuse (no boundary, broken framing, too many
        # fields or files): a refusal page, like the edge's refusals of pages.
        page = refusal_page(exc.status_code, str(exc.detail))
        return HTMLResponse(page, status_code=exc.status_code, headers=PAGE_HEADERS)
    code = _STATUS_CODES.get(
        exc.status_code, "internal" if exc.status_code >= 500 else "failed-precondition"
    )
    headers = dict(exc.headers or {})
    if exc.status_code == 404:
        message = "No such route."
    elif exc.status_code == 405:
        message = "Method not allowed for this path."
        headers["Allow"] = ", ".join(allowed_methods(request))
    else:
        message = str(exc.detail) if exc.status_code < 500 else "Internal error."
    response = error_response(request, exc.status_code, code, message, headers=headers)
    return await _finish(request, response)


async def replay_handler(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, idempotency.IdempotentReplay):
        raise exc  # registered for IdempotentReplay only: anything else stays unhandled
    return idempotency.replay_response(request, exc)


def install(app: FastAPI) -> None:
    app.add_exception_handler(GatehouseError, api_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_exception_handler)
    app.add_exception_handler(idempotency.IdempotentReplay, replay_handler)
