"""The SQL of intakes: the dashboard's and the staff API's reads, the tenant's attached list,
the next position, and the statements the choice at provisioning runs
(docs/reference/tenant-api.md §5.1, docs/reference/staff-api.md §5). Plain lookups, no rules,
no writes."""

from __future__ import annotations

from sqlalchemy import bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.checklist import sort_key
from gatehouse.storage.tables.applications import Intake

# What the choice at provisioning reads of an intake, as Core statements built once:
# provisioning runs them on its transaction's driver connection (storage/tx_statements.py,
# docs/platform.md "Fast paths"); `intakes/rules.py` `choose_among` reads their rows.
_CHOICE_COLUMNS = (
    Intake.id,
    Intake.tenant_id,
    Intake.attached,
    Intake.order,
    Intake.position,
    Intake.checklist,
    Intake.form_fields,
)
CHOICE_BY_LABEL = select(*_CHOICE_COLUMNS).where(Intake.id == bindparam("label_id"))
CHOICE_ATTACHED = select(*_CHOICE_COLUMNS).where(
    Intake.tenant_id == bindparam("tenant_id"), Intake.attached.is_(True)
)


async def intakes_of(session: AsyncSession, tenant_id: str) -> list[Intake]:
    """Every intake of the tenant, attached or not, in creation order."""
    query = select(Intake).where(Intake.tenant_id == tenant_id).order_by(Intake.position)
    return list((await session.scalars(query)).all())


async def tenant_of_intake(session: AsyncSession, label_id: str) -> str | None:
    """The tenant id the intake label belongs to, or None when there is no such label."""
    return await session.scalar(select(Intake.tenant_id).where(Intake.id == label_id))


async def attached_intakes(session: AsyncSession, tenant_id: str) -> list[Intake]:
    """The tenant's attached intakes by order (null as zero), ties by creation."""
    result = await session.execute(
        select(Intake).where(Intake.tenant_id == tenant_id, Intake.attached.is_(True))
    )
    return sorted(result.scalars(), key=lambda intake: sort_key(intake.order, intake.position))


async def last_position(session: AsyncSession, tenant_id: str) -> int:
    """The highest creation position among the tenant's intakes (0 when it has none)."""
    position = await session.scalar(
        select(func.coalesce(func.max(Intake.position), 0)).where(Intake.tenant_id == tenant_id)
    )
    return int(position or 0)
