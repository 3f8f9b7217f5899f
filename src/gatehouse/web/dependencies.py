"""Typed FastAPI dependencies for endpoints (`Annotated[..., Depends()]`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request

from gatehouse.domain.principals import (
    SCOPE_READ,
    SCOPE_WEBHOOKS,
    SCOPE_WRITE,
    Role,
    StaffPrincipal,
    TenantPrincipal,
)
from gatehouse.runtime import Runtime
from gatehouse.web import idempotency
from gatehouse.web.auth import authenticate_staff, authorize_tenant, require_role, runtime_of


def tenant_access(scope: str | None) -> Callable[[Request], Awaitable[TenantPrincipal]]:
    """Authenticate, limit, check `scope` (None: any), then claim any Idempotency-Key."""

    async def dependency(request: Request) -> TenantPrincipal:
        principal = await authorize_tenant(request, scope)
        await idempotency.begin(request, principal.tenant_id)
        return principal

    return dependency


def staff_with_role(role: str) -> Callable[[Request], Awaitable[StaffPrincipal]]:
    """Authenticate a staff token (401), then require `role` or higher (403).

    As a dependency it runs before query and body validation (docs/reference/staff-api.md;
    docs/reference/tenant-api.md §4.1).
    """

    async def dependency(request: Request) -> StaffPrincipal:
        principal = await authenticate_staff(request)
        require_role(principal, role)
        request.state.staff = principal
        return principal

    return dependency


# The same check as a plain call, for hot routes (a dependency costs about 8 us).
read_access = tenant_access(SCOPE_READ)
ReadApplications = Annotated[TenantPrincipal, Depends(read_access)]
WriteApplications = Annotated[TenantPrincipal, Depends(tenant_access(SCOPE_WRITE))]
ManageWebhooks = Annotated[TenantPrincipal, Depends(tenant_access(SCOPE_WEBHOOKS))]
AnyTenantKey = Annotated[TenantPrincipal, Depends(tenant_access(None))]
StaffUser = Annotated[StaffPrincipal, Depends(authenticate_staff)]
StaffAnalyst = Annotated[StaffPrincipal, Depends(staff_with_role(Role.ANALYST))]
StaffMlro = Annotated[StaffPrincipal, Depends(staff_with_role(Role.MLRO))]
StaffAdmin = Annotated[StaffPrincipal, Depends(staff_with_role(Role.ADMIN))]
StaffSuperAdmin = Annotated[StaffPrincipal, Depends(staff_with_role(Role.SUPER_ADMIN))]


async def _runtime(request: Request) -> Runtime:
    # async: FastAPI runs a plain `def` dependency in a worker thread, on every request.
    return runtime_of(request)


RuntimeDep = Annotated[Runtime, Depends(_runtime)]
