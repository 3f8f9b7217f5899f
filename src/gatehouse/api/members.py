"""Members: POST …/members and DELETE …/members/{uid} (docs/reference/tenant-api.md §5.7, §5.8)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.api.examples import MEMBER_EXAMPLE, WRITE
from gatehouse.api.schemas import MemberBody
from gatehouse.applications.schemas import Member
from gatehouse.members.service import add_member, remove_member
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, WriteApplications
from gatehouse.web.openapi import Op, Query
from gatehouse.web.responses import respond

router = APIRouter(tags=["members"])


@router.post("/v1/applications/{client_id}/members", openapi_extra=body_schema(MemberBody))
@Op(
    "addMember",
    "Add a member to an application",
    {201: Member, 200: Member},
    access=WRITE,
    errors=(410,),
    ok_descriptions={201: "Added.", 200: "Already a member; answered unchanged."},
    example={"email": "cfo@acme.example"},
    answer_example=MEMBER_EXAMPLE,
)
async def post_member(
    client_id: str, request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """201 with the new member, 200 with an existing one (joinedAt kept)."""
    body = await parse_body(request, MemberBody)
    email = body.normalized_email()
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        status, view = await add_member(session, ctx, principal, client_id, email)
        return await respond(request, session, status, view)


@router.delete("/v1/applications/{client_id}/members/{uid}", status_code=204)
@Op(
    "removeMember",
    "Remove a member (removing the owner needs newOwnerUid)",
    {204: None},
    access=WRITE,
    errors=(410,),
    query=(Query("newOwnerUid", "The member who becomes owner when the owner is removed."),),
    ok_descriptions={204: "Removed."},
)
async def delete_member(
    client_id: str, uid: str, request: Request, principal: WriteApplications, runtime: RuntimeDep
) -> Response:
    """204; removing the current owner needs `newOwnerUid` (docs/reference/tenant-api.md §5.8)."""
    new_owner_uid = request.query_params.get("newOwnerUid")
    async with runtime.db.write() as session:
        ctx = write_context(request, principal)
        await remove_member(session, ctx, principal, client_id, uid, new_owner_uid)
        return await respond(request, session, 204)
