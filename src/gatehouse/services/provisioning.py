"""Provisioning: POST /v1/applications and POST /v1/login-sessions (spec 1 §4.1, §4.2).

The identity (tenant + externalRef when nonempty, else tenant + email) is
enforced by the unique constraint on `(tenant_id, identity)`: on PostgreSQL
the first insert uses ON CONFLICT DO NOTHING and a loser re-reads the
winner's row under its lock; on SQLite the write transaction (BEGIN
IMMEDIATE) already serializes the check and the insert.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncSession

from gatehouse.domain.access import Operation
from gatehouse.domain.identity import (
    Applicant,
    allowed_redirect,
    erased_identity,
    is_bound_to_other_email,
)
from gatehouse.domain.members import (
    ROLE_APPLICANT,
    MemberRuleError,
    Roster,
    check_room_for_one_more,
)
from gatehouse.http.errors import ALREADY_EXISTS, ApiError, failed_precondition
from gatehouse.ids import new_id
from gatehouse.services import applications_repo as repo
from gatehouse.services.application_reads import load_application_view
from gatehouse.services.guards import TenantWrite, enforce
from gatehouse.services.intakes import choose_intake
from gatehouse.services.login_links import mint_link
from gatehouse.services.views import application_view
from gatehouse.storage.tables.applications import Application, Member


@dataclass(slots=True)
class Provisioned:
    application: Application
    applicant_member: Member
    created: bool


def _new_application_values(
    write: TenantWrite, applicant: Applicant, label_id: str
) -> dict[str, Any]:
    return {
        "id": new_id("app"),
        "tenant_id": write.tenant_id,
        "identity": applicant.identity,
        "external_ref": applicant.external_ref,
        "applicant_email": applicant.email,
        "company_name": applicant.company_name,
        "label_id": label_id,
        "status": "pending",
        "locked": False,
        "form_data": {},
        "event_sequence": 0,
        "request_sequence": 0,
        "created_at": write.now,
        "updated_at": write.now,
    }


async def _insert_application(
    session: AsyncSession, write: TenantWrite, applicant: Applicant, label_id: str
) -> Application | None:
    """Insert the new application, or None when a concurrent call won the identity."""
    values = _new_application_values(write, applicant, label_id)
    if write.runtime.db.is_sqlite:
        application = Application(**values)
        session.add(application)
        await session.flush()
        return application
    # RETURNING the whole row gives the ORM object without a second query (issue 8).
    stmt = (
        postgresql.insert(Application)
        .values(**values)
        .on_conflict_do_nothing(index_elements=["tenant_id", "identity"])
        .returning(Application)
    )
    inserted: Application | None = (await session.execute(stmt)).scalar_one_or_none()
    return inserted


def _add_applicant_member(session: AsyncSession, application: Application, now: Any) -> Member:
    member = Member(
        id=new_id("mem"),
        application_id=application.id,
        email=application.applicant_email or "",
        role=ROLE_APPLICANT,
        joined_at=now,
    )
    session.add(member)
    return member


async def _repeat(
    session: AsyncSession, write: TenantWrite, application: Application, applicant: Applicant
) -> Provisioned:
    """Rule 2: no rename, no intake change; refresh updatedAt; restore the applicant."""
    if application.erased_at is not None:
        enforce(Operation.PROVISION, write, application)
    if is_bound_to_other_email(application.applicant_email, applicant.email):
        raise ApiError(ALREADY_EXISTS, "This externalRef is bound to another applicant email.")
    enforce(Operation.PROVISION, write, application)
    members = await repo.members_of(session, application.id)
    roster = Roster(
        [(m.id, m.email) for m in members], application.owner_uid, application.applicant_email
    )
    applicant_uid = roster.uid_of(applicant.email)
    if applicant_uid is None:
        try:
            check_room_for_one_more(len(members))
        except MemberRuleError as exc:
            raise failed_precondition(str(exc)) from None
        member = _add_applicant_member(session, application, write.now)
        if roster.current_owner() is None:
            application.owner_uid = member.id
    else:
        member = next(m for m in members if m.id == applicant_uid)
    application.updated_at = write.now
    return Provisioned(application, member, created=False)


async def provision(
    session: AsyncSession, write: TenantWrite, applicant: Applicant, label_id: str | None
) -> Provisioned:
    """Create the application for this identity, or answer the existing one."""
    enforce(Operation.PROVISION, write, None)
    existing = await repo.application_by_identity(
        session, write.tenant_id, applicant.identity, for_update=True
    )
    if existing is None:
        pseudonym = erased_identity(applicant.identity, write.runtime.crypto.hash_secret)
        existing = await repo.application_by_identity(session, write.tenant_id, pseudonym)
    if existing is not None:
        return await _repeat(session, write, existing, applicant)
    intake = await choose_intake(session, write.tenant_id, label_id)
    application = await _insert_application(session, write, applicant, intake.id)
    if application is None:
        # A concurrent first call committed this identity: this call is a repeat.
        existing = await repo.application_by_identity(
            session, write.tenant_id, applicant.identity, for_update=True
        )
        assert existing is not None
        return await _repeat(session, write, existing, applicant)
    member = _add_applicant_member(session, application, write.now)
    application.owner_uid = member.id
    await session.flush()
    return Provisioned(application, member, created=True)


async def create_application(
    session: AsyncSession, write: TenantWrite, applicant: Applicant, label_id: str | None
) -> tuple[int, dict[str, Any]]:
    """POST /v1/applications: 201 with the application, 200 on a repeat (CONTRACT §1.3)."""
    result = await provision(session, write, applicant, label_id)
    await session.flush()
    write.audit(
        session,
        "application.create" if result.created else "application.provision",
        result.application.id,
        result.application.id,
    )
    if result.created:
        # A new application has only its applicant, no decision and no request yet.
        view = application_view(result.application, [result.applicant_member], None, None)
    else:
        view = await load_application_view(session, result.application)
    return (201 if result.created else 200), view


async def create_login_session(
    session: AsyncSession,
    write: TenantWrite,
    applicant: Applicant,
    label_id: str | None,
    redirect_path: object,
) -> dict[str, Any]:
    """POST /v1/login-sessions: provision, then a link for the applicant (spec 1 §4.2)."""
    result = await provision(session, write, applicant, label_id)
    await session.flush()
    link = mint_link(
        session,
        write.runtime,
        application_id=result.application.id,
        member_id=result.applicant_member.id,
        redirect_path=allowed_redirect(redirect_path),
        now=write.now,
    )
    write.audit(
        session,
        "application.create" if result.created else "application.provision",
        result.application.id,
        result.application.id,
    )
    write.audit(session, "login_session.create", result.applicant_member.id, result.application.id)
    return {**link.view(result.application.id), "status": result.application.status}
