"""Test-only `/v1` routes that exercise the HTTP layer with the real dependencies.

They stand in for tenant routes when a test needs a known effect: a write
records one audit entry (action `probe.created`) in the transaction that
answers through `respond`, so a test can count how often it ran.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, FastAPI, HTTPException, Request
from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr
from sqlalchemy import func, select
from starlette.responses import Response

from gatehouse.app import create_app
from gatehouse.errors import failed_precondition
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import AuditEntry
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import (
    ManageWebhooks,
    ReadApplications,
    RuntimeDep,
    WriteApplications,
)
from gatehouse.web.responses import json_response, respond

PROBE_ACTION = "probe.created"


class ProbeBody(BaseModel):
    model_config = ConfigDict(strict=True)
    name: StrictStr
    count: StrictInt = 1
    delay: float = 0.0
    fail: bool = False


router = APIRouter(prefix="/v1/probe")


@router.get("")
async def probe_read(principal: ReadApplications) -> Response:
    return json_response(200, {"tenantId": principal.tenant_id})


@router.get("/webhooks")
async def probe_webhooks(principal: ManageWebhooks) -> Response:
    return json_response(200, {"tenantId": principal.tenant_id})


@router.post("/things", status_code=201, openapi_extra=body_schema(ProbeBody))
async def probe_create(
    request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    body = await parse_body(request, ProbeBody)
    if body.delay:
        await asyncio.sleep(body.delay)
    if body.fail:
        raise failed_precondition("The probe was asked to fail.")
    async with runtime.db.write() as session:
        write_context(request, principal).audit(session, PROBE_ACTION, body.name)
        return await respond(
            request,
            session,
            201,
            {"name": body.name, "count": body.count, "requestId": request.state.request_id},
            headers={"Location": f"/v1/probe/things/{body.name}"},
        )


@router.delete("/things/{name}", status_code=204)
async def probe_delete(
    name: str, request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    async with runtime.db.write() as session:
        return await respond(request, session, 204)


@router.post("/rollback", status_code=201)
async def probe_rollback(
    request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """Answers through `respond`, then fails before its transaction commits."""
    async with runtime.db.write() as session:
        write_context(request, principal).audit(session, PROBE_ACTION, "rollback")
        await respond(request, session, 201, {"name": "rollback"})
        raise RuntimeError("the commit never happens")


@router.post("/plain")
async def probe_plain(principal: WriteApplications) -> Response:
    """A write that answers without `respond`: nothing is stored for its key."""
    return json_response(200, {"plain": True})


@router.get("/http-exception/{status}")
async def probe_http_exception(status: int, principal: ReadApplications) -> Response:
    """A framework-style HTTPException, as a library or a guard might raise."""
    raise HTTPException(status_code=status, detail="from a library")


@router.post("/crash")
async def probe_crash(principal: WriteApplications) -> Response:
    raise RuntimeError("probe crash with service_abcdefghijkl_" + "A" * 40)


@router.post("/unavailable")
async def probe_unavailable(
    request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    async with runtime.db.write() as session:
        return await respond(request, session, 503, {"error": {"code": "unavailable"}})


def probe_app(runtime: Runtime) -> FastAPI:
    app = create_app(runtime.settings, runtime)
    app.include_router(router)
    return app


async def count_effects(runtime: Runtime) -> int:
    async with runtime.db.read() as session:
        return int(
            await session.scalar(
                select(func.count())
                .select_from(AuditEntry)
                .where(AuditEntry.action == PROBE_ACTION)
            )
            or 0
        )
