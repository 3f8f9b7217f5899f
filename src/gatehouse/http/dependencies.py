"""Typed FastAPI dependencies for endpoints (`Annotated[..., Depends()]`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request

from gatehouse.http import idempotency
from gatehouse.http.auth import (
    SCOPE_READ,
    SCOPE_WEBHOOKS,
    SCOPE_WRITE,
    StaffPrincipal,
    TenantPrincipal,
    authenticate_staff,
    authorize_tenant,
    runtime_of,
)
from gatehouse.runtime import Runtime


def tenant_access(scope: str) -> Callable[[Request], Awaitable[TenantPrincipal]]:
    """Authenticate, limit, check `scope`, then claim any Idempotency-Key."""

    async def dependency(request: Request) -> TenantPrincipal:
        principal = await authorize_tenant(request, scope)
        await idempotency.begin(request, principal.tenant_id)
        return principal

    return dependency


ReadApplications = Annotated[TenantPrincipal, Depends(tenant_access(SCOPE_READ))]
WriteApplications = Annotated[TenantPrincipal, Depends(tenant_access(SCOPE_WRITE))]
ManageWebhooks = Annotated[TenantPrincipal, Depends(tenant_access(SCOPE_WEBHOOKS))]
StaffUser = Annotated[StaffPrincipal, Depends(authenticate_staff)]
RuntimeDep = Annotated[Runtime, Depends(runtime_of)]
