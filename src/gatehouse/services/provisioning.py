"""Provisioning: POST /v1/applications and POST /v1/login-sessions (spec 1 §4.1, §4.2).

The identity (tenant + externalRef when nonempty, else tenant + email) is
enforced by the unique constraint on `(tenant_id, identity)`: on PostgreSQL
the first insert uses ON CONFLICT DO NOTHING and a loser re-reads the
winner's row under its lock; on SQLite the write transaction (BEGIN
IMMEDIATE) already serializes the check and the insert.

The SQL runs as Core statements on the write transaction's connection
(services/provisioning_store.py); this module holds the flow and the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from gatehouse.domain.access import Operation
from gatehouse.domain.identity import (
    Applicant,
    allowed_redirect,
    erased_identity,
    is_bound_to_other_email,
)
from gatehouse.domain.members import MemberRuleError, Roster, check_room_for_one_more
from gatehouse.http.errors import ALREADY_EXISTS, ApiError, failed_precondition
from gatehouse.ids import new_id
from gatehouse.services import provisioning_store as store
from gatehouse.services.application_snapshot import Attachments, load_attachments_on
from gatehouse.services.guards import TenantWrite, enforce
from gatehouse.services.intakes import choose_intake
from gatehouse.services.login_links import mint_link
from gatehouse.services.views import MemberFields, application_view
from gatehouse.storage.tables.applications import Application, Member


@dataclass(slots=True)
class Provisioned:
    """The application as it stands after provisioning, and what its read shows."""

    application: Application
    applicant_member: MemberFields
    created: bool
    attachments: Attachments

    def view(self) -> dict[str, Any]:
        found = self.attachments
        return application_view(
            self.application, found.members, found.latest_decision, found.open_info_request
        )


def _new_application_values(
    write: TenantWrite, applicant: Applicant, label_id: str, owner_uid: str
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
        "owner_uid": owner_uid,
        "locked": False,
        "form_data": {},
        "event_sequence": 0,
        "request_sequence": 0,
        "created_at": write.now,
        "updated_at": write.now,
    }


async def _repeat(
    connection: AsyncConnection, write: TenantWrite, application: Application, applicant: Applicant
) -> Provisioned:
    """Rule 2: no rename, no intake change; refresh updatedAt; restore the applicant."""
    if application.erased_at is not None:
        enforce(Operation.PROVISION, write, application)
    if is_bound_to_other_email(application.applicant_email, applicant.email):
        raise ApiError(ALREADY_EXISTS, "This externalRef is bound to another applicant email.")
    enforce(Operation.PROVISION, write, application)
    found = await load_attachments_on(connection, application.id)
    members = found.members
    roster = Roster(
        [(m.id, m.email) for m in members], application.owner_uid, application.applicant_email
    )
    applicant_uid = roster.uid_of(applicant.email)
    new_owner: str | None = None
    member: MemberFields
    if applicant_uid is None:
        try:
            check_room_for_one_more(len(members))
        except MemberRuleError as exc:
            raise failed_precondition(str(exc)) from None
        values = store.member_values(
            new_id("mem"), application.id, application.applicant_email or "", write.now
        )
        await store.insert_member(connection, values)
        member = Member(**values)
        # Joined now: the last in joining order.
        members = [*members, member]
        if roster.current_owner() is None:
            new_owner = application.owner_uid = member.id
    else:
        member = next(m for m in members if m.id == applicant_uid)
    audit = write.audit_values("application.provision", application.id, application.id)
    sqlite = write.runtime.db.is_sqlite
    await store.touch(connection, application.id, write.now, new_owner, audit, sqlite=sqlite)
    application.updated_at = write.now
    attachments = Attachments(members, found.latest_decision, found.open_info_request)
    return Provisioned(application, member, False, attachments)


async def provision(
    connection: AsyncConnection, write: TenantWrite, applicant: Applicant, label_id: str | None
) -> Provisioned:
    """Create the application for this identity, or answer the existing one.

    Writes the audit entry of the provisioning itself (`application.create` or
    `application.provision`) in the caller's transaction.
    """
    enforce(Operation.PROVISION, write, None)
    pseudonym = erased_identity(applicant.identity, write.runtime.crypto.hash_secret)
    existing = await store.lock_identity(connection, write.tenant_id, applicant.identity, pseudonym)
    if existing is not None:
        return await _repeat(connection, write, existing, applicant)
    chosen = await choose_intake(connection, write.tenant_id, label_id)
    member_id = new_id("mem")
    values = _new_application_values(write, applicant, chosen, member_id)
    member = store.member_values(member_id, values["id"], applicant.email or "", write.now)
    audit = write.audit_values("application.create", values["id"], values["id"])
    created = await store.create(
        connection, values, member, audit, sqlite=write.runtime.db.is_sqlite
    )
    if not created:
        # A concurrent first call committed this identity: this call is a repeat.
        existing = await store.lock_identity(
            connection, write.tenant_id, applicant.identity, pseudonym
        )
        assert existing is not None
        return await _repeat(connection, write, existing, applicant)
    # A new application has only its applicant, no decision and no request yet.
    applicant_member = Member(**member)
    attachments = Attachments([applicant_member], None, None)
    return Provisioned(Application(**values), applicant_member, True, attachments)


async def create_application(
    connection: AsyncConnection, write: TenantWrite, applicant: Applicant, label_id: str | None
) -> tuple[int, dict[str, Any]]:
    """POST /v1/applications: 201 with the application, 200 on a repeat (CONTRACT §1.3)."""
    result = await provision(connection, write, applicant, label_id)
    return (201 if result.created else 200), result.view()


async def create_login_session(
    session: AsyncSession,
    write: TenantWrite,
    applicant: Applicant,
    label_id: str | None,
    redirect_path: object,
) -> dict[str, Any]:
    """POST /v1/login-sessions: provision, then a link for the applicant (spec 1 §4.2)."""
    result = await provision(await session.connection(), write, applicant, label_id)
    application_id = result.application.id
    link = mint_link(
        session,
        write.runtime,
        application_id=application_id,
        member_id=result.applicant_member.id,
        redirect_path=allowed_redirect(redirect_path),
        now=write.now,
    )
    write.audit(session, "login_session.create", result.applicant_member.id, application_id)
    return {**link.view(application_id), "status": result.application.status}
