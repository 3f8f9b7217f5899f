"""Reads of tenants, API keys and staff members for the dashboard's pages
(docs/portal-and-dashboard.md) and the tenant service's lookups: plain lookups, no rules, no
writes."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.paging import Position, keyset_after
from gatehouse.storage.tables.core import ApiKey, StaffMember, Tenant
from gatehouse.storage.tables.staff_identity import StaffPasskey


async def tenants_by_name(session: AsyncSession) -> list[Tenant]:
    """Every tenant, by name (the dashboard's tenant list is unpaged)."""
    return list((await session.scalars(select(Tenant).order_by(Tenant.name))).all())


async def tenant_by_id(session: AsyncSession, tenant_id: str) -> Tenant | None:
    return await session.get(Tenant, tenant_id)


async def api_keys_of(session: AsyncSession, tenant_id: str) -> list[ApiKey]:
    """The tenant's API keys, revoked ones included, newest first."""
    query = (
        select(ApiKey)
        .where(ApiKey.tenant_id == tenant_id)
        .order_by(ApiKey.created_at.desc(), ApiKey.id.desc())
    )
    return list((await session.scalars(query)).all())


async def tenant_of_api_key(session: AsyncSession, key_id: str) -> str | None:
    """The tenant id the key belongs to, or None when there is no such key."""
    return await session.scalar(select(ApiKey.tenant_id).where(ApiKey.id == key_id))


async def staff_email(session: AsyncSession, staff_id: str | None) -> str | None:
    """The staff member's email, or None when there is no such member."""
    if staff_id is None:
        return None
    return await session.scalar(select(StaffMember.email).where(StaffMember.id == staff_id))


async def passkey_count(session: AsyncSession, staff_id: str | None) -> int:
    """How many passkeys the staff member has enrolled (none without a member)."""
    if staff_id is None:
        return 0
    count = await session.scalar(
        select(func.count()).select_from(StaffPasskey).where(StaffPasskey.staff_id == staff_id)
    )
    return int(count or 0)


async def tenants_page(
    session: AsyncSession, position: Position | None, limit: int
) -> list[Tenant]:
    """Up to `limit` tenants after `position`, newest first (createdAt, then id)."""
    stmt = keyset_after(select(Tenant), Tenant.created_at, Tenant.id, position)
    return list((await session.scalars(stmt.limit(limit))).all())


async def tenant_for_update(session: AsyncSession, tenant_id: str) -> Tenant | None:
    """The tenant row, locked."""
    return await session.scalar(select(Tenant).where(Tenant.id == tenant_id).with_for_update())


async def api_key_for_update(session: AsyncSession, key_id: str) -> ApiKey | None:
    """The API key row, locked."""
    return await session.scalar(select(ApiKey).where(ApiKey.id == key_id).with_for_update())
