"""Intake labels: the tenant list, the choice made at provisioning, and the
staff configuration of them (docs/reference/tenant-api.md §2.9, §5.1, §5.5;
docs/reference/staff-api.md §5).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.domain.checklist import (
    ConfigurationError,
    is_usable_configuration,
    sort_key,
    validate_checklist,
    validate_form_fields,
)
from gatehouse.domain.numbers import INT32_MAX, INT32_MIN, parse_int
from gatehouse.domain.risk import default_rules, validate_rules
from gatehouse.errors import failed_precondition, invalid_argument, not_found
from gatehouse.ids import new_id
from gatehouse.intakes.schemas import (
    ChecklistEntry,
    FormField,
    IntakeLabel,
    IntakeList,
    RiskRules,
    ScreeningSetting,
    StaffIntake,
)
from gatehouse.screening import (
    intake_screening,
    request_intake_screening,
    save_intake_settings,
    screening_setting,
)
from gatehouse.storage.tables.applications import Intake
from gatehouse.storage.tables.core import Tenant


def intake_label_view(intake: Intake) -> IntakeLabel:
    """Intake label list element (docs/reference/tenant-api.md §2.9); nothing internal."""
    return {"labelId": intake.id, "name": intake.name, "order": intake.order}


def staff_intake_view(
    intake: Intake,
    screening: dict[str, Any] | None = None,
    risk_rules: dict[str, Any] | None = None,
) -> StaffIntake:
    """Staff view (docs/reference/staff-api.md §5.1):
    `{labelId, name, order, attached, checklist, formFields, screening, riskRules}`."""
    return {
        "labelId": intake.id,
        "name": intake.name,
        "order": intake.order,
        "attached": intake.attached,
        "checklist": cast(list[ChecklistEntry], list(intake.checklist or [])),
        "formFields": cast(list[FormField], list(intake.form_fields or [])),
        "screening": cast(ScreeningSetting, screening or {"people": []}),
        "riskRules": cast(RiskRules, risk_rules or default_rules()),
    }


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


async def attached_intakes(session: AsyncSession, tenant_id: str) -> list[Intake]:
    """The tenant's attached intakes by order (null as zero), ties by creation."""
    result = await session.execute(
        select(Intake).where(Intake.tenant_id == tenant_id, Intake.attached.is_(True))
    )
    return sorted(result.scalars(), key=lambda intake: sort_key(intake.order, intake.position))


async def list_intake_labels(session: AsyncSession, tenant_id: str) -> IntakeList:
    """GET /v1/intakes (docs/reference/tenant-api.md §5.5): attached labels only, unpaged."""
    if await session.get(Tenant, tenant_id) is None:
        raise not_found("No such tenant.")
    return {"data": [intake_label_view(i) for i in await attached_intakes(session, tenant_id)]}


def _usable(intake: Any) -> bool:
    return is_usable_configuration(intake.checklist, intake.form_fields)


# What the choice at provisioning reads of an intake, as Core statements built once:
# provisioning runs them on its transaction's driver connection (storage/tx_statements.py,
# docs/platform.md "Fast paths").
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


def choose_among(rows: Sequence[Any], tenant_id: str, label_id: str | None) -> str:
    """The label id a new application gets (docs/reference/tenant-api.md §5.1 rules 3 and
    4), among the rows of `CHOICE_BY_LABEL` (a label named) or `CHOICE_ATTACHED` (none named).

    A named label must be the tenant's and attached (else 400
    invalid-argument) with a valid configuration (else 400
    failed-precondition). Without one, the first usable attached intake in
    configured order; none attached is invalid-argument, only broken ones
    failed-precondition.
    """
    if label_id is not None:
        intake = rows[0] if rows else None
        if intake is None or intake.tenant_id != tenant_id or not intake.attached:
            raise invalid_argument(
                "labelId does not name an attached intake.", "labelId", "unknown intake label"
            )
        if not _usable(intake):
            raise failed_precondition("The intake's configuration is not usable.")
        return str(intake.id)
    candidates = sorted(rows, key=lambda intake: sort_key(intake.order, intake.position))
    for intake in candidates:
        if _usable(intake):
            return str(intake.id)
    if candidates:
        raise failed_precondition("No intake of this tenant has a usable configuration.")
    raise invalid_argument("This tenant has no usable intake.", "labelId", "no usable intake")


# --- staff configuration (docs/reference/staff-api.md §5) ------------------------------


def _valid_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise invalid_argument("name must be a nonempty string.", "name", "required")
    return name.strip()[:200]


def valid_order(order: object) -> int | None:
    """`order`: null, or an integer within the database's INTEGER range (docs/platform.md)."""
    return None if order is None else parse_int(order, "order", INT32_MIN, INT32_MAX)


def _config_error(field: str, exc: ConfigurationError) -> Exception:
    return invalid_argument(f"{field} is not valid: {exc}", exc.field or field, str(exc))


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
    clean_name = _valid_name(name)
    clean_order = valid_order(order)
    try:
        clean_checklist = validate_checklist(checklist)
    except ConfigurationError as exc:
        raise _config_error("checklist", exc) from None
    try:
        clean_fields = validate_form_fields(form_fields)
    except ConfigurationError as exc:
        raise _config_error("formFields", exc) from None
    if await session.get(Tenant, tenant_id) is None:
        raise not_found("No such tenant.")
    position = await session.scalar(
        select(func.coalesce(func.max(Intake.position), 0)).where(Intake.tenant_id == tenant_id)
    )
    intake = Intake(
        id=new_id("lbl"),
        tenant_id=tenant_id,
        position=int(position or 0) + 1,
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
        intake.name = _valid_name(changes["name"])
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
            raise _config_error("checklist", exc) from None
    if "formFields" in changes:
        try:
            intake.form_fields = validate_form_fields(changes["formFields"])
        except ConfigurationError as exc:
            raise _config_error("formFields", exc) from None
    await _screening_settings(session, ctx, intake, changes)
    intake.updated_at = ctx.now
    ctx.audit(session, "intake.update", intake.id, tenant_id=intake.tenant_id)
    return intake
