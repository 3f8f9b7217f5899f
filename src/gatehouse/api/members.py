"""Members: POST …/members and DELETE …/members/{uid} (spec 1 §4.7, §4.8)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.api.common import tenant_write
from gatehouse.api.schemas import MemberBody
from gatehouse.http.body import body_schema, parse_body
from gatehouse.http.dependencies import RuntimeDep, WriteApplications
from gatehouse.http.responses import respond
from gatehouse.services.members import add_member, remove_member

router = APIRouter(tags=["members"])


@router.post("/v1/applications/{client_id}/members", openapi_extra=body_schema(MemberBody))
async def post_member(
    client_id: str, request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """201 with the new member, 200 with an existing one (joinedAt kept)."""
    body = await parse_body(request, MemberBody)
    email = body.normalized_email()
    async with runtime.db.write() as session:
        write = tenant_write(request, runtime, principal)
        status, view = await add_member(session, write, client_id, email)
        return await respond(request, session, status, view)


@router.delete("/v1/applications/{client_id}/members/{uid}", status_code=204)
async def delete_member(
    client_id: str, uid: str, request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """204; removing the current owner needs `newOwnerUid` (spec 1 §4.8)."""
    new_owner_uid = request.query_params.get("newOwnerUid")
    async with runtime.db.write() as session:
        write = tenant_write(request, runtime, principal)
        await remove_member(session, write, client_id, uid, new_owner_uid)
        return await respond(request, session, 204)
