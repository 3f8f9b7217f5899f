"""create_app: one ASGI application serving every surface (CONTRACT §0)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.utils import get_openapi
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy import text
from starlette.responses import Response

from gatehouse import __version__
from gatehouse.api.routes import router as tenant_router
from gatehouse.dashboard.routes import router as dashboard_router
from gatehouse.http import body, handlers, metrics
from gatehouse.http.edge import EdgeMiddleware
from gatehouse.http.responses import JSONResponse
from gatehouse.portal.routes import router as portal_router
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.staff.routes import router as staff_router
from gatehouse.verification.routes import router as verification_router
from gatehouse.webhooks.routes import router as webhooks_router


def create_app(settings: Settings | None = None, runtime: Runtime | None = None) -> FastAPI:
    """Assemble routers, handlers and middleware. The schema must already be migrated."""
    runtime = runtime or Runtime.build(settings or Settings())

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
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
    _add_operational_routes(app, runtime)
    app.add_middleware(EdgeMiddleware, runtime=runtime)
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

    @app.get("/metrics", include_in_schema=False)
    async def metrics_endpoint() -> Response:
        return Response(generate_latest(metrics.REGISTRY), media_type=CONTENT_TYPE_LATEST)

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi_endpoint() -> Response:
        return JSONResponse(openapi_document(app))

    @app.get("/docs", include_in_schema=False)
    async def docs(request: Request) -> Response:
        from fastapi.openapi.docs import get_swagger_ui_html

        return get_swagger_ui_html(openapi_url="/openapi.json", title="Gatehouse API")


def openapi_document(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI 3.1 document, with the body models of `body_schema` added."""
    if app.openapi_schema:
        return app.openapi_schema
    document = get_openapi(
        title=app.title, version=app.version, routes=app.routes, description=app.description
    )
    components = document.setdefault("components", {}).setdefault("schemas", {})
    for name, model in body.SCHEMAS.items():
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        for def_name, definition in schema.pop("$defs", {}).items():
            components.setdefault(def_name, definition)
        components[name] = schema
    app.openapi_schema = document
    return document
