"""Provisioning: POST /v1/applications and POST /v1/login-sessions
(docs/reference/tenant-api.md §5.1, §5.2).

The identity (tenant + externalRef when nonempty, else tenant + email) is
enforced by the unique constraint on `(tenant_id, identity)`: on PostgreSQL
the first insert uses ON CONFLICT DO NOTHING and a loser re-reads the
winner's row under its lock; on SQLite the write transaction (BEGIN
IMMEDIATE) already serializes the check and the insert.

The SQL runs as Core statements on the write transaction's connection
(applications/queries/provisioning.py); this module holds the flow and the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from gatehouse.applications.queries import provisioning as store
from gatehouse.applications.queries.snapshot import Attachments, load_attachments_on
from gatehouse.applications.schemas import Application as ApplicationView
from gatehouse.applications.schemas import MemberFields, application_view
from gatehouse.applications.service.guards import enforce
from gatehouse.applications.service.links import mint_link
from gatehouse.audit.context import WriteContext
from gatehouse.domain.access import Operation
from gatehouse.domain.identity import (
    Applicant,
    allowed_redirect,
    erased_identity_candidates,
    is_bound_to_other_email,
)
from gatehouse.domain.members import Roster, check_room_for_one_more
from gatehouse.domain.principals import TenantPrincipal
from gatehouse.domain.status import ApplicationStatus
from gatehouse.errors import ALREADY_EXISTS, GatehouseError
from gatehouse.ids import new_id
from gatehouse.intakes import choose_among
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application, Member


@dataclass(slots=True)
class Provisioned:
    """The application as it stands after provisioning, and what its read shows."""

    application: Application
    applicant_member: MemberFields
    created: bool
    attachments: Attachments

    def view(self) -> ApplicationView:
        found = self.attachments
        return application_view(
            self.application, found.members, found.latest_decision, found.open_info_request
        )


def _new_application_values(
    ctx: WriteContext, tenant_id: str, applicant: Applicant, label_id: str, owner_uid: str
) -> dict[str, Any]:
    return {
        "id": new_id("app"),
        "tenant_id": tenant_id,
        "identity": applicant.identity,
        "external_ref": applicant.external_ref,
        "applicant_email": applicant.email,
        "company_name": applicant.company_name,
        "label_id": label_id,
        "status": ApplicationStatus.PENDING,
        "owner_uid": owner_uid,
        "locked": False,
        "form_data": {},
        "event_sequence": 0,
        "request_sequence": 0,
        "created_at": ctx.now,
        "updated_at": ctx.now,
        "status_changed_at": ctx.now,
    }


async def _repeat(
    connection: AsyncConnection,
    ctx: WriteContext,
    tenant: TenantPrincipal,
    application: Application,
    applicant: Applicant,
    *,
    sqlite: bool,
) -> Provisioned:
    """Rule 2: no rename, no intake change; refresh updatedAt; restore the applicant."""
    if application.erased_at is not None:
        enforce(Operation.PROVISION, tenant, application)
    if is_bound_to_other_email(application.applicant_email, applicant.email):
        raise GatehouseError(
            ALREADY_EXISTS, "This externalRef is bound to another applicant email."
        )
    enforce(Operation.PROVISION, tenant, application)
    found = await load_attachments_on(connection, application.id)
    members = found.members
    roster = Roster(
        [(m.id, m.email) for m in members], application.owner_uid, application.applicant_email
    )
    applicant_uid = roster.uid_of(applicant.email)
    new_owner: str | None = None
    member: MemberFields
    if applicant_uid is None:
        check_room_for_one_more(len(members))
        values = store.member_values(
            new_id("mem"), application.id, application.applicant_email or "", ctx.now
        )
        await store.insert_member(connection, values)
        member = Member(**values)
        # Joined now: the last in joining order.
        members = [*members, member]
        if roster.current_owner() is None:
            new_owner = application.owner_uid = member.id
    else:
        member = next(m for m in members if m.id == applicant_uid)
    audit = ctx.audit_values("application.provision", application.id, application.id)
    await store.touch(connection, application.id, ctx.now, new_owner, audit, sqlite=sqlite)
    application.updated_at = ctx.now
    attachments = Attachments(members, found.latest_decision, found.open_info_request)
    return Provisioned(application, member, False, attachments)


async def provision(
    connection: AsyncConnection,
    runtime: Runtime,
    ctx: WriteContext,
    tenant: TenantPrincipal,
    applicant: Applicant,
    label_id: str | None,
    *,
    alone: bool = False,
) -> Provisioned:
    """Create the application for this identity, or answer the existing one.

    Writes the audit entry of the provisioning itself (`application.create` or
    `application.provision`) in the caller's transaction.

    `alone`: the caller writes nothing else in this transaction. On PostgreSQL a new
    identity then needs no transaction: its lookup and intake choice are reads, and
    the application, its member and its audit entry are one statement, so they run
    on their own, without BEGIN and COMMIT (under READ COMMITTED a lookup that finds
    nothing holds no lock either way). Finding the identity, or losing it to a
    concurrent call, opens the transaction, in which the row is read again under its
    lock before the repeat is answered.
    """
    enforce(Operation.PROVISION, tenant, None)
    sqlite = runtime.db.is_sqlite
    loose = alone and not sqlite
    pseudonyms = erased_identity_candidates(runtime.crypto.hash_candidates(applicant.identity))
    existing: Application | None = None
    intakes: list[Any] | None = None
    if loose:
        existing, intakes = await store.find_with_intakes(
            connection, tenant.tenant_id, applicant.identity, pseudonyms, label_id
        )
        if existing is not None:
            # Found outside the transaction: read it again in it, under the lock.
            loose, intakes = False, None
    if not loose:
        existing = await store.lock_identity(
            connection, tenant.tenant_id, applicant.identity, pseudonyms
        )
    if existing is not None:
        return await _repeat(connection, ctx, tenant, existing, applicant, sqlite=sqlite)
    if intakes is not None:
        chosen = choose_among(intakes, tenant.tenant_id, label_id)
    else:
        chosen = await store.choose_intake(connection, tenant.tenant_id, label_id)
    member_id = new_id("mem")
    values = _new_application_values(ctx, tenant.tenant_id, applicant, chosen, member_id)
    member = store.member_values(member_id, values["id"], applicant.email or "", ctx.now)
    audit = ctx.audit_values("application.create", values["id"], values["id"])
    created = await store.create(connection, values, member, audit, sqlite=sqlite, alone=loose)
    if not created:
        # A concurrent first call committed this identity: this call is a repeat.
        existing = await store.lock_identity(
            connection, tenant.tenant_id, applicant.identity, pseudonyms
        )
        if existing is None:
            raise RuntimeError("the insert yielded to a concurrent one that cannot be found")
        return await _repeat(connection, ctx, tenant, existing, applicant, sqlite=sqlite)
    # A new application has only its applicant, no decision and no request yet.
    applicant_member = Member(**member)
    attachments = Attachments([applicant_member], None, None)
    return Provisioned(Application(**values), applicant_member, True, attachments)


async def create_application(
    connection: AsyncConnection,
    runtime: Runtime,
    ctx: WriteContext,
    tenant: TenantPrincipal,
    applicant: Applicant,
    label_id: str | None,
    *,
    alone: bool = False,
) -> tuple[int, ApplicationView]:
    """POST /v1/applications: 201 with the application, 200 on a repeat
    (docs/reference/tenant-api.md §5.1).

    `alone`: nothing else (no Idempotency-Key record) is written in this transaction.
    """
    result = await provision(connection, runtime, ctx, tenant, applicant, label_id, alone=alone)
    return (201 if result.created else 200), result.view()


async def create_login_session(
    session: AsyncSession,
    runtime: Runtime,
    ctx: WriteContext,
    tenant: TenantPrincipal,
    applicant: Applicant,
    label_id: str | None,
    redirect_path: object,
) -> dict[str, Any]:
    """POST /v1/login-sessions: provision, then a link for the applicant
    (docs/reference/tenant-api.md §5.2)."""
    connection = await session.connection()
    result = await provision(connection, runtime, ctx, tenant, applicant, label_id)
    application_id = result.application.id
    link = mint_link(
        session,
        runtime,
        application_id=application_id,
        member_id=result.applicant_member.id,
        redirect_path=allowed_redirect(redirect_path),
        now=ctx.now,
    )
    ctx.audit(session, "login_session.create", result.applicant_member.id, application_id)
    return {**link.view(application_id), "status": result.application.status}
