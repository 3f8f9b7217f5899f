"""What every tenant write shares: who is writing, the access checks of
spec 1 §3.2, and the audit entry recorded in the write's transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse import audit
from gatehouse.domain.access import Operation, Refusal, refusal_for
from gatehouse.http.auth import TenantPrincipal
from gatehouse.http.errors import ApiError, failed_precondition, gone, permission_denied
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.core import AuditEntry


@dataclass(frozen=True, slots=True)
class TenantWrite:
    """The caller of one tenant write: runtime, API key principal, request id, time."""

    runtime: Runtime
    principal: TenantPrincipal
    request_id: str
    now: datetime

    @property
    def tenant_id(self) -> str:
        return self.principal.tenant_id

    def audit(
        self, session: AsyncSession, action: str, target: str, application_id: str | None
    ) -> None:
        """Add the audit entry of this write to the session (written at its flush)."""
        session.add(AuditEntry(**self.audit_values(action, target, application_id)))

    def audit_values(self, action: str, target: str, application_id: str | None) -> dict[str, Any]:
        """The columns of this write's audit entry (for the Core INSERTs of hot paths)."""
        return audit.entry_values(
            at=self.now,
            actor=self.principal.actor,
            action=action,
            target=target,
            tenant_id=self.tenant_id,
            application_id=application_id,
            request_id=self.request_id,
        )


_MESSAGES = {
    Refusal.SUSPENDED: "The tenant is suspended.",
    Refusal.LOCKED: "The application is locked.",
    Refusal.ERASED_ROSTER: "The application was erased; it has no members.",
}


def refusal_error(refusal: Refusal) -> ApiError:
    if refusal is Refusal.ERASED:
        return gone()
    if refusal is Refusal.ERASED_ROSTER:
        return failed_precondition(_MESSAGES[refusal])
    return permission_denied(_MESSAGES[refusal])


def enforce(operation: Operation, write: TenantWrite, application: Application | None) -> None:
    """Raise the documented error when `operation` is refused (spec 1 §3.2, §4)."""
    refusal = refusal_for(
        operation,
        tenant_suspended=write.principal.suspended,
        locked=bool(application is not None and application.locked),
        erased=bool(application is not None and application.erased_at is not None),
    )
    if refusal is not None:
        raise refusal_error(refusal)
