"""Authentication and scopes (spec 1 §5; CONTRACT §1.2 steps 4 to 6, §4).

Tenant API keys look like `service_<key-id>_<secret>`; staff tokens like
`staff_<id>_<secret>`. Each surface accepts only its own credential: a staff
token is simply a malformed API key to `/v1`, and the other way round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fastapi import Request
from sqlalchemy import bindparam, select

from gatehouse.http import metrics
from gatehouse.http.errors import (
    RESOURCE_EXHAUSTED,
    UNAUTHORIZED,
    ApiError,
    permission_denied,
)
from gatehouse.http.key_cache import EPOCH_NOT_READ, EPOCH_STATE, credential_cache
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import ApiKey, StaffMember, Tenant

SCOPE_WRITE = "applications:write"
SCOPE_READ = "applications:read"
SCOPE_WEBHOOKS = "webhooks:manage"
ALL_SCOPES = (SCOPE_WRITE, SCOPE_READ, SCOPE_WEBHOOKS)
DEFAULT_SCOPES = (SCOPE_WRITE,)

API_KEY_RE = re.compile(r"service_([a-z0-9]{12,32})_([A-Za-z0-9]{32,64})")
STAFF_TOKEN_RE = re.compile(r"staff_([a-z0-9]{12,32})_([A-Za-z0-9]{32,64})")

STAFF_ROLES = ("analyst", "mlro", "admin", "super_admin")
STAFF_PREFIX = "stf_"


# Credential lookups are one statement each, built once (SQLAlchemy then reuses the
# compiled form) and run through `Database.fetch_all`: no session, no transaction,
# and on SQLite a single worker-thread hop (issue 8).
_KEY_LOOKUP = (
    select(ApiKey.secret_hash, ApiKey.status, ApiKey.scopes, Tenant.id, Tenant.status)
    .join(Tenant, Tenant.id == ApiKey.tenant_id)
    .where(ApiKey.id == bindparam("key_id", type_=ApiKey.id.type))
)
_STAFF_LOOKUP = select(
    StaffMember.id, StaffMember.email, StaffMember.role, StaffMember.token_hash, StaffMember.status
).where(StaffMember.id == bindparam("staff_id", type_=StaffMember.id.type))


def role_rank(role: str) -> int:
    return STAFF_ROLES.index(role) if role in STAFF_ROLES else -1


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
    staff_id: str
    email: str
    role: str

    @property
    def actor(self) -> str:
        return f"staff:{self.staff_id}"

    def at_least(self, role: str) -> bool:
        return role_rank(self.role) >= role_rank(role)


def runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


def bearer_token(request: Request) -> str:
    header = request.headers.get("authorization")
    if not header:
        raise ApiError(UNAUTHORIZED, "Missing Authorization header.")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(UNAUTHORIZED, "Use Authorization: Bearer <API_KEY>.")
    return token.strip()


async def authenticate_tenant(request: Request) -> TenantPrincipal:
    """401 for a bad shape, an unknown key, a wrong secret or a revoked key.

    Active keys are served from the process's credential cache (http/key_cache.py),
    which every committed change to keys or tenants empties at once.
    """
    token = bearer_token(request)
    match = API_KEY_RE.fullmatch(token)
    if not match:
        raise ApiError(UNAUTHORIZED, "Invalid API key.")
    key_id, secret = match.groups()
    runtime = runtime_of(request)
    cache = credential_cache(runtime)
    # The edge read the Redis epoch in its per-IP round trip (EPOCH_STATE).
    generation = await cache.epoch(getattr(request.state, EPOCH_STATE, EPOCH_NOT_READ))
    cached = cache.get(key_id) if generation is not None else None
    if cached is not None:
        if not runtime.crypto.verify_secret(secret, cached.secret_hash):
            raise ApiError(UNAUTHORIZED, "Invalid API key.")
        return TenantPrincipal(cached.tenant_id, key_id, cached.scopes, cached.tenant_status)
    rows = await runtime.db.fetch_all(_KEY_LOOKUP, {"key_id": key_id})
    row = rows[0] if rows else None
    if row is None:
        # Spend the same work as a real comparison, so timing does not tell.
        runtime.crypto.verify_secret(secret, "0" * 64)
        raise ApiError(UNAUTHORIZED, "Invalid API key.")
    secret_hash, key_status, scopes, tenant_id, tenant_status = row
    if not runtime.crypto.verify_secret(secret, secret_hash) or key_status != "active":
        raise ApiError(UNAUTHORIZED, "Invalid API key.")
    granted = frozenset(scopes or DEFAULT_SCOPES)
    if generation is not None:
        cache.put(generation, key_id, secret_hash, tenant_id, granted, tenant_status)
    return TenantPrincipal(tenant_id, key_id, granted, tenant_status)


async def authorize_tenant(request: Request, scope: str) -> TenantPrincipal:
    """Steps 4 to 6 of CONTRACT §1.2: authenticate, per-key limit, scope."""
    principal = await authenticate_tenant(request)
    runtime = runtime_of(request)
    window = await runtime.limits.hit_key(principal.key_id)
    request.state.ratelimit = window
    if window is not None and not window.allowed:
        metrics.RATE_LIMITED.labels(kind="key").inc()
        raise ApiError(
            RESOURCE_EXHAUSTED,
            "Rate limit exceeded for this API key.",
            headers={"Retry-After": str(window.reset_seconds)},
        )
    if scope not in principal.scopes:
        raise permission_denied(f"This API key lacks the required scope {scope}.")
    request.state.principal = principal
    return principal


async def authenticate_staff(request: Request) -> StaffPrincipal:
    token = bearer_token(request)
    match = STAFF_TOKEN_RE.fullmatch(token)
    if not match:
        raise ApiError(UNAUTHORIZED, "Invalid staff token.")
    return await staff_from_token_parts(request, *match.groups())


async def staff_from_token_parts(request: Request, short_id: str, secret: str) -> StaffPrincipal:
    runtime = runtime_of(request)
    rows = await runtime.db.fetch_all(_STAFF_LOOKUP, {"staff_id": STAFF_PREFIX + short_id})
    staff = rows[0] if rows else None
    if staff is None:
        runtime.crypto.verify_secret(secret, "0" * 64)
        raise ApiError(UNAUTHORIZED, "Invalid staff token.")
    if not runtime.crypto.verify_secret(secret, staff.token_hash) or staff.status != "active":
        raise ApiError(UNAUTHORIZED, "Invalid staff token.")
    return StaffPrincipal(staff.id, staff.email, staff.role)


def staff_token(staff_id: str, secret: str) -> str:
    return f"staff_{staff_id.removeprefix(STAFF_PREFIX)}_{secret}"


def require_role(principal: StaffPrincipal, role: str) -> None:
    if not principal.at_least(role):
        raise permission_denied(f"This action needs the {role} role or higher.")
