"""create_app: one ASGI application serving every surface (docs/reference/settings.md)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from sqlalchemy import text
from starlette.responses import Response

from gatehouse import __version__, metrics, tracing
from gatehouse.api.routes import router as tenant_router
from gatehouse.api.webhooks import router as webhooks_router
from gatehouse.console.routes import router as console_router
from gatehouse.dashboard.routes import router as dashboard_router
from gatehouse.domain.event_types import EventType
from gatehouse.portal.routes import router as portal_router
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.staff.routes import router as staff_router
from gatehouse.verification import schemas as verification_schemas
from gatehouse.verify.routes import router as verification_router
from gatehouse.web import dispatch, handlers, openapi, readiness
from gatehouse.web.edge import EdgeMiddleware
from gatehouse.web.responses import JSONResponse
from gatehouse.webhooks import schemas as webhook_schemas
from gatehouse.workers import sample_pools


def create_app(settings: Settings | None = None, runtime: Runtime | None = None) -> FastAPI:
    """Assemble routers, handlers and middleware. The schema must already be migrated."""
    runtime = runtime or Runtime.build(settings or Settings())

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        metrics.process_started()
        # The pool gauge of this process, workers or not (docs/operations.md, "Metrics").
        flusher = asyncio.create_task(
            metrics.flush_periodically(sample=lambda: sample_pools(runtime))
        )
        try:
            yield
        finally:
            flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await flusher
            metrics.process_stopping()
            await runtime.close()

    app = FastAPI(
        title="Gatehouse",
        version=__version__,
        description="Onboarding (KYC/KYB) platform: tenant API, staff API, verification.",
        default_response_class=JSONResponse,
        redirect_slashes=False,
        lifespan=lifespan,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
    )
    app.state.runtime = runtime
    handlers.install(app)

    app.include_router(tenant_router)
    app.include_router(webhooks_router)
    app.include_router(staff_router)
    app.include_router(verification_router)
    app.include_router(portal_router)
    app.include_router(dashboard_router)
    app.include_router(console_router)
    _add_operational_routes(app, runtime)
    app.add_middleware(EdgeMiddleware, runtime=runtime)
    if tracing.enabled():  # the request's span, outside the edge (docs/operations.md, "Traces")
        from gatehouse.web.edge_tracing import TraceMiddleware

        app.add_middleware(TraceMiddleware)
    # A request meets only the routes of its own surface (web/dispatch.py).
    dispatch.install(app)
    return app


def _add_operational_routes(app: FastAPI, runtime: Runtime) -> None:
    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> Response:
        try:
            async with runtime.db.read() as session:
                await session.execute(text("SELECT 1"))
        except Exception:
            return JSONResponse({"status": "unavailable", "database": "down"}, status_code=503)
        return JSONResponse({"status": "ok", "database": "ok"})

    @app.get("/readyz", include_in_schema=False)
    async def readyz() -> Response:
        found = await readiness.readiness(runtime)
        return JSONResponse(found.body(), status_code=found.status_code)

    @app.get("/metrics", include_in_schema=False)
    async def metrics_endpoint() -> Response:
        return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi_endpoint() -> Response:
        return JSONResponse(openapi_document(app))

    @app.get("/docs", include_in_schema=False)
    async def docs() -> Response:
        return openapi.docs_page()

    @app.get("/docs/assets/{name}", include_in_schema=False)
    async def docs_asset(name: str) -> Response:
        """Swagger UI's own files, served from the installed package (no CDN)."""
        content = openapi.docs_asset(name)
        if content is None:
            return JSONResponse(
                {"error": {"code": "not-found", "message": "No such asset.", "requestId": ""}},
                status_code=404,
            )
        return Response(
            content,
            media_type=openapi.DOCS_ASSETS[name],
            headers={"Cache-Control": "public, max-age=86400"},
        )


DESCRIPTION = """Gatehouse: onboarding (KYC/KYB) platform.

Four JSON surfaces, each with its own credential: the tenant API (`/v1`, an API key as a
bearer token, scopes per operation), the staff API (`/staff/v1`, a staff member's personal
token, least role per operation), the verification interface (`/verify`, HTTP Basic with a
verification client's uuid and secret) and the applicant portal's JSON routes (`/portal/api`,
the portal session cookie). The `webhooks` section describes every event Gatehouse POSTs to a
registered endpoint, and the verification callback. How to use this document:
docs/api-reference.md."""


def openapi_document(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI 3.1 document (docs/api-reference.md), built once per app."""
    if app.openapi_schema:
        return app.openapi_schema
    document = openapi.build_document(app, webhook_section(), description=DESCRIPTION)
    app.openapi_schema = document
    return document


def _operation_name(event_type: str) -> str:
    words = re.split(r"[._]", event_type)
    return "on" + "".join(word.capitalize() for word in words)


def _webhook_description(event_type: EventType) -> str:
    if event_type == EventType.WEBHOOK_TEST:
        return (
            "Sent only by `POST /v1/webhooks/{id}/test`, once, to that endpoint whatever its "
            "`events` filter; nothing is stored (docs/reference/webhooks.md §4.10)."
        )
    return (
        "POSTed to every enabled endpoint whose `events` filter matches "
        "(docs/reference/webhooks.md §5, §6)."
    )


def webhook_section() -> dict[str, openapi.Webhook]:
    """Every event type of the catalogue (envelope and `data`), and the verification callback."""
    hooks = {
        str(event_type): openapi.Webhook(
            operation_id=_operation_name(event_type),
            summary=f"The {event_type} event",
            body=webhook_schemas.EventEnvelope,
            data=data,
            event_type=str(event_type),
            headers=openapi.GATEHOUSE_DELIVERY_HEADERS,
            description=_webhook_description(event_type),
            example=webhook_schemas.event_example(event_type),
        )
        for event_type, data in webhook_schemas.EVENT_DATA.items()
    }
    hooks["verification.callback"] = openapi.Webhook(
        operation_id="onVerificationCallback",
        summary="The verification callback, POSTed to a client's registered callback URL",
        body=verification_schemas.CustomerCallback,
        description="One attempt, then at most three retries (docs/reference/verification.md "
        "§5, §6); `passphrase` is the one the client registered.",
        example=verification_schemas.CALLBACK_EXAMPLE,
    )
    return hooks
