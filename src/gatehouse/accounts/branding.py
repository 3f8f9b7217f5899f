"""A tenant's branding in the applicant portal (docs/reference/portal.md, "Branding";
docs/reference/staff-api.md §4): the logo a staff admin uploads, the portal's read of a
tenant's display name, colours and logo, and the logo's bytes for the portal to serve.

The logo is checked like an applicant's upload (docs/documents.md, "Honest uploads"): its
declared type must be PNG, JPEG or WebP and its content must be that type. Its address is
its digest, so a new logo is a new address and browsers may keep one for a long time.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.documents import EXTENSIONS, normalized, sniff
from gatehouse.domain.branding import Palette, palette
from gatehouse.errors import PAYLOAD_TOO_LARGE, GatehouseError, invalid_argument, not_found
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, LoginLink
from gatehouse.storage.tables.core import Tenant, TenantLogo

LOGO_MAX_BYTES = 48 * 1024
LOGO_TYPES = ("image/png", "image/jpeg", "image/webp")
LOGO_PATH = "/portal/logos/"


@dataclass(frozen=True, slots=True)
class Branding:
    """What every portal page shows of the tenant whose application it is."""

    name: str
    palette: Palette
    logo_url: str | None


def logo_url(tenant: Tenant) -> str | None:
    """Where the portal serves the tenant's logo, or None when it has none."""
    if not tenant.logo_digest or not tenant.logo_type:
        return None
    return f"{LOGO_PATH}{tenant.logo_digest}.{EXTENSIONS[tenant.logo_type]}"


def branding_of(tenant: Tenant) -> Branding:
    return Branding(
        name=tenant.display_name or tenant.name,
        palette=palette(tenant.accent_color),
        logo_url=logo_url(tenant),
    )


async def portal_branding(runtime: Runtime, tenant_id: str) -> Branding | None:
    """The branding of the tenant whose application a portal session acts on."""
    async with runtime.db.read() as session:
        tenant = await session.get(Tenant, tenant_id)
    return branding_of(tenant) if tenant is not None else None


async def link_branding(runtime: Runtime, token: str) -> Branding | None:
    """The branding of the tenant a sign-in link belongs to (the link is not consumed)."""
    if not token or len(token) > 200:
        return None
    async with runtime.db.read() as session:
        tenant = await session.scalar(
            select(Tenant)
            .join(Application, Application.tenant_id == Tenant.id)
            .join(LoginLink, LoginLink.application_id == Application.id)
            .where(LoginLink.token_hash.in_(runtime.crypto.hash_candidates(token)))
            .limit(1)
        )
    return branding_of(tenant) if tenant is not None else None


def check_logo(content: bytes, declared_type: str | None) -> str:
    """The logo's media type, once its declared type and its content agree."""
    declared = normalized(declared_type)
    if declared not in LOGO_TYPES:
        raise invalid_argument(
            "The logo must be sent as image/png, image/jpeg or image/webp.",
            "logo",
            "type not accepted",
        )
    if len(content) > LOGO_MAX_BYTES:
        raise GatehouseError(
            PAYLOAD_TOO_LARGE,
            f"The logo is larger than {LOGO_MAX_BYTES} bytes.",
            details=[{"field": "logo", "issue": "too large"}],
        )
    if not content:
        raise invalid_argument("The logo is empty.", "logo", "empty")
    sniffed = sniff(content)
    if sniffed != declared:
        raise invalid_argument(
            f"The logo's content is not the {declared} it was sent as.",
            "logo",
            "content does not match the declared type",
        )
    return declared


async def set_logo(
    runtime: Runtime,
    ctx: WriteContext,
    tenant_id: str,
    content: bytes,
    declared_type: str | None,
) -> Tenant:
    """Replace the tenant's logo (audited `tenant.logo.updated`); the tenant row."""
    media_type = check_logo(content, declared_type)
    digest = hashlib.sha256(content).hexdigest()
    async with runtime.db.write() as session:
        tenant = await _tenant_for_update(session, tenant_id)
        stored = await session.get(TenantLogo, tenant_id)
        if stored is None:
            session.add(TenantLogo(tenant_id=tenant_id, content=content, updated_at=ctx.now))
        else:
            stored.content = content
            stored.updated_at = ctx.now
        tenant.logo_type = media_type
        tenant.logo_digest = digest
        tenant.updated_at = ctx.now
        ctx.audit(session, "tenant.logo.updated", tenant.id, tenant_id=tenant.id)
        await session.flush()
    return tenant


async def remove_logo(runtime: Runtime, ctx: WriteContext, tenant_id: str) -> Tenant:
    """Remove the tenant's logo (audited `tenant.logo.removed`); the tenant row."""
    async with runtime.db.write() as session:
        tenant = await _tenant_for_update(session, tenant_id)
        stored = await session.get(TenantLogo, tenant_id)
        if stored is not None:
            await session.delete(stored)
        tenant.logo_type = None
        tenant.logo_digest = None
        tenant.updated_at = ctx.now
        ctx.audit(session, "tenant.logo.removed", tenant.id, tenant_id=tenant.id)
        await session.flush()
    return tenant


async def logo_by_digest(runtime: Runtime, digest: str) -> tuple[bytes, str] | None:
    """The bytes and media type of the logo whose digest is `digest`, if one has it."""
    async with runtime.db.read() as session:
        row = (
            await session.execute(
                select(TenantLogo.content, Tenant.logo_type)
                .join(Tenant, Tenant.id == TenantLogo.tenant_id)
                .where(Tenant.logo_digest == digest)
                .limit(1)
            )
        ).first()
    if row is None or row[1] is None:
        return None
    return bytes(row[0]), str(row[1])


async def _tenant_for_update(session: AsyncSession, tenant_id: str) -> Tenant:
    tenant = await session.scalar(select(Tenant).where(Tenant.id == tenant_id).with_for_update())
    if tenant is None:
        raise not_found("No such tenant.")
    return tenant
