"""Staff API: a tenant's logo in the applicant portal (docs/reference/staff-api.md §13).

`PUT /staff/v1/tenants/{tenantId}/logo` takes the image itself as the body, its type in
`Content-Type` (PNG, JPEG or WebP, checked against the content); `DELETE` removes it. The
display name and accent colour are fields of `PATCH /staff/v1/tenants/{tenantId}`.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gatehouse.accounts import branding
from gatehouse.accounts.schemas import TenantView
from gatehouse.accounts.service import tenant_view
from gatehouse.staff.examples import ADMIN, TENANT_EXAMPLE
from gatehouse.web.context import write_context
from gatehouse.web.dependencies import RuntimeDep, StaffAdmin
from gatehouse.web.openapi import Op
from gatehouse.web.responses import json_response

router = APIRouter(prefix="/staff/v1", tags=["staff: accounts"])

_LOGO_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            media_type: {"schema": {"type": "string", "format": "binary"}}
            for media_type in branding.LOGO_TYPES
        },
    }
}


@router.put("/tenants/{tenant_id}/logo", openapi_extra=_LOGO_BODY)
@Op(
    "setTenantLogo",
    "Set the tenant's portal logo (the image is the body)",
    {200: TenantView},
    access=ADMIN,
    errors=(415,),
    answer_example={**TENANT_EXAMPLE, "logoUrl": "/portal/logo/ten_4d3c2b1a0f9e/5b1f"},
)
async def put_logo(
    tenant_id: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    """The image is the body (at most 48 KiB) → 200 the tenant, `logoUrl` set."""
    content = await request.body()
    tenant = await branding.set_logo(
        runtime,
        write_context(request, principal),
        tenant_id,
        content,
        request.headers.get("content-type"),
    )
    return json_response(200, tenant_view(tenant))


@router.delete("/tenants/{tenant_id}/logo")
@Op(
    "removeTenantLogo",
    "Remove the tenant's portal logo",
    {200: TenantView},
    access=ADMIN,
    answer_example=TENANT_EXAMPLE,
)
async def delete_logo(
    tenant_id: str, request: Request, principal: StaffAdmin, runtime: RuntimeDep
) -> Response:
    """→ 200 the tenant, `logoUrl` null (removing no logo is not an error)."""
    tenant = await branding.remove_logo(runtime, write_context(request, principal), tenant_id)
    return json_response(200, tenant_view(tenant))
