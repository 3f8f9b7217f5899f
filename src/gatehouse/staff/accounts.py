"""Staff API rows for staff members, tenants and API keys (docs/reference/staff-api.md §3, §4).

Order of checks (docs/reference/staff-api.md §1.4): route and method, then the staff token
(401), then the role (403, in the dependency), then body and query validation.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr
from starlette.responses import Response

from gatehouse.accounts import lifecycle
from gatehouse.accounts import service as accounts
from gatehouse.accounts.schemas import (
    CreatedApiKey,
    CreatedStaffMember,
    RevokedApiKey,
    TenantPage,
    TenantView,
)
from gatehouse.domain.principals import Scope
from gatehouse.errors import permission_denied
from gatehouse.paging import parse_page, query_values
from gatehouse.staff.examples import ADMIN, ANALYST, RETENTION_FIELD, ROLE, TENANT_EXAMPLE
from gatehouse.web.body import body_schema, parse_body
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, StaffAdmin, StaffAnalyst
from gatehouse.web.openapi import Op, listing, nullable
from gatehouse.web.responses import json_response

router = APIRouter(prefix="/staff/v1", tags=["staff: accounts"])

TENANT_PAGE = 100


class StaffCreate(BaseModel):
    """`POST /staff/v1/staff` body."""

    model_config = ConfigDict(strict=True)
    email: StrictStr
    role: StrictStr


class TenantCreate(BaseModel):
    """`POST /staff/v1/tenants` body; `environment` is `live` (default) or `sandbox`."""

    model_config = ConfigDict(strict=True)
    name: StrictStr
    environment: StrictStr | None = None


class TenantPatch(BaseModel):
    """`PATCH /staff/v1/tenants/{tenantId}` body: any of the fields; `displayName` and
    `accentColor` (`#rrggbb`) brand the applicant portal, null clears them."""

    model_config = ConfigDict(strict=True)
    name: StrictStr | None = None
    webhookEndpointCap: StrictInt | None = None
    displayName: StrictStr | None = None
    accentColor: StrictStr | None = None
    # {rejectedDays, abandonedDays}: checked by the service, which names the field it refuses.
    retention: Any = None


class ApiKeyCreate(BaseModel):
    """`POST /staff/v1/tenants/{tenantId}/api-keys` body; no scopes: applications:write."""

    model_config = ConfigDict(strict=True)
    name: StrictStr | None = None
    scopes: list[StrictStr] | None = None


@router.post("/staff", status_code=201, openapi_extra=body_schema(StaffCreate))
@Op(
    "createStaffMember",
    "Create a staff member (admin and super_admin roles: super_admin only)",
    {201: CreatedStaffMember},
    access=ADMIN,
    errors=(409,),
    body_fields={"role": ROLE},
    example={"email": "analyst@operator.example", "role": "analyst"},
)
async def create_staff(request: Request, principal: StaffAdmin, runtime: RuntimeDep) -> Response:
    """Create a staff member: `{staffId, email, role, token, inviteUrl, inviteExpiresAt}`;
    admin and super_admin roles need a super_admin (docs/reference/staff-api.md §3.1)."""
    body = await parse_body(request, StaffCreate)
    email, role = lifecycle.check_staff_input(body.email, body.role)
    if not lifecycle.may_manage(principal.role, role):
        raise permission_denied(
            f"Creating a staff member with the {role} role needs the "
            f"{lifecycle.role_needed_for(role)} role."
        )
    ctx = write_context(request, principal)
    created = await lifecycle.create_staff_member(runtime, email, role, ctx)
    return json_response(201, created)


@router.post("/tenants", status_code=201, openapi_extra=body_schema(TenantCreate))
@Op(
    "createTenant",
    "Create a tenant (live or sandbox)",
    {201: TenantView},
    access=ADMIN,
    body_fields={"environment": nullable({"type": "string", "enum": ["live", "sandbox"]})},
    example={"name": "Acme Bank", "environment": "live"},
    answer_example=TENANT_EXAMPLE,
)
async def create_tenant(request: Request, principal: StaffAdmin, runtime: RuntimeDep) -> Response:
    body = await parse_body(request, TenantCreate)
    ctx = write_context(request, principal)
    tenant = await accounts.create_tenant(runtime, body.name, ctx=ctx, environment=body.environment)
    return json_response(201, tenant)


@router.get("/tenants")
@listing("listTenants", "List tenants, newest first", TenantPage, ANALYST, TENANT_EXAMPLE)
async def list_tenants(request: Request, principal: StaffAnalyst, runtime: RuntimeDep) -> Response:
    """`{data, nextCursor, hasMore}`, newest first (keyset-paged; limit 1 to 100, default 100)."""
    values = query_values(request.query_params.multi_items(), ("limit", "cursor"))
    page = parse_page(values.get("limit"), values.get("cursor"), default_limit=TENANT_PAGE)
    return json_response(200, await accounts.list_tenants(runtime, page))


@router.get("/tenants/{tenant_id}")
@Op(
    "getTenant",
    "Get a tenant",
    {200: TenantView},
    access=ANALYST,
    answer_example=TENANT_EXAMPLE,
)
async def get_tenant(tenant_id: str, principal: StaffAnalyst, runtime: RuntimeDep) -> Response:
    return json_response(200, await accounts.get_tenant(runtime, tenant_id))


@router.patch("/tenants/{tenant_id}", openapi_extra=body_schema(TenantPatch))
@Op(
    "updateTenant",
    "Change a tenant's name or webhook endpoint cap",
    {200: TenantView},
    access=ADMIN,
    body_fields={"retention": RETENTION_FIELD},
    example={"webhookEndpointCap": 10},
)
async def patch_tenant(
    tenant_id: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    body = await parse_body(request, TenantPatch)
    changes = body.model_dump(exclude_unset=True)
    ctx = write_context(request, principal)
    tenant = await accounts.update_tenant(runtime, ctx, tenant_id, changes)
    return json_response(200, tenant)


@router.post("/tenants/{tenant_id}/suspend")
@Op(
    "suspendTenant",
    "Suspend a tenant",
    {200: TenantView},
    access=ADMIN,
    answer_example={**TENANT_EXAMPLE, "status": "suspended"},
)
async def suspend_tenant(
    tenant_id: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    tenant = await accounts.set_tenant_status(
        runtime, write_context(request, principal), tenant_id, "suspended"
    )
    return json_response(200, tenant)


@router.post("/tenants/{tenant_id}/reactivate")
@Op(
    "reactivateTenant",
    "Reactivate a suspended tenant",
    {200: TenantView},
    access=ADMIN,
    answer_example=TENANT_EXAMPLE,
)
async def reactivate_tenant(
    tenant_id: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    tenant = await accounts.set_tenant_status(
        runtime, write_context(request, principal), tenant_id, "active"
    )
    return json_response(200, tenant)


@router.post(
    "/tenants/{tenant_id}/api-keys",
    status_code=201,
    openapi_extra=body_schema(ApiKeyCreate, required=False),
)
@Op(
    "createApiKey",
    "Create an API key for a tenant (shown once)",
    {201: CreatedApiKey},
    access=ADMIN,
    body_fields={
        "scopes": nullable({"type": "array", "items": {"type": "string", "enum": list(Scope)}})
    },
    example={"name": "crm", "scopes": ["applications:write", "applications:read"]},
)
async def create_api_key(
    tenant_id: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    body = await parse_body(request, ApiKeyCreate)
    created = await accounts.create_api_key(
        runtime, tenant_id, body.name, body.scopes, ctx=write_context(request, principal)
    )
    return json_response(201, created)


@router.post("/api-keys/{key_id}/revoke")
@Op(
    "revokeApiKey",
    "Revoke an API key",
    {200: RevokedApiKey},
    access=ADMIN,
    answer_example={"keyId": "k3y1d0a1b2c3d4e5", "status": "revoked"},
)
async def revoke_api_key(
    key_id: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    revoked = await accounts.revoke_api_key(runtime, write_context(request, principal), key_id)
    return json_response(200, revoked)
