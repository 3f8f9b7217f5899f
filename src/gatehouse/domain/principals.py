"""Who is acting: staff roles, API-key scopes and the two authenticated principals.

The tenant API (`/v1`) is called with one API key of one tenant; the staff API with a staff
member's personal token. Each surface accepts only its own credential
(docs/reference/staff-api.md §1, docs/reference/tenant-api.md §4.2). Pure values: the web
platform builds them, features receive them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Role(StrEnum):
    """Staff roles, lowest first: each role may do everything the ones below it may."""

    ANALYST = "analyst"
    MLRO = "mlro"
    ADMIN = "admin"
    SUPER_ADMIN = "super_admin"


STAFF_ROLES: tuple[str, ...] = tuple(Role)


def role_rank(role: str) -> int:
    """The rank of a role (analyst 0 … super_admin 3); -1 for anything else."""
    return STAFF_ROLES.index(role) if role in STAFF_ROLES else -1


class Scope(StrEnum):
    """What an API key may do on `/v1`."""

    APPLICATIONS_WRITE = "applications:write"
    APPLICATIONS_READ = "applications:read"
    WEBHOOKS_MANAGE = "webhooks:manage"


SCOPE_WRITE = Scope.APPLICATIONS_WRITE.value
SCOPE_READ = Scope.APPLICATIONS_READ.value
SCOPE_WEBHOOKS = Scope.WEBHOOKS_MANAGE.value
ALL_SCOPES: tuple[str, ...] = tuple(Scope)
DEFAULT_SCOPES: tuple[str, ...] = (SCOPE_WRITE,)

API_KEY_RE = re.compile(r"service_([a-z0-9]{12,32})_([A-Za-z0-9]{32,64})")
STAFF_TOKEN_RE = re.compile(r"staff_([a-z0-9]{12,32})_([A-Za-z0-9]{32,64})")
STAFF_PREFIX = "stf_"


def staff_token(staff_id: str, secret: str) -> str:
    return f"staff_{staff_id.removeprefix(STAFF_PREFIX)}_{secret}"


@dataclass(frozen=True, slots=True)
class TenantPrincipal:
    """The caller of a `/v1` route: one API key of exactly one tenant."""

    tenant_id: str
    key_id: str
    scopes: frozenset[str]
    tenant_status: str

    @property
    def actor(self) -> str:
        return f"api_key:{self.key_id}"

    @property
    def suspended(self) -> bool:
        return self.tenant_status == "suspended"


@dataclass(frozen=True, slots=True)
class StaffPrincipal:
    """A staff member acting on the staff API or the dashboard."""

    staff_id: str
    email: str
    role: str

    @property
    def actor(self) -> str:
        return f"staff:{self.staff_id}"

    @property
    def tenant_id(self) -> None:
        """Staff act across tenants: bound to none."""
        return None

    def at_least(self, role: str) -> bool:
        return role_rank(self.role) >= role_rank(role)


@dataclass(frozen=True, slots=True)
class ConsolePrincipal:
    """A tenant console session (docs/console.md): it acts as the API key that minted it,
    with that key's tenant and scopes, and is audited as `console:<keyId>`."""

    key: TenantPrincipal
    session_id: str

    @property
    def actor(self) -> str:
        return f"console:{self.key.key_id}"

    @property
    def tenant_id(self) -> str:
        return self.key.tenant_id

    @property
    def read_only(self) -> bool:
        """A suspended tenant's console shows everything and changes nothing."""
        return self.key.suspended

    def holds(self, scope: str) -> bool:
        return scope in self.key.scopes
