"""Which tenant is a sandbox one, for the surfaces that show or refuse it (docs/sandbox.md),
and for a simulated step inside its transaction.

The surfaces' reads are one statement each, without a session (`Database.fetch_all`): a
tenant's environment is fixed when it is created.
"""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.sandbox import SANDBOX
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, LoginLink
from gatehouse.storage.tables.core import Tenant

_TENANT = select(Tenant.environment).where(
    Tenant.id == bindparam("tenant_id", type_=Tenant.id.type)
)
_LINK = (
    select(Tenant.environment)
    .join(Application, Application.tenant_id == Tenant.id)
    .join(LoginLink, LoginLink.application_id == Application.id)
    .where(LoginLink.token_hash.in_(bindparam("hashes", expanding=True)))
)


async def is_sandbox_tenant(runtime: Runtime, tenant_id: str) -> bool:
    """Whether the tenant was created as a sandbox one."""
    rows = await runtime.db.fetch_all(_TENANT, {"tenant_id": tenant_id})
    return bool(rows) and rows[0][0] == SANDBOX


async def link_in_sandbox(runtime: Runtime, token: str) -> bool:
    """Whether a sign-in link token belongs to an application of a sandbox tenant."""
    if not token or len(token) > 200:
        return False
    hashes = list(runtime.crypto.hash_candidates(token))
    rows = await runtime.db.fetch_all(_LINK, {"hashes": hashes})
    return bool(rows) and rows[0][0] == SANDBOX


async def environment_of(session: AsyncSession, tenant_id: str) -> str | None:
    """The tenant's environment, read in the caller's transaction (None: no such tenant)."""
    return await session.scalar(select(Tenant.environment).where(Tenant.id == tenant_id))
