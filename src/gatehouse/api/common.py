"""What the tenant API endpoints share: building the write context."""

from __future__ import annotations

from fastapi import Request

from gatehouse.http.auth import TenantPrincipal
from gatehouse.http.errors import request_id_of
from gatehouse.runtime import Runtime
from gatehouse.services.guards import TenantWrite


def tenant_write(request: Request, runtime: Runtime, principal: TenantPrincipal) -> TenantWrite:
    """Who writes, with which request id, at which moment (one clock read per request)."""
    return TenantWrite(runtime, principal, request_id_of(request), runtime.now())
