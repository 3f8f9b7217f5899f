"""Lock and unlock: POST …/lock and POST …/unlock (docs/reference/tenant-api.md §5.9, §5.10)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.api.examples import WRITE
from gatehouse.applications.schemas import AccessState
from gatehouse.applications.service.access import lock_application, unlock_application
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, WriteApplications
from gatehouse.web.openapi import Op
from gatehouse.web.responses import respond

router = APIRouter(tags=["access"])


@router.post("/v1/applications/{client_id}/lock")
@Op(
    "lockApplication",
    "Lock an application: no new links, members or sessions",
    {200: AccessState},
    access=WRITE,
    errors=(410,),
    answer_example={"clientId": "app_8f2k1c9d0a7b", "access": "locked"},
)
async def post_lock(
    client_id: str, request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """200 `{clientId, access: "locked"}`; also while the tenant is suspended."""
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        view = await lock_application(session, ctx, principal, client_id)
        return await respond(request, session, 200, view)


@router.post("/v1/applications/{client_id}/unlock")
@Op(
    "unlockApplication",
    "Unlock an application",
    {200: AccessState},
    access=WRITE,
    errors=(410,),
    answer_example={"clientId": "app_8f2k1c9d0a7b", "access": "unlocked"},
)
async def post_unlock(
    client_id: str, request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """200 `{clientId, access: "unlocked"}`; 403 while the tenant is suspended."""
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        view = await unlock_application(session, ctx, principal, client_id)
        return await respond(request, session, 200, view)
