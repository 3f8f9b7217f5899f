"""Intake labels: the tenant list and the staff configuration of them
(docs/reference/tenant-api.md §2.9, §5.5; docs/reference/staff-api.md §5). The choice made at
provisioning (§5.1) is `rules.py` `choose_among` over the statements of `queries.py`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.domain.checklist import (
    ConfigurationError,
    validate_checklist,
    validate_form_fields,
)
from gatehouse.domain.risk import validate_rules
from gatehouse.errors import invalid_argument, not_found
from gatehouse.ids import new_id
from gatehouse.intakes.queries import attached_intakes, last_position
from gatehouse.intakes.rules import config_error, valid_name, valid_order
from gatehouse.intakes.schemas import (
    IntakeList,
    StaffIntake,
    intake_label_view,
    staff_intake_view,
)
from gatehouse.screening import (
    intake_screening,
    request_intake_screening,
    save_intake_settings,
    screening_setting,
)
from gatehouse.storage.tables.applications import Intake
from gatehouse.storage.tables.core import Tenant


async def staff_intake_read(session: AsyncSession, intake: Intake) -> StaffIntake:
    """The staff view with the intake's screening mapping and risk rules."""
    settings = await intake_screening(session, intake.id)
    if settings is None:
        return staff_intake_view(intake)
    return staff_intake_view(intake, settings.screening, settings.risk_rules)


def _keys(entries: object) -> set[str]:
    return {str(e["key"]) for e in entries or [] if isinstance(e, dict)}  # type: ignore[attr-defined]


async def _screening_settings(
    session: AsyncSession, ctx: WriteContext, intake: Intake, changes: dict[str, Any]
) -> None:
    """Validate the screening mapping and risk rules (sent, or kept) against the intake's
    form fields and checklist, store them, and queue the intake's applications."""
    touched = {"screening", "riskRules", "formFields", "checklist"} & set(changes)
    if not touched:
        return
    current = await intake_screening(session, intake.id)
    screening = changes.get("screening", current.screening if current else None)
    rules = changes.get("riskRules", current.risk_rules if current else None)
    fields, items = _keys(intake.form_fields), _keys(intake.checklist)
    clean_screening = screening_setting(screening, fields)
    clean_rules = validate_rules(rules, fields, items)
    await save_intake_settings(session, intake.id, clean_screening, clean_rules)
    if current is not None or {"screening", "riskRules"} & set(changes):
        await request_intake_screening(session, intake.id, "intake_changed", now=ctx.now)


async def list_intake_labels(session: AsyncSession, tenant_id: str) -> IntakeList:
    """GET /v1/intakes (docs/reference/tenant-api.md §5.5): attached labels only, unpaged."""
    if await session.get(Tenant, tenant_id) is None:
        raise not_found("No such tenant.")
    return {"data": [intake_label_view(i) for i in await attached_intakes(session, tenant_id)]}


# --- staff configuration (docs/reference/staff-api.md §5) ------------------------------


async def create_intake(
    session: AsyncSession,
    ctx: WriteContext,
    *,
    tenant_id: str,
    name: str,
    order: int | None,
    attached: bool,
    checklist: object,
    form_fields: object,
    screening: object = None,
    risk_rules: object = None,
) -> Intake:
    """POST /staff/v1/tenants/{tenantId}/intakes: validates, appends in creation order."""
    clean_name = valid_name(name)
    clean_order = valid_order(order)
    try:
        clean_checklist = validate_checklist(checklist)
    except ConfigurationError as exc:
        raise config_error("checklist", exc) from None
    try:
        clean_fields = validate_form_fields(form_fields)
    except ConfigurationError as exc:
        raise config_error("formFields", exc) from None
    if await session.get(Tenant, tenant_id) is None:
        raise not_found("No such tenant.")
    position = await last_position(session, tenant_id)
    intake = Intake(
        id=new_id("lbl"),
        tenant_id=tenant_id,
        position=position + 1,
        name=clean_name,
        order=clean_order,
        attached=attached,
        checklist=clean_checklist,
        form_fields=clean_fields,
        created_at=ctx.now,
        updated_at=ctx.now,
    )
    session.add(intake)
    await session.flush()
    await _screening_settings(
        session, ctx, intake, {"screening": screening, "riskRules": risk_rules}
    )
    ctx.audit(session, "intake.create", intake.id, tenant_id=tenant_id)
    await session.flush()
    return intake


async def update_intake(
    session: AsyncSession, ctx: WriteContext, label_id: str, changes: dict[str, Any]
) -> Intake:
    """PATCH /staff/v1/intakes/{labelId}: name, order, attached (and the lists)."""
    intake = await session.get(Intake, label_id)
    if intake is None:
        raise not_found("No such intake.")
    if "name" in changes:
        intake.name = valid_name(changes["name"])
    if "order" in changes:
        intake.order = valid_order(changes["order"])
    if "attached" in changes:
        if not isinstance(changes["attached"], bool):
            raise invalid_argument("attached must be a boolean.", "attached", "expected boolean")
        intake.attached = changes["attached"]
    if "checklist" in changes:
        try:
            intake.checklist = validate_checklist(changes["checklist"])
        except ConfigurationError as exc:
            raise config_error("checklist", exc) from None
    if "formFields" in changes:
        try:
            intake.form_fields = validate_form_fields(changes["formFields"])
        except ConfigurationError as exc:
            raise config_error("formFields", exc) from None
    await _screening_settings(session, ctx, intake, changes)
    intake.updated_at = ctx.now
    ctx.audit(session, "intake.update", intake.id, tenant_id=intake.tenant_id)
    return intake
