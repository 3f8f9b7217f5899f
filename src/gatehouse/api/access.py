"""Lock and unlock: POST …/lock and POST …/unlock (spec 1 §4.9, §4.10; CONTRACT §1.3)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.api.common import tenant_write
from gatehouse.http.dependencies import RuntimeDep, WriteApplications
from gatehouse.http.responses import respond
from gatehouse.services.access import lock_application, unlock_application

router = APIRouter(tags=["access"])


@router.post("/v1/applications/{client_id}/lock")
async def post_lock(
    client_id: str, request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """200 `{clientId, access: "locked"}`; also while the tenant is suspended."""
    async with runtime.db.write() as session:
        write = tenant_write(request, runtime, principal)
        view = await lock_application(session, write, client_id)
        return await respond(request, session, 200, view)


@router.post("/v1/applications/{client_id}/unlock")
async def post_unlock(
    client_id: str, request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """200 `{clientId, access: "unlocked"}`; 403 while the tenant is suspended."""
    async with runtime.db.write() as session:
        write = tenant_write(request, runtime, principal)
        view = await unlock_application(session, write, client_id)
        return await respond(request, session, 200, view)
