"""The access checks every tenant write makes (docs/reference/tenant-api.md §3.2, §5).

A tenant write takes two things from its caller: the `WriteContext` (who writes, when,
under which request id; it records the audit entry) and the `TenantPrincipal` (which tenant,
and its standing). What the write may do depends on that standing and on the application's
access state, checked here.
"""

from __future__ import annotations

from gatehouse.domain.access import Operation, Refusal, refusal_for
from gatehouse.domain.principals import TenantPrincipal
from gatehouse.errors import GatehouseError, failed_precondition, gone, permission_denied
from gatehouse.storage.tables.applications import Application

_MESSAGES = {
    Refusal.SUSPENDED: "The tenant is suspended.",
    Refusal.LOCKED: "The application is locked.",
    Refusal.ERASED_ROSTER: "The application was erased; it has no members.",
}


def refusal_error(refusal: Refusal) -> GatehouseError:
    if refusal is Refusal.ERASED:
        return gone()
    if refusal is Refusal.ERASED_ROSTER:
        return failed_precondition(_MESSAGES[refusal])
    return permission_denied(_MESSAGES[refusal])


def enforce(operation: Operation, tenant: TenantPrincipal, application: Application | None) -> None:
    """Raise the documented error when `operation` is refused
    (docs/reference/tenant-api.md §3.2, §5)."""
    refusal = refusal_for(
        operation,
        tenant_suspended=tenant.suspended,
        locked=bool(application is not None and application.locked),
        erased=bool(application is not None and application.erased_at is not None),
    )
    if refusal is not None:
        raise refusal_error(refusal)
