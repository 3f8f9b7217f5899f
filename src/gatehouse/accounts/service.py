"""Tenants and API keys (docs/reference/staff-api.md §4). Staff members are
accounts/lifecycle.py's (docs/staff-identity.md).

Service functions for the staff API, the dashboard and the CLI. Each write runs in one
transaction together with its audit entry, recorded through the caller's `WriteContext`;
called without one (the demo seed), tenants and keys are not audited. API keys are returned
once and only their keyed hash is stored.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Iterable
from typing import Any, cast

from gatehouse.accounts import queries
from gatehouse.accounts.schemas import (
    CreatedApiKey,
    RevokedApiKey,
    TenantPage,
    TenantView,
    tenant_view,
)
from gatehouse.audit.context import WriteContext
from gatehouse.domain.branding import check_accent_color, check_display_name
from gatehouse.domain.normalize import cut_text
from gatehouse.domain.numbers import parse_int
from gatehouse.domain.principals import ALL_SCOPES, DEFAULT_SCOPES
from gatehouse.domain.retention import Retention, check_retention
from gatehouse.domain.sandbox import check_environment
from gatehouse.errors import invalid_argument, not_found
from gatehouse.ids import new_id, random_token
from gatehouse.paging import (
    STAFF,
    CursorScope,
    PageRequest,
    page_of,
    read_position,
)
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import ApiKey, Tenant
from gatehouse.timeutil import format_ts

_KEY_ID_ALPHABET = string.ascii_lowercase + string.digits
DEFAULT_ENDPOINT_CAP = 5
MAX_ENDPOINT_CAP = 20
TENANT_LIST = CursorScope("staff.tenants", STAFF)


def _short_id(length: int = 16) -> str:
    return "".join(secrets.choice(_KEY_ID_ALPHABET) for _ in range(length))


def check_tenant_name(name: object) -> str:
    """Trimmed, cut to 200 characters, nonempty."""
    cut = cut_text(name) if isinstance(name, str) else None
    if not cut:
        raise invalid_argument("name must be a nonempty string.", "name", "required")
    return cut


def check_endpoint_cap(cap: object) -> int:
    """The per-tenant webhook endpoint cap: an integer from 1 to 20
    (docs/reference/staff-api.md §4.5)."""
    return parse_int(cap, "webhookEndpointCap", 1, MAX_ENDPOINT_CAP)


async def create_tenant(
    runtime: Runtime,
    name: str,
    *,
    ctx: WriteContext | None = None,
    environment: object = None,
) -> TenantView:
    """A new active tenant with the default endpoint cap of 5, `live` unless `environment`
    says `sandbox` (docs/sandbox.md); the environment never changes afterwards."""
    now = ctx.now if ctx is not None else runtime.now()
    tenant = Tenant(
        id=new_id("ten"),
        name=check_tenant_name(name),
        status="active",
        webhook_endpoint_cap=DEFAULT_ENDPOINT_CAP,
        environment=check_environment(environment),
        created_at=now,
        updated_at=now,
    )
    async with runtime.db.write() as session:
        session.add(tenant)
        if ctx is not None:
            ctx.audit(session, "tenant.created", tenant.id, tenant_id=tenant.id)
    return tenant_view(tenant)


async def get_tenant(runtime: Runtime, tenant_id: str) -> TenantView:
    async with runtime.db.read() as session:
        tenant = await session.get(Tenant, tenant_id)
    if tenant is None:
        raise not_found("No such tenant.")
    return tenant_view(tenant)


async def list_tenants(runtime: Runtime, page: PageRequest) -> TenantPage:
    """Tenants newest first (createdAt, then id, descending), keyset-paged:
    `{data, nextCursor, hasMore}`."""
    position = read_position(runtime.crypto, TENANT_LIST, page.cursor)
    async with runtime.db.read() as session:
        rows = await queries.tenants_page(session, position, page.limit + 1)
    return cast(
        TenantPage,
        page_of(
            rows,
            page,
            crypto=runtime.crypto,
            scope=TENANT_LIST,
            position_of=lambda tenant: (tenant.created_at, tenant.id),
            view=tenant_view,
        ),
    )


async def update_tenant(
    runtime: Runtime, ctx: WriteContext, tenant_id: str, changes: dict[str, Any]
) -> TenantView:
    """PATCH: `name`, `webhookEndpointCap` (1 to 20), `displayName`, `accentColor`
    (`#rrggbb`); null clears the last two; `retention` (docs/operations.md, "Retention")."""
    values: dict[str, Any] = {}
    if "name" in changes:
        values["name"] = check_tenant_name(changes["name"])
    if "webhookEndpointCap" in changes:
        values["webhook_endpoint_cap"] = check_endpoint_cap(changes["webhookEndpointCap"])
    if "displayName" in changes:
        values["display_name"] = check_display_name(changes["displayName"])
    if "accentColor" in changes:
        values["accent_color"] = check_accent_color(changes["accentColor"])
    retention = changes.get("retention", ...)
    return await _change_tenant(runtime, ctx, tenant_id, values, "tenant.updated", retention)


async def set_tenant_status(
    runtime: Runtime, ctx: WriteContext, tenant_id: str, status: str
) -> TenantView:
    """Suspend (`suspended`) or reactivate (`active`); a repeat answers the same state."""
    action = "tenant.suspended" if status == "suspended" else "tenant.reactivated"
    return await _change_tenant(runtime, ctx, tenant_id, {"status": status}, action)


async def _change_tenant(
    runtime: Runtime,
    ctx: WriteContext,
    tenant_id: str,
    values: dict[str, Any],
    action: str,
    retention: object = ...,
) -> TenantView:
    async with runtime.db.write() as session:
        tenant = await queries.tenant_for_update(session, tenant_id)
        if tenant is None:
            raise not_found("No such tenant.")
        if retention is not ...:  # checked against the stored periods it changes
            current = Retention(tenant.retention_rejected_days, tenant.retention_abandoned_days)
            changed = check_retention(retention, current)
            values["retention_rejected_days"] = changed.rejected_days
            values["retention_abandoned_days"] = changed.abandoned_days
        for name, value in values.items():
            setattr(tenant, name, value)
        tenant.updated_at = ctx.now
        ctx.audit(session, action, tenant.id, tenant_id=tenant.id)
        await session.flush()
        view = tenant_view(tenant)
    return view


def validate_scopes(scopes: Iterable[str] | None) -> list[str]:
    """Scopes of
    docs/reference/tenant-api.md §4.3; none (or an empty list) means applications:write only."""
    if scopes is None:
        return list(DEFAULT_SCOPES)
    chosen = list(dict.fromkeys(scopes))
    if not chosen:
        return list(DEFAULT_SCOPES)
    unknown = [s for s in chosen if s not in ALL_SCOPES]
    if unknown:
        raise invalid_argument(
            f"scopes must be taken from {', '.join(ALL_SCOPES)}.", "scopes", "unknown scope"
        )
    return chosen


async def create_api_key(
    runtime: Runtime,
    tenant_id: str,
    name: str | None = None,
    scopes: list[str] | None = None,
    *,
    ctx: WriteContext | None = None,
) -> CreatedApiKey:
    """A new key `service_<keyId>_<secret>`
    (docs/reference/tenant-api.md §4.2); shown once, stored hashed."""
    chosen = validate_scopes(scopes)
    name = cut_text(name) or None
    key_id = _short_id(16)
    secret = random_token(40)
    now = ctx.now if ctx is not None else runtime.now()
    async with runtime.db.write() as session:
        if await session.get(Tenant, tenant_id) is None:
            raise not_found("No such tenant.")
        session.add(
            ApiKey(
                id=key_id,
                tenant_id=tenant_id,
                name=name,
                scopes=chosen,
                secret_hash=runtime.crypto.hash_secret(secret),
                status="active",
                created_at=now,
            )
        )
        if ctx is not None:
            ctx.audit(session, "api_key.created", key_id, tenant_id=tenant_id)
    return {
        "keyId": key_id,
        "apiKey": f"service_{key_id}_{secret}",
        "name": name,
        "scopes": chosen,
        "createdAt": format_ts(now),
    }


async def revoke_api_key(runtime: Runtime, ctx: WriteContext, key_id: str) -> RevokedApiKey:
    """Revoke a key: every later request with it is 401
    (docs/reference/tenant-api.md §4.2 rule 5)."""
    async with runtime.db.write() as session:
        key = await queries.api_key_for_update(session, key_id)
        if key is None:
            raise not_found("No such API key.")
        if key.status != "revoked":
            key.status = "revoked"
            key.revoked_at = ctx.now
        ctx.audit(session, "api_key.revoked", key.id, tenant_id=key.tenant_id)
    return {"keyId": key_id, "status": "revoked"}
