"""Creating staff members, tenants and API keys (CONTRACT §0 `staff create`, §4)."""

from __future__ import annotations

import secrets
import string
from collections.abc import Iterable

from sqlalchemy import select

from gatehouse.domain.normalize import normalize_email
from gatehouse.http.auth import (
    ALL_SCOPES,
    DEFAULT_SCOPES,
    STAFF_PREFIX,
    STAFF_ROLES,
    staff_token,
)
from gatehouse.ids import new_id, random_token
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.core import ApiKey, StaffMember, Tenant
from gatehouse.timeutil import format_ts

_KEY_ID_ALPHABET = string.ascii_lowercase + string.digits


class StaffInputError(ValueError):
    """A staff-side input that breaks a rule; the message names which."""


def _short_id(length: int = 16) -> str:
    return "".join(secrets.choice(_KEY_ID_ALPHABET) for _ in range(length))


async def create_staff_member(runtime: Runtime, email: str, role: str) -> dict[str, str]:
    """Create a staff member; the token is returned once and stored hashed."""
    normalized = normalize_email(email)
    if normalized is None:
        raise StaffInputError("email must contain @ and be at most 320 characters")
    if role not in STAFF_ROLES:
        raise StaffInputError(f"role must be one of {', '.join(STAFF_ROLES)}")
    staff_id = STAFF_PREFIX + _short_id(20)
    secret = random_token(40)
    async with runtime.db.write() as session:
        existing = await session.scalar(
            select(StaffMember.id).where(StaffMember.email == normalized)
        )
        if existing is not None:
            raise StaffInputError("a staff member with this email exists")
        session.add(
            StaffMember(
                id=staff_id,
                email=normalized,
                role=role,
                token_hash=runtime.crypto.hash_secret(secret),
                created_at=runtime.now(),
            )
        )
    return {
        "staffId": staff_id,
        "email": normalized,
        "role": role,
        "token": staff_token(staff_id, secret),
    }


def tenant_view(tenant: Tenant) -> dict[str, object]:
    return {
        "tenantId": tenant.id,
        "name": tenant.name,
        "status": tenant.status,
        "createdAt": format_ts(tenant.created_at),
        "webhookEndpointCap": tenant.webhook_endpoint_cap,
    }


async def create_tenant(runtime: Runtime, name: str) -> dict[str, object]:
    now = runtime.now()
    tenant = Tenant(
        id=new_id("ten"),
        name=name,
        status="active",
        webhook_endpoint_cap=5,
        created_at=now,
        updated_at=now,
    )
    async with runtime.db.write() as session:
        session.add(tenant)
    return tenant_view(tenant)


def validate_scopes(scopes: Iterable[str] | None) -> list[str]:
    if scopes is None:
        return list(DEFAULT_SCOPES)
    chosen = list(dict.fromkeys(scopes))
    unknown = [s for s in chosen if s not in ALL_SCOPES]
    if unknown or not chosen:
        raise StaffInputError(f"scopes must be a nonempty list of {', '.join(ALL_SCOPES)}")
    return chosen


async def create_api_key(
    runtime: Runtime, tenant_id: str, name: str | None = None, scopes: list[str] | None = None
) -> dict[str, object]:
    """A new key `service_<keyId>_<secret>`; shown once, stored hashed."""
    chosen = validate_scopes(scopes)
    key_id = _short_id(16)
    secret = random_token(40)
    now = runtime.now()
    async with runtime.db.write() as session:
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
    return {
        "keyId": key_id,
        "apiKey": f"service_{key_id}_{secret}",
        "name": name,
        "scopes": chosen,
        "createdAt": format_ts(now),
    }
