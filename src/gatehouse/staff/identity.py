"""Staff API rows of the staff lifecycle and of personal tokens
(docs/reference/staff-api.md §9).

Checks run in the order of the other staff routes: the staff token (401), the role (403,
in the dependency), then the body. Who may manage whom is the lifecycle's rule.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr
from starlette.responses import Response

from gatehouse import accounts
from gatehouse.accounts import (
    CreatedPersonalToken,
    Invite,
    PersonalToken,
    PersonalTokenList,
    StaffList,
    StaffMemberView,
)
from gatehouse.staff.examples import (
    ADMIN,
    INVITE_EXAMPLE,
    OWN_TOKENS,
    ROLE,
    STAFF_EXAMPLE,
    TOKEN_EXAMPLE,
)
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, StaffAdmin, StaffUser
from gatehouse.web.openapi import Op
from gatehouse.web.responses import json_response

router = APIRouter(prefix="/staff/v1", tags=["staff: identity"])


class RolePatch(BaseModel):
    """`PATCH /staff/v1/staff/{staffId}` body."""

    model_config = ConfigDict(strict=True)
    role: StrictStr


class TokenCreate(BaseModel):
    """`POST /staff/v1/tokens` body; no `expiresInDays`: 90 days."""

    model_config = ConfigDict(strict=True)
    name: StrictStr
    expiresInDays: StrictInt | None = None


@router.get("/staff")
@Op(
    "listStaffMembers",
    "List staff members",
    {200: StaffList},
    access=ADMIN,
    answer_example={"data": [STAFF_EXAMPLE]},
)
async def list_staff(principal: StaffAdmin, runtime: RuntimeDep) -> Response:
    """`{data: [{staffId, email, role, status, createdAt, lastSignInAt, mfa, ...}]}`."""
    return json_response(200, await accounts.list_staff(runtime))


@router.patch("/staff/{staff_id}", openapi_extra=body_schema(RolePatch))
@Op(
    "changeStaffRole",
    "Change a staff member's role",
    {200: StaffMemberView},
    access=ADMIN,
    body_fields={"role": ROLE},
    example={"role": "mlro"},
    answer_example={**STAFF_EXAMPLE, "role": "mlro"},
)
async def change_role(
    staff_id: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    body = await parse_body(request, RolePatch)
    ctx = write_context(request, principal)
    return json_response(
        200, await accounts.change_role(runtime, principal, staff_id, body.role, ctx)
    )


@router.post("/staff/{staff_id}/deactivate")
@Op(
    "deactivateStaffMember",
    "Deactivate a staff member (sessions end, tokens are revoked)",
    {200: StaffMemberView},
    access=ADMIN,
    answer_example={**STAFF_EXAMPLE, "status": "deactivated"},
)
async def deactivate(
    staff_id: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    ctx = write_context(request, principal)
    return json_response(200, await accounts.deactivate(runtime, principal, staff_id, ctx))


@router.post("/staff/{staff_id}/reactivate")
@Op(
    "reactivateStaffMember",
    "Reactivate a staff member",
    {200: StaffMemberView},
    access=ADMIN,
    answer_example=STAFF_EXAMPLE,
)
async def reactivate(
    staff_id: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    ctx = write_context(request, principal)
    return json_response(200, await accounts.reactivate(runtime, principal, staff_id, ctx))


@router.post("/staff/{staff_id}/reset")
@Op(
    "resetStaffMember",
    "Clear a staff member's password and factors and issue a new invite",
    {200: Invite},
    access=ADMIN,
    answer_example=INVITE_EXAMPLE,
)
async def reset(
    staff_id: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    """`{inviteUrl, inviteExpiresAt}`: the new invite, shown this once."""
    ctx = write_context(request, principal)
    return json_response(200, await accounts.reset_staff_member(runtime, principal, staff_id, ctx))


@router.get("/tokens")
@Op(
    "listPersonalTokens",
    "List your own personal tokens",
    {200: PersonalTokenList},
    description=OWN_TOKENS,
    answer_example={"data": [TOKEN_EXAMPLE]},
)
async def list_tokens(principal: StaffUser, runtime: RuntimeDep) -> Response:
    """The caller's own tokens."""
    return json_response(200, await accounts.list_tokens(runtime, principal.staff_id))


@router.post("/tokens", status_code=201, openapi_extra=body_schema(TokenCreate))
@Op(
    "createPersonalToken",
    "Create a personal token (shown once)",
    {201: CreatedPersonalToken},
    description=OWN_TOKENS,
    example={"name": "reporting script", "expiresInDays": 30},
)
async def create_token(request: Request, principal: StaffUser, runtime: RuntimeDep) -> Response:
    """201 `{tokenId, token, name, expiresAt}`; the token is shown this once."""
    body = await parse_body(request, TokenCreate)
    ctx = write_context(request, principal)
    created = await accounts.create_token(
        runtime, principal.staff_id, body.name, body.expiresInDays, ctx
    )
    return json_response(201, created)


@router.post("/tokens/{token_id}/revoke")
@Op(
    "revokePersonalToken",
    "Revoke one of your personal tokens",
    {200: PersonalToken},
    description=OWN_TOKENS,
    answer_example={
        **TOKEN_EXAMPLE,
        "status": "revoked",
        "revokedAt": "2026-11-22T10:00:00.000Z",
    },
)
async def revoke_token(
    token_id: str, request: Request, principal: StaffUser, runtime: RuntimeDep
) -> Response:
    ctx = write_context(request, principal)
    return json_response(
        200, await accounts.revoke_token(runtime, principal.staff_id, token_id, ctx)
    )
