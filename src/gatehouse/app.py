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
    _document_errors(document)
    app.openapi_schema = document
    return document


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "requestId"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "requestId": {"type": "string"},
                "details": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["field", "issue"],
                        "properties": {
                            "field": {"type": "string"},
                            "issue": {"type": "string"},
                        },
                    },
                },
            },
        }
    },
}
# Errors of the verification interface are `{"message"}` (CONTRACT §3).
VERIFY_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["message"],
    "properties": {"message": {"type": "string"}},
}
_ERROR_STATUSES = {
    "400": "Invalid argument or failed precondition.",
    "401": "Missing or invalid credentials.",
    "403": "Permission denied.",
    "404": "Not found.",
    "405": "Method not allowed (OPTIONS always answers 405 with an empty body).",
    "409": "Already exists, or the Idempotency-Key is in flight (aborted).",
    "410": "The application was erased (failed-precondition).",
    "429": "Rate limited; see Retry-After.",
    "500": "Internal error.",
}

_VERIFY_STATUSES = ("400", "401", "404", "405")


def _document_errors(document: dict[str, Any]) -> None:
    """Document the error bodies every JSON surface answers with (spec 1 §7).

    FastAPI's 422 is dropped: validation errors are 400 invalid-argument here.
    A success body documented as a JSON string (FastAPI's reading of `-> Response`)
    is opened up to any JSON value.
    """
    components = document["components"]["schemas"]
    components["Error"] = ERROR_SCHEMA
    components["VerifyError"] = VERIFY_ERROR_SCHEMA
    for path, operations in document.get("paths", {}).items():
        statuses = _ERROR_STATUSES
        if path.startswith(("/v1", "/staff/v1", "/portal/api")):
            ref = "#/components/schemas/Error"
        elif path.startswith("/verify"):
            ref = "#/components/schemas/VerifyError"
            statuses = {k: v for k, v in _ERROR_STATUSES.items() if k in _VERIFY_STATUSES}
        else:
            ref = None
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            responses.pop("422", None)
            for answer in responses.values():
                # Endpoints annotated `-> Response` are documented as a JSON string;
                # they answer JSON objects, so the body schema is left open instead.
                media = answer.get("content", {}).get("application/json")
                if media is not None and media.get("schema") == {"type": "string"}:
                    media["schema"] = {}
            if ref is None:
                continue
            for status, description in statuses.items():
                responses.setdefault(
                    status,
                    {
                        "description": description,
                        "content": {"application/json": {"schema": {"$ref": ref}}},
                    },
                )
