"""Authentication and scopes (docs/reference/tenant-api.md §4.1 to §4.3,
docs/reference/staff-api.md §1.2).

Tenant API keys look like `service_<key-id>_<secret>`; staff tokens like
`staff_<id>_<secret>`. Each surface accepts only its own credential: a staff
token is simply a malformed API key to `/v1`, and the other way round.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import Request
from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import InstrumentedAttribute

from gatehouse import metrics
from gatehouse.domain.principals import (
    API_KEY_RE,
    DEFAULT_SCOPES,
    STAFF_TOKEN_RE,
    StaffPrincipal,
    TenantPrincipal,
)
from gatehouse.errors import (
    RESOURCE_EXHAUSTED,
    UNAUTHORIZED,
    GatehouseError,
    permission_denied,
)
from gatehouse.limits.credentials import CachedKey, credential_cache
from gatehouse.limits.ratelimit import ADDRESS_GATE, AddressGate, Window
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import ApiKey, StaffMember, Tenant
from gatehouse.storage.tables.staff_identity import TOKEN_ROW_PREFIX, StaffToken

log = logging.getLogger("gatehouse.auth")
# (credential, key id) this process has stored again (`_store_under_current_key`).
_STORED_AGAIN: set[tuple[str, str]] = set()
_STORED_AGAIN_MAX = 100_000
# Request state: (key id, window) when the key's window was counted with the per-IP one.
_KEY_WINDOW = "key_window_counted"

# Credential lookups are one statement each, built once (SQLAlchemy then reuses the
# compiled form) and run through `Database.fetch_all`: no session, no transaction,
# and on SQLite a single worker-thread hop.
_KEY_LOOKUP = (
    select(ApiKey.secret_hash, ApiKey.status, ApiKey.scopes, Tenant.id, Tenant.status)
    .join(Tenant, Tenant.id == ApiKey.tenant_id)
    .where(ApiKey.id == bindparam("key_id", type_=ApiKey.id.type))
)
# A staff token is a personal token (staff_tokens, docs/reference/staff-api.md §9): read with
# its owner on every request, so a revocation or a deactivation by any process counts at once.
_STAFF_LOOKUP = (
    select(
        StaffToken.token_hash,
        StaffToken.revoked_at,
        StaffToken.expires_at,
        StaffMember.id,
        StaffMember.email,
        StaffMember.role,
        StaffMember.status,
    )
    .join(StaffMember, StaffMember.id == StaffToken.staff_id)
    .where(StaffToken.id == bindparam("token_id", type_=StaffToken.id.type))
)


def runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


def bearer_token(request: Request) -> str:
    header = request.headers.get("authorization")
    if not header:
        raise GatehouseError(UNAUTHORIZED, "Missing Authorization header.")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise GatehouseError(UNAUTHORIZED, "Use Authorization: Bearer <API_KEY>.")
    return token.strip()


async def authenticate_tenant(request: Request, *, count_key: bool = False) -> TenantPrincipal:
    """401 for a bad shape, an unknown key, a wrong secret or a revoked key.

    Active keys are served from the process's credential cache (limits/credentials.py),
    which every committed change to keys or tenants empties at once. With Redis the
    per-IP window is counted here (the edge left it undecided); `count_key` (only for a
    caller that counts the key's window next, `admit_tenant`, whatever else happens)
    lets a cached key have both windows counted in that one round trip.
    """
    token = bearer_token(request)
    match = API_KEY_RE.fullmatch(token)
    if not match:
        raise GatehouseError(UNAUTHORIZED, "Invalid API key.")
    key_id, secret = match.groups()
    runtime = runtime_of(request)
    cache = credential_cache(runtime)
    state: dict[str, Any] = request.scope.setdefault("state", {})
    gate: AddressGate | None = state.get(ADDRESS_GATE)
    # Windows in memory: the edge counted the per-IP window already.
    generation = await cache.epoch()
    cached = cache.get(key_id) if generation is not None else None
    if gate is not None:
        if gate.result is None and count_key and cached is not None:
            fast = await _both_windows_at_once(request, gate, cached, key_id, secret)
            if fast is not None:
                return fast
        # The per-IP window, before any lookup (limits/ratelimit.py).
        check = await gate.decide()
        if not check.allowed:
            raise _address_refused()
    if cached is not None:
        if not runtime.crypto.verify_secret(secret, cached.secret_hash):
            raise GatehouseError(UNAUTHORIZED, "Invalid API key.")
        return TenantPrincipal(cached.tenant_id, key_id, cached.scopes, cached.tenant_status)
    rows = await runtime.db.fetch_all(_KEY_LOOKUP, {"key_id": key_id})
    row = rows[0] if rows else None
    if row is None:
        # Spend the same work as a real comparison, so timing does not tell.
        runtime.crypto.verify_secret(secret, "0" * 64)
        raise GatehouseError(UNAUTHORIZED, "Invalid API key.")
    secret_hash, key_status, scopes, tenant_id, tenant_status = row
    if not runtime.crypto.verify_secret(secret, secret_hash) or key_status != "active":
        raise GatehouseError(UNAUTHORIZED, "Invalid API key.")
    granted = frozenset(scopes or DEFAULT_SCOPES)
    if runtime.crypto.needs_rehash(secret_hash):
        # Committing it empties the credential caches; the next request reads the new one.
        await _store_under_current_key(
            runtime, ApiKey.id, ApiKey.secret_hash, key_id, secret_hash, secret
        )
    elif generation is not None:
        cache.put(generation, key_id, secret_hash, tenant_id, granted, tenant_status)
    return TenantPrincipal(tenant_id, key_id, granted, tenant_status)


async def _both_windows_at_once(
    request: Request, gate: AddressGate, cached: CachedKey, key_id: str, secret: str
) -> TenantPrincipal | None:
    """With Redis, a cached key whose secret verifies: both windows in one round trip.

    The script counts the key's window only when the per-IP window let the request
    through (limits/ratelimit.py); the cached key was checked against the credentials
    epoch just before. None when the general path must decide: the secret does not
    verify against the cached key, or Redis failed (the per-IP verdict is then made, as
    for any failure).
    """
    runtime = runtime_of(request)
    if not runtime.crypto.verify_secret(secret, cached.secret_hash):
        return None
    outcome = await gate.decide_with_key(key_id)
    if not outcome.address.allowed:
        raise _address_refused()
    if outcome.key is None:
        return None
    request.scope.setdefault("state", {})[_KEY_WINDOW] = (key_id, outcome.key)
    return TenantPrincipal(cached.tenant_id, key_id, cached.scopes, cached.tenant_status)


def _address_refused() -> GatehouseError:
    # The edge answers its own per-IP 429 in place of whatever this becomes (web/edge.py).
    return GatehouseError(RESOURCE_EXHAUSTED, "Too many requests from this address.")


async def _store_under_current_key(
    runtime: Runtime,
    key: InstrumentedAttribute[str],
    column: InstrumentedAttribute[str],
    row_id: str,
    old: str,
    secret: str,
) -> None:
    """Store a credential that verified under an older key (or before key ids) again under
    the current one, so it outlives the older key (docs/operations.md, "Keys and rotation").
    Guarded by the old digest: a concurrent revocation or a second process doing the same
    changes nothing. A failure leaves the old digest, which still verifies: logged only.

    Once per credential per process: while processes with different current keys run side
    by side (a rolling restart), they would otherwise store it back and forth."""
    done = (row_id, runtime.crypto.current_kid)
    if done in _STORED_AGAIN:
        return
    if len(_STORED_AGAIN) >= _STORED_AGAIN_MAX:
        _STORED_AGAIN.clear()
    _STORED_AGAIN.add(done)
    try:
        async with runtime.db.write() as session:
            await session.execute(
                update(column.class_)
                .where(key == row_id, column == old)
                .values({column.key: runtime.crypto.hash_secret(secret)})
                .execution_options(synchronize_session=False)
            )
    except Exception:
        log.warning(
            "storing a credential under the current key failed; it stays under its old key",
            extra={"credential": row_id},
            exc_info=True,
        )
        return
    log.info("credential stored under the current key", extra={"credential": row_id})


async def authorize_tenant(request: Request, scope: str | None) -> TenantPrincipal:
    """Steps 4 to 6 of docs/reference/tenant-api.md §4.1: authenticate, per-key limit, scope
    (None: any scope will do)."""
    return await admit_tenant(request, await authenticate_tenant(request, count_key=True), scope)


async def admit_tenant(
    request: Request, principal: TenantPrincipal, scope: str | None
) -> TenantPrincipal:
    """Steps 5 and 6 for an authenticated key: the per-key limit (counted), then the scope."""
    runtime = runtime_of(request)
    state: dict[str, Any] = request.scope.setdefault("state", {})
    counted = state.pop(_KEY_WINDOW, None)
    if counted is not None and counted[0] == principal.key_id:
        window: Window | None = counted[1]  # counted with the per-IP window
    else:
        window = await runtime.limits.hit_key(principal.key_id)
    state["ratelimit"] = window
    if window is not None and not window.allowed:
        metrics.RATE_LIMITED.labels(kind="key").inc()
        raise GatehouseError(
            RESOURCE_EXHAUSTED,
            "Rate limit exceeded for this API key.",
            headers={"Retry-After": str(window.reset_seconds)},
        )
    if scope is not None and scope not in principal.scopes:
        raise permission_denied(f"This API key lacks the required scope {scope}.")
    request.state.principal = principal
    return principal


async def authenticate_staff(request: Request) -> StaffPrincipal:
    token = bearer_token(request)
    match = STAFF_TOKEN_RE.fullmatch(token)
    if not match:
        raise GatehouseError(UNAUTHORIZED, "Invalid staff token.")
    return await staff_from_token_parts(request, *match.groups())


async def staff_from_token_parts(request: Request, id_part: str, secret: str) -> StaffPrincipal:
    """401 for an unknown token, a wrong secret, a revoked or expired token, and a staff
    member who is not active, all alike."""
    runtime = runtime_of(request)
    rows = await runtime.db.fetch_all(_STAFF_LOOKUP, {"token_id": TOKEN_ROW_PREFIX + id_part})
    if not rows:
        runtime.crypto.verify_secret(secret, "0" * 64)
        raise GatehouseError(UNAUTHORIZED, "Invalid staff token.")
    token_hash, revoked_at, expires_at, staff_id, email, role, status = rows[0]
    if (
        not runtime.crypto.verify_secret(secret, token_hash)
        or revoked_at is not None
        or (expires_at is not None and expires_at <= runtime.now())
        or status != "active"
    ):
        raise GatehouseError(UNAUTHORIZED, "Invalid staff token.")
    if runtime.crypto.needs_rehash(token_hash):
        await _store_under_current_key(
            runtime,
            StaffToken.id,
            StaffToken.token_hash,
            TOKEN_ROW_PREFIX + id_part,
            token_hash,
            secret,
        )
    return StaffPrincipal(staff_id, email, role)


def require_role(principal: StaffPrincipal, role: str) -> None:
    if not principal.at_least(role):
        raise permission_denied(f"This action needs the {role} role or higher.")
