"""Staff API rows for staff members, tenants and API keys (CONTRACT §4).

Order of checks (CONTRACT §1.2, §4): route and method, then the staff token
(401), then the role (403, in the dependency), then body and query validation.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr
from starlette.responses import Response

from gatehouse.http.auth import StaffPrincipal
from gatehouse.http.body import body_schema, parse_body
from gatehouse.http.cursors import decode_cursor, encode_cursor
from gatehouse.http.dependencies import RuntimeDep, StaffAdmin, StaffAnalyst
from gatehouse.http.errors import invalid_argument, permission_denied, request_id_of
from gatehouse.http.responses import json_response
from gatehouse.staff import accounts

router = APIRouter(prefix="/staff/v1", tags=["staff: accounts"])

TENANT_LIST = "staff.tenants"


class StaffCreate(BaseModel):
    """`POST /staff/v1/staff` body."""

    model_config = ConfigDict(strict=True)
    email: StrictStr
    role: StrictStr


class TenantCreate(BaseModel):
    """`POST /staff/v1/tenants` body."""

    model_config = ConfigDict(strict=True)
    name: StrictStr


class TenantPatch(BaseModel):
    """`PATCH /staff/v1/tenants/{tenantId}` body: either field, or both."""

    model_config = ConfigDict(strict=True)
    name: StrictStr | None = None
    webhookEndpointCap: StrictInt | None = None


class ApiKeyCreate(BaseModel):
    """`POST /staff/v1/tenants/{tenantId}/api-keys` body; no scopes: applications:write."""

    model_config = ConfigDict(strict=True)
    name: StrictStr | None = None
    scopes: list[StrictStr] | None = None


def _actor(request: Request, principal: StaffPrincipal) -> accounts.Actor:
    return accounts.Actor(principal.actor, request_id_of(request))


@router.post("/staff", status_code=201, openapi_extra=body_schema(StaffCreate))
async def create_staff(request: Request, principal: StaffAdmin, runtime: RuntimeDep) -> Response:
    """Create a staff member; admin and super_admin roles need a super_admin."""
    body = await parse_body(request, StaffCreate)
    email, role = accounts.check_staff_input(body.email, body.role)
    if not accounts.may_create_role(principal.role, role):
        raise permission_denied(
            f"Creating a staff member with the {role} role needs the "
            f"{accounts.role_needed_to_create(role)} role."
        )
    created = await accounts.create_staff_member(
        runtime, email, role, by=_actor(request, principal)
    )
    return json_response(201, created)


@router.post("/tenants", status_code=201, openapi_extra=body_schema(TenantCreate))
async def create_tenant(request: Request, principal: StaffAdmin, runtime: RuntimeDep) -> Response:
    body = await parse_body(request, TenantCreate)
    tenant = await accounts.create_tenant(runtime, body.name, by=_actor(request, principal))
    return json_response(201, tenant)


@router.get("/tenants")
async def list_tenants(
    principal: StaffAnalyst,
    runtime: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
    cursor: Annotated[str | None, Query()] = None,
) -> Response:
    """`{data, nextCursor, hasMore}`, newest first (keyset-paged)."""
    after: tuple[str, str] | None = None
    if cursor is not None:
        position = decode_cursor(runtime.crypto, TENANT_LIST, {}, cursor)
        if len(position) != 2 or not all(isinstance(p, str) for p in position):
            raise invalid_argument("The cursor is not valid.", "cursor", "invalid cursor")
        after = (position[0], position[1])
    page, last = await accounts.list_tenants(runtime, limit, after)
    next_cursor = encode_cursor(runtime.crypto, TENANT_LIST, {}, list(last)) if last else None
    return json_response(200, {"data": page, "nextCursor": next_cursor, "hasMore": bool(last)})


@router.get("/tenants/{tenantId}")
async def get_tenant(tenantId: str, principal: StaffAnalyst, runtime: RuntimeDep) -> Response:
    return json_response(200, await accounts.get_tenant(runtime, tenantId))


@router.patch("/tenants/{tenantId}", openapi_extra=body_schema(TenantPatch))
async def patch_tenant(
    tenantId: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    body = await parse_body(request, TenantPatch)
    changes = body.model_dump(exclude_unset=True)
    tenant = await accounts.update_tenant(runtime, tenantId, changes, _actor(request, principal))
    return json_response(200, tenant)


@router.post("/tenants/{tenantId}/suspend")
async def suspend_tenant(
    tenantId: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    tenant = await accounts.set_tenant_status(
        runtime, tenantId, "suspended", _actor(request, principal)
    )
    return json_response(200, tenant)


@router.post("/tenants/{tenantId}/reactivate")
async def reactivate_tenant(
    tenantId: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    tenant = await accounts.set_tenant_status(
        runtime, tenantId, "active", _actor(request, principal)
    )
    return json_response(200, tenant)


@router.post(
    "/tenants/{tenantId}/api-keys",
    status_code=201,
    openapi_extra=body_schema(ApiKeyCreate, required=False),
)
async def create_api_key(
    tenantId: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    body = await parse_body(request, ApiKeyCreate)
    created = await accounts.create_api_key(
        runtime, tenantId, body.name, body.scopes, by=_actor(request, principal)
    )
    return json_response(201, created)


@router.post("/api-keys/{keyId}/revoke")
async def revoke_api_key(
    keyId: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    revoked = await accounts.revoke_api_key(runtime, keyId, _actor(request, principal))
    return json_response(200, revoked)
