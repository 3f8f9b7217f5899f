"""Who is acting on a webhook route, for the audit trail."""

from __future__ import annotations

from fastapi import Request

from gatehouse.http.auth import TenantPrincipal
from gatehouse.http.errors import request_id_of
from gatehouse.webhooks.endpoints import Actor


def actor_of(request: Request, principal: TenantPrincipal) -> Actor:
    return Actor(
        tenant_id=principal.tenant_id,
        actor=principal.actor,
        request_id=request_id_of(request) or None,
    )
