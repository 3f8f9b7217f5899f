"""Provisioning: POST /v1/applications and POST /v1/login-sessions
(docs/reference/tenant-api.md §5.1, §5.2).

The identity (tenant + externalRef when nonempty, else tenant + email) is
enforced by the unique constraint on `(tenant_id, identity)`: on PostgreSQL
the first insert uses ON CONFLICT DO NOTHING and a loser re-reads the
winner's row under its lock; on SQLite the write transaction (BEGIN
IMMEDIATE) already serializes the check and the insert.

The SQL is the provisioning store's (applications/queries/provisioning.py), run in the
caller's write transaction; this module holds the flow and the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from gatehouse.applications.queries.provisioning import Found, NewApplication, ProvisioningStore
from gatehouse.applications.queries.snapshot import Attachments, MemberRow
from gatehouse.applications.schemas import Application as ApplicationView
from gatehouse.applications.service.guards import enforce
from gatehouse.applications.service.links import mint_link
from gatehouse.applications.views import MemberFields, application_view
from gatehouse.audit.context import WriteContext
from gatehouse.domain.access import Operation
from gatehouse.domain.identity import (
    Applicant,
    allowed_redirect,
    erased_identity_candidates,
    is_bound_to_other_email,
)
from gatehouse.domain.members import ROLE_APPLICANT, Roster, check_room_for_one_more
from gatehouse.domain.principals import TenantPrincipal
from gatehouse.errors import ALREADY_EXISTS, GatehouseError
from gatehouse.ids import new_id
from gatehouse.intakes.service import choose_among
from gatehouse.runtime import Runtime
from gatehouse.storage.tables.applications import Application
from gatehouse.storage.tx_statements import ConnectionTx, Tx, as_tx


@dataclass(slots=True)
class Provisioned:
    """The application as it stands after provisioning, and what its read shows."""

    application: Application
    applicant_member: MemberFields
    created: bool
    attachments: Attachments

    @classmethod
    def new(cls, new: NewApplication) -> Provisioned:
        """A new application has only its applicant, no decision and no request yet."""
        member = new.applicant_member()
        return cls(new.application(), member, True, Attachments([member], None, None))

    def view(self) -> ApplicationView:
        found = self.attachments
        return application_view(
            self.application, found.members, found.latest_decision, found.open_info_request
        )


async def _repeat(
    store: ProvisioningStore,
    ctx: WriteContext,
    tenant: TenantPrincipal,
    found: Found,
    applicant: Applicant,
) -> Provisioned:
    """Rule 2: no rename, no intake change; refresh updatedAt; restore the applicant."""
    application, attachments = found.application, found.attachments
    if application is None or attachments is None:
        raise RuntimeError("a repeat needs the application found under its lock")
    if application.erased_at is not None:
        enforce(Operation.PROVISION, tenant, application)
    if is_bound_to_other_email(application.applicant_email, applicant.email):
        raise GatehouseError(
            ALREADY_EXISTS, "This externalRef is bound to another applicant email."
        )
    enforce(Operation.PROVISION, tenant, application)
    members = attachments.members
    roster = Roster(
        [(m.id, m.email) for m in members], application.owner_uid, application.applicant_email
    )
    applicant_uid = roster.uid_of(applicant.email)
    joined: MemberRow | None = None
    new_owner: str | None = None
    if applicant_uid is None:
        check_room_for_one_more(len(members))
        email = application.applicant_email or ""
        # Joined now: the last in joining order.
        joined = MemberRow(new_id("mem"), email, ROLE_APPLICANT, ctx.now)
        members = [*members, joined]
        if roster.current_owner() is None:
            new_owner = application.owner_uid = joined.id
        member: MemberFields = joined
    else:
        member = next(m for m in members if m.id == applicant_uid)
    await store.touch(ctx, application.id, joined=joined, owner_uid=new_owner)
    application.updated_at = ctx.now
    found_now = Attachments(members, attachments.latest_decision, attachments.open_info_request)
    return Provisioned(application, member, False, found_now)


async def provision(
    tx: Tx | AsyncConnection,
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
    identity then needs no transaction: its lookup and intake choice are one read, and
    the application, its member and its audit entry are one statement, so they run on
    their own, without BEGIN and COMMIT (under READ COMMITTED a lookup that finds
    nothing holds no lock either way). Finding the identity, or losing it to a
    concurrent call, opens the transaction, in which the row is read again under its
    lock before the repeat is answered.
    """
    enforce(Operation.PROVISION, tenant, None)
    pseudonyms = erased_identity_candidates(runtime.crypto.hash_candidates(applicant.identity))
    store = ProvisioningStore(as_tx(tx), tenant.tenant_id, applicant.identity, pseudonyms)
    loose = alone and not store.sqlite
    found = await store.find(label_id, locked=not loose)
    if found.application is not None and loose:
        # Found outside the transaction: read it again in it, under the lock.
        found, loose = await store.find(label_id, locked=True), False
    if found.application is None:
        chosen = choose_among(found.intakes, tenant.tenant_id, label_id)
        new = NewApplication.build(ctx, tenant.tenant_id, applicant, chosen)
        if await store.create(new, alone=loose):
            return Provisioned.new(new)
        # A concurrent first call committed this identity: this call is a repeat.
        found = await store.find(label_id, locked=True)
    return await _repeat(store, ctx, tenant, found, applicant)


async def create_application(
    tx: Tx | AsyncConnection,
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
    result = await provision(tx, runtime, ctx, tenant, applicant, label_id, alone=alone)
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
    tx = ConnectionTx(await session.connection())
    result = await provision(tx, runtime, ctx, tenant, applicant, label_id)
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
