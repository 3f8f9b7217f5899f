"""Risk use cases (docs/screening.md, "Risk"): compute an application's level from its
intake's rules, keep it current, read it, and let an mlro override it."""

from __future__ import annotations

from typing import cast

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.applications import read_checklist
from gatehouse.audit.context import WriteContext
from gatehouse.domain.principals import Role, StaffPrincipal
from gatehouse.domain.risk import Assessment, Facts, assess, checklist_states, default_rules
from gatehouse.domain.screening import MAX_COMMENT, RISK_LEVELS, HitStatus
from gatehouse.errors import gone, invalid_argument, not_found, permission_denied
from gatehouse.risk import queries
from gatehouse.risk.schemas import Level, Risk, RiskOverride
from gatehouse.screening import hit_counts, intake_screening
from gatehouse.storage.follow_ups import APPLICATION_FACTS
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.screening import ApplicationRisk
from gatehouse.timeutil import format_ts, utcnow

APPLICATION_NOT_FOUND = "No application with this clientId."


async def _assess(session: AsyncSession, application: Application) -> Assessment:
    settings = (
        await intake_screening(session, application.label_id) if application.label_id else None
    )
    rules = settings.risk_rules if settings is not None else default_rules()
    counts = await hit_counts(session, application.id)
    needs_checklist = any("checklist" in rule["when"] for rule in rules.get("rules", []))
    checklist = (
        checklist_states(
            (await read_checklist(session, application.tenant_id, application.id))["data"]
        )
        if needs_checklist
        else {}
    )
    facts = Facts(
        answers=application.form_data or {},
        open_hits=counts.get(HitStatus.OPEN, 0),
        matched_hits=counts.get(HitStatus.MATCH, 0),
        checklist=checklist,
    )
    return assess(rules, facts)


async def recompute_risk(session: AsyncSession, application_id: str) -> None:
    """Compute the level again and store it (the queue filters on the stored level)."""
    application = await queries.application(session, application_id)
    if application is None or application.erased_at is not None:
        return
    found = await _assess(session, application)
    row = await queries.stored(session, application_id, for_update=True)
    if row is None:
        row = ApplicationRisk(application_id=application_id, computed_at=utcnow())
        session.add(row)
    row.score, row.factors, row.computed_level = found.score, found.factors, found.level
    row.level = row.override_level or found.level
    # Never before the change it reflects (the workers look for changes after it).
    row.computed_at = max(utcnow(), application.updated_at)


async def recompute_marked(session: AsyncSession, application_ids: list[str]) -> None:
    """The follow-up of a change to applications' facts (storage/follow_ups.py): their
    stored levels are computed again in the transaction that changed them."""
    for application_id in application_ids:
        await recompute_risk(session, application_id)


APPLICATION_FACTS.handle(recompute_marked)


async def _view(session: AsyncSession, application: Application) -> Risk:
    found = await _assess(session, application)
    row = await queries.stored(session, application.id)
    override: RiskOverride | None = None
    if row is not None and row.override_level:
        override = RiskOverride(
            level=cast(Level, row.override_level),
            reason=row.override_reason or "",
            by=await queries.staff_email(session, row.override_by),
            at=format_ts(row.override_at) or "",
        )
    return {
        "level": override["level"] if override else found.level,  # type: ignore[typeddict-item]
        "score": found.score,
        "factors": found.factors,  # type: ignore[typeddict-item]
        "computedLevel": found.level,  # type: ignore[typeddict-item]
        "override": override,
    }


async def risk_view(session: AsyncSession, application_id: str) -> Risk:
    """`GET …/risk`: computed from the current inputs, with the override if any."""
    application = await queries.application(session, application_id)
    if application is None or application.erased_at is not None:
        raise not_found(APPLICATION_NOT_FOUND)
    return await _view(session, application)


async def override_risk(
    session: AsyncSession,
    ctx: WriteContext,
    staff: StaffPrincipal,
    client_id: str,
    *,
    level: object,
    reason: object,
) -> Risk:
    """`POST …/risk/override` (mlro+): set the effective level, or clear it with null."""
    if not staff.at_least(Role.MLRO):
        raise permission_denied("Overriding risk needs the mlro role or higher.")
    if level is not None and level not in RISK_LEVELS:
        raise invalid_argument("level must be low, medium, high or null.", "level")
    if not isinstance(reason, str) or not reason.strip():
        raise invalid_argument("reason is required.", "reason", "required")
    if len(reason) > MAX_COMMENT:
        raise invalid_argument(f"reason holds at most {MAX_COMMENT} characters.", "reason")
    application = await queries.application(session, client_id, for_update=True)
    if application is None:
        raise not_found(APPLICATION_NOT_FOUND)
    if application.erased_at is not None:
        raise gone()
    found = await _assess(session, application)
    row = await queries.stored(session, client_id, for_update=True)
    if row is None:
        row = ApplicationRisk(application_id=client_id, computed_at=ctx.now)
        session.add(row)
    row.score, row.factors, row.computed_level = found.score, found.factors, found.level
    row.override_level = None if level is None else str(level)
    row.override_reason = reason if level is not None else None
    row.override_by = staff.staff_id if level is not None else None
    row.override_at = ctx.now if level is not None else None
    row.level, row.computed_at = row.override_level or found.level, ctx.now
    ctx.audit(session, "risk.override", client_id, client_id, tenant_id=application.tenant_id)
    await session.flush()
    return await _view(session, application)
