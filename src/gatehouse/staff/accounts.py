"""Staff members, tenants and API keys (CONTRACT §0 `staff create`, §4; spec 1 §5).

Service functions for the staff API and the CLI. Each write runs in one
transaction together with its audit entry; secrets (staff tokens, API keys)
are returned once and only their keyed hash is stored.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.exc import IntegrityError

from gatehouse import audit
from gatehouse.domain.normalize import cut_text, normalize_email
from gatehouse.http.auth import (
    ALL_SCOPES,
    DEFAULT_SCOPES,
    STAFF_PREFIX,
    STAFF_ROLES,
    role_rank,
    staff_token,
)
from gatehouse.http.errors import ALREADY_EXISTS, ApiError, invalid_argument, not_found
from gatehouse.ids import new_id, random_token
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import ApiKey, StaffMember, Tenant
from gatehouse.timeutil import format_ts, parse_ts

_KEY_ID_ALPHABET = string.ascii_lowercase + string.digits
DEFAULT_ENDPOINT_CAP = 5
MAX_ENDPOINT_CAP = 20
# Creating a staff member with one of these roles needs super_admin (CONTRACT §4).
PRIVILEGED_ROLES = ("admin", "super_admin")


@dataclass(frozen=True, slots=True)
class Actor:
    """Who performs a staff action, for the audit trail."""

    actor: str
    request_id: str | None = None


def _short_id(length: int = 16) -> str:
    return "".join(secrets.choice(_KEY_ID_ALPHABET) for _ in range(length))


def role_needed_to_create(role: str) -> str:
    """The least role that may create a staff member with `role` (CONTRACT §4)."""
    return "super_admin" if role in PRIVILEGED_ROLES else "admin"


def may_create_role(creator_role: str, role: str) -> bool:
    return role_rank(creator_role) >= role_rank(role_needed_to_create(role))


def check_staff_input(email: object, role: object) -> tuple[str, str]:
    """The normalized email and the role, or 400 invalid-argument naming the field."""
    normalized = normalize_email(email)
    if normalized is None:
        raise invalid_argument(
            "email must contain @ and be at most 320 characters.", "email", "invalid email"
        )
    if not isinstance(role, str) or role not in STAFF_ROLES:
        raise invalid_argument(
            f"role must be one of {', '.join(STAFF_ROLES)}.", "role", "unknown role"
        )
    return normalized, role


async def create_staff_member(
    runtime: Runtime, email: str, role: str, *, by: Actor | None = None
) -> dict[str, str]:
    """Create a staff member: 201 `{staffId, email, role, token}`; token shown once.

    400 for a bad email or role, 409 already-exists for an email in use.
    """
    normalized, role = check_staff_input(email, role)
    staff_id = STAFF_PREFIX + _short_id(20)
    secret = random_token(40)
    now = runtime.now()
    duplicate = ApiError(ALREADY_EXISTS, "A staff member with this email exists.")
    try:
        async with runtime.db.write() as session:
            existing = await session.scalar(
                select(StaffMember.id).where(StaffMember.email == normalized)
            )
            if existing is not None:
                raise duplicate
            session.add(
                StaffMember(
                    id=staff_id,
                    email=normalized,
                    role=role,
                    token_hash=runtime.crypto.hash_secret(secret),
                    status="active",
                    created_at=now,
                )
            )
            audit.record(
                session,
                at=now,
                actor=by.actor if by else "system:cli",
                action="staff.created",
                target=staff_id,
                request_id=by.request_id if by else None,
            )
    except IntegrityError:
        # Two concurrent creations with one email: the unique index decides.
        raise duplicate from None
    return {
        "staffId": staff_id,
        "email": normalized,
        "role": role,
        "token": staff_token(staff_id, secret),
    }


def tenant_view(tenant: Tenant) -> dict[str, object]:
    """The tenant body of CONTRACT §4 (plus `updatedAt`)."""
    return {
        "tenantId": tenant.id,
        "name": tenant.name,
        "status": tenant.status,
        "createdAt": format_ts(tenant.created_at),
        "updatedAt": format_ts(tenant.updated_at),
        "webhookEndpointCap": tenant.webhook_endpoint_cap,
    }


def check_tenant_name(name: object) -> str:
    """Trimmed, cut to 200 characters, nonempty."""
    cut = cut_text(name) if isinstance(name, str) else None
    if not cut:
        raise invalid_argument("name must be a nonempty string.", "name", "required")
    return cut


def check_endpoint_cap(cap: object) -> int:
    """The per-tenant webhook endpoint cap: an integer from 1 to 20 (CONTRACT §2.1)."""
    if isinstance(cap, bool) or not isinstance(cap, int) or not 1 <= cap <= MAX_ENDPOINT_CAP:
        raise invalid_argument(
            f"webhookEndpointCap must be an integer from 1 to {MAX_ENDPOINT_CAP}.",
            "webhookEndpointCap",
            f"must be an integer from 1 to {MAX_ENDPOINT_CAP}",
        )
    return cap


async def create_tenant(
    runtime: Runtime, name: str, *, by: Actor | None = None
) -> dict[str, object]:
    """A new active tenant with the default endpoint cap of 5."""
    now = runtime.now()
    tenant = Tenant(
        id=new_id("ten"),
        name=check_tenant_name(name),
        status="active",
        webhook_endpoint_cap=DEFAULT_ENDPOINT_CAP,
        created_at=now,
        updated_at=now,
    )
    async with runtime.db.write() as session:
        session.add(tenant)
        if by is not None:
            audit.record(
                session,
                at=now,
                actor=by.actor,
                action="tenant.created",
                target=tenant.id,
                tenant_id=tenant.id,
                request_id=by.request_id,
            )
    return tenant_view(tenant)


async def get_tenant(runtime: Runtime, tenant_id: str) -> dict[str, object]:
    async with runtime.db.read() as session:
        tenant = await session.get(Tenant, tenant_id)
    if tenant is None:
        raise not_found("No such tenant.")
    return tenant_view(tenant)


async def list_tenants(
    runtime: Runtime, limit: int, after: tuple[str, str] | None
) -> tuple[list[dict[str, object]], tuple[str, str] | None]:
    """Tenants newest first (createdAt, then id, descending), keyset-paged.

    Returns the page and the position of its last element when more follow.
    """
    stmt = select(Tenant).order_by(Tenant.created_at.desc(), Tenant.id.desc()).limit(limit + 1)
    if after is not None:
        created_at, tenant_id = parse_ts(after[0]), after[1]
        stmt = stmt.where(
            or_(
                Tenant.created_at < created_at,
                and_(Tenant.created_at == created_at, Tenant.id < tenant_id),
            )
        )
    async with runtime.db.read() as session:
        rows = list((await session.scalars(stmt)).all())
    page = rows[:limit]
    more = len(rows) > limit
    last = (str(format_ts(page[-1].created_at)), page[-1].id) if more and page else None
    return [tenant_view(t) for t in page], last


async def update_tenant(
    runtime: Runtime, tenant_id: str, changes: dict[str, Any], by: Actor
) -> dict[str, object]:
    """PATCH: `name` and/or `webhookEndpointCap` (1 to 20)."""
    values: dict[str, Any] = {}
    if "name" in changes:
        values["name"] = check_tenant_name(changes["name"])
    if "webhookEndpointCap" in changes:
        values["webhook_endpoint_cap"] = check_endpoint_cap(changes["webhookEndpointCap"])
    return await _change_tenant(runtime, tenant_id, values, "tenant.updated", by)


async def set_tenant_status(
    runtime: Runtime, tenant_id: str, status: str, by: Actor
) -> dict[str, object]:
    """Suspend (`suspended`) or reactivate (`active`); a repeat answers the same state."""
    action = "tenant.suspended" if status == "suspended" else "tenant.reactivated"
    return await _change_tenant(runtime, tenant_id, {"status": status}, action, by)


async def _change_tenant(
    runtime: Runtime, tenant_id: str, values: dict[str, Any], action: str, by: Actor
) -> dict[str, object]:
    now = runtime.now()
    async with runtime.db.write() as session:
        tenant = await session.scalar(
            select(Tenant).where(Tenant.id == tenant_id).with_for_update()
        )
        if tenant is None:
            raise not_found("No such tenant.")
        for name, value in values.items():
            setattr(tenant, name, value)
        tenant.updated_at = now
        audit.record(
            session,
            at=now,
            actor=by.actor,
            action=action,
            target=tenant.id,
            tenant_id=tenant.id,
            request_id=by.request_id,
        )
        await session.flush()
        view = tenant_view(tenant)
    return view


def validate_scopes(scopes: Iterable[str] | None) -> list[str]:
    """Scopes of spec 1 §5; none (or an empty list) means applications:write only."""
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
    by: Actor | None = None,
) -> dict[str, object]:
    """A new key `service_<keyId>_<secret>` (CONTRACT §1.1); shown once, stored hashed."""
    chosen = validate_scopes(scopes)
    name = cut_text(name) or None
    key_id = _short_id(16)
    secret = random_token(40)
    now = runtime.now()
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
        if by is not None:
            audit.record(
                session,
                at=now,
                actor=by.actor,
                action="api_key.created",
                target=key_id,
                tenant_id=tenant_id,
                request_id=by.request_id,
            )
    return {
        "keyId": key_id,
        "apiKey": f"service_{key_id}_{secret}",
        "name": name,
        "scopes": chosen,
        "createdAt": format_ts(now),
    }


async def revoke_api_key(runtime: Runtime, key_id: str, by: Actor) -> dict[str, object]:
    """Revoke a key: every later request with it is 401 (spec 1 §5 rule 7)."""
    now = runtime.now()
    async with runtime.db.write() as session:
        key = await session.scalar(select(ApiKey).where(ApiKey.id == key_id).with_for_update())
        if key is None:
            raise not_found("No such API key.")
        if key.status != "revoked":
            key.status = "revoked"
            key.revoked_at = now
        audit.record(
            session,
            at=now,
            actor=by.actor,
            action="api_key.revoked",
            target=key.id,
            tenant_id=key.tenant_id,
            request_id=by.request_id,
        )
    return {"keyId": key_id, "status": "revoked"}
