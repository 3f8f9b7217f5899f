"""Who writes: the one context every write carries, whichever surface it came from.

A surface builds one `WriteContext` per request from its authenticated principal: an API key
(`api_key:…`), a staff member (`staff:…`), an applicant's portal session (`applicant:…`) or a
verification client (`verification_client:…`); work that no request asked for acts as
`system:…`. Features take the context and record the audit entry of their action through it,
in the action's own transaction: the service records the entry, never the route.

The trail is append-only: every staff action and every tenant write. Entries hold ids only
(actor, target, tenant, application, request id), never secrets or personal data; hot paths
that run Core statements insert `audit_values` themselves, in the same transaction. `seq`
and `hash` are the sealer's to set (docs/audit-and-evidence.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.ids import new_id
from gatehouse.storage.tables.core import AuditEntry


class Acting(Protocol):
    """An authenticated principal, as the audit trail names it."""

    @property
    def actor(self) -> str: ...

    @property
    def tenant_id(self) -> str | None:
        """The one tenant the principal is bound to (an API key's, an applicant's), else None."""
        ...


@dataclass(frozen=True, slots=True)
class WriteContext:
    """Who writes, for which tenant, under which request id, at which moment.

    `now` is read once per request, so every row and event of one write shares it.
    """

    actor: str
    tenant_id: str | None
    request_id: str | None
    now: datetime

    @classmethod
    def of(cls, principal: Acting, request_id: str | None, now: datetime) -> WriteContext:
        return cls(principal.actor, principal.tenant_id, request_id, now)

    @classmethod
    def system(cls, name: str, now: datetime) -> WriteContext:
        """Work of the process itself (the command line, a sweep), outside any request."""
        return cls(f"system:{name}", None, None, now)

    def audit(
        self,
        session: AsyncSession,
        action: str,
        target: str,
        application_id: str | None = None,
        *,
        tenant_id: str | None = None,
    ) -> None:
        """Add the audit entry of this write to the session (written at its flush).

        `tenant_id` names the tenant of the target when the actor is bound to none (staff).
        """
        values = self.audit_values(action, target, application_id, tenant_id=tenant_id)
        session.add(AuditEntry(**values))

    def audit_values(
        self,
        action: str,
        target: str,
        application_id: str | None = None,
        *,
        tenant_id: str | None = None,
    ) -> dict[str, Any]:
        """The columns of this write's audit entry, with a fresh id (also for the Core
        INSERTs of hot paths)."""
        return {
            "id": new_id("aud"),
            "at": self.now,
            "actor": self.actor,
            "action": action,
            "target": target,
            "tenant_id": tenant_id if tenant_id is not None else self.tenant_id,
            "application_id": application_id,
            "request_id": self.request_id,
            "seq": None,
            "hash": None,
        }
