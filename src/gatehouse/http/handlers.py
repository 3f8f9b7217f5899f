"""Exception handlers: every error leaves as the body of spec 1 §7."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import Match

from gatehouse.http import idempotency
from gatehouse.http.errors import ApiError, error_response, validation_details

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
    assert isinstance(exc, ApiError)
    response = error_response(
        request, exc.status_code, exc.code, exc.message, exc.details, exc.headers
    )
    return await _finish(request, response)


async def validation_error_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    response = error_response(
        request,
        400,
        "invalid-argument",
        "The request is not valid.",
        validation_details(exc.errors()),
    )
    return await _finish(request, response)


# Methods a route may offer; OPTIONS is always 405 (spec 1 §1) and never allowed.
_CANDIDATE_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def allowed_methods(request: Request) -> list[str]:
    """Every method some route offers for this path (for the Allow header).

    Probes the router with each method, so routers nested by
    `include_router` are searched the way a real request would be.
    """
    methods = []
    for method in _CANDIDATE_METHODS:
        probe = {**request.scope, "method": method}
        if any(route.matches(probe)[0] == Match.FULL for route in request.app.router.routes):
            methods.append(method)
    return methods


async def http_exception_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
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
    assert isinstance(exc, idempotency.IdempotentReplay)
    return idempotency.replay_response(request, exc)


def install(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, api_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_exception_handler)
    app.add_exception_handler(idempotency.IdempotentReplay, replay_handler)
