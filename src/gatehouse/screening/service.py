"""Screening use cases for staff (docs/reference/staff-api.md §17): the lists, an
application's hits, resolving a hit, asking for a run; and what other features call."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.audit.context import WriteContext
from gatehouse.domain.principals import Role, StaffPrincipal
from gatehouse.domain.screening import MAX_COMMENT, RESOLUTIONS, HitStatus, ScreeningStatus
from gatehouse.errors import gone, invalid_argument, not_found, permission_denied
from gatehouse.screening import jobs, queries
from gatehouse.screening.schemas import (
    Hit,
    Screening,
    ScreeningRequested,
    ScreeningSummary,
    WatchLists,
    hit_view,
    list_view,
)
from gatehouse.screening.subjects import validate_screening_setting
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tables.screening import IntakeScreening
from gatehouse.timeutil import format_ts

APPLICATION_NOT_FOUND = "No application with this clientId."


async def watch_lists(session: AsyncSession) -> WatchLists:
    return {"data": [list_view(row) for row in await queries.lists_in_force(session)]}


async def _readable(session: AsyncSession, client_id: str) -> Application:
    application = await queries.application(session, client_id)
    if application is None or application.erased_at is not None:
        raise not_found(APPLICATION_NOT_FOUND)
    return application


async def read_screening(session: AsyncSession, client_id: str) -> Screening:
    """`{status, screenedAt, data}`, hits by score, best first."""
    application = await _readable(session, client_id)
    state = await queries.state(session, application.id)
    hits = await queries.current_hits(session, application.id)
    emails = await queries.staff_emails(session, [hit.resolved_by or "" for hit in hits])
    if state is None:
        status = ScreeningStatus.NOT_SCREENED
    elif any(hit.status == HitStatus.OPEN for hit in hits):
        status = ScreeningStatus.HITS
    else:
        status = ScreeningStatus.CLEAR
    return {
        "status": status,  # type: ignore[typeddict-item]
        "screenedAt": None if state is None else format_ts(state.screened_at),
        "data": [hit_view(hit, emails) for hit in hits],
    }


def _resolution(resolution: object, comment: object) -> tuple[str, str]:
    if resolution not in RESOLUTIONS:
        raise invalid_argument(
            "resolution must be match or no_match.", "resolution", "unknown resolution"
        )
    if not isinstance(comment, str) or not comment.strip():
        raise invalid_argument("comment is required.", "comment", "required")
    if len(comment) > MAX_COMMENT:
        raise invalid_argument(
            f"comment holds at most {MAX_COMMENT} characters.", "comment", "too long"
        )
    return str(resolution), comment


async def resolve_hit(
    session: AsyncSession,
    ctx: WriteContext,
    staff: StaffPrincipal,
    hit_id: str,
    *,
    resolution: object,
    comment: object,
) -> Hit:
    """Resolve a hit as a true match or not; changing a resolved one needs mlro+."""
    clean_resolution, clean_comment = _resolution(resolution, comment)
    hit = await queries.hit_for_update(session, hit_id)
    if hit is None or not hit.current:
        raise not_found("No such screening hit.")
    application = await queries.application(session, hit.application_id)
    if application is None or application.erased_at is not None:
        raise gone()
    if hit.status != HitStatus.OPEN and not staff.at_least(Role.MLRO):
        raise permission_denied("Changing a resolved hit needs the mlro role or higher.")
    hit.status, hit.comment = clean_resolution, clean_comment
    hit.resolved_by, hit.resolved_at, hit.updated_at = staff.staff_id, ctx.now, ctx.now
    ctx.audit(
        session,
        "screening.hit.resolved",
        hit.id,
        hit.application_id,
        tenant_id=application.tenant_id,
    )
    await jobs.enqueue(session, hit.application_id, "hit_resolved", ctx.now, force=False)
    await session.flush()
    return hit_view(hit, {staff.staff_id: staff.email})


async def application_of_hit(session: AsyncSession, hit_id: str) -> str | None:
    hit = await queries.hit(session, hit_id)
    return None if hit is None else hit.application_id


async def run_screening(
    session: AsyncSession, ctx: WriteContext, client_id: str
) -> ScreeningRequested:
    """`POST …/screening/run`: queue a screening now (202)."""
    application = await queries.application(session, client_id)
    if application is None:
        raise not_found(APPLICATION_NOT_FOUND)
    if application.erased_at is not None:
        raise gone()
    await jobs.enqueue(session, application.id, "staff_request", ctx.now, force=True)
    ctx.audit(
        session,
        "screening.run",
        application.id,
        application.id,
        tenant_id=application.tenant_id,
    )
    return {"clientId": application.id, "queued": True}


# --- what other features call (screening/__init__.py) ---------------------------------


async def request_screening(
    session: AsyncSession, application_id: str, reason: str, *, force: bool = True, now: datetime
) -> None:
    """Queue a screening (and a risk computation) of one application in the caller's
    transaction; the workers run it within seconds."""
    await jobs.enqueue(session, application_id, reason, now, force=force)


async def request_intake_screening(
    session: AsyncSession, intake_id: str, reason: str, *, now: datetime
) -> None:
    """Queue a risk computation (and a screening if the subjects changed) of every
    application of an intake whose settings changed."""
    await jobs.enqueue_where(session, Application.label_id == intake_id, reason, now, force=False)


async def hit_counts(session: AsyncSession, application_id: str) -> dict[str, int]:
    """The application's hits of the latest run, by status."""
    return await queries.hit_counts(session, application_id)


async def open_hit_count(session: AsyncSession, application_id: str) -> int:
    return (await queries.hit_counts(session, application_id)).get(HitStatus.OPEN, 0)


async def screening_summary(session: AsyncSession, application_id: str) -> ScreeningSummary:
    state = await queries.state(session, application_id)
    counts = await queries.hit_counts(session, application_id)
    status = (
        ScreeningStatus.NOT_SCREENED
        if state is None
        else ScreeningStatus.HITS
        if counts.get(HitStatus.OPEN)
        else ScreeningStatus.CLEAR
    )
    return {
        "status": status,
        "screenedAt": None if state is None else format_ts(state.screened_at),
        "open": counts.get(HitStatus.OPEN, 0),
        "match": counts.get(HitStatus.MATCH, 0),
        "noMatch": counts.get(HitStatus.NO_MATCH, 0),
    }


async def erase_screening(session: AsyncSession, application_id: str) -> None:
    """An erased application keeps no hit, screening state, job or risk (hits hold names,
    an override's reason may)."""
    await queries.erase(session, application_id)


async def intake_screening(session: AsyncSession, intake_id: str) -> IntakeScreening | None:
    return await queries.intake_settings(session, intake_id)


async def save_intake_settings(
    session: AsyncSession, intake_id: str, screening: dict[str, Any], risk_rules: dict[str, Any]
) -> None:
    row = await queries.intake_settings(session, intake_id)
    if row is None:
        session.add(
            IntakeScreening(intake_id=intake_id, screening=screening, risk_rules=risk_rules)
        )
    else:
        row.screening, row.risk_rules = screening, risk_rules


def screening_setting(value: object, field_keys: Collection[str]) -> dict[str, Any]:
    return validate_screening_setting(value, field_keys)
